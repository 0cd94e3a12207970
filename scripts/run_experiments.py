"""
Train and evaluate a list of configs ("rows") on one treebank with the same budget, one after another,
and write one JSON per run under results/<treebank>/ (or results/<section>/ with --section, for rows with
another budget such as Table 3) and the table docs/RESULTS.md generated from every
results JSON (never typed by hand).

    .venv/bin/python scripts/run_experiments.py --treebank welsh --epochs 15 \\
        biaffine_mst one_step coach_valid_paper coach_valid \\
        'coach_valid_no_head_loss=coach_valid@{"model.head_selection_weight": 0.0}'

A row is `CONFIG` (a file training_config/CONFIG.jsonnet) or `NAME=CONFIG[VAR=value,...]@OVERRIDES`, the
bracket (optional) giving the jsonnet external variables a config reads (`oracle_rollin[ORACLE=uniform,
ROLL_IN=coaching]`) and OVERRIDES (optional) a JSON object of AllenNLP dotted override keys
(`"trainer.optimizer.lr": 3e-3`); a nested dictionary would replace a whole section of the shipped config,
so it is refused. `--preset table3` stands for the nine rows of the paper's Table 3 (oracle x roll-in).

Every row gets the same data paths and
`trainer.num_epochs` = `--epochs`, no early stopping inside that budget unless `--patience N` (stop when dev
UAS has not improved for N epochs), and keeps the epoch with the best dev UAS (the shipped
`validation_metric`), which is then scored on test with `allennlp evaluate`. Each JSON records the epochs
run, why training stopped and the dev UAS/LAS and duration of every epoch (`curve`). Every
score is the CoNLL 2018 one (all words, punctuation included; LAS on universal relations).

Resumable: a row whose results JSON exists is not run again (`--force` reruns it); a row whose training
was interrupted continues from its serialization directory (`allennlp train --recover`). Serialization
directories live under experiments/<treebank>/ (not committed). `--regenerate` only rewrites
docs/RESULTS.md from the JSONs.
"""
import argparse
import datetime
import hashlib
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parents[1]
ALLENNLP = str(ROOT / ".venv" / "bin" / "allennlp")
RESULTS = ROOT / "results"
RUNS = ROOT / "experiments"
REPORT = ROOT / "docs" / "RESULTS.md"
SHARED = ROOT.parent / "shared" / "ud"

# train/dev/test of each treebank; where UD gives no train split here, the model trains on dev and is
# selected on dev (there is nothing else), and only its test score means anything
TREEBANKS = {
    "ewt": ("data/UD_English-EWT/en_ewt-ud-{}.conllu", ("train", "dev", "test")),
    "welsh": ("data/UD_Welsh-CCG/cy_ccg-ud-{}.conllu", ("train", "dev", "test")),
    "grc": (str(SHARED / "UD_Ancient_Greek-Perseus" / "grc_perseus-ud-{}.conllu"), ("dev", "dev", "test")),
    "de": (str(SHARED / "UD_German-GSD" / "de_gsd-ud-{}.conllu"), ("dev", "dev", "test")),
    "zh": (str(SHARED / "UD_Chinese-GSD" / "zh_gsd-ud-{}.conllu"), ("dev", "dev", "test")),
}


