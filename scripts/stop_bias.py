"""
Command-line entry point of `seqgraph_experiments.stop_bias`, where the code and its documentation live.
"""
from seqgraph_experiments.stop_bias import main

if __name__ == "__main__":
    main()
