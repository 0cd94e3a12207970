"""Command-line entry point of `seqgraph_experiments.bench_speed`, where the code and its documentation live."""
from seqgraph_experiments.bench_speed import main

if __name__ == "__main__":
    main()
