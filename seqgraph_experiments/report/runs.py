"""The sections of training runs (results/<section>/*.json, written by `runner`): a table each, seeds, margins."""
import copy
import json
import shlex
import statistics
import subprocess
from pathlib import Path
from typing import Dict, List, Optional

from seqgraph_experiments import RESULTS, ROOT
from seqgraph_experiments.report.common import (bfloat16_fell_back, clone_paths, machine_text, percent, runs_by_row,
                                                seed_lines, seed_list, short_commit)
from seqgraph_experiments.results import run_results, section_of
from seqgraph_experiments.rows import TABLE3, row_spec

# the paper's order: baselines first, then the sequential models
ROW_ORDER = ["biaffine_mst", "one_step", "linearized", "uniform", "annealed", "oracle_rollin", "coach_valid_paper",
             "coach_valid", "coach_valid_transformer", "coach_valid_pretrained"]


def objective(result: Dict) -> str:
    """
    The training objective of a row, in a few words, from the config the run really used. Every model
    here also trains its label classifier (cross-entropy on the gold relations, through the shared
    encoder) unless `predict_labels` is off: "+ labels"; one with a UPOS tagger (`predict_upos`) "+ UPOS"
    (results written before the runner recorded `predict_upos` show it by their test UPOS accuracy).
    """
    model = result.get("used", {}).get("model")
    if not model:
        return "not recorded"
    labels = " + labels" if model.get("predict_labels", True) else ""
    if model.get("predict_upos", "UPOS" in result.get("test", {})):
        labels += " + UPOS"
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


ENCODER_NAMES = {"fused_bilstm": "fused BiLSTM", "stacked_bidirectional_lstm": "stacked BiLSTM",
                 "pytorch_transformer": "transformer"}


def encoder_text(result: Dict) -> str:
    """
    The encoder a row trained, for the table: its type, and bfloat16 where the config asked for it; a
    machine that recorded no native bfloat16 trained in float32 whatever the config asked.
    """
    encoder = result.get("used", {}).get("encoder")
    if not encoder:
        return "not recorded"
    text = ENCODER_NAMES.get(encoder["type"], encoder["type"])
    if encoder.get("bfloat16_training"):
        fell_back = bfloat16_fell_back(encoder, result["machine"])
        text += ", bf16 asked (float32 here: no native bf16)" if fell_back else ", bf16"
    return text


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


def test_scores(result: Dict) -> Dict:
    """The project's scorer on the test predictions where it ran (the same UAS as `allennlp evaluate`)."""
    return result.get("test_scorer") or result["test"]


def seed_table(rows: List[Dict]) -> List[str]:
    """The rows of a section run with more than one seed (`common.seed_lines`), compared by mean test UAS."""
    return seed_lines(rows, trained_settings, "used", "Over seeds (mean ± sample standard deviation, n runs):",
                      ["dev UAS", "dev LAS", "test UAS", "test LAS"], "test UAS",
                      lambda result, column: (result["dev"] if column.startswith("dev") else test_scores(result))[
                          column.split()[1]])


def trained_settings(result: Dict) -> Dict:
    """
    What a run recorded of how it trained (`used`), less what does not change training: the notes on where
    an older run's encoder settings and tagger keys came from, and the tagger's keys where there is no
    tagger (runs made before the runner recorded them have none).
    """
    used = copy.deepcopy(result.get("used", {}))
    used.get("encoder", {}).pop("source", None)
    model = used.get("model", {})
    model.pop("source", None)
    if not model.get("predict_upos"):
        model.pop("predict_upos", None)
        model.pop("upos_loss_weight", None)
    return used


def baseline_margins(rows: List[Dict], baseline: str = "biaffine_mst") -> List[str]:
    """
    Every row that ran once: its test UAS minus the baseline's (the mean of the baseline's seeds where it
    has several, with where the row falls against their range). One run of a row measures no spread, so
    the line says that none of these differences is known to exceed it; rows with several seeds are
    compared in the seed table instead. A row whose config is a variant with its own baseline over the
    same features (`coach_valid_mpnet` beside `biaffine_mst_mpnet`: the configs share the suffix) is also
    given its margin over that one, where both ran once.
    """
    runs = runs_by_row(rows)
    single = [row for row, results in runs.items() if row != baseline and len(results) == 1]
    if baseline not in runs or not single:
        return []
    baseline_uas = [test_scores(result)["UAS"] for result in runs[baseline]]
    reference = statistics.mean(baseline_uas)

    def test_uas(row: str) -> float:
        return test_scores(runs[row][0])["UAS"]

    def against_seeds(row: str) -> str:
        if len(baseline_uas) == 1:
            return ""
        if test_uas(row) > max(baseline_uas):
            return " (above every seed)"
        if test_uas(row) < min(baseline_uas):
            return " (below every seed)"
        return " (within the seeds' range)"

    margins = ", ".join(f"{row} {100 * (test_uas(row) - reference):+.2f}{against_seeds(row)}" for row in single)
    # a baseline row over other features, by the suffix its config adds to the baseline's: "_mpnet"
    feature_baselines = {
        Path(runs[row][0]["config"]).stem[len(baseline):]: row
        for row in single
        if Path(runs[row][0]["config"]).stem.startswith(baseline + "_")
    }
    same_features = [
        f"{row} − {own} {100 * (test_uas(row) - test_uas(own)):+.2f}"
        for row in single
        for suffix, own in feature_baselines.items()
        if row != own and Path(runs[row][0]["config"]).stem.endswith(suffix)
    ]
    if len(baseline_uas) == 1:
        lines = [f"Test UAS minus {baseline}'s: {margins}."]
    else:
        lines = [f"Test UAS minus the mean of {baseline}'s {len(baseline_uas)} seeds ({seed_list(runs[baseline])}; "
                 f"{100 * min(baseline_uas):.2f} to {100 * max(baseline_uas):.2f}): {margins}."]
    if same_features:
        lines.append(f"Against the baseline over the same features: {', '.join(same_features)}.")
    lines.append("These rows ran once each: their own seed-to-seed spread is not measured, so none of these "
                 "differences is known to exceed it.")
    return [" ".join(lines), ""]


