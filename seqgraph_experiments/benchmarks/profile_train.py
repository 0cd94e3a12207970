"""
Where a training pass goes: builds a shipped config's model and data loader on a CoNLL-U file exactly as
`allennlp train` would (bucketed batches of 32 sentences), then runs forward, backward and the optimiser
step on the longest batches (`--tail`) and every k-th of the others in order of length (`--every`); the
tail's time plus k times the sample's estimates the training pass (the few longest batches cost far more
than the rest, since a state's scores are `V x V` and a sentence has `V - 1` states). Run it under py-spy:

    .venv/bin/py-spy record -r 200 -f raw -o profile.txt -- \\
        .venv/bin/python benchmarks/profile_train.py coach_valid data/UD_English-EWT/en_ewt-ud-train.conllu
    .venv/bin/python benchmarks/profile_train.py --summarise profile.txt

Without py-spy it prints the seconds per batch; `--phases` also prints the seconds spent in each part
of the training step (encoder, roll-in, unroll, loss, backward, optimiser) over the sample, by wrapping
those methods with timers. (py-spy is not a project dependency: `.venv/bin/pip install py-spy`.)
"""
import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path

from seqgraph_experiments import ROOT

# inclusive share of the samples under the training step, by frame (function name, file)
FRAMES = [
    ("encode", "models/seqgraph_parser.py"),
    ("forward", "fused_bilstm.py"),
    ("_forward", "text_field_embedder.py"),
    ("run_roll_in", "tree_phase.py"),
    ("unroll", "recurrent_weight.py"),
    ("loss", "tree_phase.py"),
    ("head_selection_loss", "structs/losses.py"),
    ("logits", "seqgraph/labels.py"),
    ("backward", "_tensor.py"),
    ("step", "adam.py"),
]


def summarise(raw_profile: str) -> None:
    """Prints the inclusive share of each frame in `FRAMES` among the samples of `train_batches`."""
    totals: Counter = Counter()
    inside = 0
    for line in Path(raw_profile).read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if "train_batches" not in stack:
            continue
        inside += int(count)
        frames = stack.split(";")
        for name, filename in FRAMES:
            if any(frame.startswith(f"{name} (") and filename in frame for frame in frames):
                totals[(name, filename)] += int(count)
    print(f"{inside} samples inside train_batches")
    for (name, filename), count in totals.most_common():
        print(f"| `{name}` ({filename}) | {100 * count / inside:.1f} % |")


# seconds per phase, filled when --phases wraps the methods below
PHASES: Counter = Counter()


def time_phases() -> None:
    """Wraps the parts of a training step with timers that add to `PHASES`."""
    from allennlp.modules.text_field_embedders import BasicTextFieldEmbedder

    from seqgraph_allennlp.models.seqgraph.tree_phase import TreePhase
    from seqgraph_allennlp.modules.fused_bilstm import FusedBiLstm
    from seqgraph_allennlp.modules.recurrent_weight import RecurrentWeight

    def wrap(owner, name, label):
        method = getattr(owner, name)

        def timed(*args, **kwargs):
            start = time.perf_counter()
            result = method(*args, **kwargs)
            PHASES[label] += time.perf_counter() - start
            return result

        setattr(owner, name, timed)

    wrap(BasicTextFieldEmbedder, "forward", "forward: embeddings")
    wrap(FusedBiLstm, "forward", "forward: BiLSTM")
    wrap(TreePhase, "run_roll_in", "forward: roll-in (no gradients)")
    wrap(RecurrentWeight, "unroll", "forward: unroll (all states' score updates)")
    wrap(TreePhase, "loss", "forward: learning-to-search loss (roll-in, unroll included)")


