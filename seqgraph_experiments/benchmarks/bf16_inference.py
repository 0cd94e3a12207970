"""
What parsing in bfloat16 changes: parses a CoNLL-U file with a sequential parser's archive (the fused
BiLSTM encoder, whose `bfloat16_inference` the settings set) under each
inference precision, in the predictor's batches (64 sentences in file order, cut into length buckets), and
writes UAS against the file's gold heads (every word), the heads that differ from float32, and the
sentences per second of the model alone (median of interleaved repeats) to
results/benchmarks/bf16_inference.json:

    .venv/bin/python benchmarks/bf16_inference.py MODEL.tar.gz data/UD_English-EWT/en_ewt-ud-dev.conllu

The settings are the archive with dotted overrides: `float32` (nothing in bfloat16), `encoder` (the
BiLSTM's `bfloat16_inference`: its LSTM layers and highway products) and `encoder+updates` (also the
recurrent weight model's score updates, `recurrent_weight.bfloat16_inference`). On a CPU without native
bfloat16 every setting runs in float32. Choose on a dev file: this decides what parsing ships with.
"""
import argparse
from pathlib import Path
from typing import List

import torch

from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.benchmarks.settings import interleaved_seconds, load_settings, per_second
from seqgraph_experiments.instances import forward_in_buckets, parse_instances
from seqgraph_experiments.provenance import stamp
from seqgraph_experiments.results import BENCHMARKS, write_json

RESULT = BENCHMARKS / "bf16_inference.json"
SETTINGS = {
    "float32": {"model.encoder.bfloat16_inference": False, "model.recurrent_weight.bfloat16_inference": False},
    "encoder": {"model.encoder.bfloat16_inference": True, "model.recurrent_weight.bfloat16_inference": False},
    "encoder+updates": {"model.encoder.bfloat16_inference": True, "model.recurrent_weight.bfloat16_inference": True},
}


def parse(model, instances, batch_size: int = 64) -> List[List[int]]:
    """Each sentence's predicted heads (of its words), in the predictor's batches."""
    return [[int(head) for head in output["predicted_heads"]]
            for output in forward_in_buckets(model, instances, batch_size)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="a sequential parser's archive (model.tar.gz)")
    parser.add_argument("conllu", help="a CoNLL-U file with gold heads (a dev file)")
    parser.add_argument("--repeats", type=int, default=3, help="timed parses of the file per setting, interleaved")
    parser.add_argument("--output", default=str(RESULT))
    args = parser.parse_args()
    refuse_missing_files(parser, [args.model, args.conllu])
    archives = load_settings(args.model, SETTINGS)
    models = {name: archive.model for name, archive in archives.items()}
    instances, gold = parse_instances(archives["float32"], args.conllu)
    words = sum(len(reference) for reference in gold)
    # the untimed parse is also the warm-up
    heads = {name: parse(model, instances) for name, model in models.items()}
    seconds = interleaved_seconds(models, lambda model: parse(model, instances), args.repeats)
    rows = []
    for name in SETTINGS:
        predicted = heads[name]
        # predictions and gold are both the words' heads (no root entry)
        correct = sum(sum(p == g for p, g in zip(sentence, reference)) for sentence, reference in zip(predicted, gold))
        changed = sum(
            sum(a != b for a, b in zip(sentence, reference))
            for sentence, reference in zip(predicted, heads["float32"])
        )
        rows.append({
            "setting": name,
            "overrides": SETTINGS[name],
            "UAS": correct / words,
            "heads_changed_from_float32": changed,
            "sentences_per_second": per_second(len(instances), seconds[name]),
            "seconds": seconds[name],
        })
        print(f"{name}: UAS {100 * correct / words:.2f}, {changed} of {words} heads changed from float32, "
              f"{rows[-1]['sentences_per_second']:.1f} sentences/s", flush=True)
    result = {
        "archive": args.model,
        "file": args.conllu,
        "sentences": len(instances),
        "words": words,
        "torch_threads": torch.get_num_threads(),
        "rows": rows,
        **stamp("benchmarks/bf16_inference.py"),
    }
    print(f"wrote {write_json(Path(args.output), result)}")


if __name__ == "__main__":
    main()
