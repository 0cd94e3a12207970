"""
What the precision of an mpnet model's frozen features does to its parses (issue 43): one archive parses a
CoNLL-U file with `allennlp predict` (`--batch-size 1024`, no features directory) with its features computed in
float32 and in bfloat16 on word-piece buckets (the embedder's `transformer_precision` and `word_piece_buckets`
as `-o` overrides), each output scored against the file by `seqgraph_allennlp.common.scoring` (CoNLL 2018,
every word, `udtools.udeval`; ELAS and EULAS too where the model predicts DEPS). Writes
results/benchmarks/features_accuracy.json.

    .venv/bin/python scripts/features_accuracy.py --model models/english/model.tar.gz \\
        --weights 'make english-model, ...' [--conllu data/UD_English-EWT/en_ewt-ud-test.conllu]

The bfloat16 setting is what the English tree configs train and parse with since 2026-11-29
(`common.bfloat16_mpnet_features`); a model trained on float32 features is measured the same way.
"""
import argparse
import json
import subprocess
import tempfile
from pathlib import Path

from seqgraph_allennlp.common.scoring import count_enhanced_files, count_files, official_scores
from seqgraph_experiments import ROOT, commands
from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.english_parse_speed import SETTINGS
from seqgraph_experiments.provenance import repository_path, sha256, stamp
from seqgraph_experiments.results import BENCHMARKS, write_json

METRICS = ("UAS", "LAS")
ENHANCED_METRICS = ("ELAS", "EULAS")


def scores(gold: Path, predicted: Path) -> dict:
    """
    UAS and LAS by the CoNLL 2018 evaluation (and ELAS, EULAS where `predicted` has DEPS), in percent; whether
    every predicted sentence is a tree with one root word.
    """
    row = {metric: 100 * value for metric, value in official_scores(str(gold), str(predicted)).items()
           if metric in METRICS}
    row["all_trees"] = count_files(str(gold), str(predicted)).invalid_trees == 0
    has_deps = any(line.count("\t") == 9 and line.split("\t")[8] != "_"
                   for line in predicted.read_text(encoding="utf-8").splitlines())
    if has_deps:
        enhanced = count_enhanced_files(str(gold), str(predicted)).scores()
        row.update({metric: 100 * enhanced[metric] for metric in ENHANCED_METRICS})
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="an archive of a model over the mpnet features")
    parser.add_argument("--weights", required=True, help="which weights the archive holds (kept in the JSON)")
    parser.add_argument("--conllu", default=str(ROOT / "data" / "UD_English-EWT" / "en_ewt-ud-test.conllu"))
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--output", default=str(BENCHMARKS / "features_accuracy.json"))
    args = parser.parse_args()
    refuse_missing_files(parser, [args.model, args.conllu])
    rows = {}
    with tempfile.TemporaryDirectory() as directory:
        for name in ("float32", "bfloat16_buckets"):
            overrides = SETTINGS[name]
            output = Path(directory) / f"{name}.conllu"
            subprocess.run(commands.predict_conllu(args.model, args.conllu, str(output), args.batch_size,
                                                   overrides=json.dumps(overrides)), cwd=ROOT, check=True,
                           capture_output=True)
            rows[name] = {**scores(Path(args.conllu), output), "overrides": overrides,
                          "output_sha256": sha256(output)}
            print(name, {metric: round(value, 2) for metric, value in rows[name].items()
                         if isinstance(value, float)})
    reference, other = rows["float32"], rows["bfloat16_buckets"]
    write_json(Path(args.output), {
        "what": "one mpnet model parses a CoNLL-U file with its frozen features in float32 and in bfloat16 on "
                "word-piece buckets (allennlp predict, no features directory); CoNLL 2018 scores, every word",
        "model": {"path": args.model, "sha256": sha256(Path(args.model)), "weights": args.weights},
        "data": {"path": repository_path(args.conllu), "sha256": sha256(Path(args.conllu))},
        "batch_size": args.batch_size,
        "rows": rows,
        "difference_bfloat16_buckets_minus_float32": {metric: other[metric] - reference[metric]
                                                      for metric in reference if isinstance(reference[metric], float)},
        **stamp("scripts/features_accuracy.py"),
    })


if __name__ == "__main__":
    main()
