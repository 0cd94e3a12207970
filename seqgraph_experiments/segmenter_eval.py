"""
A learned segmenter against a UD treebank's gold tokens, words and sentences, beside spaCy's rules (the
splitter a parser archive without a segmenter uses) on the same texts. The raw text of each document is
rebuilt from the gold file's `# text` lines (`seqgraph_experiments.raw_text`: `paragraphs`, a blank line
between paragraphs as in UD's raw text files; `running`, each document on one line), segmented, written as
CoNLL-U with its multiword tokens (a dummy tree: the scorer wants one) and scored with the CoNLL 2018 shared
task's evaluation (`udtools.udeval`): Tokens, Sentences, Words F1, and the multiword tokens found.
Speed: the segmenter's own time over the whole file in one process (after loading and one untimed
warm-up pass), and the time of a cold `allennlp predict` with the segmenter predictor over the file's
paragraphs as JSON lines.
Writes results/segmentation/<name>.json.

    .venv/bin/python scripts/segmenter_eval.py SEGMENTER.tar.gz data/UD_English-EWT/en_ewt-ud-test.conllu \\
        --name en_ewt_test --language en
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

from allennlp.models.archival import load_archive

import seqgraph_allennlp  # noqa: F401  (registers the segmenter)
from seqgraph_allennlp.common.conllu import read_sentences
from seqgraph_allennlp.segmentation.documents import documents
from seqgraph_allennlp.segmentation.labels import gold_tokens
from seqgraph_allennlp.segmentation.sentence import TextSentence
from seqgraph_experiments import RESULTS, ROOT
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_experiments.raw_text import evaluate, layout_texts
from seqgraph_experiments.results import write_json
from seqgraph_experiments.tokenisation_f1 import shipped, system_conllu

OUT = RESULTS / "segmentation"
METRICS = ("Tokens", "Sentences", "Words")
LAYOUTS = ("paragraphs", "running")


def with_dummy_tree(sentence: TextSentence) -> List[str]:
    """The sentence's CoNLL-U lines, each word attached to the first (the scorer wants a tree)."""
    lines = [f"# text = {sentence.text}"]
    for line in sentence.conllu_lines():
        columns = line.split("\t")
        if "-" not in columns[0]:
            columns[6], columns[7] = ("0", "root") if columns[0] == "1" else ("1", "dep")
        lines.append("\t".join(columns))
    return lines


def segmented_conllu(sentences: List[TextSentence]) -> str:
    """Segmented sentences as the CoNLL-U that the scorer reads (`with_dummy_tree`), a blank line after each."""
    return "\n".join(line for sentence in sentences for line in with_dummy_tree(sentence) + [""]) + "\n"


def scores(gold: Path, system: str) -> Dict[str, float]:
    evaluation = evaluate(gold, system)
    return {metric: round(100 * evaluation[metric].f1, 2) for metric in METRICS}


