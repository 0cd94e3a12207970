"""The speed sections: results/speed.json (`bench_speed`) and results/speed_english.json (`english_parse_speed`)."""
import re
from pathlib import Path
from typing import Dict, List

from seqgraph_experiments import RESULTS
from seqgraph_experiments.report.common import clone_paths, made_with
from seqgraph_experiments.results import read_json


def english_speed_table(speed: Dict) -> List[str]:
    """
    The English model's `allennlp predict` speed beside the models it is compared with
    (results/speed_english.json, `scripts/english_parse_speed.py`): one row per archive and setting.
    """
    archives = [speed["model"]] + speed.get("compared_models", [])
    lines = [
        "## Speed of the English model",
        "",
        f"From `results/speed_english.json`: {speed['what']}. `{speed['data']['path']}` "
        f"({speed['data']['sentences']} sentences), {speed['machine']['cpu_cores']} CPU cores "
        f"({speed['machine']['cpu']}), {speed['date'][:10]}, commit {speed['git_commit'][:10]}. The archives, "
        "named by their directories: "
        + "; ".join(f"`{Path(archive['path']).parent.name}`: {archive['weights']}" for archive in archives) + ".",
        "",
        "| archive | setting | --batch-size | start-up (s) | sent/s after start-up | sent/s with start-up | trees |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, row in speed["rows"].items():
        index, _, setting = name.partition("_") if name.startswith("compare") else ("compare0", "", name)
        # rows SETTING_batch_SIZE when several batch sizes: the size has its own column
        setting = re.sub(r"_batch_\d+$", "", setting)
        archive = Path(archives[int(index[len("compare"):])]["path"]).parent.name
        lines.append(
            f"| `{archive}` | {setting} | {row['batch_size']} | {row['startup_seconds']:.1f} | "
            f"{row['sentences_per_second_without_startup']:.1f} | {row['sentences_per_second']:.1f} | "
            f"{row['predicted_trees']} of {row['predicted_sentences']} |"
        )
    lines += made_with(speed["command"])
    return lines


def speed_table(speed: Dict) -> List[str]:
    lines = [
        "## Speed",
        "",
        f"From `results/speed.json`: parsing `{speed['parse_file']}` ({speed['parse_sentences']} sentences) in file "
        f"order after a warm-up (batches cut into length buckets as the predictor does), and training batches of `{speed['train_file']}`, in one process with "
        f"{speed['torch_threads']} torch thread(s) on {speed['machine']['cpu_cores']} CPU cores "
        f"({speed['machine']['cpu']}), {speed['date'][:10]}, commit {speed['git_commit'][:10]}. "
        f"Weights: {speed['weights'] or 'see the JSON'}.",
        "",
        "| model | decoder | sent/s batch 1 | sent/s batch 64 | x biaffine (64) | s per training batch | "
        "epoch (min, extrapolated) | training time x biaffine |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in speed["rows"]:
        train = row.get("train") or {}
        per_batch = f"{train['seconds_per_batch']:.2f}" if train else ""
        epoch_minutes = f"{train['extrapolated_epoch_seconds'] / 60:.1f}" if train else ""
        ratio = row.get("train_time_ratio_to_biaffine")
        train_ratio = "" if ratio is None else f"{ratio:.2f}"
        parse_ratio = row.get("parse_ratio_to_biaffine_batch_64")
        lines.append(
            f"| {row['model']} | {row['decoder']} | {row['parse_sentences_per_second_batch_1']:.1f} | "
            f"{row['parse_sentences_per_second_batch_64']:.1f} | "
            f"{'' if parse_ratio is None else f'{parse_ratio:.2f}'} | {per_batch} | {epoch_minutes} | {train_ratio} |"
        )
    timed = sorted({row["train"]["batches_timed"] for row in speed["rows"] if row.get("train")})
    if timed:
        lines += [
            "",
            f"The training columns time {' or '.join(map(str, timed))} batches drawn at random from an epoch's "
            "bucketed batches. An epoch's few longest batches cost the recurrent parser most (a sentence of `V` "
            "nodes has `V - 1` states of `V x V` scores) and are rarely drawn, so this ratio understates an "
            "epoch's. The training pass with its longest batches timed (`benchmarks/profile_train.py`) is in "
            "docs/BENCHMARKS.md.",
        ]
    for row in speed["rows"]:
        if "allennlp_predict" in row:
            cli = row["allennlp_predict"]
            line = (f"`allennlp {cli['command']}`: {cli['seconds']:.1f} s, "
                    f"{cli['sentences_per_second']:.1f} sentences/s with model loading")
            if "startup_seconds" in cli:
                line += (f"; the same command on a one-sentence file takes {cli['startup_seconds']:.1f} s (start-up and "
                         f"model loading), so parsing runs at {cli['sentences_per_second_without_startup']:.1f} "
                         f"sentences/s; {cli['predicted_trees']} of {cli['predicted_sentences']} predicted "
                         "sentences are trees with one root word")
            lines += ["", line + "."]
    archives = [clone_paths(row["archive"]) for row in speed["rows"]]
    if all(archive.startswith("experiments/") for archive in archives):
        lines += ["", "The archives are runs' serialization directories under `experiments/` (not committed), where "
                  "`scripts/run_experiments.py` writes each row's (`experiments/SECTION/ROW[.seedN]/model/`): "
                  + ", ".join(f"`{archive}`" for archive in archives)
                  + ". Train those rows first (the Reproduce command of their section), or name other archives."]
    lines += made_with(speed["command"])
    return lines


def sections(results_dir: Path = RESULTS) -> List[str]:
    """The speed table, then the English model's, each where its JSON is."""
    return [line for name, table in (("speed.json", speed_table), ("speed_english.json", english_speed_table))
            if (results_dir / name).exists() for line in table(read_json(results_dir / name))]
