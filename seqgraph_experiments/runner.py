"""
Training and scoring one row of an experiment (`scripts/run_experiments.py`): `allennlp train` with the
row's config, overrides and budget in experiments/<section>/<row>/ (resumed with `--recover` after an
interruption), `allennlp evaluate` on test, the test predictions scored with the project's scorer, and
the run's results JSON (settings, data and their sha256, budget, learning curve, scores, time, memory,
provenance) under results/<section>/<row>.json.
"""
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from seqgraph_experiments import RESULTS, ROOT, RUNS, commands
from seqgraph_experiments.provenance import command_line, git_commit, machine, now, sha256
from seqgraph_experiments.results import gzip_file, read_json, section_of, write_json
from seqgraph_experiments.rows import parse_row, run_name, seed_overrides
from seqgraph_experiments.trainer_log import epoch_seconds
from seqgraph_experiments.treebanks import LANGUAGES

# allennlp-models' biaffine_parser leaves these words out of its UAS (its POS_TO_IGNORE, on UD's UPOS)
PUNCTUATION_UPOS = ("PUNCT", "SYM")


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


def score_predictions(archive: Path, test_file: Path, out: Path, env: Dict[str, str]) -> Dict:
    """
    Parses the test file with `allennlp predict` (CoNLL-U out) and scores it: every word, by the CoNLL 2018
    evaluation where it scores the file (`scoring.score_report`; it must agree with `allennlp evaluate`),
    and without gold PUNCT/SYM words, the figure allennlp-models reports, kept as an extra.
    """
    from seqgraph_allennlp.common.scoring import score_files, score_report

    predictions = out / "test_predictions.conllu"
    run(commands.predict_conllu(archive, test_file, predictions, batch_size=64), out / "predict.log", env)
    counts, every_word = score_report(str(test_file), str(predictions))
    no_punctuation = score_files(str(test_file), str(predictions), PUNCTUATION_UPOS)
    kept = keep_predictions(predictions, out)
    return {
        # committed beside the results JSON: later comparisons (scripts/paired_bootstrap.py) need no model
        "test_predictions": {"path": str(kept.relative_to(ROOT)), "sha256": sha256(kept)},
        "test_sentences": counts.sentences,
        # invalid_trees: predicted sentences that are not trees with one root word (0 for a valid file);
        # CLAS and the scorer's name where the CoNLL 2018 evaluation scored it (every sentence a tree)
        "test_scorer": {
            **{key: value for key, value in every_word.items() if key not in ("UEM", "LEM")},
            "invalid_trees": counts.invalid_trees,
        },
        "test_without_punctuation": {key: no_punctuation[key] for key in ("UAS", "LAS")},
    }


def keep_predictions(predictions: Path, out: Path) -> Path:
    """
    Copies a run's test predictions (`experiments/<section>/<run>/test_predictions.conllu`) to
    `results/<section>/<run>.test.conllu.gz`, gzipped (about 0.3 MB for EWT test), where they outlive the
    run's directory; returns that path.
    """
    return gzip_file(predictions, RESULTS / out.parent.name / f"{out.name}.test.conllu.gz")


def config_at_commit(commit: str, config: str, overrides: Dict, ext_vars: Dict[str, str]) -> Dict:
    """
    A shipped config as it was at `commit` (its `training_config/` read from git), with a row's dotted
    overrides and external variables, the others at their defaults: what a run made at that commit trained.
    """
    from allennlp.common import Params

    from seqgraph_allennlp.common.environment import default_environment

    archive = subprocess.run(["git", "archive", commit, "training_config"], cwd=ROOT, capture_output=True,
                             check=True).stdout
    with tempfile.TemporaryDirectory() as directory:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(directory)
        params = Params.from_file(str(Path(directory) / config), params_overrides=json.dumps(overrides),
                                  # a model directory that is not installed here is only a name in the config
                                  ext_vars={**{name: value or f"({name} not installed)"
                                               for name, value in default_environment().items()}, **ext_vars})
        return params.as_dict(quiet=True)


