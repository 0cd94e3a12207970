"""
Command-line entry point of `seqgraph_experiments.benchmarks.epoch_time`, where the code and its
documentation live.
"""
from seqgraph_experiments.benchmarks.epoch_time import main

if __name__ == "__main__":
    main()
