"""Command-line entry point of `seqgraph_experiments.tokenisation_f1`, where the code and its documentation live."""
from seqgraph_experiments.tokenisation_f1 import main

if __name__ == "__main__":
    main()
