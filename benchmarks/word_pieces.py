"""
Command-line entry point of `seqgraph_experiments.benchmarks.word_pieces`, where the code and its
documentation live.
"""
from seqgraph_experiments.benchmarks.word_pieces import main

if __name__ == "__main__":
    main()