def parse_row(spec: str) -> Tuple[str, str, Dict, Dict[str, str]]:
    """`NAME=CONFIG[VAR=value,...]@{overrides}` -> (name, config, overrides, jsonnet external variables)."""
    head, _, overrides_text = spec.partition("@")
    match = re.fullmatch(r"(?:([\w.-]+)=)?([\w.-]+)(?:\[([^\]]*)\])?", head.strip())
    if not match:
        sys.exit(f"row {spec!r}: not CONFIG or NAME=CONFIG[VAR=value,...]@{{dotted overrides}}")
    name, config, assignments = match.groups()
    name = name or config
    ext_vars: Dict[str, str] = {}
    for assignment in filter(None, (assignments or "").split(",")):
        variable, equals, value = assignment.partition("=")
        if not equals or not re.fullmatch(r"[A-Z_][A-Z0-9_]*", variable.strip()):
            sys.exit(f"row {spec!r}: {assignment!r} is not VAR=value")
        ext_vars[variable.strip()] = value.strip()
    try:
        overrides = json.loads(overrides_text) if overrides_text else {}
    except json.JSONDecodeError as error:
        sys.exit(f"row {spec!r}: the overrides after @ are not a JSON object ({error})")
    if not isinstance(overrides, dict):
        sys.exit(f"row {spec!r}: the overrides after @ are not a JSON object")
    for key, value in overrides.items():
        if isinstance(value, dict):
            sys.exit(
                f"row {spec!r}: override {key!r} is a nested dictionary, which replaces the whole section "
                f"in AllenNLP 2.x; use dotted keys such as \"{key}.{next(iter(value), 'field')}\""
            )
    if not (ROOT / "training_config" / f"{config}.jsonnet").exists():
        sys.exit(f"row {spec!r}: no training_config/{config}.jsonnet")
    return name, config, overrides, ext_vars


# The paper's Table 3 (oracle x roll-in, German there, Welsh-CCG here): every row uses the shipped
# valid-edge policy and no head-selection loss, so only the oracle and the roll-in change between rows.
TABLE3 = ["linearized"] + [
    f"{oracle}_x_{roll_in}=oracle_rollin[ORACLE={oracle},ROLL_IN={roll_in}]"
    for oracle, roll_in in [
        ("uniform", "uniform"), ("coaching", "uniform"),
        ("uniform", "coaching"), ("coaching", "coaching"), ("annealed_coaching", "coaching"),
        ("uniform", "valid_policy"), ("coaching", "valid_policy"), ("annealed_coaching", "valid_policy"),
    ]
]
PRESETS = {"table3": TABLE3}


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def count_file_sentences(path: Path) -> int:
    """The number of sentences in a CoNLL-U file (its lines of word 1)."""
    with open(path, encoding="utf-8") as handle:
        return sum(1 for line in handle if line.startswith("1\t"))


def machine() -> Dict:
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu_cores": os.cpu_count(),
        "cpu": cpu,
        "threads": int(os.environ.get("OMP_NUM_THREADS", "0")) or None,
        "gpu": None,
        "hostname_kind": platform.machine(),
        "python": platform.python_version(),
    }


def git_commit() -> str:
    result = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "seqgraph_allennlp", "training_config"],
                           cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return result.stdout.strip() + ("+uncommitted" if dirty else "")


def save_analysis(kind: str, name: str, result: Dict, plot) -> Tuple[Path, Path]:
    """
    Writes an analysis script's results to results/<kind>/<name>.json and its figure (drawn by
    `plot(result, path)`) to docs/<kind>_<name>.png; returns both paths.
    """
    out = RESULTS / kind / f"{name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    image = REPORT.parent / f"{kind}_{name}.png"
    image.parent.mkdir(parents=True, exist_ok=True)
    plot(result, image)
    return out, image


def run(command: List[str], log_path: Path, env: Dict[str, str], pid_file: Optional[Path] = None) -> Tuple[float, int]:
    """Runs a command, its output to a log; returns (seconds, peak resident memory in MiB)."""
    start = time.time()
    with open(log_path, "a") as log:
        log.write(f"\n$ {' '.join(command)}\n")
        log.flush()
        process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env)
        if pid_file is not None:
            pid_file.write_text(str(process.pid))
        _, status, usage = os.wait4(process.pid, 0)
    seconds = time.time() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"failed ({code}): {' '.join(command)}\n(see {log_path})")
    # ru_maxrss is in KiB on Linux
    return seconds, usage.ru_maxrss // 1024


# allennlp-models' biaffine_parser leaves these words out of its UAS (its POS_TO_IGNORE, on UD's UPOS)
PUNCTUATION_UPOS = ("PUNCT", "SYM")


