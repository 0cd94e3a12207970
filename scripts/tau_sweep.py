"""Command-line entry point of `seqgraph_experiments.tau_sweep`, where the code and its documentation live."""
from seqgraph_experiments.tau_sweep import main

if __name__ == "__main__":
    main()
