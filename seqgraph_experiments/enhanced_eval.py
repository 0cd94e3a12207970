"""
The evaluation of a trained model of the enhanced UD graph (`training_config/coach_valid_enhanced.jsonnet`,
which predicts the basic tree, HEAD and DEPREL, and the enhanced graph, DEPS): `allennlp predict` of dev and
test to CoNLL-U with the model's archive (`SERIALIZATION_DIR/model.tar.gz`), each scored with the project's
scorers (`seqgraph_allennlp.common.scoring`: UAS, LAS, CLAS by the CoNLL 2018 evaluation, ELAS and EULAS
by udeval with empty nodes collapsed on both sides, as the IWPT shared tasks scored them), written with the
run's training record to results/enhanced/ROW[.seedN].json and its test prediction, gzipped, beside it
(ROW[.seedN].test.conllu.gz). docs/RESULTS.md shows these runs in its "Enhanced UD (EWT)" section
(`report.enhanced`), with the tree-copy reference lines of results/enhanced/tree_copy.json.

    .venv/bin/python scripts/enhanced_eval.py --serialization-dir experiments/ewt_enhanced/coach_valid_enhanced \\
        --row coach_valid_enhanced

What the JSON records of the training comes from the serialization directory: the config that trained
(`config.json`, overrides applied) and how it differs from CONFIG (`--config`, by default
training_config/ROW.jsonnet) as it reads now; epochs done and the best epoch with its validation metrics
(`metrics.json`, written when a training ends); the epochs' durations (the trainer's log, as `runner` reads
them); whether the training finished its epoch budget (`budget`, `finished_budget`, `stopped`). The
parsing speed is the wall clock of `allennlp predict` on the test file in a new process: start-up and model
loading included, and the frozen features computed (`feature_cache_off`: an mpnet row's archive keeps the
`cache_directory` it trained with, from which a parse would read them).

The JSON has no `treebank` key: `results.run_results` (the training-run tables) does not take it.
"""
import argparse
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from seqgraph_allennlp.common.conllu import read_sentences
from seqgraph_allennlp.common.scoring import enhanced_scores, official_scores
from seqgraph_experiments import RESULTS, ROOT, RUNS, commands
from seqgraph_experiments.provenance import git_commit, now, sha256, stamp
from seqgraph_experiments.results import gzip_file, read_json, write_json
from seqgraph_experiments.rows import DEFAULT_SEEDS, feature_cache_off, run_name, seed_overrides
from seqgraph_experiments.runner import learning_curve, run, stop_reason, stopped_early, training_time
from seqgraph_experiments.trainer_log import epoch_seconds
from seqgraph_experiments.tree_copy import tree_copy

# what `report.enhanced` takes for a run of this tool (tree_copy.json, collapse_check.json are other kinds)
KIND = "enhanced_eval"
ENTRY_POINT = "scripts/enhanced_eval.py"
OUT = RESULTS / "enhanced"
DEV = ROOT / "data" / "UD_English-EWT" / "en_ewt-ud-dev.conllu"
TEST = ROOT / "data" / "UD_English-EWT" / "en_ewt-ud-test.conllu"
BATCH_SIZE = 64
# the predictor's rules over the graph (`common.enhanced_rules`): its defaults, and all of them off
RULES = {"lexical_labels": "filled", "drop_ref_tree_edges": True}
NO_RULES = {"lexical_labels": "predicted", "drop_ref_tree_edges": False}


def shown(path: Path) -> str:
    """A path as the JSON names it: relative to the repository (`../shared/...` beside it), else absolute."""
    relative = os.path.relpath(Path(path).resolve(), ROOT)
    return str(Path(path).resolve()) if relative.startswith(os.pardir + os.sep + os.pardir) else relative


def flatten(config: Any, prefix: str = "") -> Dict[str, Any]:
    """A nested config as AllenNLP's dotted keys (`trainer.num_epochs`); lists and scalars are leaves."""
    if not isinstance(config, dict) or (prefix and not config):
        return {prefix: config}
    flat: Dict[str, Any] = {}
    for key, value in config.items():
        flat.update(flatten(value, f"{prefix}.{key}" if prefix else key))
    return flat


