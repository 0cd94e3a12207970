"""Command-line entry point of `seqgraph_experiments.check_collapse`, where the code and its documentation live."""
from seqgraph_experiments.check_collapse import main

if __name__ == "__main__":
    main()
