"""
Train several shipped configs on one treebank with the same budget and score each on dev and test under the
CoNLL 2018 definition (every word, punctuation included): a small-scale version of the paper's Table 1.

    .venv/bin/python benchmarks/compare_configs.py --name welsh --epochs 8 \\
        --train data/UD_Welsh-CCG/cy_ccg-ud-train.conllu --dev data/UD_Welsh-CCG/cy_ccg-ud-dev.conllu \\
        --test data/UD_Welsh-CCG/cy_ccg-ud-test.conllu one_step uniform coach_valid biaffine_mst

Each config runs as shipped (3-layer BiLSTM 400, Adam 2e-3, batches of 32) except `trainer.num_epochs`
(and no early stopping inside that budget); the model with the best dev UAS is kept and evaluated on test
with `allennlp evaluate`. Seeds are AllenNLP's defaults, so a rerun gives the same numbers on the same
machine. Writes benchmarks/results/compare_<name>.md.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ALLENNLP = str(ROOT / ".venv" / "bin" / "allennlp")


def run(command, log_path: Path) -> None:
    with open(log_path, "w") as log:
        result = subprocess.run(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(command)} (see {log_path})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("configs", nargs="+")
    parser.add_argument("--name", required=True)
    parser.add_argument("--epochs", type=int, required=True)
    parser.add_argument("--train", required=True)
    parser.add_argument("--dev", required=True)
    parser.add_argument("--test", required=True)
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep the results of configs already trained and evaluated in benchmarks/out/compare_NAME/",
    )
    args = parser.parse_args()

    rows = []
    for config in args.configs:
        out = ROOT / "benchmarks" / "out" / f"compare_{args.name}" / config
        out.mkdir(parents=True, exist_ok=True)
        if args.reuse and (out / "test_metrics.json").exists():
            metrics = json.loads((out / "model" / "metrics.json").read_text())
            test = json.loads((out / "test_metrics.json").read_text())
            minutes_file = out / "minutes.txt"
            minutes = float(minutes_file.read_text()) if minutes_file.exists() else None
            rows.append((config, metrics, test, minutes))
            continue
        overrides = json.dumps(
            {
                "train_data_path": args.train,
                "validation_data_path": args.dev,
                "test_data_path": args.test,
                "trainer": {"num_epochs": args.epochs, "patience": None},
            }
        )
        start = time.time()
        run(
            [ALLENNLP, "train", f"training_config/{config}.jsonnet", "-s", str(out / "model"), "-f",
             "--include-package", "seqgraph_allennlp", "--file-friendly-logging", "-o", overrides],
            out / "train.log",
        )
        minutes = (time.time() - start) / 60
        (out / "minutes.txt").write_text(f"{minutes:.2f}")
        metrics = json.loads((out / "model" / "metrics.json").read_text())
        run(
            [ALLENNLP, "evaluate", str(out / "model" / "model.tar.gz"), args.test,
             "--include-package", "seqgraph_allennlp", "--output-file", str(out / "test_metrics.json")],
            out / "evaluate.log",
        )
        test = json.loads((out / "test_metrics.json").read_text())
        rows.append((config, metrics, test, minutes))
        print(config, metrics["best_validation_UAS"], test["UAS"], flush=True)

    lines = [
        f"# {args.name}: shipped configs with the same budget ({args.epochs} epochs)",
        "",
        f"- date: {datetime.date.today().isoformat()}; machine: {os.cpu_count()} CPU cores, no GPU",
        f"- data: train `{args.train}`, dev `{args.dev}`, test `{args.test}`",
        f"- settings: each config as shipped, `trainer.num_epochs = {args.epochs}`, no early stopping; the "
        "epoch with the best dev UAS is kept and evaluated on test",
        "- scores: CoNLL 2018 (every word, punctuation included; LAS on universal relations), in %",
        "- command: `.venv/bin/python benchmarks/compare_configs.py " + " ".join(sys.argv[1:]) + "`",
        "- training time is wall-clock on a machine that may have been running other work",
        "",
        "| config | best epoch | dev UAS | dev LAS | test UAS | test LAS | test UEM | training time (min) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for config, metrics, test, minutes in rows:
        lines.append(
            f"| {config} | {metrics['best_epoch'] + 1} | {100 * metrics['best_validation_UAS']:.2f} | "
            f"{100 * metrics['best_validation_LAS']:.2f} | {100 * test['UAS']:.2f} | {100 * test['LAS']:.2f} | "
            f"{100 * test['UEM']:.2f} | {'n/a' if minutes is None else f'{minutes:.0f}'} |"
        )
    results = ROOT / "benchmarks" / "results" / f"compare_{args.name}.md"
    results.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
