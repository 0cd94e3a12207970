"""
Time one training epoch on UD English-EWT (train 12,544 sentences, then validation on dev 2,001) for the
shipped configs, one after the other, and write the numbers to benchmarks/results/epoch_time.json and
benchmarks/results/epoch_time.md.

    .venv/bin/python benchmarks/epoch_time.py [coach_valid one_step biaffine_mst]

Every config runs as shipped (its batch size, encoder, optimiser) with `trainer.num_epochs = 1`; the time
is the trainer's own epoch duration (training pass plus validation), read from its log. Run nothing else on
the machine meanwhile: the numbers are wall-clock times.
"""
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "epoch_time.md"
RESULTS_JSON = RESULTS.with_suffix(".json")


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def run(name: str) -> dict:
    out = ROOT / "benchmarks" / "out" / name
    command = [
        str(ROOT / ".venv" / "bin" / "allennlp"), "train", f"training_config/{name}.jsonnet",
        "-s", str(out), "-f", "--include-package", "seqgraph_allennlp",
        "-o", '{"trainer.num_epochs": 1}',
    ]
    start = time.time()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    wall = time.time() - start
    if result.returncode != 0:
        sys.exit(f"{name}: allennlp train failed:\n{result.stderr[-3000:]}")
    # the trainer logs to out.log in the serialization directory (and to stdout)
    log = (out / "out.log").read_text()
    epoch = re.findall(r"Epoch duration: (\d+):(\d+):([\d.]+)", log)
    # the training pass alone: the time stamp of the validation's first progress line minus the training's
    stamps = re.findall(r"^(\S+ \S+) - INFO - allennlp.training.gradient_descent_trainer - (Training|Validating)$",
                        log, flags=re.MULTILINE)
    hours, minutes, seconds = epoch[-1]
    epoch_seconds = int(hours) * 3600 + int(minutes) * 60 + float(seconds)
    metrics = json.loads((out / "metrics.json").read_text())
    times = {kind: datetime.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f") for stamp, kind in stamps}
    training_seconds = (
        (times["Validating"] - times["Training"]).total_seconds() if len(times) == 2 else None
    )
    return {
        "name": name,
        "epoch_seconds": epoch_seconds,
        "training_pass_seconds": training_seconds,
        "validation_seconds": epoch_seconds - training_seconds if training_seconds is not None else None,
        "wall_seconds": wall,
        "validation_UAS": metrics.get("validation_UAS"),
        "encoder": json.loads((out / "config.json").read_text())["model"]["encoder"]["type"],
    }


def git_commit() -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def main(names):
    rows = [run(name) for name in names]
    baseline = next((row for row in rows if row["name"] == "biaffine_mst"), None)
    for row in rows:
        if baseline is not None and row["training_pass_seconds"] and baseline["training_pass_seconds"]:
            row["training_pass_ratio_to_biaffine_mst"] = row["training_pass_seconds"] / baseline["training_pass_seconds"]
    RESULTS_JSON.parent.mkdir(parents=True, exist_ok=True)
    RESULTS_JSON.write_text(json.dumps({
        "rows": rows,
        "data": "data/UD_English-EWT (UD 2.16): train 12,544 sentences, validation on dev 2,001",
        "settings": "each shipped config as is, -o '{\"trainer.num_epochs\": 1}'",
        "command": ".venv/bin/python benchmarks/epoch_time.py " + " ".join(names),
        "git_commit": git_commit(),
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "machine": {"cpu_cores": os.cpu_count(), "cpu": cpu_model(), "gpu": None,
                    "torch": torch.__version__, "torch_threads": torch.get_num_threads()},
    }, indent=2) + "\n")
    lines = [
        "# Time per training epoch on UD English-EWT",
        "",
        f"- date: {datetime.date.today().isoformat()}",
        f"- machine: {os.cpu_count()} CPU cores ({cpu_model()}), no GPU; torch {torch.__version__}, "
        f"{torch.get_num_threads()} intra-op threads",
        "- data: data/UD_English-EWT (UD 2.16), train 12,544 sentences / 204,577 words; validation on dev "
        "(2,001 sentences)",
        "- settings: each shipped config as is (3-layer BiLSTM 400, batches of 32 sentences bucketed by "
        "length), `-o '{\"trainer.num_epochs\": 1}'`",
        "- command: `.venv/bin/python benchmarks/epoch_time.py " + " ".join(names) + "`",
        "- epoch = the trainer's 'Epoch duration' (training pass + validation on dev); wall = whole "
        "`allennlp train` command (reading data, vocabulary, archiving included)",
        "",
        "| config | encoder | epoch (min) | training pass (min) | training pass / biaffine_mst's | validation (min) "
        "| wall (min) | dev UAS after 1 epoch |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['name']} | {row['encoder']} | {row['epoch_seconds'] / 60:.2f} | "
            f"{(row['training_pass_seconds'] or 0) / 60:.2f} | "
            f"{row.get('training_pass_ratio_to_biaffine_mst', float('nan')):.2f} | "
            f"{(row['validation_seconds'] or 0) / 60:.2f} | "
            f"{row['wall_seconds'] / 60:.2f} | {row['validation_UAS']:.4f} |"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1:] or ["coach_valid", "one_step", "biaffine_mst"])
