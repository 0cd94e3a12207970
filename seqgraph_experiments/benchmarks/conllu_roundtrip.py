"""
Predict whole UD test files as CoNLL-U with a trained model and check the output: identical to the input
outside HEAD and DEPREL of word lines (comments, multiword-token ranges, empty nodes, every other column),
every sentence a valid single-rooted tree, and its CoNLL 2018 scores against the gold file.

    .venv/bin/python benchmarks/conllu_roundtrip.py MODEL.tar.gz INPUT.conllu [INPUT.conllu ...]

Writes results/benchmarks/conllu_roundtrip.json (and prints its table); exits with 1 when an output
differs or a sentence is not a tree.
"""
import argparse
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

from seqgraph_allennlp.common.conllu import find_tree_problem, read_sentences
from seqgraph_allennlp.common.scoring import score_files
from seqgraph_experiments import ROOT, commands, markdown
from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.benchmarks import RUNS
from seqgraph_experiments.provenance import stamp
from seqgraph_experiments.results import BENCHMARKS, write_json

RESULT = BENCHMARKS / "conllu_roundtrip.json"
OUT = RUNS / "roundtrip"
# problems of each kind kept in the JSON (all are counted)
KEPT_PROBLEMS = 10


def predict(model: str, input_path: str, output_path: Path) -> float:
    command = commands.predict_conllu(model, input_path, output_path, batch_size=32)
    start = time.time()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"allennlp predict failed on {input_path}:\n{result.stderr[-3000:]}")
    return time.time() - start


def compare(input_path: str, output_path: Path) -> dict:
    """Line-by-line comparison; HEAD (column 7) and DEPREL (column 8) of word lines may differ."""
    gold_lines = Path(input_path).read_text(encoding="utf-8").splitlines()
    predicted_lines = output_path.read_text(encoding="utf-8").splitlines()
    differences = []
    if len(gold_lines) != len(predicted_lines):
        differences.append(f"{len(gold_lines)} input lines, {len(predicted_lines)} output lines")
    for number, (gold, predicted) in enumerate(zip(gold_lines, predicted_lines), start=1):
        if gold == predicted:
            continue
        gold_columns, predicted_columns = gold.split("\t"), predicted.split("\t")
        is_word = len(gold_columns) == 10 and gold_columns[0].isdigit()
        if (
            not is_word
            or len(predicted_columns) != 10
            or gold_columns[:6] != predicted_columns[:6]
            or gold_columns[8:] != predicted_columns[8:]
        ):
            differences.append(f"line {number}: {gold!r} became {predicted!r}")
    sentences = list(read_sentences(str(output_path)))
    token_lines = [line for line in gold_lines if line and not line.startswith("#")]
    not_trees = []
    for sentence in sentences:
        problem = find_tree_problem(sentence.heads) if sentence.has_heads else (0, "no predicted heads")
        if problem is not None:
            not_trees.append(f"sentence at output line {sentence.start_line}: {problem[1]}")
    return {
        "lines": len(gold_lines),
        "sentences": len(sentences),
        "words": sum(len(sentence) for sentence in sentences),
        "multiword_lines": sum(1 for line in token_lines if "-" in line.split("\t")[0]),
        "empty_node_lines": sum(1 for line in token_lines if "." in line.split("\t")[0]),
        "differences": differences,
        "not_trees": not_trees,
    }


def check(model: str, input_path: str) -> Dict:
    """Predicts one file and checks and scores the output."""
    output_path = OUT / (Path(input_path).stem + ".predicted.conllu")
    seconds = predict(model, input_path, output_path)
    result = compare(input_path, output_path)
    scores = score_files(input_path, str(output_path))
    return {
        "input": input_path,
        **{key: result[key] for key in ("lines", "sentences", "words", "multiword_lines", "empty_node_lines")},
        "lines_differing": len(result["differences"]),
        "not_single_rooted_trees": len(result["not_trees"]),
        "differences": result["differences"][:KEPT_PROBLEMS],
        "not_trees": result["not_trees"][:KEPT_PROBLEMS],
        "UAS": scores["UAS"],
        "LAS": scores["LAS"],
        "predict_seconds": seconds,
    }


def table(result: Dict) -> List[str]:
    """The rows of a results JSON as a Markdown table, then the problems kept."""
    header = ["input", "sentences", "words", "multiword-token lines", "empty-node lines",
              "lines differing outside HEAD/DEPREL", "sentences not a single-rooted tree", "UAS", "LAS",
              "predict time (s)"]
    lines = markdown.table(header, ([
        f"`{row['input']}`", *(str(row[key]) for key in ("sentences", "words", "multiword_lines",
                                                         "empty_node_lines", "lines_differing",
                                                         "not_single_rooted_trees")),
        f"{100 * row['UAS']:.2f}", f"{100 * row['LAS']:.2f}", f"{row['predict_seconds']:.0f}",
    ] for row in result["rows"]))
    return lines + [f"- {row['input']}: {problem}" for row in result["rows"]
                    for problem in row["differences"] + row["not_trees"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="a trained model archive (model.tar.gz)")
    parser.add_argument("inputs", nargs="+", metavar="FILE", help="CoNLL-U files with gold annotation")
    args = parser.parse_args()
    refuse_missing_files(parser, [args.model, *args.inputs])
    model, inputs = args.model, args.inputs
    OUT.mkdir(parents=True, exist_ok=True)
    rows = [check(model, input_path) for input_path in inputs]
    result = {
        "model": model,
        "checks": "the output equals the input line for line outside HEAD/DEPREL of word lines; every sentence's "
                  "predicted heads form a tree with exactly one root word (`find_tree_problem`); scores are "
                  "CoNLL 2018 (every word, universal relations) against the input's gold annotation",
        "rows": rows,
        **stamp("benchmarks/conllu_roundtrip.py"),
    }
    print("\n".join(table(result)))
    print(f"wrote {write_json(RESULT, result)}")
    failures = sum(row["lines_differing"] + row["not_single_rooted_trees"] for row in rows)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
