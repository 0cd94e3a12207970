"""
Parsing and training speed of the sequential parser against allennlp-models' biaffine parser, in one
process: writes results/speed.json (and the speed table of docs/RESULTS.md, through `report`).

    .venv/bin/python scripts/bench_speed.py \\
        --model recurrent=experiments/welsh/coach_valid/model/model.tar.gz \\
        --model one_step=experiments/welsh/one_step/model/model.tar.gz \\
        --model biaffine=experiments/welsh/biaffine_mst/model/model.tar.gz \\
        --parse data/UD_English-EWT/en_ewt-ud-test.conllu --train data/UD_English-EWT/en_ewt-ud-train.conllu

For each archived model (`NAME=ARCHIVE`), and for the one-step model also with MST decoding
(`model.decoder: "mst"`), it parses the `--parse` file in file order with batch sizes 1 and 64 through the
model's predictor (`seqgraph_parser`, or `biaffine_dependency_parser` for allennlp-models' model), after a
warm-up of 64 sentences, and times `--train-batches` training batches of the `--train` file with the model's
shipped optimizer (forward, backward, clipping, step), from which an epoch's time is extrapolated (batches
of the model's own data loader: its bucket sampler, 32 sentences). Speeds depend on the architecture, not on
the weights, except MST, which may contract more cycles on worse scores: say which weights were used. Run it
on a quiet machine; the JSON records the machine and the torch threads.
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import time
from pathlib import Path
from typing import Dict, List, NamedTuple, Sequence, Tuple, Union

import torch
from allennlp.data import Batch
from allennlp.models.archival import load_archive
from allennlp.training.optimizers import Optimizer

import seqgraph_allennlp  # noqa: F401  (registers the components)
from seqgraph_allennlp.common.conllu import find_tree_problem, read_sentences
from seqgraph_allennlp.common.scoring import official_scores
from seqgraph_experiments import RESULTS, ROOT, RUNS, commands
from seqgraph_experiments.instances import forward_in_buckets, read_instances
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_experiments.report import write_report
from seqgraph_experiments.results import write_json

SPEED = RESULTS / "speed.json"


def parse_speed(model, instances, batch_size: int) -> float:
    """
    Sentences per second of `Model.forward_on_instances` (the forward pass under no_grad and the
    human-readable output) in file order, each batch of `batch_size` sentences cut into length buckets as
    the `seqgraph_parser` predictor does (the same buckets for every model).
    """
    forward_in_buckets(model, instances[:64], batch_size)  # warm-up
    start = time.perf_counter()
    forward_in_buckets(model, instances, batch_size)
    return len(instances) / (time.perf_counter() - start)


# the CPU paths a benchmark can force in the processes it starts: "as_it_is", or oneDNN and ATen held to AVX2 (no
# AVX512, no native bfloat16: the kernels of a CPU without them; tests/test_int8_linear.py checks that they change)
CPU_PATHS = {"as_it_is": {}, "avx2": {"ONEDNN_MAX_CPU_ISA": "AVX2", "ATEN_CPU_CAPABILITY": "avx2"}}


def cpu_path_environment() -> Dict[str, str]:
    """The variables of `CPU_PATHS` that this process runs under (a benchmark started with a path forced)."""
    names = {name for path in CPU_PATHS.values() for name in path}
    return {name: os.environ[name] for name in sorted(names) if name in os.environ}


class Setting(NamedTuple):
    """
    One `allennlp predict` setting of `cli_parse_speeds`: the archive, its `-o` overrides, `--batch-size`, the
    predictor's arguments (JSON, added to the run's) and the CPU path (`CPU_PATHS`).
    """
    archive: str
    overrides: str = ""
    batch_size: int = 64
    predictor_args: str = "{}"
    cpu_path: str = "as_it_is"


def one_sentence_file(conllu: str) -> Path:
    """The first sentence of `conllu` (comments included) as a file of its own."""
    lines = []
    for line in Path(conllu).read_text(encoding="utf-8").splitlines():
        lines.append(line)
        if not line.strip() and any(entry.strip() for entry in lines):
            break
    path = RUNS / "speed_one_sentence.conllu"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines).rstrip("\n") + "\n\n", encoding="utf-8")
    return path


def cli_parse_speeds(settings: Sequence[Union[Setting, Tuple[str, str]]], conllu: str, sentences: int,
                     predictor_args: str = "{}", repeats: int = 3) -> List[Dict]:
    """
    `allennlp predict --batch-size 64` (or the setting's batch size) on a CoNLL-U file as a user runs it, and the
    same command on a one-sentence file: the difference is the parsing time, the one-sentence command the start-up
    (Python, imports, model loading). Several settings (`Setting`s, or `(archive, overrides)`) run in turns, each
    round every setting's two commands, so that the machine's drift falls on every setting alike; `repeats` rounds,
    medians reported (one run varies by about a second on two cores). Every predicted sentence is checked to be a
    tree, and scored against the file's own heads (UAS, LAS, CLAS by the CoNLL 2018 evaluation, in %). One
    result per setting, in order.
    """
    settings = [Setting(*setting) for setting in settings]
    one_sentence = one_sentence_file(conllu)
    outputs = [RUNS / f"speed_predict_{index}.conllu" for index in range(len(settings))]
    outputs[0].parent.mkdir(parents=True, exist_ok=True)

    def command(index: int, path) -> List[str]:
        setting = settings[index]
        return commands.predict_conllu(setting.archive, path, outputs[index], batch_size=setting.batch_size,
                                       predictor_args={**json.loads(predictor_args),
                                                       **json.loads(setting.predictor_args)},
                                       overrides=setting.overrides)

    def timed(index: int, path) -> float:
        start = time.perf_counter()
        subprocess.run(command(index, path), cwd=ROOT, check=True, capture_output=True,
                       env={**os.environ, **CPU_PATHS[settings[index].cpu_path]})
        return time.perf_counter() - start

    for index in range(len(settings)):
        timed(index, one_sentence)  # warm-up: the first command also fills the file cache with the archive
    startups: List[List[float]] = [[] for _ in settings]
    runs: List[List[float]] = [[] for _ in settings]
    for _ in range(repeats):
        for index in range(len(settings)):
            startups[index].append(timed(index, one_sentence))
            runs[index].append(timed(index, conllu))
    results = []
    for index in range(len(settings)):
        startup, seconds = statistics.median(startups[index]), statistics.median(runs[index])
        trees = count_trees(outputs[index])
        results.append({
            "command": shlex.join(command(index, conllu)[1:]), "batch_size": settings[index].batch_size,
            "cpu_path": settings[index].cpu_path, "environment": CPU_PATHS[settings[index].cpu_path],
            "seconds": seconds, "startup_seconds": startup,
            "sentences_per_second": sentences / seconds,
            "sentences_per_second_without_startup": sentences / (seconds - startup),
            "repeats": repeats, "all_seconds": runs[index], "all_startup_seconds": startups[index],
            "predicted_sentences": trees["sentences"], "predicted_trees": trees["trees"],
            # settings that must parse alike (batch sizes, precision options) compare by this
            "output_sha256": sha256(outputs[index]),
            # and settings that may differ by what they parse (the file's own heads as gold)
            "scores": {metric: round(100 * value, 2)
                       for metric, value in official_scores(str(conllu), str(outputs[index])).items()},
        })
    return results


def count_trees(conllu: Path) -> Dict[str, int]:
    """Sentences of a predicted CoNLL-U file, and how many are trees with one root word."""
    sentences = list(read_sentences(str(conllu)))
    trees = sum(int(sentence.has_heads and find_tree_problem(sentence.heads) is None) for sentence in sentences)
    return {"sentences": len(sentences), "trees": trees}


def train_speed(archive, instances, num_batches: int) -> Dict:
    """Seconds per training batch over `num_batches` bucketed batches of 32 sentences, and per epoch."""
    model = archive.model
    model.train()
    config = archive.config.duplicate()
    optimizer = Optimizer.from_params(
        model_parameters=[[name, p] for name, p in model.named_parameters() if p.requires_grad],
        params=config["trainer"]["optimizer"],
    )
    grad_norm = config["trainer"].get("grad_norm", None)
    # the shipped data loader's batches: bucketed by length, 32 sentences
    ordered = sorted(instances, key=lambda instance: len(instance["words"]))
    batches = [ordered[i: i + 32] for i in range(0, len(ordered), 32)]
    generator = torch.Generator().manual_seed(0)
    chosen = [batches[i] for i in torch.randperm(len(batches), generator=generator)[: num_batches + 1].tolist()]
    vocab = model.vocab

    def step(batch_instances):
        batch = Batch(batch_instances)
        batch.index_instances(vocab)
        optimizer.zero_grad()
        output = model(**batch.as_tensor_dict())
        output["loss"].backward()
        if grad_norm:
            torch.nn.utils.clip_grad_norm_(model.parameters(), grad_norm)
        optimizer.step()

    step(chosen[0])  # warm-up
    timed = chosen[1:] or chosen
    start = time.perf_counter()
    for batch_instances in timed:
        step(batch_instances)
    per_batch = (time.perf_counter() - start) / len(timed)
    model.eval()
    return {"seconds_per_batch": per_batch, "batches_per_epoch": len(batches),
            "extrapolated_epoch_seconds": per_batch * len(batches), "batches_timed": len(timed)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", action="append", required=True, help="NAME=ARCHIVE (recurrent, one_step, biaffine)")
    parser.add_argument("--parse", required=True, help="CoNLL-U file to parse")
    parser.add_argument("--train", required=True, help="CoNLL-U file whose batches are timed in training")
    parser.add_argument("--train-batches", type=int, default=20)
    parser.add_argument("--tau", type=float, default=None,
                        help="multi-edge decoding threshold for the sequential models (default: one edge per step)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="runs of each allennlp predict command (the full file and the one-sentence file); medians are kept")
    parser.add_argument("--weights", default="", help="which weights the archives hold (kept in the JSON)")
    parser.add_argument("--overrides", default="",
                        help="dotted overrides for every archive, also passed to allennlp predict, e.g. "
                        "'{\"model.encoder.bfloat16_inference\": true}' for archives trained before that option")
    parser.add_argument("--output", default=str(SPEED), help="results JSON (docs/RESULTS.md is rewritten only for the default)")
    args = parser.parse_args()

    rows = []
    for spec in args.model:
        name, _, path = spec.partition("=")
        variants = [(name, None)]
        if name == "one_step":
            variants.append(("one_step_mst", '{"model.decoder": "mst"}'))
        for label, overrides in variants:
            is_biaffine = load_archive(path).config["model"]["type"] != "seqgraph_parser"
            merged = json.loads(args.overrides or "{}")
            if args.tau is not None and not is_biaffine and overrides is None:
                merged["model.tau"] = args.tau
            merged.update(json.loads(overrides or "{}"))
            overrides = json.dumps(merged) if merged else None
            archive = load_archive(path, overrides=overrides or "")
            archive.model.eval()
            instances = read_instances(archive, args.parse, gold=False)
            num_sentences = len(instances)
            row = {"model": label, "archive": path, "overrides": overrides,
                   "decoder": "mst" if is_biaffine or label == "one_step_mst" else (
                       "valid (greedy, one edge per step)" if archive.model.tau is None
                       else f"valid (tau {archive.model.tau:g})")}
            for batch_size in (1, 64):
                row[f"parse_sentences_per_second_batch_{batch_size}"] = parse_speed(archive.model, instances, batch_size)
                print(label, batch_size, f"{row[f'parse_sentences_per_second_batch_{batch_size}']:.1f} sentences/s", flush=True)
            if label == "recurrent":
                row["allennlp_predict"] = cli_parse_speeds(
                    [Setting(path, args.overrides)], args.parse, num_sentences,
                    json.dumps({} if args.tau is None else {"tau": args.tau}), args.repeats)[0]
                print(label, f"allennlp predict: {row['allennlp_predict']['sentences_per_second']:.1f} sentences/s", flush=True)
            if label != "one_step_mst" and args.train_batches > 0:
                row["train"] = train_speed(archive, read_instances(archive, args.train), args.train_batches)
                print(label, f"{row['train']['seconds_per_batch']:.3f} s/batch", flush=True)
            rows.append(row)
    baseline = next((row for row in rows if row["model"] == "biaffine"), None)
    if baseline:
        for row in rows:
            for batch_size in (1, 64):
                key = f"parse_sentences_per_second_batch_{batch_size}"
                row[f"parse_ratio_to_biaffine_batch_{batch_size}"] = row[key] / baseline[key]
            if "train" in row and "train" in baseline:
                row["train_time_ratio_to_biaffine"] = row["train"]["seconds_per_batch"] / baseline["train"]["seconds_per_batch"]
    result = {
        "parse_file": args.parse,
        "parse_sentences": num_sentences,
        "train_file": args.train,
        "weights": args.weights,
        "rows": rows,
        "torch_threads": torch.get_num_threads(),
        **stamp("scripts/bench_speed.py"),
    }
    output = write_json(Path(args.output), result)
    if output.resolve() == SPEED.resolve():
        write_report()


if __name__ == "__main__":
    main()
