"""
Command-line entry point of `seqgraph_experiments.features_accuracy`, where the code and its documentation
live.
"""
from seqgraph_experiments.features_accuracy import main

if __name__ == "__main__":
    main()
