"""
Command-line entry point of `seqgraph_experiments.benchmarks.startup`, where the code and its
documentation live.
"""
from seqgraph_experiments.benchmarks.startup import main

if __name__ == "__main__":
    main()
