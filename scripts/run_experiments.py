"""Command-line entry point of `seqgraph_experiments.run_experiments`, where the code and its documentation live."""
from seqgraph_experiments.run_experiments import main

if __name__ == "__main__":
    main()
