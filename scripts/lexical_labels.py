"""Command-line entry point of `seqgraph_experiments.lexical_labels`, where the code and its documentation live."""
from seqgraph_experiments.lexical_labels import main

if __name__ == "__main__":
    main()
