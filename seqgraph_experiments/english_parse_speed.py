"""
How fast an English (mpnet) model parses with `allennlp predict` (issues 43, 74): the same archive with its frozen
features computed as the predictor chooses by default (`auto`: int8 on a CPU, `features_precision`; the encoder's
LSTM layers in int8 where bfloat16 is not native, `encoder_precision`; `int8_encoder` forces those), as the
archive's config says (`as_trained`), in float32 or in bfloat16 with word-piece buckets (the embedder's
`transformer_precision` and `word_piece_buckets`, given as `--overrides` with `features_precision: as_trained`
and `encoder_precision: as_trained`),
with no features directory (every sentence's features computed). `bench_speed.cli_parse_speeds`, the settings in
turns: the command on the file and on its first sentence alone, alternating, medians of `--repeats` runs; the
one-sentence command is the start-up; with `--batch-sizes`, each setting at each batch size; with `--cpu-paths`,
each also on this CPU as it is and held to AVX2 (`bench_speed.CPU_PATHS`: oneDNN and ATen without AVX512 or
native bfloat16, as on most laptops); with `--compare`, other archives (the small model, say) with each of those.
Rows are named SETTING[_batch_SIZE][_on_PATH] where several sizes or paths are timed. Writes
results/benchmarks/english_parse_speed.json. Speed depends on the architecture, not the weights: say which
weights the archive holds (`--weights`). Run it on a quiet machine.

    .venv/bin/python scripts/english_parse_speed.py --model ARCHIVE --weights '...' [--repeats 3]
"""
import argparse
import json
from pathlib import Path
from typing import Dict

from seqgraph_experiments import ROOT
from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.bench_speed import CPU_PATHS, Setting, cli_parse_speeds
from seqgraph_experiments.provenance import repository_path, sha256, stamp
from seqgraph_experiments.results import BENCHMARKS, write_json

EMBEDDER = "model.text_field_embedder.token_embedders.mpnet"
# the archive's own computation: features and encoder as trained
AS_TRAINED = json.dumps({"features_precision": "as_trained", "encoder_precision": "as_trained"})
# name: (overrides, predictor arguments)
SETTINGS = {
    "auto": ({}, "{}"),
    "as_trained": ({}, AS_TRAINED),
    "float32": ({f"{EMBEDDER}.transformer_precision": "float32", f"{EMBEDDER}.word_piece_buckets": False,
                 f"{EMBEDDER}.cache_directory": None}, AS_TRAINED),
    "bfloat16_buckets": ({f"{EMBEDDER}.transformer_precision": "bfloat16", f"{EMBEDDER}.word_piece_buckets": True,
                          f"{EMBEDDER}.cache_directory": None}, AS_TRAINED),
    # the predictor's own choice but the encoder's LSTM layers in int8 on any CPU
    "int8_encoder": ({}, json.dumps({"encoder_precision": "int8"})),
}
DESCRIPTIONS = {"auto": "the predictor's own choice (features_precision auto)",
                "as_trained": "the archive's own settings", "float32": "float32",
                "bfloat16_buckets": "bfloat16 with word-piece buckets",
                "int8_encoder": "the predictor's own choice with the encoder's LSTM layers in int8 (encoder_precision int8)"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="an archive of a model over the mpnet features")
    parser.add_argument("--weights", required=True, help="which weights the archive holds (kept in the JSON)")
    parser.add_argument("--parse", default=str(ROOT / "data" / "UD_English-EWT" / "en_ewt-ud-test.conllu"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--settings", nargs="+", choices=list(SETTINGS), default=list(SETTINGS),
                        help="the feature settings to time (default: all)")
    parser.add_argument("--cpu-paths", nargs="+", choices=list(CPU_PATHS), default=["as_it_is"],
                        help="the CPU paths to time each setting on (default: as_it_is)")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[64],
                        help="allennlp predict's --batch-size, each with every setting (default: 64); rows "
                             "SETTING_batch_SIZE when several")
    parser.add_argument("--compare", nargs=2, action="append", default=[], metavar=("ARCHIVE", "WEIGHTS"),
                        help="another archive (and what its weights are), timed in the same turns with every "
                             "setting and batch size; its rows are named compareN_ROW (N from 1)")
    parser.add_argument("--model-overrides", default="{}",
                        help="dotted overrides for --model's archive only (not the compared ones), added to each "
                             "setting's, e.g. a setting its config has gained since it was trained")
    parser.add_argument("--output", default=str(BENCHMARKS / "english_parse_speed.json"))
    args = parser.parse_args()
    refuse_missing_files(parser, [args.model] + [archive for archive, _ in args.compare])
    if any(size < 1 for size in args.batch_sizes):
        parser.error("--batch-sizes must be positive")
    sentences = sum(1 for line in Path(args.parse).read_text(encoding="utf-8").splitlines() if line.startswith("1\t"))
    archives = [args.model] + [archive for archive, _ in args.compare]
    combinations = [(index, name, size, path) for index in range(len(archives)) for name in args.settings
                    for size in args.batch_sizes for path in args.cpu_paths]
    names = [("" if index == 0 else f"compare{index}_") + name
             + ("" if len(args.batch_sizes) == 1 else f"_batch_{size}")
             + ("" if len(args.cpu_paths) == 1 else f"_on_{path}") for index, name, size, path in combinations]
    # in turns: the machine's drift falls on every setting alike
    extra = json.loads(args.model_overrides)

    def overrides(index: int, name: str) -> Dict:
        return {**SETTINGS[name][0], **(extra if index == 0 else {})}

    speeds = cli_parse_speeds([Setting(archives[index], json.dumps(overrides(index, name)), size,
                                       SETTINGS[name][1], path)
                               for index, name, size, path in combinations], args.parse, sentences,
                              repeats=args.repeats)
    rows = {}
    for row_name, (index, name, _, _), speed in zip(names, combinations, speeds):
        rows[row_name] = {**speed, "overrides": overrides(index, name), "predictor_args": SETTINGS[name][1]}
        print(f"{row_name}: {speed['sentences_per_second_without_startup']:.1f} sentences/s after a start-up of "
              f"{speed['startup_seconds']:.2f} s; {speed['predicted_trees']} trees of {speed['predicted_sentences']}")
    first = rows[names[0]]["sentences_per_second_without_startup"]
    write_json(Path(args.output), {
        "what": f"allennlp predict --batch-size {' / '.join(map(str, args.batch_sizes))} of an mpnet model, "
                "features in " + " and in ".join(DESCRIPTIONS[name] for name in args.settings)
                + ", none read from a features directory (as_trained: as the archive's config says); the settings in "
                "turns, medians over alternating runs; start-up = the same command on one sentence",
        "model": {"path": args.model, "sha256": sha256(Path(args.model)), "weights": args.weights},
        **({"compared_models": [{"rows": f"compare{index}_*", "path": archive, "sha256": sha256(Path(archive)),
                                 "weights": weights} for index, (archive, weights) in enumerate(args.compare, 1)]}
           if args.compare else {}),
        "data": {"path": repository_path(args.parse), "sentences": sentences},
        "rows": rows,
        **({"ratio_bfloat16_buckets_to_float32": rows["bfloat16_buckets"]["sentences_per_second_without_startup"]
            / rows["float32"]["sentences_per_second_without_startup"]}
           if {"float32", "bfloat16_buckets"} <= set(rows) else {}),
        f"ratio_to_{names[0]}": {name: row["sentences_per_second_without_startup"] / first
                                 for name, row in rows.items()},
        **stamp("scripts/english_parse_speed.py"),
    })

if __name__ == "__main__":
    main()
