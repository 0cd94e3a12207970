"""
Time one training epoch on UD English-EWT (train 12,544 sentences, then validation on dev 2,001) for the
shipped configs, one after the other, and write the numbers to results/benchmarks/epoch_time.json (the
table is printed; docs/BENCHMARKS.md reads it).

    .venv/bin/python benchmarks/epoch_time.py [coach_valid one_step biaffine_mst]
    .venv/bin/python benchmarks/epoch_time.py coach_valid \
        'coach_valid_bf16=coach_valid@{"model.encoder.bfloat16_training": true}' biaffine_mst

Every config runs as shipped (its batch size, encoder, optimiser) with `trainer.num_epochs = 1`, or with
the dotted overrides of a row written as for `scripts/run_experiments.py` (`NAME=CONFIG@{...}`); the time
is the trainer's own epoch duration (training pass plus validation), read from its log. The models stay in
benchmarks/out/<config>/ (`scripts/bench_speed.py` times them). Run nothing else on the machine meanwhile:
the numbers are wall-clock times.
"""
import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

import torch

from seqgraph_experiments import ROOT, commands, markdown
from seqgraph_experiments.benchmarks import RUNS
from seqgraph_experiments.provenance import machine, stamp
from seqgraph_experiments.results import BENCHMARKS, read_json, write_json
from seqgraph_experiments.rows import parse_row
from seqgraph_experiments.trainer_log import epoch_durations, read_log, training_pass_seconds

RESULT = BENCHMARKS / "epoch_time.json"
DEFAULT_CONFIGS = ["coach_valid", "one_step", "biaffine_mst"]


def run(spec: str) -> Dict:
    name, config, overrides, ext_vars = parse_row(spec)
    out = RUNS / name
    command = commands.train(config, out, {**overrides, "trainer.num_epochs": 1}, flags=["-f"])
    start = time.time()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env={**os.environ, **ext_vars})
    wall = time.time() - start
    if result.returncode != 0:
        sys.exit(f"{name}: allennlp train failed:\n{result.stderr[-3000:]}")
    log = read_log(out)
    epoch_seconds = epoch_durations(log)[-1]
    training_seconds = training_pass_seconds(log)
    return {
        "name": name,
        "config": config,
        "overrides": overrides,
        "epoch_seconds": epoch_seconds,
        "training_pass_seconds": training_seconds,
        "validation_seconds": epoch_seconds - training_seconds if training_seconds is not None else None,
        "wall_seconds": wall,
        "validation_UAS": read_json(out / "metrics.json").get("validation_UAS"),
        "encoder": read_json(out / "config.json")["model"]["encoder"]["type"],
    }


def table(result: Dict) -> List[str]:
    """The rows of a results JSON as a Markdown table, in minutes."""
    header = ["config", "encoder", "epoch (min)", "training pass (min)", "training pass / biaffine_mst's",
              "validation (min)", "wall (min)", "dev UAS after 1 epoch"]
    return markdown.table(header, ([
        row["name"], row["encoder"], f"{row['epoch_seconds'] / 60:.2f}",
        f"{(row['training_pass_seconds'] or 0) / 60:.2f}",
        f"{row.get('training_pass_ratio_to_biaffine_mst', float('nan')):.2f}",
        f"{(row['validation_seconds'] or 0) / 60:.2f}", f"{row['wall_seconds'] / 60:.2f}",
        f"{row['validation_UAS']:.4f}",
    ] for row in result["rows"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rows", nargs="*", default=DEFAULT_CONFIGS,
                        help=f"shipped config names or NAME=CONFIG@{{dotted overrides}} (default: {' '.join(DEFAULT_CONFIGS)})")
    parser.add_argument("--output", default=str(RESULT),
                        help="where the JSON goes, so that a later run does not replace an earlier one's rows "
                             f"(default: {RESULT.relative_to(ROOT)})")
    args = parser.parse_args()
    for spec in args.rows:  # every row checked before the first one trains
        parse_row(spec)
    rows = [run(spec) for spec in args.rows]
    baseline = next((row for row in rows if row["name"] == "biaffine_mst"), None)
    for row in rows:
        if baseline is not None and row["training_pass_seconds"] and baseline["training_pass_seconds"]:
            row["training_pass_ratio_to_biaffine_mst"] = row["training_pass_seconds"] / baseline["training_pass_seconds"]
    result = {
        "rows": rows,
        "data": "data/UD_English-EWT (UD 2.16): train 12,544 sentences, validation on dev 2,001",
        "settings": "each config as shipped with its row's dotted overrides, -o '{\"trainer.num_epochs\": 1}'",
        **stamp("benchmarks/epoch_time.py"),
        # the torch that ran, beside the machine
        "machine": {**machine(), "torch": torch.__version__, "torch_threads": torch.get_num_threads()},
    }
    print("\n".join(table(result)))
    print(f"wrote {write_json(Path(args.output), result)}")


if __name__ == "__main__":
    main()
