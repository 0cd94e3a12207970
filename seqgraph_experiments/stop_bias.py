"""
How the enhanced graph's ELAS moves with the graph phase's STOP: parses a dev file with an archived sequential
parser that predicts the enhanced graph (`predict_enhanced`), its stop score shifted by each `--biases` value
(positive: the policy stops sooner, so fewer extra edges; 0: the model as trained), and scores each
prediction's DEPS with udeval (empty nodes collapsed), as `python -m seqgraph_allennlp.common.scoring` does:

    .venv/bin/python scripts/stop_bias.py --model MODEL.tar.gz [--dev data/UD_English-EWT/en_ewt-ud-dev.conllu] \\
        [--biases -2 -1 0 1 2] [--overrides '{"model.text_field_embedder.token_embedders.mpnet.cache_directory": "experiments/features"}'] \\
        --out results/enhanced/stop_bias/NAME.json

The `seqgraph_parser` predictor with its default rules and its `stop_bias` (`DecodingOptions.stop_bias`),
batches of 64: a bias chosen here on dev can be given to `allennlp predict` with `--predictor-args
'{"stop_bias": B}'` or to a config's model as `stop_bias`; the shipped configs decode with 0.
"""
import argparse
import tempfile
from pathlib import Path
from typing import Optional, Sequence

from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_experiments.results import write_json

DEFAULT_DEV = "data/UD_English-EWT/en_ewt-ud-dev.conllu"


def parse_arguments(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="an archive of a seqgraph_parser with predict_enhanced")
    parser.add_argument("--dev", default=DEFAULT_DEV, help="default: %(default)s")
    parser.add_argument("--biases", type=float, nargs="+", default=[-2.0, -1.0, 0.0, 1.0, 2.0],
                        help="added to the stop score (default: %(default)s)")
    parser.add_argument("--overrides", default="", help="overrides of the archive's config, as JSON")
    parser.add_argument("--label", default=None, help="what the model is, recorded as given")
    parser.add_argument("--out", required=True, help="the JSON to write")
    args = parser.parse_args(argv)
    refuse_missing_files(parser, [args.model, args.dev])
    return args


def main(argv: Optional[Sequence[str]] = None) -> None:
    args = parse_arguments(argv)
    from allennlp.models.archival import load_archive

    import seqgraph_allennlp  # noqa: F401  (registers the components)
    from seqgraph_allennlp.common.scoring import enhanced_scores
    from seqgraph_allennlp.predictors.seqgraph_parser import SeqGraphParserPredictor

    archive = load_archive(args.model, overrides=args.overrides)
    model = archive.model
    if not getattr(model, "predict_enhanced", False):
        raise SystemExit(f"error: {args.model} does not predict the enhanced graph (predict_enhanced)")
    instances = list(archive.validation_dataset_reader.read(args.dev))
    rows = []
    for bias in args.biases:
        predictor = SeqGraphParserPredictor(model, archive.validation_dataset_reader, output_format="conllu",
                                            stop_bias=bias)
        lines = []
        for start in range(0, len(instances), 64):
            lines.extend(predictor.dump_line(output)
                         for output in predictor.predict_batch_instance(instances[start:start + 64]))
        with tempfile.NamedTemporaryFile("w", suffix=".conllu", encoding="utf-8") as predicted:
            predicted.write("".join(lines))
            predicted.flush()
            scores = enhanced_scores(args.dev, predicted.name)
        rows.append({"stop_bias": bias, "ELAS": scores["ELAS"], "EULAS": scores["EULAS"]})
        print(f"stop bias {bias:+g}: ELAS {100 * scores['ELAS']:.2f}, EULAS {100 * scores['EULAS']:.2f}", flush=True)
    write_json(Path(args.out), {
        "what": "dev ELAS and EULAS (udeval, empty nodes collapsed) of the enhanced graph with the graph phase's "
                "stop score shifted by each bias (positive: fewer extra edges)",
        "model": {"path": args.model, "sha256": sha256(Path(args.model)), "label": args.label,
                  "overrides": args.overrides},
        "dev": {"path": args.dev, "sha256": sha256(Path(args.dev))},
        "rows": rows,
        **stamp("scripts/stop_bias.py"),
    })
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
