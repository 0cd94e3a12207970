"""Command-line entry point of `seqgraph_experiments.layer_probe`, where the code and its documentation live."""
from seqgraph_experiments.layer_probe import main

if __name__ == "__main__":
    main()
