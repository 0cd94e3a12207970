"""Command-line entry point of `seqgraph_experiments.easy_first`, where the code and its documentation live."""
from seqgraph_experiments.easy_first import main

if __name__ == "__main__":
    main()
