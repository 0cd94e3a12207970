"""
Command-line entry point of `seqgraph_experiments.benchmarks.profile_train`, where the code and its
documentation live.
"""
from seqgraph_experiments.benchmarks.profile_train import main

if __name__ == "__main__":
    main()
