"""
What computing the label classifiers in bfloat16 changes (the parser's `label_bfloat16_inference`: the basic
and enhanced labels' bilinear products, `MatmulBilinear`): parses a CoNLL-U file with a sequential parser's
archive with the option off and on, in the predictor's batches (64 sentences in file order, cut into length
buckets), and writes the model's own scores against the file's gold (LAS, UAS and, for a model of the
enhanced graph, ELAS and EULAS), how many basic labels and how many words' DEPS differ from float32, and the
sentences per second of the model alone (median of interleaved repeats, parsed without the gold) to
results/benchmarks/bf16_labels.json:

    .venv/bin/python benchmarks/bf16_labels.py MODEL.tar.gz data/UD_English-EWT/en_ewt-ud-dev.conllu

Everything else runs as the archive says. On a CPU without native bfloat16 both settings run in float32.
Choose on a dev file: this decides what parsing ships with.
"""
import argparse
import json
from pathlib import Path

import torch

from seqgraph_allennlp.modules.precision import native_bfloat16
from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.benchmarks.settings import interleaved_seconds, load_settings, per_second
from seqgraph_experiments.instances import forward_in_buckets, read_instances, without_gold
from seqgraph_experiments.provenance import stamp
from seqgraph_experiments.results import BENCHMARKS, write_json

RESULT = BENCHMARKS / "bf16_labels.json"
SETTINGS = {
    "float32": {"model.label_bfloat16_inference": False},
    "labels": {"model.label_bfloat16_inference": True},
}
SCORES = ("UAS", "LAS", "ELAS", "EULAS")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="a sequential parser's archive (model.tar.gz)")
    parser.add_argument("conllu", help="a CoNLL-U file with gold heads and labels (a dev file)")
    parser.add_argument("--repeats", type=int, default=3, help="timed parses of the file per setting, interleaved")
    parser.add_argument("--overrides", default="{}",
                        help="dotted overrides for both settings, e.g. a feature cache directory (JSON)")
    parser.add_argument("--output", default=str(RESULT))
    args = parser.parse_args()
    refuse_missing_files(parser, [args.model, args.conllu])
    archives = load_settings(args.model, SETTINGS, json.loads(args.overrides))
    models = {name: archive.model for name, archive in archives.items()}
    instances = read_instances(archives["float32"], args.conllu)
    outputs, scores = {}, {}
    for name, model in models.items():
        model.get_metrics(reset=True)
        outputs[name] = forward_in_buckets(model, instances)
        scores[name] = {key: value for key, value in model.get_metrics(reset=True).items() if key in SCORES}
    bare = [without_gold(instance) for instance in instances]
    seconds = interleaved_seconds(models, lambda model: forward_in_buckets(model, bare), args.repeats)
    reference = outputs["float32"]
    words = sum(len(output["predicted_dependencies"]) for output in reference)
    rows = []
    for name in SETTINGS:
        pairs = list(zip(outputs[name], reference))
        labels_changed = sum(
            sum(a != b for a, b in zip(output["predicted_dependencies"], base["predicted_dependencies"]))
            for output, base in pairs
        )
        deps_changed = sum(
            sum(a != b for a, b in zip(output.get("predicted_deps", []), base.get("predicted_deps", [])))
            for output, base in pairs
        )
        rows.append({
            "setting": name,
            "overrides": SETTINGS[name],
            **scores[name],
            "labels_changed_from_float32": labels_changed,
            "deps_changed_from_float32": deps_changed,
            "sentences_per_second": per_second(len(instances), seconds[name]),
            "seconds": seconds[name],
        })
        shown = ", ".join(f"{key} {100 * value:.2f}" for key, value in scores[name].items())
        print(f"{name}: {shown}; {labels_changed} labels and {deps_changed} words' DEPS of {words} changed from "
              f"float32; {rows[-1]['sentences_per_second']:.1f} sentences/s", flush=True)
    result = {
        "archive": args.model,
        "file": args.conllu,
        "overrides": json.loads(args.overrides),
        "sentences": len(instances),
        "words": words,
        "native_bfloat16": native_bfloat16(torch.device("cpu")),
        "torch_threads": torch.get_num_threads(),
        "rows": rows,
        **stamp("benchmarks/bf16_labels.py"),
    }
    print(f"wrote {write_json(Path(args.output), result)}")


if __name__ == "__main__":
    main()