def record_encoder(result: Dict) -> Dict:
    """`used.encoder` for a results JSON written before the runner recorded it (`model_config_of_run`)."""
    model, origin = model_config_of_run(result)
    return {**encoder_settings(model), "source": f"backfilled from {origin}"}


def model_config_of_run(result: Dict) -> Tuple[Dict, str]:
    """
    The model section of a results JSON's row config at the commit the run names, with its overrides and
    external variables, and where it came from (`CONFIG at COMMIT`; the run's working tree is lost where that
    is `+uncommitted`: the commit's config stands in, and the text says so).
    """
    commit = result["git_commit"].split("+")[0].split()[0]
    model = config_at_commit(commit, result["config"], result["overrides"], result.get("ext_vars") or {})["model"]
    uncommitted = " (the run's tree had uncommitted changes)" if "uncommitted" in result["git_commit"] else ""
    return model, f"{result['config']} at {commit[:7]}{uncommitted}"


# the tagger's keys of `used.model`, recorded since commit 71ac531
TAGGER_KEYS = ("predict_upos", "upos_loss_weight")


def record_tagger(result: Dict) -> Dict:
    """`used.model`'s tagger keys for a results JSON of a tagging model (test UPOS) written before the runner
    recorded them (`model_config_of_run`), with a `source` that says so."""
    model, origin = model_config_of_run(result)
    return {
        **{key: model[key] for key in TAGGER_KEYS if key in model},
        "source": f"{' and '.join(TAGGER_KEYS)} backfilled from {origin}",
    }


def rescore(section: Optional[str]) -> None:
    """
    Adds to results JSONs what runs made before it was recorded lack: the encoder's settings (`used.encoder`)
    and a tagging model's tagger keys (`used.model`), both from the config at the run's commit, and the
    scorer's figures, with the CoNLL 2018 script's name and CLAS and the kept test predictions (from the
    run's model archive, where it is still there).
    """
    for result_path in sorted(RESULTS.glob(f"{section or '*'}/*.json")):
        result = read_json(result_path)
        if "row" not in result:
            continue
        if "encoder" not in result.get("used", {}):
            result.setdefault("used", {})["encoder"] = record_encoder(result)
            write_json(result_path, result)
        model = result.get("used", {}).get("model")
        if model is not None and "UPOS" in result.get("test", {}) and not any(key in model for key in TAGGER_KEYS):
            model.update(record_tagger(result))
            write_json(result_path, result)
        if "test_without_punctuation" in result and "scorer" in result.get("test_scorer", {}):
            continue
        out = RUNS / section_of(result) / run_name(result["row"], result.get("seed", 0))
        test_file = Path(result["splits"]["test"]["path"])
        test_file = test_file if test_file.is_absolute() else ROOT / test_file
        if not (out / "model" / "model.tar.gz").exists():
            print(f"{result_path.relative_to(ROOT)}: no model archive in {out}, not rescored", flush=True)
            continue
        print(f"{result['row']}: scoring {test_file.name} predictions", flush=True)
        result.update(score_predictions(out / "model" / "model.tar.gz", test_file, out, dict(os.environ)))
        write_json(result_path, result)


def encoder_settings(model_config: Dict) -> Dict:
    """
    The encoder a run trained: its registered type and, for the fused BiLSTM, whether the config asked for
    bfloat16 training (the machine's `native_bfloat16` says whether it got it).
    """
    encoder = model_config.get("encoder") or {}
    settings = {"type": encoder.get("type")}
    if encoder.get("type") == "fused_bilstm":
        settings["bfloat16_training"] = bool(encoder.get("bfloat16_training", False))
    return settings


EARLY_STOPPING = "early stopping"


