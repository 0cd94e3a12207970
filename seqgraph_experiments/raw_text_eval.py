"""
Parsing from raw text, scored against a UD treebank: the text of each document is rebuilt from the gold
file's `# text` lines (paragraphs separated by a blank line, as UD's raw text files are), parsed all
together with `seqgraph_allennlp.Parser.parse_texts` (the model's segmenter, or the rules, then the model),
and the CoNLL-U output is scored with the CoNLL 2018 shared task's evaluation (`udtools.udeval`), which
aligns the system's words to the gold ones: Tokens, Sentences, Words, UPOS (for a model with a tagger),
UAS and LAS F1, and for a model of the enhanced graph ELAS and EULAS (empty nodes collapsed on both sides, as
the IWPT shared tasks scored them: `seqgraph_allennlp.common.scoring.enhanced_scores`). The same model on the
gold tokenisation is scored too, so the cost of tokenising shows.
Writes results/raw_text/<name>.json; `scripts/run_experiments.py --regenerate` puts it in docs/RESULTS.md.

    .venv/bin/python scripts/raw_text_eval.py MODEL.tar.gz data/UD_English-EWT/en_ewt-ud-test.conllu --name NAME
"""
import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict

from allennlp.models.archival import load_archive

from seqgraph_allennlp import Parser
from seqgraph_allennlp.common.conllu import read_sentences
from seqgraph_allennlp.common.scoring import enhanced_scores, has_enhanced_graph
from seqgraph_experiments import RESULTS, ROOT
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_allennlp.segmentation.documents import documents
from seqgraph_experiments.raw_text import LAYOUTS, evaluate, layout_texts
from seqgraph_experiments.results import write_json

OUT = RESULTS / "raw_text"
METRICS = ("Tokens", "Sentences", "Words", "UPOS", "UAS", "LAS")
ENHANCED_METRICS = ("ELAS", "EULAS")


def score(gold_path: Path, system_text: str, enhanced: bool = False) -> Dict[str, float]:
    """
    CoNLL 2018 F1 (in %) of each metric, the system's words aligned to the gold ones; with `enhanced`, ELAS
    and EULAS too (both sides' empty nodes collapsed).
    """
    evaluation = evaluate(gold_path, system_text)
    scores = {metric: round(100 * evaluation[metric].f1, 2) for metric in METRICS}
    if enhanced:
        with tempfile.TemporaryDirectory(prefix="raw_text_eval_") as folder:
            predicted = Path(folder) / "predicted.conllu"
            predicted.write_text(system_text, encoding="utf-8")
            scores.update({metric: round(100 * value, 2)
                           for metric, value in enhanced_scores(str(gold_path), str(predicted)).items()})
    return scores


def writes_deps(conllu: str) -> bool:
    """Whether a CoNLL-U text has a DEPS column other than `_` on any word line."""
    return any(len(columns) == 10 and columns[8] != "_"
               for columns in (line.split("\t") for line in conllu.splitlines() if line[:1].isdigit()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", type=Path, help="a trained model archive (model.tar.gz)")
    parser.add_argument("gold", type=Path, help="a UD CoNLL-U file with # text lines")
    parser.add_argument("--name", required=True, help="results/raw_text/NAME.json")
    parser.add_argument("--language", default=None, help="the tokeniser's language (default: the model's)")
    parser.add_argument("--out-dir", type=Path, default=OUT, help="where NAME.json goes (default: results/raw_text)")
    parser.add_argument("--trained-on", default=None,
                        help="what the model was trained on, for the record (say so where it is not the treebank's train file)")
    parser.add_argument("--segmenter", action="append", choices=("learned", "rules"),
                        help="how raw text is split, one row each (repeat for both; default: both where the "
                             "archive carries a segmenter, else the rules)")
    parser.add_argument("--layout", default="paragraphs", choices=LAYOUTS,
                        help="how the raw text is rebuilt (seqgraph_experiments.raw_text; default: %(default)s)")
    args = parser.parse_args()

    sentences = list(read_sentences(str(args.gold)))
    if any(sentence.text is None for sentence in sentences):
        sys.exit(f"error: {args.gold}: every sentence needs a # text line")
    texts = layout_texts(documents(sentences), args.layout)
    archive = load_archive(str(args.model))
    # ELAS / EULAS where the model writes an enhanced graph and the gold file has one to score it against
    gold_enhanced = has_enhanced_graph(str(args.gold))
    carries = getattr(archive.model, "segmenter", None) is not None
    segmenters = args.segmenter or (["learned", "rules"] if carries else ["rules"])
    rows = []
    for segmenter in segmenters:
        model = Parser(archive.model, archive.validation_dataset_reader, language=args.language, segmenter=segmenter)
        start = time.perf_counter()
        raw_output = "".join(result.to_conllu() for result in model.parse_texts(texts))
        raw_seconds = time.perf_counter() - start
        # raw text has no DEPS of its own: what the output has, the model wrote
        enhanced = gold_enhanced and writes_deps(raw_output)
        raw_scores = score(args.gold, raw_output, enhanced)
        # UPOS: predicted only by a model with a tagger (else "_", scored 0)
        tagged = any(line.split("\t")[3] != "_" for line in raw_output.splitlines() if line and line[0].isdigit())
        raw_scores["UPOS"] = raw_scores["UPOS"] if tagged else None
        name = "learned segmenter" if segmenter == "learned" else f"spaCy rules ({model.language})"
        rows.append({"input": f"raw text ({args.layout}), {name}", **raw_scores, "seconds": round(raw_seconds, 1)})
    gold_parser = Parser(archive.model, archive.validation_dataset_reader, language=args.language)
    start = time.perf_counter()
    gold_output = gold_parser.parse_conllu(args.gold).to_conllu()
    gold_seconds = time.perf_counter() - start
    # on gold tokens the gold UPOS column stays: not scored
    rows.append({"input": "gold tokenisation", **score(args.gold, gold_output, enhanced), "UPOS": None,
                 "seconds": round(gold_seconds, 1)})
    for row in rows:
        print("  ".join(f"{key} {value}" for key, value in row.items()), file=sys.stderr)
    result = {
        "name": args.name,
        "model": {"path": os.path.relpath(args.model, ROOT),
                  "sha256": sha256(args.model),
                  **({"trained_on": args.trained_on} if args.trained_on else {})},
        "gold": {"path": os.path.relpath(args.gold, ROOT), "sentences": len(sentences), "texts": len(texts)},
        "scorer": "udtools.udeval (CoNLL 2018 shared task evaluation), F1 in %, words aligned by characters"
                  + ("; ELAS, EULAS with empty nodes collapsed on both sides (IWPT)" if enhanced else ""),
        "rows": rows,
        **stamp("scripts/raw_text_eval.py"),
    }
    print(f"wrote {write_json(args.out_dir / f'{args.name}.json', result)}")


if __name__ == "__main__":
    main()
