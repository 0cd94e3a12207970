"""
docs/RESULTS.md, generated from the JSON files under results/ and never edited by hand: a table per section
of training runs (results/<section>/*.json, written by `runner`) with the command that reproduces it, then
the speed table (results/speed.json, `bench_speed`), the tokenisers (results/tokenisation/, `tokenisation_f1`)
and raw-text parsing (results/raw_text/, `raw_text_eval`), and paired bootstraps of two models' test
predictions (results/significance/, `paired_bootstrap`). The commands and notes that those JSONs recorded are
written as a clone of the repository runs them: the absolute folders of the machine that made a result become
paths relative to the repository (`clone_paths`).

    .venv/bin/python scripts/run_experiments.py --regenerate
"""
import copy
import functools
import json
import re
import shlex
import statistics
import subprocess
from pathlib import Path
from typing import Callable, Dict, List, Optional

from seqgraph_experiments import DOCS, RESULTS, ROOT
from seqgraph_experiments.results import read_json, run_results, section_of
from seqgraph_experiments.rows import TABLE3, feature_cache_off, row_spec
from seqgraph_experiments.runner import stopped_early

REPORT = DOCS / "RESULTS.md"

# an absolute path in a recorded command or note: a `/` that starts a word (at the start of a line, after a space,
# a quote, a backquote, `=` or `(`), not one inside a word such as `ROW[.seedN]/model/` or `docs/RESULTS.md`
ABSOLUTE_PATH = re.compile(r"(?<![^\s'\"`=(])/(?:[\w.+-]+/)*[\w.+-]+")


def clone_path(path: str, root: Path = ROOT) -> str:
    """
    An absolute path recorded on the machine that made a result, as a clone of the repository names it: a path
    in a runs folder `.../experiments/...` (where the tools write their serialization directories, `RUNS`, in
    whichever checkout ran them) becomes `experiments/...`, one under this repository relative to it, and any
    other (a scratch folder of that machine) `DIR`.
    """
    parts = Path(path).parts
    if "experiments" in parts:
        return str(Path(*parts[parts.index("experiments"):]))
    try:
        return str(Path(path).relative_to(root))
    except ValueError:
        return "DIR"


def clone_paths(text: str, root: Path = ROOT) -> str:
    """`text` with every absolute path rendered by `clone_path`, so that no command names one machine's folders."""
    return ABSOLUTE_PATH.sub(lambda match: clone_path(match.group(0), root), text)


def as_cloned(section: Callable[..., List[str]]) -> Callable[..., List[str]]:
    """A section's lines with the absolute paths that its JSON recorded (commands, notes) as a clone names them."""
    @functools.wraps(section)
    def lines(*args, **kwargs) -> List[str]:
        return [clone_paths(line) for line in section(*args, **kwargs)]

    return lines

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


def bfloat16_fell_back(encoder: Dict, machine: Dict) -> bool:
    """Whether an encoder config asked for bfloat16 on a machine that recorded no native bfloat16: float32 there."""
    return bool(encoder.get("bfloat16_training")) and machine.get("native_bfloat16") is False


def machine_text(machine: Dict) -> str:
    """The machine column: the GPU, or the CPU cores with their vector instructions and the threads."""
    if machine.get("gpu"):
        return machine["gpu"]
    text = f"{machine['cpu_cores']} CPU cores"
    if machine.get("cpu_capability"):
        text += f" ({machine['cpu_capability']})"
    if machine.get("threads"):
        text += f", {machine['threads']} thread(s)"
    return text


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


def test_scores(result: Dict) -> Dict:
    """The project's scorer on the test predictions where it ran (the same UAS as `allennlp evaluate`)."""
    return result.get("test_scorer") or result["test"]


def spread(values: List[float]) -> str:
    """`mean ± sample standard deviation`, in %."""
    return f"{100 * statistics.mean(values):.2f} ± {100 * statistics.stdev(values):.2f}"


def runs_by_row(rows: List[Dict]) -> Dict[str, List[Dict]]:
    """A section's results grouped by row, in order: a row's runs are its seeds."""
    runs: Dict[str, List[Dict]] = {}
    for result in rows:
        runs.setdefault(result["row"], []).append(result)
    return runs


