"""The "Enhanced UD (EWT)" section: the runs of `enhanced_eval` (results/enhanced/), the lines of `tree_copy`."""
from pathlib import Path
from typing import Dict, List, Optional

from seqgraph_experiments import RESULTS
from seqgraph_experiments.report.common import bfloat16_fell_back, machine_text, percent, seed_lines, short_commit
from seqgraph_experiments.results import read_json
from seqgraph_experiments.rows import feature_cache_off
from seqgraph_experiments.runner import stopped_early


def enhanced_machine_text(result: Dict) -> str:
    """
    An enhanced run's machine column: `machine_text` and the precision its encoder ran in there, bfloat16 where
    the config asked for it and the CPU has it natively, else float32 (`seqgraph_allennlp.modules.precision`).
    """
    encoder = result["used_config"]["model"].get("encoder", {})
    precision = "bf16" if encoder.get("bfloat16_training") else "float32"
    if bfloat16_fell_back(encoder, result["machine"]):
        precision = "float32 (no native bf16)"
    return f"{machine_text(result['machine'])}, encoder {precision}"


# where docs/RESULTS.md's "Enhanced UD (EWT)" section compares with the shared tasks' published figures
IWPT_NOTE = (
    "The IWPT 2020 and 2021 shared tasks' EWT figures (RobertNLP's 89.42 ELAS in 2021, for one) came from raw "
    "text (each system's own tokenisation and sentence splitting) and older UD releases of EWT, so they are not "
    "comparable with these rows, which parse the gold tokenisation of the project's EWT copy (`splits` in each JSON)."
)


def enhanced_runs(results_dir: Path) -> List[Dict]:
    """The runs of scripts/enhanced_eval.py under results/enhanced/ (`kind`: tree_copy.json and the others are not)."""
    from seqgraph_experiments.enhanced_eval import KIND

    runs = [result for result in (read_json(path) for path in sorted((results_dir / "enhanced").glob("*.json")))
            if result.get("kind") == KIND]
    return sorted(runs, key=lambda result: (result["row"], result.get("seed", 0)))


# the reference lines of results/enhanced/tree_copy.json that are not a predicted tree
REFERENCE_LABELS = {
    "gold": "tree copy: gold tree",
    "gold_graph_representable": "ceiling: gold graph as the parser represents it",
    "gold_tree_first_ceiling": "ceiling: gold tree, then the gold graph's other edges (the parser's graph holds its tree)",
}


# tree_copy.json's ceilings of a graph parser's own predicted tree (`tree_copy.perfect_graph_phase`), longest first
PERFECT_GRAPH_PHASE_LABELS = {
    "_perfect_graph_phase_gold_tree_labels": "every other gold edge added, gold labels on its tree edges",
    "_perfect_graph_phase": "every other gold edge added (a perfect graph phase), its own labels on its tree edges",
}


def rules_text(result: Dict) -> str:
    """Whether a row's test prediction had the predictor's rules over the graph, and its ELAS without them."""
    if "rules" not in result:
        return "none"
    return f"yes (without: {percent(result['test_without_rules']['ELAS'])})"


# overrides that do not change what a run trains: its seeds, where features are cached, parse-time precision
NOT_TRAINING = ("random_seed", "numpy_seed", "pytorch_seed")
NOT_TRAINING_SUFFIXES = (".cache_directory", "_inference")


def enhanced_training_settings(result: Dict) -> Dict:
    """
    A run's overrides of its config (`config_differences`) less those that do not change its training: also
    its epoch budget where no learning-rate schedule reads it (a budget then only says where training may
    stop, which the table's epochs cell and its list of runs that may not have converged report).
    """
    changed = result.get("config_differences", {}).get("changed", {})
    scheduled = "learning_rate_scheduler" in result.get("used_config", {}).get("trainer", {})
    return {key: value for key, value in changed.items()
            if key not in NOT_TRAINING and not key.endswith(NOT_TRAINING_SUFFIXES)
            and (scheduled or key != "trainer.num_epochs")}


def enhanced_seed_lines(runs: List[Dict]) -> List[str]:
    """The enhanced rows run with more than one seed (`common.seed_lines`), as their JSONs hold them, by test ELAS."""
    return seed_lines(runs, enhanced_training_settings, "config_differences",
                      "Over seeds (mean ± sample standard deviation of the test scores, n runs):",
                      [f"test {metric}" for metric in ("ELAS", "EULAS", "UAS", "LAS")], "test ELAS",
                      lambda result, column: result["test"][column.split()[1]])


