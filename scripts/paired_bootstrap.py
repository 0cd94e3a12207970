"""Command-line entry point of `seqgraph_experiments.paired_bootstrap`, where the code and its documentation live."""
from seqgraph_experiments.paired_bootstrap import main

if __name__ == "__main__":
    main()