def stopped_early(reason: Optional[str]) -> bool:
    """Whether a `stop_reason` is early stopping (patience), the run's own sign of convergence."""
    return (reason or "").startswith(EARLY_STOPPING)


def stop_reason(metrics: Dict, epochs: int, patience: Optional[int], validation_metric: str = "+UAS") -> str:
    """Why a training ended: its epoch budget, or `patience` epochs without a better dev score (its metric)."""
    done = metrics.get("epoch", -1) + 1
    if done >= epochs:
        return f"epoch budget ({epochs})"
    if patience is not None and done - (metrics["best_epoch"] + 1) >= patience:
        return f"{EARLY_STOPPING}: no better dev {validation_metric.lstrip('+-')} for {patience} epochs"
    return f"stopped after {done} of {epochs} epochs"


def learning_curve(serialization_dir: Path) -> List[Dict]:
    """Dev UAS and LAS after every epoch, and the epoch's duration (training + validation) from the log."""
    durations = epoch_seconds(serialization_dir)
    curve = []
    for path in sorted(serialization_dir.glob("metrics_epoch_*.json"),
                       key=lambda path: int(path.stem.rsplit("_", 1)[1])):
        epoch_metrics = read_json(path)
        epoch = epoch_metrics["epoch"]
        curve.append({
            "epoch": epoch + 1,
            "dev_UAS": epoch_metrics.get("validation_UAS"),
            "dev_LAS": epoch_metrics.get("validation_LAS"),
            "seconds": durations[epoch] if epoch < len(durations) else None,
        })
    return curve


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


def train(name: str, config: str, args, overrides: Dict, out: Path,
          env: Dict[str, str]) -> Tuple[Optional[float], Optional[int]]:
    """
    Trains a row into out/model unless its archive is there (`--force` trains again), resuming an
    interrupted run; returns the training's (seconds, peak MiB) where known.
    """
    serialization_dir = out / "model"
    wait_for_live_training(out / "train.pid", serialization_dir)
    command = commands.train(config, serialization_dir, overrides, flags=["--file-friendly-logging"])
    # AllenNLP archives the best weights when a training is stopped (SIGTERM) without writing metrics.json:
    # such an archive is not a finished run
    finished = (serialization_dir / "model.tar.gz").exists() and (serialization_dir / "metrics.json").exists()
    if args.force and serialization_dir.exists():
        command.append("-f")
        finished = False
    elif serialization_dir.exists() and not finished:
        if (serialization_dir / "config.json").exists():
            # resume with the parameters the run started with: AllenNLP refuses to recover with any other, so a
            # shipped config changed since (a new default) would otherwise strand the run
            command = commands.train(serialization_dir / "config.json", serialization_dir, {},
                                     flags=["--file-friendly-logging"])
        command.append("--recover")
        print(f"{name}: recovering an interrupted run from {serialization_dir.relative_to(ROOT)}", flush=True)
    if not finished:
        print(f"{name}: training {config} on {args.treebank} for {args.epochs} epochs", flush=True)
        if "--recover" not in command:
            (out / "train_commit.txt").write_text(git_commit())
        seconds, memory = run(command, out / "train.log", env, out / "train.pid")
        (out / "train_usage.json").write_text(json.dumps({"seconds": seconds, "peak_mib": memory}))
        return seconds, memory
    if (out / "train_usage.json").exists():
        usage = read_json(out / "train_usage.json")
        return usage["seconds"], usage["peak_mib"]
    return None, None


def training_time(durations: List[float], last_run_seconds: Optional[float]) -> Dict[str, Optional[float]]:
    """
    A training's time from the trainer's log, which spans every run of it, and the wall time of its last
    `allennlp train` (start-up included): the whole training only where no session's end cut it and
    `--recover` resumed it.
    """
    return {
        "train_seconds_per_epoch": (sum(durations) / len(durations)) if durations else None,
        "train_seconds_total": sum(durations) if durations else last_run_seconds,
        "train_seconds_last_run": last_run_seconds,
    }