def config_differences(config: Path, used: Dict) -> Dict[str, Any]:
    """
    The dotted keys of the config a run used (its `config.json`) whose values differ from `config` read now
    with the environment `allennlp train --include-package seqgraph_allennlp` gives it: the run's overrides,
    or changes made to `config` since the run. `removed`: keys of `config` that the run's config lacks.
    """
    from allennlp.common import Params

    from seqgraph_allennlp.common.environment import default_environment

    ext_vars = {name: value for name, value in default_environment().items() if name not in os.environ}
    shipped = flatten(Params.from_file(str(config), ext_vars=ext_vars).as_dict(quiet=True))
    trained = flatten(used)
    return {
        "changed": {key: value for key, value in trained.items() if key not in shipped or shipped[key] != value},
        "removed": sorted(key for key in shipped if key not in trained),
    }


def unexplained_differences(serialization_dir: Path, config: Path, overrides: Dict[str, Any]) -> List[str]:
    """
    The dotted keys in which a run's `config.json` differs from `config` as it reads now and that `overrides`
    (the dotted overrides a row trains with, `rows.seed_overrides` included) do not explain: a run of an
    older version of the config, not this row's. Empty where the directory has no `config.json` yet.
    """
    path = serialization_dir / "config.json"
    if not path.exists():
        return []
    differences = config_differences(config, read_json(path))
    changed = [key for key, value in differences["changed"].items() if key not in overrides or overrides[key] != value]
    return sorted(changed + [key for key in differences["removed"] if key not in overrides])


def check_run(argv: Sequence[str]) -> None:
    """
    From `argv` `[SERIALIZATION_DIR, CONFIG, OVERRIDES_JSON]`: exits with a message naming the keys where the
    directory's run differs from CONFIG beyond the overrides (scripts/enhanced_rows.sh asks before it resumes
    or evaluates a directory as a row).
    """
    serialization_dir, config, overrides = argv
    keys = unexplained_differences(Path(serialization_dir), Path(config), json.loads(overrides))
    if keys:
        sys.exit(f"{serialization_dir}: trained with another version of {config} ({', '.join(keys)} differ); "
                 "move it away to train the row anew")


EXTENSIONS = "budget_extensions.json"


def extend_budget(serialization_dir: Path, epochs: int, result: Path) -> Optional[Dict[str, Any]]:
    """
    Gives a finished training more epochs, where it ran its whole budget of fewer than `epochs` (a budget cut
    to fit a session, not a stop by patience): `config.json`'s `trainer.num_epochs` becomes `epochs`, its
    `metrics.json` (which marks a training as finished) becomes `metrics.budget_N.json`, and the row's
    `result` (evaluated under the old budget; committed, so in git) is removed, so that
    scripts/enhanced_rows.sh resumes the training with `--recover` from its last checkpoint (optimiser and
    early-stopping state included, as after a cut) and evaluates it again. Each extension is recorded in the
    directory's `budget_extensions.json`, which the evaluation copies into the row's JSON. Returns the
    extension, or `None` where there is nothing to extend.
    """
    config_path, metrics_path = serialization_dir / "config.json", serialization_dir / "metrics.json"
    if not metrics_path.exists():
        return None
    used, metrics = read_json(config_path), read_json(metrics_path)
    status = budget_status(used, metrics)
    budget = status["budget"]["epochs"]
    # a run stopped by patience has not finished its budget: it converged, nothing to extend
    if not status["finished_budget"] or budget is None or budget >= epochs:
        return None
    used["trainer"]["num_epochs"] = epochs
    write_json(config_path, used)
    metrics_path.rename(serialization_dir / f"metrics.budget_{budget}.json")
    extensions_path = serialization_dir / EXTENSIONS
    extensions = read_json(extensions_path) if extensions_path.exists() else []
    extension = {"from_epochs": budget, "to_epochs": epochs,
                 "previous_result": shown(result) if result.exists() else None, "git_commit": git_commit(), "date": now()}
    extensions.append(extension)
    write_json(extensions_path, extensions)
    if result.exists():
        result.unlink()
    return extension


