"""The raw-text sections: tokenisers (`tokenisation_f1`), segmenters (`segmenter_eval`), parsing (`raw_text_eval`)."""
from pathlib import Path
from typing import Dict, List

from seqgraph_experiments import RESULTS
from seqgraph_experiments.report.common import machine_text, made_with, per_file, percent
from seqgraph_experiments.results import read_json


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
    lines += made_with(result["command"])
    if result.get("alternatives_installed"):
        lines += [f"The alternatives were installed {result['alternatives_installed']}.", ""]
    return lines


def raw_text_table(result: Dict) -> List[str]:
    """The section of a results/raw_text/*.json written by scripts/raw_text_eval.py."""
    def cell(value) -> str:
        return "—" if value is None else f"{value:.2f}"

    # rows before the learned segmenter were all split by the rules and do not say so
    splitters = ("split by the learned segmenter that the archive carries or by spaCy's rules, as each row says"
                 if any("," in row["input"] for row in result["rows"]) else "split by spaCy's rules")
    trained_on = (f"The model (parser and segmenter) was trained on {result['model']['trained_on']}. "
                  if result["model"].get("trained_on") else "")
    # ELAS, EULAS: a model of the enhanced graph (scripts/raw_text_eval.py scores them where it writes one)
    enhanced = any("ELAS" in row for row in result["rows"])
    metrics = ("Tokens", "Sentences", "Words", "UPOS", "UAS", "LAS") + (("ELAS", "EULAS") if enhanced else ())
    enhanced_note = "; ELAS and EULAS with empty nodes collapsed on both sides, as IWPT scored them" if enhanced else ""
    lines = [
        f"## Raw text: parsing ({result['name']})",
        "",
        f"From `results/raw_text/{result['name']}.json`: `{result['model']['path']}` parses `{result['gold']['path']}` "
        f"({result['gold']['sentences']} sentences) from its raw text (rebuilt from the `# text` lines, "
        f"{result['gold']['texts']} texts; {splitters}) and from the gold "
        "tokenisation; scored with the CoNLL 2018 evaluation (`udtools.udeval`, system words aligned to gold "
        f"ones), F1 in %. UPOS only for a model with a tagger{enhanced_note}. {trained_on}"
        f"{result['machine']['cpu_cores']} CPU cores, {result['date'][:10]}, commit {result['git_commit'][:10]}.",
        "",
        "| input | " + " | ".join(metrics) + " | s |",
        "|---|" + "---|" * len(metrics) + "---|",
    ]
    for row in result["rows"]:
        lines.append(f"| {row['input']} | " + " | ".join(cell(row[metric]) for metric in metrics)
                     + f" | {row['seconds']:.1f} |")
    lines += made_with(result["command"])
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
        "(`training_config/segmenter.jsonnet`; `segmenter_pieces.jsonnet` where a row says so) and by spaCy's rules (the splitter of an archive without a "
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
            f"segmenter trained on {result['segmenter']['trained_on']}"
            + (", with multilingual-e5-small's word pieces as a feature (`segmenter_pieces.jsonnet`)"
               if result["segmenter"].get("model", {}).get("piece_tokenizer") else "")
            + f"; {machine_text(result['machine'])}, "
            f"{'' if result['machine'].get('native_bfloat16') else 'no '}native bfloat16, {result['date'][:10]}, "
            f"commit {result['git_commit'][:10]}; `.venv/bin/python {result['command']}`"
            + (f"; a cold `allennlp predict` of the segmenter over the file: {cold} s" if cold and quiet else "")
            + "."
        )
    return lines + [""]


def sections(results_dir: Path = RESULTS) -> List[str]:
    """The tokenisers' sections, the segmentation section, then raw-text parsing's, each file in name order."""
    return (per_file(results_dir / "tokenisation", tokenisation_table)
            + segmentation_table(sorted((results_dir / "segmentation").glob("*.json")))
            + per_file(results_dir / "raw_text", raw_text_table))
