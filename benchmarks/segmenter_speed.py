"""
Command-line entry point of `seqgraph_experiments.benchmarks.segmenter_speed`, where the code and its
documentation live.
"""
from seqgraph_experiments.benchmarks.segmenter_speed import main

if __name__ == "__main__":
    main()
