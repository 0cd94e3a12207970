"""Command-line entry point of `seqgraph_experiments.enhanced_rescore`, where the code and its documentation live."""
from seqgraph_experiments.enhanced_rescore import main

if __name__ == "__main__":
    main()