def extend_budget_cli(argv: Sequence[str]) -> None:
    """`extend_budget` from `argv` `[SERIALIZATION_DIR, EPOCHS, RESULT_JSON]` (scripts/enhanced_rows.sh)."""
    serialization_dir, epochs, result = argv
    extension = extend_budget(Path(serialization_dir), int(epochs), Path(result))
    if extension:
        print(f"{serialization_dir}: budget extended from {extension['from_epochs']} to {extension['to_epochs']} "
              f"epochs; {result} removed (in git), training goes on with --recover")


def budget_extensions(serialization_dir: Path) -> Dict[str, Any]:
    """`{"budget_extensions": [...]}` where the training's budget was extended (`extend_budget`), else `{}`."""
    path = serialization_dir / EXTENSIONS
    return {"budget_extensions": read_json(path)} if path.exists() else {}


def budget_status(used: Dict, metrics: Dict) -> Dict[str, Any]:
    """
    The epoch budget of the run's config (`trainer.num_epochs`, `trainer.patience`), the epochs done
    (`metrics.json`'s `epoch`) and whether they reach the budget, in so many words.
    """
    trainer = used.get("trainer", {})
    epochs = trainer.get("num_epochs")
    patience = trainer.get("patience")
    metric = trainer.get("validation_metric", "+UAS")
    done = metrics.get("epoch", -1) + 1
    finished = epochs is not None and done >= epochs
    reason = stop_reason(metrics, epochs, patience, metric) if epochs is not None else None
    if finished:
        says = f"finished its budget: {done} of {epochs} epochs"
    elif epochs is None:
        says = f"{done} epochs; the config names no num_epochs"
    elif stopped_early(reason):
        says = f"stopped early, converged: {done} of {epochs} epochs ({reason})"
    else:
        says = f"did NOT finish its budget: {done} of {epochs} epochs ({reason})"
    return {
        "budget": {"epochs": epochs, "patience": patience},
        "epochs_done": done,
        "finished_budget": finished,
        "stopped": reason,
        "budget_says": says,
    }


def check_seed(used: Dict, seed: int) -> None:
    """Refuses a `--seed` that is not the one the run trained with (`rows.seed_overrides`; absent: seed 0)."""
    expected = {**DEFAULT_SEEDS, **seed_overrides(seed)}
    trained = {key: used.get(key, default) for key, default in DEFAULT_SEEDS.items()}
    if trained != expected:
        sys.exit(f"--seed {seed}: the run trained with {trained}, not seed {seed}'s {expected} (rows.seed_overrides)")


def curve(serialization_dir: Path) -> List[Dict]:
    """`runner.learning_curve` (dev UAS, LAS, epoch seconds) with each epoch's dev ELAS and EULAS."""
    points = learning_curve(serialization_dir)
    for point in points:
        epoch_metrics = read_json(serialization_dir / f"metrics_epoch_{point['epoch'] - 1}.json")
        point["dev_ELAS"] = epoch_metrics.get("validation_ELAS")
        point["dev_EULAS"] = epoch_metrics.get("validation_EULAS")
    return points


def score(gold: Path, predicted: Path) -> Dict[str, float]:
    """UAS, LAS, CLAS (CoNLL 2018) and ELAS, EULAS (empty nodes collapsed) of a prediction, fractions."""
    return {**official_scores(str(gold), str(predicted)), **enhanced_scores(str(gold), str(predicted))}


def count_sentences(path: Path) -> int:
    return sum(1 for _ in read_sentences(str(path)))