def parse_speed(result: Dict) -> str:
    """
    An enhanced run's parse sent/s, marked † when its timed parse may have read the frozen features from the
    `cache_directory` the model trained with (evaluated before `enhanced_eval` turned it off for the timed
    parse: no `features_cache_off` in its record): not the speed a user's `allennlp predict` meets.
    """
    speed = f"{result['parse']['sentences_per_second']:.1f}"
    read_cache = "features_cache_off" not in result["parse"] and feature_cache_off(result["used_config"])
    return f"{speed} †" if read_cache else speed


def convergence(result: Dict) -> Optional[str]:
    """
    Whether an enhanced run trained to convergence, from how its training ended (`stopped`): None where it
    did (early stopping: `patience` epochs without a better dev score; or its whole budget with the best dev
    epoch before the last `patience`), else why not: cut before its budget without early stopping, or its
    budget spent while the dev score still rose (the best epoch among the last `patience`, or no patience).
    """
    done, best = result["epochs_done"], result["best_epoch"]
    patience = result["budget"].get("patience")
    stopped = result.get("stopped") or ""
    if stopped_early(stopped):
        return None
    if not result["finished_budget"]:
        return f"cut: {stopped or f'{done} epochs'}, best dev epoch {best}"
    if patience is None:
        return f"its budget of {done} epochs spent, no early stopping, best dev epoch {best}"
    if done - best < patience:
        return f"its budget of {done} epochs spent, best dev epoch {best}: among the last {patience}"
    return None


def epochs_text(result: Dict) -> str:
    """
    An enhanced row's epochs cell: done / budget, how the training ended (early stopping, or not converged:
    `convergence`) and a budget extended over sessions.
    """
    text = f"{result['epochs_done']} / {result['budget']['epochs']}"
    if stopped_early(result.get("stopped")):
        text += " (early stop)"
    elif convergence(result):
        text += " (not converged)"
    extended = [str(extension["from_epochs"]) for extension in result.get("budget_extensions", [])]
    if extended:
        text += f" (budget extended from {', then '.join(extended)})"
    return text