def score_predictions(archive: Path, test_file: Path, out: Path, env: Dict[str, str]) -> Dict:
    """
    Parses the test file with `allennlp predict` (CoNLL-U out) and scores it with the project's scorer:
    every word (which must agree with `allennlp evaluate`), and without gold PUNCT/SYM words, the figure
    allennlp-models reports, kept as an extra.
    """
    from seqgraph_allennlp.common.scoring import count_files, score_files

    predictions = out / "test_predictions.conllu"
    run([ALLENNLP, "predict", str(archive), str(test_file), "--use-dataset-reader", "--predictor",
         "seqgraph_parser", "--predictor-args", '{"output_format": "conllu"}', "--batch-size", "64",
         "--output-file", str(predictions), "--silent", "--include-package", "seqgraph_allennlp"],
        out / "predict.log", env)
    counts = count_files(str(test_file), str(predictions))
    every_word = counts.scores()
    no_punctuation = score_files(str(test_file), str(predictions), PUNCTUATION_UPOS)
    return {
        # invalid_trees: predicted sentences that are not trees with one root word (0 for a valid file)
        "test_scorer": {**{key: every_word[key] for key in ("UAS", "LAS")}, "invalid_trees": counts.invalid_trees},
        "test_without_punctuation": {key: no_punctuation[key] for key in ("UAS", "LAS")},
    }


def section_of(result: Dict) -> str:
    """The results folder and report section of a run: its treebank unless it ran with --section."""
    return result.get("section") or result["treebank"]


def rescore(treebank: Optional[str]) -> None:
    """Adds the scorer's figures to results JSONs that lack them (runs made before they existed)."""
    for result_path in sorted(RESULTS.glob(f"{treebank or '*'}/*.json")):
        result = json.loads(result_path.read_text())
        if "row" not in result or "test_without_punctuation" in result:
            continue
        out = RUNS / section_of(result) / result["row"]
        test_file = Path(result["splits"]["test"]["path"])
        test_file = test_file if test_file.is_absolute() else ROOT / test_file
        if not (out / "model" / "model.tar.gz").exists():
            print(f"{result_path.relative_to(ROOT)}: no model archive in {out}, not rescored", flush=True)
            continue
        print(f"{result['row']}: scoring {test_file.name} predictions", flush=True)
        result.update(score_predictions(out / "model" / "model.tar.gz", test_file, out, dict(os.environ)))
        result_path.write_text(json.dumps(result, indent=2) + "\n")


def stop_reason(metrics: Dict, epochs: int, patience: Optional[int]) -> str:
    """Why a training ended: its epoch budget, or `patience` epochs without a better dev UAS."""
    done = metrics.get("epoch", -1) + 1
    if done >= epochs:
        return f"epoch budget ({epochs})"
    if patience is not None and done - (metrics["best_epoch"] + 1) >= patience:
        return f"early stopping: no better dev UAS for {patience} epochs"
    return f"stopped after {done} of {epochs} epochs"


def learning_curve(serialization_dir: Path) -> List[Dict]:
    """Dev UAS and LAS after every epoch, and the epoch's duration (training + validation) from the log."""
    durations = epoch_seconds(serialization_dir)
    curve = []
    for path in sorted(serialization_dir.glob("metrics_epoch_*.json"),
                       key=lambda path: int(path.stem.rsplit("_", 1)[1])):
        epoch_metrics = json.loads(path.read_text())
        epoch = epoch_metrics["epoch"]
        curve.append({
            "epoch": epoch + 1,
            "dev_UAS": epoch_metrics.get("validation_UAS"),
            "dev_LAS": epoch_metrics.get("validation_LAS"),
            "seconds": durations[epoch] if epoch < len(durations) else None,
        })
    return curve


def epoch_seconds(serialization_dir: Path) -> List[float]:
    text = ""
    for log in sorted(serialization_dir.glob("out*.log")):
        text += log.read_text(errors="replace")
    durations = []
    for hours, minutes, seconds in re.findall(r"Epoch duration: (\d+):(\d+):([\d.]+)", text):
        durations.append(int(hours) * 3600 + int(minutes) * 60 + float(seconds))
    return durations


