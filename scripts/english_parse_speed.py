"""Command-line entry point of `seqgraph_experiments.english_parse_speed`, where the code and its documentation live."""
from seqgraph_experiments.english_parse_speed import main

if __name__ == "__main__":
    main()