def seed_list(results: List[Dict]) -> str:
    """The seeds of a row's runs, `0, 1, 2` (runs made before seeds have none: AllenNLP's own, seed 0)."""
    return ", ".join(str(result.get("seed", 0)) for result in results)


def seed_comparisons(scores: Dict[str, List[float]], metric: str) -> List[str]:
    """
    For each pair of rows (their seeds' scores, fractions), a line with the difference of their mean `metric`
    and whether it exceeds the spread: whether every seed of one row scores above every seed of the other.
    """
    lines = []
    names = list(scores)
    for index, first in enumerate(names):
        for second in names[index + 1:]:
            ours, theirs = scores[first], scores[second]
            difference = statistics.mean(ours) - statistics.mean(theirs)
            if min(ours) > max(theirs) or min(theirs) > max(ours):
                verdict = "exceeds the spread (no seed of the lower row reaches a seed of the higher one)"
            else:
                verdict = "within the spread (the rows' seeds overlap)"
            lines.append(f"- {first} − {second}: {metric} {100 * difference:+.2f}, {verdict}.")
    return lines


def seed_table(rows: List[Dict]) -> List[str]:
    """
    The rows of a section run with more than one seed: mean and standard deviation of their scores, and for
    each pair of such rows the difference of mean test UAS and whether it exceeds the spread, i.e. whether
    every seed of one row scores above every seed of the other.
    """
    runs = runs_by_row(rows)
    seeded = {row: results for row, results in runs.items() if len(results) > 1}
    # seeds are runs of one setting: a row whose runs trained differently is not averaged
    mixed = {row: results for row, results in seeded.items()
             if len({json.dumps(trained_settings(result), sort_keys=True) for result in results}) > 1}
    seeded = {row: results for row, results in seeded.items() if row not in mixed}
    notes = [
        f"- {row}: not averaged, its runs (seeds {seed_list(results)}) "
        "trained with different settings (`used` in their JSONs)."
        for row, results in mixed.items()
    ]
    if not seeded:
        return notes + [""] if notes else []
    lines = [
        "Over seeds (mean ± sample standard deviation, n runs):",
        "",
        "| row | n | seeds | dev UAS | dev LAS | test UAS | test LAS |",
        "|---|---|---|---|---|---|---|",
    ]
    for row, results in seeded.items():
        lines.append(
            f"| {row} | {len(results)} | {seed_list(results)} | "
            f"{spread([result['dev']['UAS'] for result in results])} | "
            f"{spread([result['dev']['LAS'] for result in results])} | "
            f"{spread([test_scores(result)['UAS'] for result in results])} | "
            f"{spread([test_scores(result)['LAS'] for result in results])} |"
        )
    lines.append("")
    lines += seed_comparisons({row: [test_scores(result)["UAS"] for result in results]
                               for row, results in seeded.items()}, "test UAS")
    lines += notes
    return lines if lines[-1] == "" else lines + [""]


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


@as_cloned
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
    lines += ["", "Made with:", "", f"    .venv/bin/python {speed['command']}", ""]
    return lines


@as_cloned
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
    lines += ["", "Made with:", "", f"    .venv/bin/python {speed['command']}", ""]
    return lines


@as_cloned
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


