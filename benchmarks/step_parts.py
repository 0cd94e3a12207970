"""
Command-line entry point of `seqgraph_experiments.benchmarks.step_parts`, where the code and its
documentation live.
"""
from seqgraph_experiments.benchmarks.step_parts import main

if __name__ == "__main__":
    main()
