"""
Command-line entry point of `seqgraph_experiments.benchmarks.bf16_labels`, where the code and its
documentation live.
"""
from seqgraph_experiments.benchmarks.bf16_labels import main

if __name__ == "__main__":
    main()
