"""
A screen of one change against its baseline: two training runs on the same data with the same seed, compared
epoch by epoch on their dev metrics (each serialization directory's `metrics_epoch_N.json`) over the epochs that
both have, with the differences (change minus baseline) and every setting in which their `config.json` differ,
so that the JSON shows it was one change. For deciding whether a change is worth a run to convergence, not a
result at convergence:

    .venv/bin/python scripts/epoch_screen.py --baseline RUN_DIR --change RUN_DIR [--epochs 5] \\
        [--metrics ELAS EULAS LAS UAS] --out results/enhanced/screens/NAME.json

The baseline may also be a row's results JSON (`results/enhanced/ROW.json`, written by `enhanced_eval`), whose
`curve` keeps its run's dev metrics by epoch and `used_config` its config, for a baseline whose serialization
directory is gone.
"""
import argparse
import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from seqgraph_experiments.enhanced_eval import flatten
from seqgraph_experiments.provenance import stamp
from seqgraph_experiments.results import read_json, write_json

# the epochs compared come before either run's last one: the budget does not change them (no schedule reads it)
IGNORED_SETTINGS = ("trainer.num_epochs",)


def config_differences(baseline: Dict[str, Any], change: Dict[str, Any]) -> Dict[str, List[Any]]:
    """The settings whose values differ, `[baseline's, change's]` (`None` where a config lacks the setting)."""
    one, other = flatten(baseline), flatten(change)
    return {key: [one.get(key), other.get(key)] for key in sorted(set(one) | set(other))
            if one.get(key) != other.get(key) and key not in IGNORED_SETTINGS}


def epoch_metrics(run: Path, epochs: int, metrics: Sequence[str]) -> List[Dict[str, float]]:
    rows = []
    for epoch in range(epochs):
        path = run / f"metrics_epoch_{epoch}.json"
        if not path.is_file():
            raise SystemExit(f"epoch_screen: {path} is missing: {run} has fewer than {epochs} epochs")
        found = read_json(path)
        rows.append({metric: 100 * found[f"validation_{metric}"] for metric in metrics})
    return rows


def row_epoch_metrics(row: Path, epochs: int, metrics: Sequence[str]) -> Tuple[List[Dict[str, float]], Dict]:
    """A results row's dev metrics of its first `epochs` epochs (its `curve`) and the config its run used."""
    found = read_json(row)
    curve = found["curve"]
    if len(curve) < epochs:
        raise SystemExit(f"epoch_screen: {row} has a curve of {len(curve)} epochs, fewer than {epochs}")
    # the curve counts epochs from 1, metrics_epoch_N.json from 0
    assert [entry["epoch"] for entry in curve[:epochs]] == list(range(1, epochs + 1))
    return [{metric: 100 * curve[epoch][f"dev_{metric}"] for metric in metrics} for epoch in range(epochs)], \
        found["used_config"]


def screen(baseline: Path, change: Path, epochs: int, metrics: Sequence[str]) -> Dict[str, Any]:
    """`baseline`: a serialization directory, or a results row's JSON (`row_epoch_metrics`)."""
    if baseline.is_file():
        baseline_metrics, baseline_config = row_epoch_metrics(baseline, epochs, metrics)
    else:
        baseline_metrics = epoch_metrics(baseline, epochs, metrics)
        baseline_config = read_json(baseline / "config.json")
    runs = {"baseline": baseline_metrics, "change": epoch_metrics(change, epochs, metrics)}
    differences = [{metric: runs["change"][epoch][metric] - runs["baseline"][epoch][metric] for metric in metrics}
                   for epoch in range(epochs)]
    return {
        "what": "dev metrics per epoch (percent) of a change and its baseline, same data and seed; a screen",
        "baseline": str(baseline), "change": str(change),
        "config_differences": config_differences(baseline_config, read_json(change / "config.json")),
        "epochs": epochs, "metrics": list(metrics),
        "baseline_dev": runs["baseline"], "change_dev": runs["change"], "change_minus_baseline": differences,
        "mean_change_minus_baseline": {metric: sum(row[metric] for row in differences) / epochs for metric in metrics},
    }


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", required=True,
                        help="the baseline's serialization directory, or a results row's JSON (its curve)")
    parser.add_argument("--change", required=True, help="the changed run's serialization directory")
    parser.add_argument("--epochs", type=int, default=5, help="compare epochs 0 .. N-1 (default: %(default)s)")
    parser.add_argument("--metrics", nargs="+", default=["ELAS", "EULAS", "LAS", "UAS"])
    parser.add_argument("--out", required=True, help="the JSON to write")
    args = parser.parse_args(argv)
    missing = [path for path in (args.baseline, args.change) if not (Path(path) / "config.json").is_file()
               and not (path == args.baseline and Path(path).is_file())]
    if missing:
        parser.error(f"not a serialization directory (no config.json): {', '.join(missing)}")
    result = screen(Path(args.baseline), Path(args.change), args.epochs, args.metrics)
    write_json(Path(args.out), {**result, **stamp("scripts/epoch_screen.py")})
    print(json.dumps(result["config_differences"]))
    for epoch, row in enumerate(result["change_minus_baseline"]):
        print(epoch, " ".join(f"{metric} {value:+.2f}" for metric, value in row.items()))


if __name__ == "__main__":
    main()
