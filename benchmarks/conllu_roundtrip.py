"""
Command-line entry point of `seqgraph_experiments.benchmarks.conllu_roundtrip`, where the code and its
documentation live.
"""
from seqgraph_experiments.benchmarks.conllu_roundtrip import main

if __name__ == "__main__":
    main()
