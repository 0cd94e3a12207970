"""
Command-line entry point of `seqgraph_experiments.benchmarks.profile_parse`, where the code and its
documentation live.
"""
from seqgraph_experiments.benchmarks.profile_parse import main

if __name__ == "__main__":
    main()