def enhanced_table(results_dir: Path = RESULTS) -> List[str]:
    """
    The section: the runs, then the reference lines of results/enhanced/tree_copy.json (a basic tree copied into
    DEPS: the gold tree and the earlier models' predicted trees), the shared tasks' figures, the commands; no run, no
    section.
    """
    runs = enhanced_runs(results_dir)
    if not runs:
        return []
    lines = [
        "## Enhanced UD (EWT)",
        "",
        "From `results/enhanced/*.json` (`scripts/enhanced_eval.py`): each model parses dev and test (the gold "
        "tokenisation) with `allennlp predict` into CoNLL-U, its basic tree (HEAD, DEPREL) and its enhanced graph "
        "(DEPS). UAS and LAS by the CoNLL 2018 evaluation (`udtools.udeval`); ELAS and EULAS by udeval with the empty "
        "nodes collapsed in both files, as the IWPT shared tasks scored them; in %. Epochs: done / the config's budget "
        "(a budget cut to fit a session and extended later, `EXTEND=1` of scripts/enhanced_rows.sh, says from what); "
        "early stop: ended by its `trainer.patience` epochs without a better dev ELAS, converged; not converged: see "
        "the list below the table. Parse sent/s: test sentences over the wall clock of `allennlp predict` in a new "
        "process, start-up and model loading included (on the machine in the JSON); † marks a run whose model kept the "
        "`cache_directory` of its frozen features (the mpnet rows, `experiments/features`) and was timed before the "
        "evaluation turned it off: its test parse may have read the features that training or an earlier evaluation "
        "stored instead of computing them, so its figure is not the speed a user meets (a figure near 26 was computed, "
        "as issue 43 measured an mpnet model: `results/speed.json`). Machine: the evaluation's, and the precision the "
        "encoder ran in there (a training that spanned sessions may have run partly elsewhere). Commit: the "
        "evaluation's. Predictor's rules: whether the test prediction had the predictor's rules over the graph (its "
        "defaults since 2026-11-26: the lexical part of the labels filled from the words, the tree edge of a word "
        "attached by `ref` taken out; `seqgraph_allennlp/common/enhanced_rules.py`), with the test ELAS of the model's "
        "own graph beside (`scripts/enhanced_rules.py` measures each rule).",
        "",
        "| row | seed | epochs (done / budget) | best epoch | dev ELAS | test ELAS | predictor's rules | "
        "test EULAS | test UAS | test LAS | test ELAS of its own tree copied into DEPS | parse sent/s | machine | "
        "date | commit |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    not_converged = []
    for result in runs:
        if convergence(result):
            not_converged.append(f"{result['row']} (seed {result['seed']}): {convergence(result)}")
        test = result["test"]
        lines.append(
            f"| {result['row']} | {result['seed']} | {epochs_text(result)} | {result['best_epoch']} | "
            f"{percent(result['dev']['ELAS'])} | {percent(test['ELAS'])} | {rules_text(result)} | "
            f"{percent(test['EULAS'])} | {percent(test['UAS'])} | {percent(test['LAS'])} | "
            f"{percent(result.get('test_own_tree_copy', {}).get('ELAS'))} | {parse_speed(result)} | "
            f"{enhanced_machine_text(result)} | {result['date'][:10]} | {short_commit(result['git_commit'])} |"
        )
    tree_copy_path = results_dir / "enhanced" / "tree_copy.json"
    reference = read_json(tree_copy_path) if tree_copy_path.exists() else None
    if reference:
        for name, row in reference["rows"].items():
            label = REFERENCE_LABELS.get(name, f"tree copy: {name} (predicted tree)")
            for suffix, text in PERFECT_GRAPH_PHASE_LABELS.items():
                if name.endswith(suffix):
                    label = f"ceiling: {name[:-len(suffix)]}'s test tree, {text}"
            lines.append(
                f"| {label} |  |  |  |  | {percent(row['ELAS'])} |  | {percent(row['EULAS'])} | "
                f"{percent(row.get('UAS'))} | {percent(row.get('LAS'))} |  |  |  | {reference['date'][:10]} | "
                f"{short_commit(reference['git_commit'])} |"
            )
    lines.append("")
    lines += enhanced_seed_lines(runs)
    if not_converged:
        lines += ["Runs that may not have converged (the others ended by early stopping, `patience` epochs "
                  "without a better dev ELAS, or spent their budget with the best epoch before the last "
                  "`patience`): "
                  + "; ".join(not_converged) + ".", ""]
    # rows renamed for one reason, that reason once
    renamed: Dict[str, Dict[str, str]] = {}
    for result in runs:
        if "renamed" in result:
            renamed.setdefault(result["renamed"]["why"], {})[result["row"]] = result["renamed"]["from"]
    for why, rows in renamed.items():
        lines += ["Renamed rows (`renamed` in their JSONs): " + ", ".join(
            f"{row} (once {was})" for row, was in rows.items()) + f": {why}.", ""]
    if reference:
        gold = reference["gold"]
        other_test = [f"{result['row']} (seed {result['seed']}, `{result['splits']['test']['path']}`)"
                      for result in runs if result["splits"]["test"]["sha256"] != gold["sha256"]]
        lines += [
            "Reference lines (`results/enhanced/tree_copy.json`, `scripts/tree_copy.py`): a basic tree copied into "
            "DEPS (each word's one enhanced head its HEAD, its DEPREL the label), scored on "
            f"`{gold['path']}` as above, with the tree's own UAS and LAS: the gold tree, and the test trees "
            "predicted by the earlier converged parsers (`results/ewt_converged/`). What a tree parser scores on "
            "the enhanced layer, and what the graph parser must beat. The ceiling lines: the gold graph as the "
            "graph parser can write it (one label per head and dependent, no self-loop), and what it can output "
            "at best, since its graph always holds its basic tree: with the gold tree, the gold tree's edges that "
            "the enhanced graph lacks (relative pronouns' `nsubj`, `obj`) come with it; with a graph parser's own "
            "test tree (the rows' committed test predictions), what a perfect graph phase would make of it: the "
            "tree edges kept with their labels, every other gold edge added (a word whose tree head is wrong "
            "gets its gold head as an extra edge), and the same with the gold labels on the tree edges."
            + (f" Tested on other data than the reference lines, so not comparable with them: {', '.join(other_test)}."
               if other_test else ""),
            "",
        ]
    else:
        lines += ["No reference lines: `results/enhanced/tree_copy.json` is missing (`scripts/tree_copy.py`).", ""]
    lines += [IWPT_NOTE, "", "Reproduce (train, then evaluate):", ""]
    for result in runs:
        lines += [f"    {command}" for command in result["reproduce"]]
    if reference:
        lines += ["", "The reference lines:", "", f"    .venv/bin/python {reference['command'].strip()}"]
    return lines + [""]
