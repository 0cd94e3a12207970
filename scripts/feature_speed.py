"""Command-line entry point of `seqgraph_experiments.feature_speed`, where the code and its documentation live."""
from seqgraph_experiments.feature_speed import main

if __name__ == "__main__":
    main()