def upos_accuracies(rows: List[Dict]) -> List[str]:
    """The test UPOS accuracy of the rows whose model tags (`allennlp evaluate`'s UPOS metric)."""
    tagged = []
    for result in rows:
        if "UPOS" in result["test"]:
            seed = f" (seed {result['seed']})" if result.get("seed") else ""
            tagged.append(f"{result['row']}{seed} {percent(result['test']['UPOS'])}")
    if not tagged:
        return []
    return [f"Test UPOS accuracy of the rows that tag (the model's UPOS head against the gold column): "
            f"{', '.join(tagged)}.", ""]


def reproduce_commands(rows: List[Dict], treebank: str, section: str, epochs: int,
                       patience: Optional[int]) -> List[str]:
    """The commands that rerun a section's rows, one per set of seeds the rows ran with."""
    seeds_of: Dict[str, List[int]] = {}
    for result in rows:
        seeds_of.setdefault(row_spec(result), []).append(result.get("seed", 0))
    groups: Dict[tuple, List[str]] = {}
    for spec, seeds in seeds_of.items():
        groups.setdefault(tuple(sorted(seeds)), []).append(spec)
    base = (f".venv/bin/python scripts/run_experiments.py --treebank {treebank} --epochs {epochs} "
            + (f"--patience {patience} " if patience is not None else "")
            + (f"--section {section} " if section != treebank else ""))
    return [f"    {base}" + (f"--seeds {','.join(map(str, seeds))} " if seeds != (0,) else "")
            + " ".join(shlex.quote(spec) for spec in specs) for seeds, specs in groups.items()]


def sections(results_dir: Path = RESULTS) -> List[str]:
    """A section per results folder of training runs (results/<section>/*.json), in the order of their names."""
    results = run_results(results_dir)
    lines: List[str] = []
    # Table 3's rows in the paper's order (oracle within roll-in)
    table3 = [spec.partition("=")[0] for spec in TABLE3]
    for section in sorted({section_of(result) for result in results}):
        rows = sorted((result for result in results if section_of(result) == section),
                      key=lambda result: (ROW_ORDER.index(Path(result["config"]).stem)
                                          if Path(result["config"]).stem in ROW_ORDER else len(ROW_ORDER),
                                          bool(result["overrides"]),
                                          table3.index(result["row"]) if result["row"] in table3 else len(table3),
                                          result["row"], result.get("seed", 0)))
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
            "| row | config | settings | encoder | objective | epochs | best epoch | dev UAS | dev LAS | test UAS | "
            "test LAS | extra: test UAS w/o PUNCT, SYM | s/epoch | eval sent/s | machine | trained at | date |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        marked = False
        for result in rows:
            mark = dev_las_mark(result)
            marked = marked or bool(mark)
            seconds = result.get("train_seconds_per_epoch")
            test = test_scores(result)
            seed = f" (seed {result['seed']})" if result.get("seed") else ""
            lines.append(
                f"| {result['row']}{seed} | `{Path(result['config']).stem}` | {settings(result)} | {encoder_text(result)} | "
                f"{objective(result)} | {result['epochs_done']} | {result['best_epoch']} | {percent(result['dev']['UAS'])} | "
                f"{percent(result['dev']['LAS'])}{mark} | {percent(test['UAS'])} | {percent(test['LAS'])} | "
                f"{percent(result.get('test_without_punctuation', {}).get('UAS'))} | "
                f"{'' if seconds is None else f'{seconds:.0f}'} | "
                f"{result['evaluate_sentences_per_second']:.0f} | {machine_text(result['machine'])} | "
                f"{short_commit(result['git_commit'])} | {result['date'][:10]} |"
            )
        lines += [""] + seed_table(rows) + baseline_margins(rows) + upos_accuracies(rows)
        patience = first["budget"].get("patience")
        lines += ["Reproduce (sequentially; each row is resumable):", "",
                  *reproduce_commands(rows, treebank, section, budgets[-1], patience), ""]
        if marked:
            lines += ["(a) dev LAS of a biaffine model trained before commit c75e16e compares full relations "
                      "(`nmod:poss` against `nmod` is wrong), lower than CoNLL 2018's; its test LAS comes from the "
                      "project's scorer and is comparable.", ""]
        notes = sorted({clone_paths(result["note"]) for result in rows if result.get("note")})
        lines += [f"Note: {note}." for note in notes] + ([""] if notes else [])
    return lines
