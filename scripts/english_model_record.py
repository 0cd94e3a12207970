"""
Command-line entry point of `seqgraph_experiments.english_model_record`, where the code and its documentation
live.
"""
from seqgraph_experiments.english_model_record import main

if __name__ == "__main__":
    main()
