"""
Learning curves: dev UAS against epochs and against training minutes, one line per row of a results
section, from the `curve` that scripts/run_experiments.py writes into each results JSON (rows still
training are read from their serialization directories under experiments/<section>/ and marked so).

    .venv/bin/python scripts/plot_curves.py --section ewt_converged -o docs/curves_ewt.png

Minutes are the sum of the epochs' durations (training pass and validation) as the trainer logged them.
"""
import argparse
import sys
from pathlib import Path
from typing import Dict, List

from seqgraph_experiments import RESULTS, RUNS
from seqgraph_experiments.results import read_json
from seqgraph_experiments.rows import run_name
from seqgraph_experiments.runner import learning_curve


def read_curves(section: str) -> Dict[str, List[Dict]]:
    """Run name (the row, `.seedK` for seed K) -> its curve; finished runs from results/<section>/, running ones
    from experiments/."""
    curves: Dict[str, List[Dict]] = {}
    for path in sorted((RESULTS / section).glob("*.json")):
        result = read_json(path)
        if result.get("curve"):
            curves[run_name(result["row"], result.get("seed", 0))] = result["curve"]
    for model_dir in sorted((RUNS / section).glob("*/model")):
        row = model_dir.parent.name
        if row not in curves:
            curve = learning_curve(model_dir)
            if curve:
                curves[f"{row} (training)"] = curve
    return curves


def plot(curves: Dict[str, List[Dict]], title: str, output: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (by_epoch, by_minutes) = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for row, curve in curves.items():
        epochs = [point["epoch"] for point in curve]
        uas = [100 * point["dev_UAS"] for point in curve]
        line, = by_epoch.plot(epochs, uas, marker=".", label=row)
        minutes, total = [], 0.0
        for point in curve:
            if point.get("seconds") is None:
                break
            total += point["seconds"] / 60
            minutes.append(total)
        if minutes:
            by_minutes.plot(minutes, uas[: len(minutes)], marker=".", color=line.get_color())
    by_epoch.set_xlabel("epoch")
    by_epoch.set_ylabel("dev UAS (CoNLL 2018, all words)")
    by_minutes.set_xlabel("training minutes (2 CPU cores)")
    for axes in (by_epoch, by_minutes):
        axes.grid(alpha=0.3)
    by_epoch.legend(fontsize=8)
    figure.suptitle(title)
    figure.tight_layout()
    output.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(output, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--section", required=True, help="results/<section>/ (e.g. ewt_converged)")
    parser.add_argument("-o", "--output", type=Path, required=True, help="PNG file to write")
    parser.add_argument("--title", default=None)
    args = parser.parse_args()
    curves = read_curves(args.section)
    if not curves:
        sys.exit(f"no learning curves in results/{args.section}/ or experiments/{args.section}/")
    plot(curves, args.title or f"Dev UAS during training ({args.section})", args.output)
    print(f"wrote {args.output} ({len(curves)} rows)")


if __name__ == "__main__":
    main()
