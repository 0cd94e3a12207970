"""
Command-line entry point of `seqgraph_experiments.benchmarks.api_batch_size`, where the code and its
documentation live.
"""
from seqgraph_experiments.benchmarks.api_batch_size import main

if __name__ == "__main__":
    main()
