"""
How fast a model of the enhanced graph (`predict_enhanced`) parses with `allennlp predict` as a user runs it:
the `--batch-size 64` command (or `--batch-size`) on a CoNLL-U file and on its first sentence alone,
alternating, medians of `--repeats` runs (`bench_speed.cli_parse_speed`: the one-sentence command is the
start-up, the difference the parsing). Writes results/benchmarks/enhanced_parse_speed.json. Speed depends on the architecture and on
how many extra edges the weights add before STOP: say which weights were used (`--weights`). Run it on a
quiet machine.

    .venv/bin/python scripts/enhanced_speed.py --model ARCHIVE --weights "..." \\
        --parse data/UD_English-EWT/en_ewt-ud-test.conllu
"""
import argparse
from pathlib import Path

import torch

from seqgraph_allennlp.common.conllu import read_sentences
from seqgraph_experiments import RESULTS
from seqgraph_experiments.bench_speed import Setting, cli_parse_speeds
from seqgraph_experiments.provenance import repository_path, sha256, stamp
from seqgraph_experiments.results import write_json

OUT = RESULTS / "benchmarks" / "enhanced_parse_speed.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, action="append",
                        help="the archive of a predict_enhanced model (once per setting)")
    parser.add_argument("--parse", required=True, help="CoNLL-U file to parse")
    parser.add_argument("--weights", required=True, action="append",
                        help="which weights the archive holds (kept in the JSON; once per setting)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--overrides", action="append",
                        help="dotted overrides for `allennlp predict -o` (JSON), e.g. an option an older archive "
                             "lacks; once for every setting, or once per setting")
    parser.add_argument("--batch-size", type=int, action="append",
                        help="allennlp predict's --batch-size (default 64); once for every setting, or once per "
                             "setting")
    parser.add_argument("--output", default=str(OUT))
    args = parser.parse_args()
    overrides, batch_sizes = args.overrides or [""], args.batch_size or [64]
    if (len(args.weights) != len(args.model) or len(overrides) not in (1, len(args.model))
            or len(batch_sizes) not in (1, len(args.model))):
        parser.error("give --weights once per --model, and --overrides and --batch-size once or once per --model")
    if any(size < 1 for size in batch_sizes):
        parser.error("--batch-size must be positive")
    overrides, batch_sizes = (values * len(args.model) if len(values) == 1 else values
                              for values in (overrides, batch_sizes))
    sentences = sum(1 for _ in read_sentences(args.parse))
    settings = [Setting(*setting) for setting in zip(args.model, overrides, batch_sizes)]
    speeds = cli_parse_speeds(settings, args.parse, sentences, repeats=args.repeats)
    parse_path = Path(args.parse).resolve()
    rows = [{"model": {"path": model, "sha256": sha256(Path(model)), "weights": weights}, "overrides": own, **speed}
            for model, weights, own, speed in zip(args.model, args.weights, overrides, speeds)]
    measured = rows[0] if len(rows) == 1 else {"settings": rows}
    sizes = sorted(set(batch_sizes))
    write_json(Path(args.output), {
        "what": f"allennlp predict --batch-size {' / '.join(map(str, sizes))} of a predict_enhanced model (tree, "
                "then extra edges until STOP), CoNLL-U in and out; medians over alternating runs; start-up = the "
                "same command on one sentence"
                + ("" if len(rows) == 1 else "; the settings in turns, each round every setting's two commands"),
        "data": {"path": repository_path(args.parse),
                 "sha256": sha256(parse_path), "sentences": sentences},
        "torch_threads": torch.get_num_threads(),
        **measured,
        **stamp("scripts/enhanced_speed.py"),
    })
    for row in rows:
        print(f"{row['model']['path']} {row['overrides']} --batch-size {row['batch_size']}: "
              f"{row['sentences_per_second_without_startup']:.1f} "
              f"sentences/s after a start-up of {row['startup_seconds']:.1f} s "
              f"({row['sentences_per_second']:.1f} with it)")


if __name__ == "__main__":
    main()
