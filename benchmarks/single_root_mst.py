"""
Command-line entry point of `seqgraph_experiments.benchmarks.single_root_mst`, where the code and its
documentation live.
"""
from seqgraph_experiments.benchmarks.single_root_mst import main

if __name__ == "__main__":
    main()
