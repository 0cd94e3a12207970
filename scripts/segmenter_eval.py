"""Command-line entry point of `seqgraph_experiments.segmenter_eval`, where the code and its documentation live."""
from seqgraph_experiments.segmenter_eval import main

if __name__ == "__main__":
    main()