def evaluate(serialization_dir: Path, row: str, seed: int, dev: Path, test: Path, config: Path,
             out_dir: Path, work_dir: Path, command: str) -> Path:
    """Predicts and scores dev and test, writes out_dir/ROW[.seedN].json and its gzipped test prediction."""
    archive = serialization_dir / "model.tar.gz"
    for path, what in ((archive, "the model archive"), (serialization_dir / "metrics.json", "metrics.json (written when a "
                       "training ends)"), (serialization_dir / "config.json", "config.json"), (dev, "the dev file"),
                       (test, "the test file"), (config, "the config (--config)")):
        if not path.exists():
            sys.exit(f"{path}: no {what}")
    used = read_json(serialization_dir / "config.json")
    check_seed(used, seed)
    metrics = read_json(serialization_dir / "metrics.json")
    run_id = run_name(row, seed)
    work_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)

    predictions = {}
    seconds = memory = None
    cache_off = feature_cache_off(used)
    for split, gold in (("dev", dev), ("test", test)):
        predicted = work_dir / f"{split}_predictions.conllu"
        predicted.unlink(missing_ok=True)
        print(f"{run_id}: parsing {shown(gold)}", flush=True)
        # only the timed parse computes its features; dev may read the cache (the same vectors)
        overrides = json.dumps(cache_off) if split == "test" and cache_off else ""
        elapsed, peak = run(commands.predict_conllu(str(archive), str(gold), str(predicted), batch_size=BATCH_SIZE,
                                                    overrides=overrides),
                            work_dir / "predict.log", env)
        if split == "test":
            seconds, memory = elapsed, peak
        predictions[split] = predicted
    scores = {split: score(gold, predictions[split]) for split, gold in (("dev", dev), ("test", test))}
    # the predictor applies its rules to the graph by default (`common.enhanced_rules`): the model's own graph
    # too, for scripts/enhanced_rules.py (not timed)
    without_rules = work_dir / "test_predictions_without_rules.conllu"
    without_rules.unlink(missing_ok=True)
    run(commands.predict_conllu(str(archive), str(test), str(without_rules), batch_size=BATCH_SIZE,
                                predictor_args=NO_RULES), work_dir / "predict.log", env)
    test_without_rules = enhanced_scores(str(test), str(without_rules))
    # the same model's basic tree copied into DEPS: what its graph phase and enhanced labels add over a tree
    tree_copy_path = work_dir / "test_tree_copy.conllu"
    tree_copy(predictions["test"], tree_copy_path)
    own_tree_copy = enhanced_scores(str(test), str(tree_copy_path))
    kept = gzip_file(predictions["test"], out_dir / f"{run_id}.test.conllu.gz")
    # kept too, so that changed rules can be applied to the model's own graph once the model is gone
    kept_without_rules = gzip_file(without_rules, out_dir / f"{run_id}.test_without_rules.conllu.gz")
    test_sentences = count_sentences(test)

    splits = {}
    train_path = used.get("train_data_path")
    if train_path and (ROOT / train_path).exists():
        splits["train"] = {"path": shown(ROOT / train_path), "sha256": sha256(ROOT / train_path)}
    splits["dev"] = {"path": shown(dev), "sha256": sha256(dev), "sentences": count_sentences(dev)}
    splits["test"] = {"path": shown(test), "sha256": sha256(test), "sentences": test_sentences}
    differences = config_differences(config, used)
    overrides = json.dumps(differences["changed"])
    training = training_time(epoch_seconds(serialization_dir), None)
    result = {
        "kind": KIND,
        "what": "a model of the enhanced graph parses dev and test (allennlp predict, CoNLL-U); UAS, LAS, CLAS by "
                "the CoNLL 2018 evaluation, ELAS, EULAS by udeval with empty nodes collapsed on both sides; "
                "fractions",
        "row": row,
        "seed": seed,
        "config": shown(config),
        "config_differences": {
            "note": "config.json's values that differ from `config` as it reads now: the run's overrides (or "
                    "changes to the config since the run); `removed`: keys of `config` the run did not have",
            **differences,
        },
        "used_config": used,
        "serialization_dir": shown(serialization_dir),
        "model": {"path": shown(archive), "sha256": sha256(archive)},
        **budget_status(used, metrics),
        **budget_extensions(serialization_dir),
        "best_epoch": metrics["best_epoch"] + 1,
        "validation_metric": used.get("trainer", {}).get("validation_metric"),
        "best_validation": {key[len("best_validation_"):]: value for key, value in metrics.items()
                            if key.startswith("best_validation_")},
        "curve": curve(serialization_dir),
        "train_seconds_total": training["train_seconds_total"],
        "train_seconds_per_epoch": training["train_seconds_per_epoch"],
        "train_seconds_note": "the sum of the epochs' durations (training and validation) in the trainer's log, "
                              "every run of a recovered training",
        "splits": splits,
        "dev": scores["dev"],
        "test": scores["test"],
        "test_own_tree_copy": {
            "note": "ELAS, EULAS of this model's own predicted basic tree (HEAD:DEPREL) copied into DEPS, on test: "
                    "what the graph phase and the enhanced labels add over its tree",
            **own_tree_copy,
        },
        "test_predictions": {"path": shown(kept), "sha256": sha256(kept)},
        "rules": RULES,
        "test_without_rules": {
            "note": "ELAS, EULAS of the same model's test prediction without the predictor's rules over the graph "
                    f"(--predictor-args {json.dumps(NO_RULES)}); the row's scores have them (its defaults)",
            **test_without_rules,
            "predictions": {"path": shown(kept_without_rules), "sha256": sha256(kept_without_rules)},
        },
        "parse": {
            "seconds": seconds,
            "sentences": test_sentences,
            "sentences_per_second": test_sentences / seconds,
            "peak_memory_mib": memory,
            "batch_size": BATCH_SIZE,
            "features_cache_off": sorted(cache_off),
            "note": "wall clock of `allennlp predict` on the test file (CoNLL-U out, tree and graph) in a new "
                    "process: start-up, model loading and writing included; with the features' cache_directory "
                    "of the embedders in `features_cache_off` turned off, so that frozen features are computed, "
                    "not read from disk",
        },
        "reproduce": [
            f".venv/bin/allennlp train {shown(config)} -s {shlex.quote(shown(serialization_dir))} "
            f"--include-package seqgraph_allennlp" + (f" -o {shlex.quote(overrides)}" if differences["changed"] else ""),
            f".venv/bin/python {command}",
        ],
        **stamp(ENTRY_POINT),
        # this evaluation's command line (`stamp` reads sys.argv, which a caller in-process does not set)
        "command": command,
    }
    path = write_json(out_dir / f"{run_id}.json", result)
    print(f"{run_id}: {result['budget_says']}; dev ELAS {100 * scores['dev']['ELAS']:.2f}, "
          f"test ELAS {100 * scores['test']['ELAS']:.2f} EULAS {100 * scores['test']['EULAS']:.2f} "
          f"UAS {100 * scores['test']['UAS']:.2f} LAS {100 * scores['test']['LAS']:.2f}; "
          f"{result['parse']['sentences_per_second']:.1f} sentences/s; wrote {shown(path)}", flush=True)
    return path