def wait_for_live_training(pid_file: Path, serialization_dir: Path) -> None:
    """
    A training started by an earlier runner that was stopped (not the training itself) may still be
    running: wait for it to end rather than start a second one in the same directory.
    """
    if not pid_file.exists():
        return
    pid = pid_file.read_text().strip()
    cmdline = Path(f"/proc/{pid}/cmdline")
    said = False
    while cmdline.exists() and str(serialization_dir) in cmdline.read_bytes().decode(errors="replace"):
        if not said:
            print(f"waiting for the training still running in {serialization_dir} (pid {pid})", flush=True)
            said = True
        time.sleep(30)


def run_row(spec: str, args, files: Dict[str, Path], env: Dict[str, str]) -> Optional[Path]:
    name, config, extra, ext_vars = parse_row(spec)
    env = {**env, **ext_vars}
    result_path = RESULTS / args.section / f"{name}.json"
    if result_path.exists() and not args.force:
        print(f"{name}: done already ({result_path.relative_to(ROOT)})", flush=True)
        return result_path
    out = RUNS / args.section / name
    serialization_dir = out / "model"
    out.mkdir(parents=True, exist_ok=True)
    overrides = {
        "train_data_path": str(files["train"]),
        "validation_data_path": str(files["dev"]),
        "test_data_path": str(files["test"]),
        "trainer.num_epochs": args.epochs,
        "trainer.patience": args.patience,
        **extra,
    }
    wait_for_live_training(out / "train.pid", serialization_dir)
    command = [ALLENNLP, "train", f"training_config/{config}.jsonnet", "-s", str(serialization_dir),
               "--include-package", "seqgraph_allennlp", "--file-friendly-logging",
               "-o", json.dumps(overrides)]
    finished = (serialization_dir / "model.tar.gz").exists()
    if args.force and serialization_dir.exists():
        command.append("-f")
        finished = False
    elif serialization_dir.exists() and not finished:
        command.append("--recover")
        print(f"{name}: recovering an interrupted run from {serialization_dir.relative_to(ROOT)}", flush=True)
    train_seconds, train_memory = None, None
    if not finished:
        print(f"{name}: training {config} on {args.treebank} for {args.epochs} epochs", flush=True)
        if "--recover" not in command:
            (out / "train_commit.txt").write_text(git_commit())
        train_seconds, train_memory = run(command, out / "train.log", env, out / "train.pid")
        (out / "train_usage.json").write_text(json.dumps({"seconds": train_seconds, "peak_mib": train_memory}))
    elif (out / "train_usage.json").exists():
        usage = json.loads((out / "train_usage.json").read_text())
        train_seconds, train_memory = usage["seconds"], usage["peak_mib"]

    metrics = json.loads((serialization_dir / "metrics.json").read_text())
    used_config = json.loads((serialization_dir / "config.json").read_text())
    test_output = out / "test_metrics.json"
    evaluate_seconds, evaluate_memory = run(
        [ALLENNLP, "evaluate", str(serialization_dir / "model.tar.gz"), str(files["test"]),
         "--include-package", "seqgraph_allennlp", "--output-file", str(test_output)],
        out / "evaluate.log",
        env,
    )
    test = json.loads(test_output.read_text())
    test_sentences = count_file_sentences(files["test"])
    scorer = score_predictions(serialization_dir / "model.tar.gz", files["test"], out, env)
    durations = epoch_seconds(serialization_dir)
    trainer = used_config["trainer"]
    result = {
        "row": name,
        "config": f"training_config/{config}.jsonnet",
        "overrides": extra,
        "ext_vars": ext_vars,
        "treebank": args.treebank,
        "section": args.section,
        "splits": {
            # relative to the repository (`../shared/...` outside it), so that tables name no machine path
            split: {"path": os.path.relpath(path, ROOT),
                    "sha256": sha256(path)}
            for split, path in files.items()
        },
        "budget": {"epochs": args.epochs, "patience": args.patience},
        "stopped": stop_reason(metrics, args.epochs, args.patience),
        "curve": learning_curve(serialization_dir),
        "used": {
            "optimizer": trainer.get("optimizer"),
            "grad_norm": trainer.get("grad_norm"),
            "validation_metric": trainer.get("validation_metric"),
            "batch_size": used_config["data_loader"].get("batch_sampler", {}).get("batch_size"),
            "model": {key: used_config["model"].get(key) for key in
                      ("type", "recurrent", "policy_support", "head_selection_weight", "predict_labels",
                       "oracle", "roll_in", "decoder") if key in used_config["model"]},
        },
        "epochs_done": metrics.get("epoch", -1) + 1,
        "best_epoch": metrics["best_epoch"] + 1,
        "dev": {"UAS": metrics["best_validation_UAS"], "LAS": metrics.get("best_validation_LAS")},
        "test": {key: test.get(key) for key in ("UAS", "LAS", "UEM", "LEM")},
        **scorer,
        "train_seconds_per_epoch": (sum(durations) / len(durations)) if durations else None,
        "train_seconds_total": train_seconds,
        "train_peak_memory_mib": train_memory,
        "evaluate_sentences_per_second": test_sentences / evaluate_seconds,
        "evaluate_note": "allennlp evaluate on the test file with the archived data loader (bucketed batches "
                         "of 32 sentences), model loading included",
        "evaluate_peak_memory_mib": evaluate_memory,
        "note": args.note,
        # the code that trained the model (an evaluation may come later, from another commit)
        "git_commit": (out / "train_commit.txt").read_text().strip()
        if (out / "train_commit.txt").exists() else git_commit(),
        "evaluate_git_commit": git_commit(),
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "machine": machine(),
        "command": "scripts/run_experiments.py " + shlex.join(sys.argv[1:]),
    }
    result_path.parent.mkdir(parents=True, exist_ok=True)
    result_path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"{name}: dev UAS {100 * result['dev']['UAS']:.2f}, test UAS {100 * result['test']['UAS']:.2f}",
          flush=True)
    return result_path


