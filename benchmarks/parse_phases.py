"""
Command-line entry point of `seqgraph_experiments.benchmarks.parse_phases`, where the code and its
documentation live.
"""
from seqgraph_experiments.benchmarks.parse_phases import main

if __name__ == "__main__":
    main()
