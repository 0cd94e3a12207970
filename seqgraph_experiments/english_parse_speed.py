"""
How fast an English (mpnet) model parses with `allennlp predict` (issue 43): the same archive with its frozen
features computed in float32 (as trained) and in bfloat16 with word-piece buckets (the embedder's
`transformer_precision` and `word_piece_buckets`, given as `--overrides` to `allennlp predict`), with no features
directory (every sentence's features computed). `bench_speed.cli_parse_speed`: the `--batch-size 64` command on
the file and on its first sentence alone, alternating, medians of `--repeats` runs; the one-sentence command is the
start-up. Writes results/benchmarks/english_parse_speed.json. Speed depends on the architecture, not the weights:
say which weights the archive holds (`--weights`). Run it on a quiet machine.

    .venv/bin/python scripts/english_parse_speed.py --model ARCHIVE --weights '...' [--repeats 3]
"""
import argparse
import json
from pathlib import Path

from seqgraph_experiments import ROOT
from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.bench_speed import cli_parse_speed
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_experiments.results import BENCHMARKS, write_json

EMBEDDER = "model.text_field_embedder.token_embedders.mpnet"
SETTINGS = {
    "float32": {f"{EMBEDDER}.transformer_precision": "float32", f"{EMBEDDER}.cache_directory": None},
    "bfloat16_buckets": {f"{EMBEDDER}.transformer_precision": "bfloat16", f"{EMBEDDER}.word_piece_buckets": True,
                         f"{EMBEDDER}.cache_directory": None},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="an archive of a model over the mpnet features")
    parser.add_argument("--weights", required=True, help="which weights the archive holds (kept in the JSON)")
    parser.add_argument("--parse", default=str(ROOT / "data" / "UD_English-EWT" / "en_ewt-ud-test.conllu"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--output", default=str(BENCHMARKS / "english_parse_speed.json"))
    args = parser.parse_args()
    refuse_missing_files(parser, [args.model])
    sentences = sum(1 for line in Path(args.parse).read_text(encoding="utf-8").splitlines() if line.startswith("1\t"))
    rows = {}
    for name, overrides in SETTINGS.items():
        rows[name] = cli_parse_speed(args.model, args.parse, sentences, overrides=json.dumps(overrides),
                                     repeats=args.repeats)
        rows[name]["overrides"] = overrides
        print(f"{name}: {rows[name]['sentences_per_second_without_startup']:.1f} sentences/s after a start-up of "
              f"{rows[name]['startup_seconds']:.2f} s; {rows[name]['predicted_trees']} trees of "
              f"{rows[name]['predicted_sentences']}")
    write_json(Path(args.output), {
        "what": "allennlp predict --batch-size 64 of an mpnet model, features in float32 and in bfloat16 with "
                "word-piece buckets, none read from a features directory; medians over alternating runs; "
                "start-up = the same command on one sentence",
        "model": {"path": args.model, "sha256": sha256(Path(args.model)), "weights": args.weights},
        "data": {"path": args.parse, "sentences": sentences},
        "rows": rows,
        "ratio_bfloat16_buckets_to_float32": rows["bfloat16_buckets"]["sentences_per_second_without_startup"]
        / rows["float32"]["sentences_per_second_without_startup"],
        **stamp("scripts/english_parse_speed.py"),
    })


if __name__ == "__main__":
    main()
