"""Command-line entry point of `seqgraph_experiments.tree_copy`, where the code and its documentation live."""
from seqgraph_experiments.tree_copy import main

if __name__ == "__main__":
    main()
