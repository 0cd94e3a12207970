"""
Command-line entry point of `seqgraph_experiments.epoch_screen`, where the code and its documentation live.
"""
from seqgraph_experiments.epoch_screen import main

if __name__ == "__main__":
    main()