def train_batches(trainer_model, optimizer, batches, grad_norm):
    import torch

    for batch in batches:
        start = time.perf_counter()
        optimizer.zero_grad()
        loss = trainer_model(**batch)["loss"]
        forward = time.perf_counter()
        loss.backward()
        backward = time.perf_counter()
        torch.nn.utils.clip_grad_norm_(trainer_model.parameters(), grad_norm)
        optimizer.step()
        PHASES["forward (all)"] += forward - start
        PHASES["backward (all)"] += backward - forward
        PHASES["clipping and optimiser step"] += time.perf_counter() - backward


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", nargs="?", help="shipped config name, e.g. coach_valid")
    parser.add_argument("data", nargs="?", help="CoNLL-U training file")
    parser.add_argument("--every", type=int, default=8, help="time every k-th batch by length")
    parser.add_argument("--tail", type=int, default=8, help="time all of the longest batches")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--overrides", default="", help="dotted overrides as for allennlp -o")
    parser.add_argument("--summarise", metavar="RAW_PROFILE", help="summarise a py-spy raw profile and exit")
    parser.add_argument("--phases", action="store_true", help="also print the seconds of each phase")
    parser.add_argument("--autocast", action="store_true",
                        help="run the model's whole forward pass under torch.autocast in bfloat16 (mixed precision "
                        "beyond the shipped BiLSTM-only bfloat16_training; for measuring, not a shipped option)")
    parser.add_argument("--operators", type=int, metavar="N", default=0,
                        help="also profile the sample with torch.profiler and print its N costliest operators "
                        "(self CPU time, forward and backward)")
    parser.add_argument("--shapes", action="store_true",
                        help="with --operators, one row per operator and input shapes (which products cost most)")
    args = parser.parse_args()
    if args.summarise:
        summarise(args.summarise)
        return
    if not args.config or not args.data:
        parser.error("config and data are required")

    import torch
    from allennlp.common import Params
    from allennlp.data import DatasetReader, Vocabulary
    from allennlp.data.data_loaders import MultiProcessDataLoader
    from allennlp.models import Model
    from allennlp.training.optimizers import Optimizer

    import seqgraph_allennlp

    os.environ.setdefault("TRAIN_DATA_PATH", args.data)
    # the shipped configs' other variables (ENCODER, the other data paths) get `allennlp train`'s defaults
    seqgraph_allennlp.configure_command_line()
    params = Params.from_file(str(ROOT / "training_config" / f"{args.config}.jsonnet"), args.overrides)
    reader = DatasetReader.from_params(params.pop("dataset_reader"))
    loader = MultiProcessDataLoader.from_params(
        params.pop("data_loader"), reader=reader, data_path=args.data
    )
    vocabulary = Vocabulary.from_instances(loader.iter_instances())
    loader.index_with(vocabulary)
    model = Model.from_params(params.pop("model"), vocab=vocabulary)
    trainer_params = params.pop("trainer")
    parameters = [[name, p] for name, p in model.named_parameters() if p.requires_grad]
    optimizer = Optimizer.from_params(model_parameters=parameters, params=trainer_params.pop("optimizer"))
    grad_norm = trainer_params.pop("grad_norm", 5.0)
    torch.manual_seed(args.seed)
    all_batches = sorted(loader, key=lambda batch: batch["words"]["tokens"]["tokens"].size(1))
    tail = all_batches[len(all_batches) - args.tail:]
    sample = all_batches[: len(all_batches) - args.tail][args.every // 2:: args.every]
    if args.phases:
        time_phases()
    if args.autocast:
        forward = model.forward

        def autocast_forward(*inputs, **kwargs):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                return forward(*inputs, **kwargs)

        model.forward = autocast_forward
    model.train()
    train_batches(model, optimizer, sample[:2], grad_norm)  # warm-up
    seconds = []
    for name, batches in (("sample", sample), ("longest", tail)):
        PHASES.clear()
        start = time.perf_counter()
        train_batches(model, optimizer, batches, grad_norm)
        seconds.append(time.perf_counter() - start)
        if args.operators:
            # a second pass under the profiler, so that its overhead stays out of the times above
            with torch.profiler.profile(
                activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=args.shapes
            ) as profile:
                train_batches(model, optimizer, batches, grad_norm)
            print(f"{name} ({len(batches)} batches), under torch.profiler:")
            averages = profile.key_averages(group_by_input_shape=args.shapes)
            print(averages.table(sort_by="self_cpu_time_total", row_limit=args.operators, max_name_column_width=40,
                                 max_shapes_column_width=70))
        if args.phases:
            print(f"{name} ({len(batches)} batches): " + ", ".join(
                f"{phase} {value:.2f} s" for phase, value in sorted(PHASES.items())))
    estimate = args.every * seconds[0] + seconds[1]
    if not sample:
        sys.exit("no batches to sample: lower --tail or --every")
    print(f"{args.config}: sample {seconds[0] / len(sample):.3f} s per batch ({len(sample)} batches), "
          f"the {len(tail)} longest {seconds[1]:.1f} s; {torch.get_num_threads()} threads; "
          f"training pass estimate {estimate / 60:.2f} min ({len(all_batches)} batches)")


if __name__ == "__main__":
    main()
