"""Command-line entry point of `seqgraph_experiments.plot_curves`, where the code and its documentation live."""
from seqgraph_experiments.plot_curves import main

if __name__ == "__main__":
    main()