def cold_predict_seconds(archive: Path, texts: List[str], overrides: str = "") -> float:
    """Seconds of `allennlp predict` with the segmenter predictor over the texts, start-up included."""
    with tempfile.TemporaryDirectory() as directory:
        inputs = Path(directory) / "texts.jsonl"
        inputs.write_text("".join(json.dumps({"text": text}) + "\n" for text in texts), encoding="utf-8")
        start = time.perf_counter()
        subprocess.run(
            [str(Path(sys.executable).parent / "allennlp"), "predict", str(archive), str(inputs),
             "--include-package", "seqgraph_allennlp", "--predictor", "segmenter", "--batch-size", "1024",
             "--predictor-args", '{"output_format": "conllu"}', "--output-file", str(Path(directory) / "out"),
             "--silent", *(["--overrides", overrides] if overrides else [])],
            check=True, cwd=ROOT,
        )
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("segmenter", type=Path, help="a trained segmenter archive (model.tar.gz)")
    parser.add_argument("gold", type=Path, help="a UD CoNLL-U file with # text lines")
    parser.add_argument("--name", required=True, help="results/segmentation/NAME.json")
    parser.add_argument("--out-dir", type=Path, default=OUT,
                        help="where NAME.json goes (default: results/segmentation, the rows of docs/RESULTS.md; "
                             "variants of a treebank's segmenter go to results/segmentation/variants)")
    parser.add_argument("--language", required=True, help="the language of spaCy's rules to compare with")
    parser.add_argument("--trained-on", required=True, help="what the segmenter was trained on, for the record")
    parser.add_argument("--overrides", default="",
                        help="JSON overrides of the archive's config for segmenting (allennlp's -o), e.g. "
                             "'{\"model.window_length\": 1024}'; the cold allennlp predict gets them too")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold allennlp predict timing")
    parser.add_argument("--shared-machine", action="store_true",
                        help="other jobs ran beside this one: its times are kept but not reported as speeds")
    args = parser.parse_args()

    sentences = list(read_sentences(str(args.gold)))
    if any(sentence.text is None for sentence in sentences):
        sys.exit(f"error: {args.gold}: every sentence needs a # text line")
    docs = documents(sentences)
    start = time.perf_counter()
    archive = load_archive(str(args.segmenter), overrides=args.overrides)
    segmenter = archive.model
    load_seconds = time.perf_counter() - start
    rules = shipped(args.language)
    # warm-up, untimed: the first calls build oneDNN's kernels for each window shape (the cold
    # `allennlp predict` row counts that cost as a user meets it)
    warm_up = layout_texts(docs, LAYOUTS[0])
    segmenter.segment(warm_up)
    rules(warm_up[0])
    rows = []
    for layout in LAYOUTS:
        texts = layout_texts(docs, layout)
        start = time.perf_counter()
        segmented = segmenter.segment(texts)
        seconds = time.perf_counter() - start
        found = [sentence for text in segmented for sentence in text]
        system = segmented_conllu(found)
        row = {"segmenter": "learned", "layout": layout, **scores(args.gold, system),
               "multiword_tokens": sum(len(sentence.multiword_tokens) for sentence in found),
               "sentences": len(found), "seconds": round(seconds, 3),
               "sentences_per_second": round(len(sentences) / seconds, 1)}
        if layout == "paragraphs" and not args.no_cold:
            row["cold_predict_seconds"] = round(cold_predict_seconds(args.segmenter, texts, args.overrides), 2)
        rows.append(row)
        start = time.perf_counter()
        system, _, found_by_rules = system_conllu(rules, texts)
        seconds = time.perf_counter() - start
        rows.append({"segmenter": f"spaCy rules ({args.language})", "layout": layout, **scores(args.gold, system),
                     "multiword_tokens": 0, "sentences": found_by_rules, "seconds": round(seconds, 3),
                     "sentences_per_second": round(len(sentences) / seconds, 1)})
    for row in rows:
        print("  ".join(f"{key} {value}" for key, value in row.items()), file=sys.stderr)
    result = {
        "name": args.name,
        "segmenter": {"path": os.path.relpath(args.segmenter, ROOT), "sha256": sha256(args.segmenter),
                      "trained_on": args.trained_on, "overrides": args.overrides or None, "model": archive.config.as_dict(quiet=True)["model"],
                      "load_seconds": round(load_seconds, 2)},
        "gold": {"path": os.path.relpath(args.gold, ROOT), "sha256": sha256(args.gold),
                 "sentences": len(sentences), "documents": len(docs),
                 "multiword_tokens": sum(token.is_multiword for sentence in sentences for token in gold_tokens(sentence))},
        "scorer": "udtools.udeval (CoNLL 2018 shared task evaluation), F1 in %",
        "rows": rows,
        "timed_on_a_quiet_machine": not args.shared_machine,
        **stamp("scripts/segmenter_eval.py"),
    }
    print(f"wrote {write_json(args.out_dir / f'{args.name}.json', result)}")


if __name__ == "__main__":
    main()