# the paper's order: baselines first, then the sequential models
ROW_ORDER = ["biaffine_mst", "one_step", "linearized", "uniform", "annealed", "oracle_rollin", "coach_valid_paper",
             "coach_valid", "coach_valid_transformer", "coach_valid_pretrained"]


def row_spec(result: Dict) -> str:
    """The row argument that reproduces a result: `CONFIG` or `NAME=CONFIG@{overrides}`."""
    config = Path(result["config"]).stem
    ext_vars = result.get("ext_vars") or {}
    if result["row"] == config and not result["overrides"] and not ext_vars:
        return config
    bracket = f"[{','.join(f'{key}={value}' for key, value in ext_vars.items())}]" if ext_vars else ""
    overrides = f"@{json.dumps(result['overrides'])}" if result["overrides"] else ""
    return f"{result['row']}={config}{bracket}{overrides}"


def objective(result: Dict) -> str:
    """
    The training objective of a row, in a few words, from the config the run really used. Every model
    here also trains its label classifier (cross-entropy on the gold relations, through the shared
    encoder) unless `predict_labels` is off: "+ labels".
    """
    model = result.get("used", {}).get("model")
    if not model:
        return "not recorded"
    labels = " + labels" if model.get("predict_labels", True) else ""
    if model.get("type") != "seqgraph_parser":
        return "per-word head softmax (D&M)" + labels
    support = "KL, Eq. 5 over all V x V edges" if model.get("policy_support") == "all" else "KL, valid edges"
    weight = model.get("head_selection_weight") or 0
    return (support if not weight else f"{support} + {weight:g} x head selection") + labels


def settings(result: Dict) -> str:
    """The jsonnet external variables and dotted overrides of a row, for the table."""
    parts = [f"`{key}={value}`" for key, value in (result.get("ext_vars") or {}).items()]
    if result["overrides"]:
        parts.append(f"`{json.dumps(result['overrides'])}`")
    return " ".join(parts)


# the commit from which conll18_biaffine_parser's own LAS compares universal relations
BIAFFINE_UNIVERSAL_LAS = "c75e16e"


def dev_las_mark(result: Dict) -> str:
    """A mark on dev LAS measured by the biaffine model's scorer before it compared universal relations."""
    if result.get("used", {}).get("model", {}).get("type") != "conll18_biaffine_parser":
        return ""
    commit = result.get("git_commit", "")[:40]
    before = subprocess.run(["git", "merge-base", "--is-ancestor", BIAFFINE_UNIVERSAL_LAS, commit],
                            cwd=ROOT, capture_output=True).returncode != 0
    return " (a)" if before else ""


