"""
Command-line entry point of `seqgraph_experiments.enhanced_errors`, where the code and its documentation live.
"""
from seqgraph_experiments.enhanced_errors import main

if __name__ == "__main__":
    main()
