"""
What computing a part of the parser in bfloat16 when parsing changes: the label classifiers (`--option labels`,
the parser's `label_bfloat16_inference`: the basic and enhanced labels' bilinear products, `MatmulBilinear`)
or the initial edge scores (`--option arcs`, `arc_bfloat16_inference`: the arc MLPs and biaffine products of
`S_0` and `G_0`). Parses a CoNLL-U file with a sequential parser's archive with the option off ("float32":
that part in float32, everything else as the archive says) and on, in the predictor's batches (64 sentences
in file order, cut into length buckets), and writes the model's own scores against the file's gold (LAS, UAS
and, for a model of the enhanced graph, ELAS and EULAS), how many heads, basic labels and words' DEPS differ
from the option off, the sentences per second of the model alone (median of interleaved repeats, parsed
without the gold) and, in those same parses, the seconds of the part that the option changes (`PARTS`, the
model's and its parts' methods timed on each model: a gain of a few percent of a parse is smaller than a
two-core machine's drift between runs, the part's own time shows it) to results/benchmarks/bf16_labels.json
(bf16_arcs.json):

    .venv/bin/python benchmarks/bf16_labels.py MODEL.tar.gz data/UD_English-EWT/en_ewt-ud-dev.conllu [--option arcs]

On a CPU without native bfloat16 both settings run in float32. Choose on a dev file: this decides what
parsing ships with.
"""
import argparse
import json
import statistics
from pathlib import Path
from typing import Dict, List

import torch

from seqgraph_allennlp.modules.precision import native_bfloat16
from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.benchmarks.parse_phases import timed
from seqgraph_experiments.benchmarks.settings import interleaved_seconds, load_settings, per_second
from seqgraph_experiments.instances import forward_in_buckets, read_instances, without_gold
from seqgraph_experiments.provenance import stamp
from seqgraph_experiments.results import BENCHMARKS, write_json

# each option's dotted name in the archive's config, and the methods that compute its part: the model's own, or
# its parts' (`label_classifier.decode`), timed where the model has that part
OPTIONS = {"labels": "model.label_bfloat16_inference", "arcs": "model.arc_bfloat16_inference"}
PARTS = {"labels": ("label_classifier.decode", "enhanced_label_classifier.decode"), "arcs": ("_arc_scores",)}
SCORES = ("UAS", "LAS", "ELAS", "EULAS")


def settings(option: str) -> dict:
    """The two settings compared: the option off ("float32") and on (named after the option)."""
    return {"float32": {OPTIONS[option]: False}, option: {OPTIONS[option]: True}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="a sequential parser's archive (model.tar.gz)")
    parser.add_argument("conllu", help="a CoNLL-U file with gold heads and labels (a dev file)")
    parser.add_argument("--repeats", type=int, default=3, help="timed parses of the file per setting, interleaved")
    parser.add_argument("--overrides", default="{}",
                        help="dotted overrides for both settings, e.g. a feature cache directory (JSON)")
    parser.add_argument("--option", choices=sorted(OPTIONS), default="labels",
                        help="the part computed in bfloat16 (default: %(default)s)")
    parser.add_argument("--output", help="the JSON to write (default: results/benchmarks/bf16_OPTION.json)")
    args = parser.parse_args()
    refuse_missing_files(parser, [args.model, args.conllu])
    compared = settings(args.option)
    output = args.output or str(BENCHMARKS / f"bf16_{args.option}.json")
    archives = load_settings(args.model, compared, json.loads(args.overrides))
    models = {name: archive.model for name, archive in archives.items()}
    instances = read_instances(archives["float32"], args.conllu)
    outputs, scores = {}, {}
    for name, model in models.items():
        model.get_metrics(reset=True)
        outputs[name] = forward_in_buckets(model, instances)
        scores[name] = {key: value for key, value in model.get_metrics(reset=True).items() if key in SCORES}
    bare = [without_gold(instance) for instance in instances]
    part_totals: Dict[str, float] = {}
    for name, model in models.items():
        for path in PARTS[args.option]:
            *owners, method = path.split(".")
            owner = model
            for attribute in owners:
                owner = getattr(owner, attribute, None)
            # a model of the tree alone has no enhanced label classifier: nothing of it to time
            if owner is not None:
                setattr(owner, method, timed(getattr(owner, method), part_totals, name))
    part_seconds: Dict[str, List[float]] = {name: [] for name in models}
    setting_of = {id(model): name for name, model in models.items()}

    def parse(model) -> None:
        name = setting_of[id(model)]
        before = part_totals.get(name, 0.0)
        forward_in_buckets(model, bare)
        part_seconds[name].append(part_totals.get(name, 0.0) - before)

    seconds = interleaved_seconds(models, parse, args.repeats)
    reference = outputs["float32"]
    words = sum(len(output["predicted_dependencies"]) for output in reference)
    rows = []
    for name in compared:
        pairs = list(zip(outputs[name], reference))
        heads_changed = sum(
            sum(a != b for a, b in zip(output["predicted_heads"], base["predicted_heads"])) for output, base in pairs
        )
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
            "overrides": compared[name],
            **scores[name],
            "heads_changed_from_float32": heads_changed,
            "labels_changed_from_float32": labels_changed,
            "deps_changed_from_float32": deps_changed,
            "sentences_per_second": per_second(len(instances), seconds[name]),
            "seconds": seconds[name],
            "part": list(PARTS[args.option]),
            "part_seconds": part_seconds[name],
        })
        shown = ", ".join(f"{key} {100 * value:.2f}" for key, value in scores[name].items())
        print(f"{name}: {shown}; {heads_changed} heads, {labels_changed} labels and {deps_changed} words' DEPS "
              f"of {words} changed from float32; {rows[-1]['sentences_per_second']:.1f} sentences/s, the part "
              f"{statistics.median(part_seconds[name]):.2f} s", flush=True)
    result = {
        "archive": args.model,
        "file": args.conllu,
        "option": OPTIONS[args.option],
        "overrides": json.loads(args.overrides),
        "sentences": len(instances),
        "words": words,
        "native_bfloat16": native_bfloat16(torch.device("cpu")),
        "torch_threads": torch.get_num_threads(),
        "rows": rows,
        **stamp("benchmarks/bf16_labels.py"),
    }
    print(f"wrote {write_json(Path(output), result)}")


if __name__ == "__main__":
    main()