def percent(value: Optional[float]) -> str:
    return "" if value is None else f"{100 * value:.2f}"


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
    lines += ["", "Made with:", "", f"    .venv/bin/python {speed['command']}", ""]
    return lines


def tokenisation_table(result: Dict) -> List[str]:
    """The section of a results/tokenisation/*.json written by scripts/tokenisation_f1.py."""
    gold = result["gold"]
    versions = ", ".join(f"{package} {version}" for package, version in result["library_versions"].items() if version)
    lines = [
        f"## Raw text: tokenisation ({result['name']})",
        "",
        f"From `results/tokenisation/{result['name']}.json`: the raw text of `{gold['path']}` ({gold['sentences']} "
        f"sentences, {gold['documents']} documents, {gold['paragraphs']} paragraphs), rebuilt from its `# text` "
        "lines, split into sentences and words by each candidate and scored against the gold tokens with the "
        "CoNLL 2018 evaluation (`udtools.udeval`), F1 in %. Layouts: `sentences`, each gold sentence alone "
        "(tokenisation only); `paragraphs`, each document with a blank line between paragraphs (a blank line "
        "always ends a sentence); `running`, each document on one line. The candidates write words, never "
        "multiword tokens, so a gold multiword token (\"don't\": `do` `n't`) is a token error even where "
        f"its words match. Shipped: **{result['shipped']}** (the predictor's `{{\"text\": ...}}` input and "
        f"`Parser.parse`). {versions}; {result['machine']['cpu_cores']} CPU cores, {result['date'][:10]}, "
        f"commit {result['git_commit'][:10]}{'+ (uncommitted changes)' if 'uncommitted' in result['git_commit'] else ''}."
        + (f" Why: {result['choice']}." if result.get("choice") else ""),
        "",
        "| candidate | layout | Tokens F1 | Sentences F1 | Words F1 | sentences found | s |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in result["rows"]:
        lines.append(
            f"| {row['candidate']} | {row['layout']} | {percent(row['Tokens']['f1'])} | "
            f"{percent(row['Sentences']['f1'])} | {percent(row['Words']['f1'])} | {row['system_sentences']} | "
            f"{row['seconds']:.1f} |"
        )
    lines.append("")
    described: Dict[str, str] = {}
    for row in result["rows"]:
        described.setdefault(row["candidate"], row["description"])
        if row.get("uncovered_characters") and "dropped" not in described[row["candidate"]]:
            # scripts/tokenisation_f1.py puts them back in place, so that the scorer accepts the file
            described[row["candidate"]] += (f" (it dropped {row['uncovered_characters']} characters, put back "
                                            "as words of their own)")
    lines += [f"- {name}: {description}." for name, description in described.items()]
    lines += [f"- not measured: {name}: {why}." for name, why in result.get("not_measured", {}).items()]
    if result.get("skipped"):
        lines.append("- not measured: " + ", ".join(f"{name} ({why})" for name, why in result["skipped"].items()) + ".")
    lines += ["", "Made with:", "", f"    .venv/bin/python {result['command']}", ""]
    if result.get("alternatives_installed"):
        lines += [f"The alternatives were installed {result['alternatives_installed']}.", ""]
    return lines


def raw_text_table(result: Dict) -> List[str]:
    """The section of a results/raw_text/*.json written by scripts/raw_text_eval.py."""
    def cell(value) -> str:
        return "—" if value is None else f"{value:.2f}"

    lines = [
        f"## Raw text: parsing ({result['name']})",
        "",
        f"From `results/raw_text/{result['name']}.json`: `{result['model']['path']}` parses `{result['gold']['path']}` "
        f"({result['gold']['sentences']} sentences) from its raw text (rebuilt from the `# text` lines, "
        f"{result['gold']['texts']} texts; the predictor's tokeniser and sentence splitter) and from the gold "
        "tokenisation; scored with the CoNLL 2018 evaluation (`udtools.udeval`, system words aligned to gold "
        f"ones), F1 in %. UPOS only for a model with a tagger. {result['machine']['cpu_cores']} CPU cores, "
        f"{result['date'][:10]}, commit {result['git_commit'][:10]}.",
        "",
        "| input | Tokens | Sentences | Words | UPOS | UAS | LAS | s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in result["rows"]:
        lines.append(f"| {row['input']} | " + " | ".join(
            cell(row[metric]) for metric in ("Tokens", "Sentences", "Words", "UPOS", "UAS", "LAS")
        ) + f" | {row['seconds']:.1f} |")
    lines += ["", "Made with:", "", f"    .venv/bin/python {result['command']}", ""]
    return lines


def write_report() -> None:
    # one JSON per training run; results/tau_sweep, results/easy_first and speed.json are other reports
    results = [result for result in (json.loads(path.read_text()) for path in sorted(RESULTS.glob("*/*.json")))
               if "row" in result and "treebank" in result]
    lines = [
        "# Results",
        "",
        "Generated by `scripts/run_experiments.py` from the JSON files under `results/` (one per run, with its",
        "data files and their sha256, settings, budget, machine and commit); do not edit by hand. Scores:",
        "CoNLL 2018 (every word, punctuation included; LAS on universal relations), in %. Dev UAS/LAS are of",
        "the epoch kept (best dev UAS); test is that model on the test file. The extra column scores the same",
        "test predictions (`allennlp predict`, CoNLL-U) without the words whose gold UPOS is PUNCT or SYM, as",
        "allennlp-models' `biaffine_parser` reports UAS: compare rows on the main columns only.",
        "",
    ]
    # Table 3's rows in the paper's order (oracle within roll-in)
    table3 = [spec.partition("=")[0] for spec in TABLE3]
    for section in sorted({section_of(result) for result in results}):
        rows = sorted((result for result in results if section_of(result) == section),
                      key=lambda result: (ROW_ORDER.index(Path(result["config"]).stem)
                                          if Path(result["config"]).stem in ROW_ORDER else len(ROW_ORDER),
                                          bool(result["overrides"]),
                                          table3.index(result["row"]) if result["row"] in table3 else len(table3),
                                          result["row"]))
        budgets = sorted({result["budget"]["epochs"] for result in rows})
        first = rows[0]
        treebank = first["treebank"]
        lines += [
            f"## {section}" + (f" ({treebank})" if section != treebank else ""),
            "",
            "Data: " + ", ".join(f"{split} `{info['path']}`" for split, info in first["splits"].items())
            + f". Budget: {', '.join(map(str, budgets))} epochs."
            + (" No train split here: the models train on dev and are selected on it, so only test means "
               "anything." if first["splits"].get("train", {}).get("path") == first["splits"].get("dev", {}).get("path")
               else ""),
            "",
            "| row | config | settings | objective | epochs | best epoch | dev UAS | dev LAS | test UAS | test LAS | "
            "extra: test UAS w/o PUNCT, SYM | s/epoch | eval sent/s | machine | trained at | date |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        marked = False
        for result in rows:
            mark = dev_las_mark(result)
            marked = marked or bool(mark)
            machine_text = f"{result['machine']['cpu_cores']} CPU cores"
            if result["machine"].get("threads"):
                machine_text += f", {result['machine']['threads']} thread(s)"
            if result["machine"].get("gpu"):
                machine_text = result["machine"]["gpu"]
            seconds = result.get("train_seconds_per_epoch")
            # the project's scorer on the test predictions where it ran (the same UAS as `allennlp evaluate`)
            test = result.get("test_scorer") or result["test"]
            lines.append(
                f"| {result['row']} | `{Path(result['config']).stem}` | "
                f"{settings(result)} | "
                f"{objective(result)} | {result['epochs_done']} | {result['best_epoch']} | {percent(result['dev']['UAS'])} | "
                f"{percent(result['dev']['LAS'])}{mark} | {percent(test['UAS'])} | "
                f"{percent(test['LAS'])} | "
                f"{percent(result.get('test_without_punctuation', {}).get('UAS'))} | "
                f"{'' if seconds is None else f'{seconds:.0f}'} | "
                f"{result['evaluate_sentences_per_second']:.0f} | {machine_text} | "
                f"{result['git_commit'][:7]}{'+' if 'uncommitted' in result['git_commit'] else ''} | {result['date'][:10]} |"
            )
        reproduce = (f"scripts/run_experiments.py --treebank {treebank} --epochs {budgets[-1]} "
                     + (f"--section {section} " if section != treebank else "")
                     + " ".join(shlex.quote(row_spec(result)) for result in rows))
        lines += ["", "Reproduce (sequentially; each row is resumable):", "", f"    .venv/bin/python {reproduce}", ""]
        if marked:
            lines += ["(a) dev LAS of a biaffine model trained before commit c75e16e compares full relations "
                      "(`nmod:poss` against `nmod` is wrong), lower than CoNLL 2018's; its test LAS comes from the "
                      "project's scorer and is comparable.", ""]
        notes = sorted({result["note"] for result in rows if result.get("note")})
        lines += [f"Note: {note}." for note in notes] + ([""] if notes else [])
    speed_path = RESULTS / "speed.json"
    if speed_path.exists():
        lines += speed_table(json.loads(speed_path.read_text()))
    for tokenisation_path in sorted((RESULTS / "tokenisation").glob("*.json")):
        lines += tokenisation_table(json.loads(tokenisation_path.read_text()))
    for raw_text_path in sorted((RESULTS / "raw_text").glob("*.json")):
        lines += raw_text_table(json.loads(raw_text_path.read_text()))
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text("\n".join(lines))
    print(f"wrote {REPORT}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", nargs="*", help="CONFIG or NAME=CONFIG[VAR=value,...]@{dotted overrides}")
    parser.add_argument("--preset", choices=sorted(PRESETS), action="append", default=[],
                        help="add a named list of rows (table3: the paper's oracle x roll-in table)")
    parser.add_argument("--treebank", choices=sorted(TREEBANKS))
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--patience", type=int, default=None,
                        help="stop a row when dev UAS has not improved for this many epochs (default: never)")
    parser.add_argument("--section", default=None,
                        help="results/<section>/ and its own table in docs/RESULTS.md (default: the treebank); "
                        "for rows run with another budget, e.g. Table 3")
    parser.add_argument("--force", action="store_true", help="rerun rows that have results")
    parser.add_argument("--regenerate", action="store_true", help="only rewrite docs/RESULTS.md")
    parser.add_argument("--rescore", action="store_true",
                        help="add the scorer's test figures (with and without punctuation) to results that "
                        "lack them (of --treebank, or all), then rewrite docs/RESULTS.md")
    parser.add_argument("--threads", type=int, default=None, help="torch threads per run (OMP_NUM_THREADS)")
    parser.add_argument("--note", default=None, help="what else ran on the machine, etc. (kept in the JSON)")
    args = parser.parse_args()
    if args.rescore:
        if args.threads:
            os.environ["OMP_NUM_THREADS"] = str(args.threads)
        rescore(args.treebank)
    elif not args.regenerate:
        for preset in args.preset:
            args.rows += [row for row in PRESETS[preset] if row not in args.rows]
        if not (args.rows and args.treebank and args.epochs):
            parser.error("give --treebank, --epochs and at least one row (or --regenerate)")
        args.section = args.section or args.treebank
        if not re.fullmatch(r"[\w.-]+", args.section):
            parser.error(f"--section {args.section!r}: letters, digits, '.', '-' and '_' only")
        pattern, splits = TREEBANKS[args.treebank]
        files = {name: Path(pattern.format(split)) for name, split in zip(("train", "dev", "test"), splits)}
        files = {name: (path if path.is_absolute() else ROOT / path).resolve() for name, path in files.items()}
        for path in files.values():
            if not path.exists():
                sys.exit(f"{args.treebank}: missing {path}")
        if args.threads:
            os.environ["OMP_NUM_THREADS"] = str(args.threads)
        env = dict(os.environ)
        for spec in args.rows:
            parse_row(spec)
        for spec in args.rows:
            run_row(spec, args, files, env)
    write_report()


if __name__ == "__main__":
    main()
