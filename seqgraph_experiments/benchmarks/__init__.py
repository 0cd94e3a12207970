"""
The benchmarks: training and parsing time (`epoch_time`, `profile_train`, `profile_parse`), raw-text parsing
(`raw_text_speed`), and the parser service under load against `allennlp predict` (`serve_load`). The one-off
benchmarks whose results are committed retired (docs/EXPERIMENTS.md, "Retired tools").
Each writes its numbers to results/benchmarks/<name>.json (the profiles print theirs, for py-spy) and is
run through `benchmarks/<name>.py` or `python -m seqgraph_experiments.benchmarks.<name>`; their models and
predictions go to benchmarks/out/ (not committed). docs/BENCHMARKS.md reads the numbers.
"""
from seqgraph_experiments import ROOT

# the benchmarks' serialization directories and predictions (not committed)
RUNS = ROOT / "benchmarks" / "out"
