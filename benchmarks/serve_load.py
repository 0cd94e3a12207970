"""
Command-line entry point of `seqgraph_experiments.benchmarks.serve_load`, where the code and its
documentation live.
"""
from seqgraph_experiments.benchmarks.serve_load import main

if __name__ == "__main__":
    main()
