"""
Command-line entry point of `seqgraph_experiments.benchmarks.bf16_inference`, where the code and its
documentation live.
"""
from seqgraph_experiments.benchmarks.bf16_inference import main

if __name__ == "__main__":
    main()
