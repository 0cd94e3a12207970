"""
Command-line entry point of `seqgraph_experiments.benchmarks.model_thread`, where the code and its
documentation live.
"""
from seqgraph_experiments.benchmarks.model_thread import main

if __name__ == "__main__":
    main()