def run_row(spec: str, args, files: Dict[str, Path], env: Dict[str, str], seed: int = 0) -> Optional[Path]:
    """
    Trains, evaluates and scores one row with `seed` (0: AllenNLP's default seeds, see `rows.seed_overrides`)
    and writes its results JSON; a row whose JSON exists is skipped unless `args.force`.
    """
    name, config, extra, ext_vars = parse_row(spec)
    env = {**env, **ext_vars}
    cuda_device = getattr(args, "cuda_device", -1)
    run_id = run_name(name, seed)
    result_path = RESULTS / args.section / f"{run_id}.json"
    if result_path.exists() and not args.force:
        print(f"{run_id}: done already ({result_path.relative_to(ROOT)})", flush=True)
        return result_path
    out = RUNS / args.section / run_id
    serialization_dir = out / "model"
    out.mkdir(parents=True, exist_ok=True)
    overrides = {
        "train_data_path": str(files["train"]),
        "validation_data_path": str(files["dev"]),
        "test_data_path": str(files["test"]),
        "trainer.num_epochs": args.epochs,
        "trainer.patience": args.patience,
        **({"trainer.cuda_device": cuda_device} if cuda_device >= 0 else {}),
        "dataset_reader.language": LANGUAGES[args.treebank],
        **seed_overrides(seed),
        **extra,
    }
    train_seconds, train_memory = train(run_id, config, args, overrides, out, env)

    metrics = read_json(serialization_dir / "metrics.json")
    used_config = read_json(serialization_dir / "config.json")
    test_output = out / "test_metrics.json"
    evaluate_seconds, evaluate_memory = run(
        commands.evaluate(serialization_dir / "model.tar.gz", files["test"], test_output), out / "evaluate.log", env
    )
    test = read_json(test_output)
    scorer = score_predictions(serialization_dir / "model.tar.gz", files["test"], out, env)
    durations = epoch_seconds(serialization_dir)
    trainer = used_config["trainer"]
    result = {
        "row": name,
        "config": f"training_config/{config}.jsonnet",
        "overrides": extra,
        "ext_vars": ext_vars,
        "seed": seed,
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
                       "predict_upos", "upos_loss_weight", "oracle", "roll_in", "decoder")
                      if key in used_config["model"]},
            "encoder": encoder_settings(used_config["model"]),
        },
        "epochs_done": metrics.get("epoch", -1) + 1,
        "best_epoch": metrics["best_epoch"] + 1,
        "dev": {"UAS": metrics["best_validation_UAS"], "LAS": metrics.get("best_validation_LAS")},
        "test": {**{key: test.get(key) for key in ("UAS", "LAS", "UEM", "LEM")},
                 # the tagger's accuracy, for a model that predicts UPOS (predict_upos)
                 **{key: test[key] for key in ("UPOS",) if key in test}},
        **scorer,
        **training_time(durations, train_seconds),
        "train_peak_memory_mib": train_memory,
        "evaluate_sentences_per_second": scorer["test_sentences"] / evaluate_seconds,
        "evaluate_note": "allennlp evaluate on the test file with the archived data loader (bucketed batches "
                         "of 32 sentences), model loading included",
        "evaluate_peak_memory_mib": evaluate_memory,
        "note": args.note,
        # the code that trained the model (an evaluation may come later, from another commit)
        "git_commit": (out / "train_commit.txt").read_text().strip()
        if (out / "train_commit.txt").exists() else git_commit(),
        "evaluate_git_commit": git_commit(),
        "date": now(),
        "machine": machine(cuda_device),
        "command": command_line("scripts/run_experiments.py"),
    }
    write_json(result_path, result)
    print(f"{run_id}: dev UAS {100 * result['dev']['UAS']:.2f}, test UAS {100 * result['test']['UAS']:.2f}",
          flush=True)
    return result_path
