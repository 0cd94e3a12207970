"""
The experiment and benchmark tools of seqgraph-allennlp, kept out of the parser (`seqgraph_allennlp`):
they train and score configs, write one JSON per result under results/ and the reports under docs/.

Each tool is a module with a `main()`: `python -m seqgraph_experiments.<tool>` (the benchmarks:
`seqgraph_experiments.benchmarks.<tool>`), or its thin entry point `scripts/<tool>.py`
(`benchmarks/<tool>.py`), the path that the commands recorded in results/ and docs/ name. The other
modules are their shared helpers: `rows` (the row syntax), `treebanks`, `runner` (training and scoring a
row), `report` (docs/RESULTS.md), `results` (where results live, how they are written), `provenance`
(commit, machine, date, command line), `commands` (the allennlp command lines), `trainer_log`,
`instances` (a file read by a model's reader), `raw_text` (raw text rebuilt from a treebank, udeval),
`arguments` (checks of the tools' arguments) and `markdown`.

The tools work inside the repository (an editable install): they read training_config/ and data/ and
write results/, docs/ and experiments/ there.
"""
from pathlib import Path

# the repository this package sits in
ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
DOCS = ROOT / "docs"
# serialization directories of the runs (not committed)
RUNS = ROOT / "experiments"
