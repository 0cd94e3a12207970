"""
Records what a `make english-model` run gave (issue 43: its time and test scores), from its model directory:
the config it used, each epoch's dev UAS / LAS (the trainer's `metrics_epoch_N.json`) and seconds (validation
included; the trainer's log, `trainer_log.epoch_seconds`), the epoch
kept, the test scores of `allennlp evaluate` (`test_metrics.json`), and the run's wall time as
`scripts/english_model.sh` printed it. Writes results/english_model.json (or `--output`).

    .venv/bin/python scripts/english_model_record.py --model-dir models/english --wall-minutes 97 \\
        --note 'what else ran on the machine meanwhile'

The note must say whether the machine was quiet: the wall time is a measurement only then.
"""
import argparse
import json
import re
from pathlib import Path

from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.provenance import stamp
from seqgraph_experiments.results import RESULTS, write_json
from seqgraph_experiments.trainer_log import epoch_seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model-dir", default="models/english")
    parser.add_argument("--wall-minutes", type=float, required=True,
                        help="the minutes scripts/english_model.sh printed at its end")
    parser.add_argument("--note", required=True, help="what else the machine did meanwhile (quiet or not)")
    parser.add_argument("--output", default=str(RESULTS / "english_model.json"))
    args = parser.parse_args()
    directory = Path(args.model_dir)
    refuse_missing_files(parser, [str(directory / name) for name in ("config.json", "test_metrics.json")])
    epochs = sorted(directory.glob("metrics_epoch_*.json"), key=lambda path: int(re.findall(r"\d+", path.name)[-1]))
    durations = epoch_seconds(directory)
    if len(durations) != len(epochs):
        raise SystemExit(f"{directory}: {len(epochs)} epochs' metrics but {len(durations)} epoch durations in its log")
    curve = []
    for path, duration in zip(epochs, durations):
        metrics = json.loads(path.read_text())
        curve.append({"epoch": metrics["epoch"] + 1, "dev_UAS": metrics["validation_UAS"],
                      "dev_LAS": metrics["validation_LAS"], "seconds": duration})
    last = json.loads(epochs[-1].read_text())
    used = json.loads((directory / "config.json").read_text())
    test = json.loads((directory / "test_metrics.json").read_text())
    write_json(Path(args.output), {
        "what": "a make english-model run (scripts/english_model.sh): its config, learning curve, the epoch kept "
                "and allennlp evaluate's test scores (CoNLL 2018, every word)",
        "model_dir": str(directory),
        "used": used,
        "budget": {"epochs": used["trainer"]["num_epochs"], "patience": used["trainer"]["patience"]},
        "epochs_done": len(curve),
        "training_seconds": sum(durations),
        "best_epoch": last["best_epoch"] + 1,
        "best_dev": {"UAS": last["best_validation_UAS"], "LAS": last["best_validation_LAS"]},
        "curve": curve,
        "test": {metric: test[metric] for metric in ("UAS", "LAS", "UPOS") if metric in test},
        "wall_minutes": args.wall_minutes,
        "note": args.note,
        **stamp("scripts/english_model_record.py"),
    })


if __name__ == "__main__":
    main()
