"""
The `allennlp` command lines the tools run (train, evaluate, predict to CoNLL-U), with the project's
components (`--include-package seqgraph_allennlp`), written once so that every tool runs them alike.
"""
import json
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Union

from seqgraph_experiments import ROOT

ALLENNLP = str(ROOT / ".venv" / "bin" / "allennlp")
PACKAGE = ["--include-package", "seqgraph_allennlp"]


def train(config: Union[str, Path], serialization_dir: Path, overrides: Dict, flags: Sequence[str] = ()) -> List[str]:
    """
    `allennlp train` of training_config/CONFIG.jsonnet (relative to the repository, the tools' cwd), or of
    the parameter file `config` when it is a `Path` (a run's own config.json).
    """
    config_file = str(config) if isinstance(config, Path) else f"training_config/{config}.jsonnet"
    return [ALLENNLP, "train", config_file, "-s", str(serialization_dir), *PACKAGE, *flags, "-o", json.dumps(overrides)]


def evaluate(archive: Path, input_file: Path, output_file: Path) -> List[str]:
    return [ALLENNLP, "evaluate", str(archive), str(input_file), *PACKAGE, "--output-file", str(output_file)]


def predict_conllu(archive: str, input_file: str, output_file: str, batch_size: int,
                   predictor_args: Optional[Dict] = None, overrides: str = "") -> List[str]:
    """`allennlp predict` of a CoNLL-U file (its own reader) to CoNLL-U with the `seqgraph_parser` predictor."""
    args = {"output_format": "conllu", **(predictor_args or {})}
    return [ALLENNLP, "predict", str(archive), str(input_file), *PACKAGE, "--predictor", "seqgraph_parser",
            "--use-dataset-reader", "--predictor-args", json.dumps(args), "--output-file", str(output_file),
            "--silent", "--batch-size", str(batch_size)] + (["-o", overrides] if overrides else [])