def main(argv: Optional[Sequence[str]] = None) -> Path:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--serialization-dir", type=Path, required=True,
                        help="the training's directory (model.tar.gz, config.json, metrics.json, out.log)")
    parser.add_argument("--row", required=True, help="the run's name: OUT_DIR/ROW[.seedN].json")
    parser.add_argument("--seed", type=int, default=0,
                        help="the seed it trained with (rows.seed_overrides; 0: AllenNLP's defaults)")
    parser.add_argument("--config", type=Path, default=None,
                        help="the config it trained (default: training_config/ROW.jsonnet)")
    parser.add_argument("--dev", type=Path, default=DEV)
    parser.add_argument("--test", type=Path, default=TEST)
    parser.add_argument("--out-dir", type=Path, default=OUT, help="where the JSON goes (default: results/enhanced)")
    parser.add_argument("--work-dir", type=Path, default=None,
                        help="the plain predictions and predict.log (default: experiments/enhanced_eval/RUN)")
    args = parser.parse_args(argv)
    config = args.config or ROOT / "training_config" / f"{args.row}.jsonnet"
    work_dir = args.work_dir or RUNS / "enhanced_eval" / run_name(args.row, args.seed)
    # paths as the user gave them, from where they ran; the tools work from the repository root
    return evaluate(args.serialization_dir.resolve(), args.row, args.seed, args.dev.resolve(), args.test.resolve(),
                    config.resolve(), args.out_dir.resolve(), work_dir.resolve(),
                    f"{ENTRY_POINT} {shlex.join(argv)}")


if __name__ == "__main__":
    main()
