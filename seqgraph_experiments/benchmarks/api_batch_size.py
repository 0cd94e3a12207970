"""
How fast `seqgraph_allennlp.Parser.parse_conllu` parses a CoNLL-U file with each of several `batch_size`s
(sentences per call to the model, each call cut into the predictor's length buckets): one `Parser` loaded
once, the batch sizes timed on the same file in turns (`settings.interleaved_seconds`), medians of
`--repeats` parses; every batch size must give the same CoNLL-U. Writes results/benchmarks/api_batch_size.json:

    .venv/bin/python benchmarks/api_batch_size.py MODEL.tar.gz data/UD_English-EWT/en_ewt-ud-test.conllu \\
        --batch-sizes 64 1024

Run it on a quiet machine; say which weights the archive holds (`--weights`): a graph model's speed depends
on how many extra edges they add before STOP.
"""
import argparse
from pathlib import Path

import torch
from allennlp.models.archival import load_archive

from seqgraph_allennlp.api import Parser
from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.benchmarks.settings import interleaved_seconds, per_second
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_experiments.results import BENCHMARKS, write_json


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="a sequential parser's archive (model.tar.gz)")
    parser.add_argument("conllu", help="the CoNLL-U file to parse")
    parser.add_argument("--weights", required=True, help="which weights the archive holds (kept in the JSON)")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[64, 1024])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--overrides", default="",
                        help="dotted overrides for the archive (as load_archive takes them; the Parser is then "
                             "built on the loaded model and reader)")
    parser.add_argument("--output", default=str(BENCHMARKS / "api_batch_size.json"))
    args = parser.parse_args()
    refuse_missing_files(parser, [args.model, args.conllu])
    if any(size < 1 for size in args.batch_sizes):
        parser.error("--batch-sizes must be positive")
    if args.overrides:
        archive = load_archive(args.model, overrides=args.overrides)
        api = Parser(archive.model, archive.validation_dataset_reader)
    else:
        api = Parser.from_archive(args.model)
    api.parse_conllu(args.conllu)  # warm-up: first calls pay for lazy initialisation
    outputs = {}

    def parse(batch_size: int) -> None:
        api.batch_size = batch_size
        result = api.parse_conllu(args.conllu)
        outputs[batch_size] = (len(result), result.to_conllu())

    settings = {str(size): size for size in args.batch_sizes}
    seconds = interleaved_seconds(settings, parse, args.repeats)
    sentences, reference = outputs[args.batch_sizes[0]]
    rows = {name: {"batch_size": size, "sentences_per_second": per_second(sentences, seconds[name]),
                   "seconds": seconds[name], "same_output_as_first": outputs[size][1] == reference}
            for name, size in settings.items()}
    write_json(Path(args.output), {
        "what": "seqgraph_allennlp.Parser.parse_conllu of a CoNLL-U file, one Parser, each batch_size in turns; "
                "medians; model loading and start-up not included",
        "model": {"path": args.model, "sha256": sha256(Path(args.model)), "weights": args.weights,
                  "overrides": args.overrides or None},
        "data": {"path": args.conllu, "sha256": sha256(Path(args.conllu)), "sentences": sentences},
        "torch_threads": torch.get_num_threads(),
        "repeats": args.repeats,
        "rows": rows,
        **stamp("benchmarks/api_batch_size.py"),
    })
    for name, row in rows.items():
        print(f"batch_size {name}: {row['sentences_per_second']:.1f} sentences/s"
              + ("" if row["same_output_as_first"] else " (OUTPUT DIFFERS)"))


if __name__ == "__main__":
    main()