@as_cloned
def raw_text_table(result: Dict) -> List[str]:
    """The section of a results/raw_text/*.json written by scripts/raw_text_eval.py."""
    def cell(value) -> str:
        return "—" if value is None else f"{value:.2f}"

    # rows before the learned segmenter were all split by the rules and do not say so
    splitters = ("split by the learned segmenter that the archive carries or by spaCy's rules, as each row says"
                 if any("," in row["input"] for row in result["rows"]) else "split by spaCy's rules")
    lines = [
        f"## Raw text: parsing ({result['name']})",
        "",
        f"From `results/raw_text/{result['name']}.json`: `{result['model']['path']}` parses `{result['gold']['path']}` "
        f"({result['gold']['sentences']} sentences) from its raw text (rebuilt from the `# text` lines, "
        f"{result['gold']['texts']} texts; {splitters}) and from the gold "
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


def segmentation_table(paths: List[Path]) -> List[str]:
    """The section of results/segmentation/*.json, written by scripts/segmenter_eval.py: one row per
    treebank, splitter and layout."""
    if not paths:
        return []
    results = [read_json(path) for path in paths]
    lines = [
        "## Raw text: segmentation",
        "",
        "From `results/segmentation/*.json` (`bash scripts/segmenter_rows.sh`): the raw text of each test file, "
        "rebuilt from its `# text` lines (`paragraphs`: each document with a blank line between paragraphs; "
        "`running`: each document on one line), split by the segmenter learned from the treebank "
        "(`training_config/segmenter.jsonnet`) and by spaCy's rules (the splitter of an archive without a "
        "segmenter), scored against the gold tokens, words and sentences with the CoNLL 2018 evaluation "
        "(`udtools.udeval`), F1 in %. Multiword tokens: found / in the gold file. sent/s: the test file's "
        "sentences over the splitter's time in one process after loading (not a cold start); — where other jobs "
        "shared the machine.",
        "",
        "| test file | trained on | splitter | layout | Tokens | Sentences | Words | multiword tokens | sent/s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for result in results:
        trained_on = result["segmenter"]["trained_on"]
        short = "dev (90 %), no train file" if "no train file" in trained_on else "train"
        for row in result["rows"]:
            lines.append(
                f"| {result['name']} | {short if row['segmenter'] == 'learned' else '—'} | {row['segmenter']} | "
                f"{row['layout']} | {row['Tokens']:.2f} | {row['Sentences']:.2f} | {row['Words']:.2f} | "
                f"{row['multiword_tokens']} / {result['gold']['multiword_tokens']} | "
                + (f"{row['sentences_per_second']:.0f} |" if result.get("timed_on_a_quiet_machine", True) else "— |")
            )
    lines += [""]
    for result in results:
        cold = next((row["cold_predict_seconds"] for row in result["rows"] if row.get("cold_predict_seconds")), None)
        quiet = result.get("timed_on_a_quiet_machine", True)
        lines.append(
            f"- {result['name']}: `{result['gold']['path']}` ({result['gold']['sentences']} sentences), the "
            f"segmenter trained on {result['segmenter']['trained_on']}; {machine_text(result['machine'])}, "
            f"{'' if result['machine'].get('native_bfloat16') else 'no '}native bfloat16, {result['date'][:10]}, "
            f"commit {result['git_commit'][:10]}; `.venv/bin/python {result['command']}`"
            + (f"; a cold `allennlp predict` of the segmenter over the file: {cold} s" if cold and quiet else "")
            + "."
        )
    return lines + [""]


# how a paired bootstrap with enhanced graphs scores them
ENHANCED_SAMPLES = (
    "; ELAS and EULAS from each sentence's gold, predicted and right enhanced edges, empty nodes collapsed, as "
    "F1 of a sample's pooled counts"
)


@as_cloned
def significance_table(result: Dict) -> List[str]:
    """The section of a results/significance/*.json written by scripts/paired_bootstrap.py."""
    first, second = result["parsers"]
    lines = [
        f"## Paired bootstrap ({result['name']}): {first['name']} against {second['name']}",
        "",
        f"From `results/significance/{result['name']}.json`: the two models' predictions of `{result['gold']['path']}` "
        f"({result['gold']['sentences']} sentences, {result['gold']['words']} words), scored per sentence (CoNLL "
        f"2018, every word{ENHANCED_SAMPLES if 'ELAS' in result else ''}); its sentences resampled with "
        f"replacement {result['samples']} times (seed "
        f"{result['seed']}). This measures what the choice of test sentences alone does to the difference of "
        "these two trained models, not the spread from training seeds. Commit "
        f"{result['git_commit'][:10]}, {result['date'][:10]}.",
        "",
        f"| metric | {first['name']} | {second['name']} | difference | 95 % interval | samples where "
        f"{first['name']} does not lead |",
        "|---|---|---|---|---|---|",
    ]
    # ELAS and EULAS where both predictions had enhanced graphs (F1 of the pooled edges of each sample)
    for metric in [metric for metric in ("UAS", "LAS", "ELAS", "EULAS") if metric in result]:
        low, high = result[metric]["interval_95"]
        lines.append(
            f"| {metric} | {percent(first[metric])} | {percent(second[metric])} | "
            f"{100 * result[metric]['difference']:+.2f} | {100 * low:+.2f} to {100 * high:+.2f} | "
            f"{100 * result[metric]['share_not_leading']:.2f} % |"
        )
    lines += ["", "Made with:", "", f"    .venv/bin/python {result['command']}", ""]
    return lines


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
    """
    The enhanced rows run with more than one seed: mean and sample standard deviation of their test scores (as
    the rows' JSONs hold them now, rescored ones under today's rules), and for each pair of such rows the
    difference of mean test ELAS and whether every seed of one row scores above every seed of the other.
    Rows whose runs trained differently are named, not averaged.
    """
    seeded = {row: results for row, results in runs_by_row(runs).items() if len(results) > 1}
    mixed = [row for row, results in seeded.items()
             if len({json.dumps(enhanced_training_settings(result), sort_keys=True) for result in results}) > 1]
    notes = [f"- {row}: not averaged, its runs (seeds {seed_list(seeded.pop(row))}) trained with different "
             "settings (`config_differences` in their JSONs)." for row in mixed]
    if not seeded:
        return notes + [""] if notes else []
    metrics = ("ELAS", "EULAS", "UAS", "LAS")
    lines = [
        "Over seeds (mean ± sample standard deviation of the test scores, n runs):",
        "",
        "| row | n | seeds | " + " | ".join(f"test {metric}" for metric in metrics) + " |",
        "|---|---|---|" + "---|" * len(metrics),
    ]
    for row, results in seeded.items():
        lines.append(f"| {row} | {len(results)} | {seed_list(results)} | "
                     + " | ".join(spread([result["test"][metric] for result in results]) for metric in metrics) + " |")
    lines.append("")
    lines += seed_comparisons({row: [result["test"]["ELAS"] for result in results]
                               for row, results in seeded.items()}, "test ELAS")
    lines += notes
    return lines if lines[-1] == "" else lines + [""]


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
    The "Enhanced UD (EWT)" section: the runs of scripts/enhanced_eval.py (results/enhanced/ROW[.seedN].json),
    then the reference lines of results/enhanced/tree_copy.json (a basic tree copied into DEPS: the gold tree
    and the earlier models' predicted trees), the shared tasks' figures and the commands. No section (no
    lines) without a run.
    """
    runs = enhanced_runs(results_dir)
    if not runs:
        return []
    lines = [
        "## Enhanced UD (EWT)",
        "",
        "From `results/enhanced/*.json` (`scripts/enhanced_eval.py`): each model parses dev and test (the gold "
        "tokenisation) with `allennlp predict` into CoNLL-U, its basic tree (HEAD, DEPREL) and its enhanced "
        "graph (DEPS). UAS and LAS by the CoNLL 2018 evaluation (`udtools.udeval`); ELAS and EULAS by udeval "
        "with the empty nodes collapsed in both files, as the IWPT shared tasks scored them; in %. Epochs: "
        "done / the config's budget (a budget cut to fit a session and extended later, `EXTEND=1` of "
        "scripts/enhanced_rows.sh, says from what); early stop: ended by its `trainer.patience` epochs without "
        "a better dev ELAS, converged; not converged: see the list below the table. Parse sent/s: test sentences over the wall clock of `allennlp predict` in a "
        "new process, start-up and model loading included (on the machine in the JSON); † marks a run whose "
        "model kept the `cache_directory` of its frozen features (the mpnet rows, `experiments/features`) and was "
        "timed before the evaluation turned it off: its test parse may have read the features that training or "
        "an earlier evaluation stored instead of computing them, so its figure is not the speed a user meets "
        "(a figure near 26 was computed, as issue 43 measured an mpnet model: `results/speed.json`). Machine: the "
        "evaluation's, and the precision the encoder ran in there (a training that spanned sessions may have run "
        "partly elsewhere). Commit: the evaluation's. Predictor's rules: whether the test prediction had the "
        "predictor's rules over the graph "
        "(its defaults since 2026-11-26: the lexical part of the labels filled from the words, the tree edge of a "
        "word attached by `ref` taken out; `seqgraph_allennlp/common/enhanced_rules.py`), with the test ELAS "
        "of the model's own graph beside (`scripts/enhanced_rules.py` measures each rule).",
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
            f"{percent(test['EULAS'])} | "
            f"{percent(test['UAS'])} | {percent(test['LAS'])} | "
            f"{percent(result.get('test_own_tree_copy', {}).get('ELAS'))} | {parse_speed(result)} | "
            f"{enhanced_machine_text(result)} | {result['date'][:10]} | "
            f"{result['git_commit'][:7]}{'+' if 'uncommitted' in result['git_commit'] else ''} |"
        )
    tree_copy_path = results_dir / "enhanced" / "tree_copy.json"
    reference = read_json(tree_copy_path) if tree_copy_path.exists() else None
    if reference:
        commit = f"{reference['git_commit'][:7]}{'+' if 'uncommitted' in reference['git_commit'] else ''}"
        for name, row in reference["rows"].items():
            label = REFERENCE_LABELS.get(name, f"tree copy: {name} (predicted tree)")
            for suffix, text in PERFECT_GRAPH_PHASE_LABELS.items():
                if name.endswith(suffix):
                    label = f"ceiling: {name[:-len(suffix)]}'s test tree, {text}"
            lines.append(
                f"| {label} |  |  |  |  | {percent(row['ELAS'])} |  | {percent(row['EULAS'])} | "
                f"{percent(row.get('UAS'))} | {percent(row.get('LAS'))} |  |  |  | {reference['date'][:10]} | {commit} |"
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


def write_report(results_dir: Path = RESULTS, report: Path = REPORT) -> None:
    results = run_results(results_dir)
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
        "The encoder column is what a row trained: from the run's config, or, for runs made before the runner",
        "recorded it, from the row's config at the commit in \"trained at\". The Reproduce commands run today's",
        "configs: the shipped BiLSTM is the fused one since commit 3db4880 and trains in bfloat16 (where the",
        "CPU has it natively) since 3d8d2ae, so a row trained before either reproduces at its commit, or with",
        "`[ENCODER=stacked]` or `{\"model.encoder.bfloat16_training\": false}` added to its row.",
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
                f"| {result['row']}{seed} | `{Path(result['config']).stem}` | "
                f"{settings(result)} | {encoder_text(result)} | "
                f"{objective(result)} | {result['epochs_done']} | {result['best_epoch']} | {percent(result['dev']['UAS'])} | "
                f"{percent(result['dev']['LAS'])}{mark} | {percent(test['UAS'])} | "
                f"{percent(test['LAS'])} | "
                f"{percent(result.get('test_without_punctuation', {}).get('UAS'))} | "
                f"{'' if seconds is None else f'{seconds:.0f}'} | "
                f"{result['evaluate_sentences_per_second']:.0f} | {machine_text(result['machine'])} | "
                f"{result['git_commit'][:7]}{'+' if 'uncommitted' in result['git_commit'] else ''} | {result['date'][:10]} |"
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
    speed_path = results_dir / "speed.json"
    if speed_path.exists():
        lines += speed_table(read_json(speed_path))
    english_speed_path = results_dir / "speed_english.json"
    if english_speed_path.exists():
        lines += english_speed_table(read_json(english_speed_path))
    for tokenisation_path in sorted((results_dir / "tokenisation").glob("*.json")):
        lines += tokenisation_table(read_json(tokenisation_path))
    lines += segmentation_table(sorted((results_dir / "segmentation").glob("*.json")))
    for raw_text_path in sorted((results_dir / "raw_text").glob("*.json")):
        lines += raw_text_table(read_json(raw_text_path))
    for significance_path in sorted((results_dir / "significance").glob("*.json")):
        lines += significance_table(read_json(significance_path))
    lines += enhanced_table(results_dir)
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text("\n".join(lines))
    print(f"wrote {report}")

