"""
Predict whole UD test files as CoNLL-U with a trained model and check the output: identical to the input
outside HEAD and DEPREL of word lines (comments, multiword-token ranges, empty nodes, every other column),
every sentence a valid single-rooted tree, and its CoNLL 2018 scores against the gold file.

    .venv/bin/python benchmarks/conllu_roundtrip.py MODEL.tar.gz INPUT.conllu [INPUT.conllu ...]

Writes benchmarks/results/conllu_roundtrip.md.
"""
import datetime
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from seqgraph_allennlp.common.conllu import find_tree_problem, read_sentences  # noqa: E402
from seqgraph_allennlp.common.scoring import score_files  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "conllu_roundtrip.md"


def predict(model: str, input_path: str, output_path: Path) -> float:
    command = [
        str(ROOT / ".venv" / "bin" / "allennlp"), "predict", model, input_path,
        "--include-package", "seqgraph_allennlp", "--predictor", "seqgraph_parser",
        "--use-dataset-reader", "--predictor-args", '{"output_format": "conllu"}',
        "--output-file", str(output_path), "--silent", "--batch-size", "32",
    ]
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


def main(model: str, inputs):
    out_dir = ROOT / "benchmarks" / "out" / "roundtrip"
    out_dir.mkdir(parents=True, exist_ok=True)
    lines = [
        "# CoNLL-U round trip: `allennlp predict --use-dataset-reader` with `output_format: conllu`",
        "",
        f"- date: {datetime.date.today().isoformat()}; machine: {os.cpu_count()} CPU cores, no GPU",
        f"- model: `{model}`",
        "- command: `.venv/bin/python benchmarks/conllu_roundtrip.py " + " ".join([model, *inputs]) + "`",
        "- checks: the output equals the input line for line outside HEAD/DEPREL of word lines; every "
        "sentence's predicted heads form a tree with exactly one root word (`find_tree_problem`); scores "
        "are CoNLL 2018 (every word, universal relations) against the input's gold annotation",
        "",
        "| input | sentences | words | multiword-token lines | empty-node lines | lines differing outside HEAD/DEPREL | sentences not a single-rooted tree | UAS | LAS | predict time (s) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    failures = 0
    for input_path in inputs:
        output_path = out_dir / (Path(input_path).stem + ".predicted.conllu")
        seconds = predict(model, input_path, output_path)
        result = compare(input_path, output_path)
        scores = score_files(input_path, str(output_path))
        failures += len(result["differences"]) + len(result["not_trees"])
        lines.append(
            f"| `{input_path}` | {result['sentences']} | {result['words']} | {result['multiword_lines']} | "
            f"{result['empty_node_lines']} | {len(result['differences'])} | {len(result['not_trees'])} | "
            f"{100 * scores['UAS']:.2f} | {100 * scores['LAS']:.2f} | {seconds:.0f} |"
        )
        for problem in (result["differences"] + result["not_trees"])[:10]:
            lines.append(f"  - {input_path}: {problem}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
