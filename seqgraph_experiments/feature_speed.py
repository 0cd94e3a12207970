"""
How fast the English model's frozen all-mpnet-base-v2 features are computed, and how far they lie from
float32's (issue 43): the shipped embedder (training_config/coach_valid_mpnet.jsonnet: `mpnet.libsonnet`'s
indexer and cached embedder, its four mixed layers) under each setting of its `transformer_precision` (float32,
bfloat16, int8) and `word_piece_buckets`, computing the features of a CoNLL-U file (EWT test): the four layers'
word vectors, what the embedder caches. Writes results/benchmarks/feature_speed.json.

    .venv/bin/python scripts/feature_speed.py [--conllu FILE] [--settings ...] [--batchings ...]

Each setting and batching runs in a process of its own, started fresh: the seconds to build the embedder (the
model loaded; the int8 copy is made at the first batch), the first pass over the file (cold) and `--repeats`
passes more (warm, their median), timing the embedder alone (sentences indexed beforehand), in the batches
the model gets in use: `predictor` (`allennlp predict --batch-size 64`: file order, cut into word-length
buckets as the seqgraph_parser predictor does) and `training` (32 sentences sorted by words: the bucket
sampler without its noise, as the first epoch computes them). Then, from the vectors of the last pass: their
largest and mean absolute difference from float32's in the same batching (also of the four layers averaged,
the mix at its start; the trained mix weights them otherwise) and the cosine of each word's layer vectors to
float32's; and the same against the setting's own vectors in the other batching, how much a sentence's vectors
depend on its batch (a model is trained on the training batches' vectors and parses with the predictor's).

A setting that the CPU cannot run falls back to float32 (bfloat16 without native bfloat16): `precision_used`
says what ran. `*_buckets_padded_16` (not run by default) pads each bucket to at least 16 word pieces, as the
embedder did until 2026-11-29 (`BUCKET_MIN_PIECES`); `bfloat16_buckets_padding_10` closes a bucket at a tenth
of padding instead of a quarter (`BUCKET_MAX_PADDING`). `--predict-batch-size` sets the predictor's batches
(`allennlp predict --batch-size`, 64 by default). Every setting and batching is a process of 1 + `--repeats`
passes over the file (6 x 2 processes by default, float32 always among them: the reference); run it on a
quiet machine, with the OMP_NUM_THREADS that parsing gets.
"""
import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Tuple

from seqgraph_experiments import ROOT
from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.provenance import repository_path, sha256, stamp
from seqgraph_experiments.results import BENCHMARKS, write_json

OUT = BENCHMARKS / "feature_speed.json"
CONLLU = ROOT / "data" / "UD_English-EWT" / "en_ewt-ud-test.conllu"
CONFIG = ROOT / "training_config" / "coach_valid_mpnet.jsonnet"
# name -> the embedder's options
SETTINGS = {
    "float32": {"transformer_precision": "float32", "word_piece_buckets": False},
    "float32_buckets": {"transformer_precision": "float32", "word_piece_buckets": True},
    "bfloat16": {"transformer_precision": "bfloat16", "word_piece_buckets": False},
    "bfloat16_buckets": {"transformer_precision": "bfloat16", "word_piece_buckets": True},
    "int8": {"transformer_precision": "int8", "word_piece_buckets": False},
    "int8_buckets": {"transformer_precision": "int8", "word_piece_buckets": True},
    # buckets padded to at least 16 word pieces, as until 2026-11-29
    "float32_buckets_padded_16": {"transformer_precision": "float32", "word_piece_buckets": True},
    "bfloat16_buckets_padded_16": {"transformer_precision": "bfloat16", "word_piece_buckets": True},
    # a bucket closed at a tenth of padding, not a quarter: more, fuller buckets
    "bfloat16_buckets_padding_10": {"transformer_precision": "bfloat16", "word_piece_buckets": True},
}
# settings that also change a constant of the embedder's module (in their own process)
MODULE_CONSTANTS = {
    "float32_buckets_padded_16": {"BUCKET_MIN_PIECES": 16},
    "bfloat16_buckets_padded_16": {"BUCKET_MIN_PIECES": 16},
    "bfloat16_buckets_padding_10": {"BUCKET_MAX_PADDING": 0.1},
}
DEFAULT_SETTINGS = ["float32", "float32_buckets", "bfloat16", "bfloat16_buckets", "int8", "int8_buckets"]
BATCHINGS = ("predictor", "training")
PREDICT_BATCH_SIZE = 64
TRAIN_BATCH_SIZE = 32


def shipped_mpnet(model_directory: str = None) -> Tuple[Dict, Dict]:
    """The shipped English config's mpnet indexer and embedder parameters, from another directory if given."""
    from allennlp.common import Params

    from seqgraph_allennlp.common.environment import set_default_environment

    set_default_environment()
    params = Params.from_file(str(CONFIG)).as_dict()
    indexer = params["dataset_reader"]["token_indexers"]["mpnet"]
    embedder = params["model"]["text_field_embedder"]["token_embedders"]["mpnet"]
    if model_directory:
        indexer["model_name"] = embedder["model_name"] = model_directory
    return indexer, embedder


def read_words(conllu: str, limit: int = None) -> List[List[str]]:
    """Each sentence's words as the model's reader gives them (syntactic words, multiword tokens split)."""
    from seqgraph_allennlp.dataset_readers import SeqGraphUDReader

    words = [[token.text for token in instance["words"].tokens] for instance in SeqGraphUDReader().read(conllu)]
    return words[:limit] if limit else words


def batches(words: List[List[str]], batching: str, predict_batch_size: int = PREDICT_BATCH_SIZE) -> List[List[int]]:
    """The sentences (positions) of each batch the model computes the file's features in."""
    from seqgraph_allennlp.predictors.batching import length_buckets

    if batching == "predictor":
        cut = []
        for begin in range(0, len(words), predict_batch_size):
            chunk = list(range(begin, min(begin + predict_batch_size, len(words))))
            cut.extend([[chunk[row] for row in bucket] for bucket in length_buckets([len(words[p]) for p in chunk])])
        return cut
    order = sorted(range(len(words)), key=lambda position: len(words[position]))
    return [order[begin: begin + TRAIN_BATCH_SIZE] for begin in range(0, len(order), TRAIN_BATCH_SIZE)]


def worker(args) -> None:
    """One setting and batching in this (fresh) process: times and vectors to `--work`."""
    import numpy
    import torch
    from allennlp.common import Params
    from allennlp.data import Batch, Instance, Token, Vocabulary
    from allennlp.data.fields import TextField
    from allennlp.data.token_indexers import TokenIndexer
    from allennlp.modules.token_embedders import TokenEmbedder

    import seqgraph_allennlp  # noqa: F401  (registers the embedder)
    from seqgraph_allennlp.modules import cached_transformer_embedder

    for name, value in MODULE_CONSTANTS.get(args.worker, {}).items():
        setattr(cached_transformer_embedder, name, value)
    work = Path(args.work)
    indexer_params, embedder_params = shipped_mpnet(args.model_directory)
    words = read_words(args.conllu, args.limit)
    start = time.perf_counter()
    indexer = TokenIndexer.from_params(Params(dict(indexer_params)))
    embedder = TokenEmbedder.from_params(Params({**embedder_params, **SETTINGS[args.worker]}))
    embedder.eval()
    load_seconds = time.perf_counter() - start
    # indexed beforehand: the embedder alone is timed
    tensors = []
    for batch in batches(words, args.batching, args.predict_batch_size):
        instances = Batch([Instance({"words": TextField([Token(word) for word in words[position]],
                                                        {"mpnet": indexer})}) for position in batch])
        instances.index_instances(Vocabulary())
        tensors.append((batch, instances.as_tensor_dict()["words"]["mpnet"]))
    # what the transformer runs on: (sentences, pieces) of each of its batches
    shapes: List[Tuple[int, int]] = []
    original = embedder._matched_embedder.forward
    embedder._matched_embedder.forward = \
        lambda token_ids, *rest, **kwargs: shapes.append(tuple(token_ids.shape)) or original(token_ids, *rest, **kwargs)

    def one_pass() -> float:
        embedder.clear_cache()  # every pass computes every sentence, caching it as training and parsing do
        begin = time.perf_counter()
        with torch.no_grad():
            for _, batch in tensors:
                embedder(**batch)
        return time.perf_counter() - begin

    first = one_pass()
    passes = [one_pass() for _ in range(args.repeats)]
    # the last pass's vectors, in file order
    vectors: List = [None] * len(words)
    for positions, batch in tensors:
        keys = embedder.sentence_keys(batch["token_ids"], batch["mask"], batch["offsets"], batch["wordpiece_mask"])
        for position, key in zip(positions, keys):
            vectors[position] = embedder._cache[key]
    numpy.save(work / f"{args.worker}.{args.batching}.npy", torch.cat(vectors).numpy())
    pieces = sum(int(batch["wordpiece_mask"].sum()) for _, batch in tensors)
    per_pass = shapes[: len(shapes) // (1 + args.repeats)]
    (work / f"{args.worker}.{args.batching}.json").write_text(json.dumps({
        "precision_used": embedder.precision_used(torch.device("cpu")),
        "torch_threads": torch.get_num_threads(),
        "load_seconds": load_seconds,
        "cold_pass_seconds": first,
        "warm_pass_seconds": passes,
        "sentences_per_second_cold": len(words) / first,
        "sentences_per_second_warm": len(words) / statistics.median(passes) if passes else None,
        "batches": len(tensors),
        "transformer_batches": len(per_pass),
        # word pieces the transformer ran on, padding included, against the sentences' own (with <s> and </s>)
        "transformer_pieces": sum(size * width for size, width in per_pass),
        "sentence_pieces": pieces,
    }))


def difference(path: Path, reference: Path, chunk: int = 4096) -> Dict:
    """
    How far one file's vectors lie from another's: the largest and mean absolute difference over every word
    and feature, of the four layers and of their mean (`equal_mix`), and the smallest and mean cosine between a
    word's two vectors of a layer; with the scale of the reference's (mean and largest absolute value).
    """
    import numpy

    one, other = numpy.load(path, mmap_mode="r"), numpy.load(reference, mmap_mode="r")
    largest = {"layers": 0.0, "equal_mix": 0.0}
    total = {"layers": 0.0, "equal_mix": 0.0}
    cosines = {"min": 1.0, "sum": 0.0}
    scale = {"max": 0.0, "sum": 0.0}
    for begin in range(0, one.shape[0], chunk):
        a = numpy.asarray(one[begin: begin + chunk], dtype=numpy.float64).reshape(-1, 4, one.shape[1] // 4)
        b = numpy.asarray(other[begin: begin + chunk], dtype=numpy.float64).reshape(a.shape)
        for name, values in (("layers", numpy.abs(a - b)), ("equal_mix", numpy.abs(a.mean(axis=1) - b.mean(axis=1)))):
            largest[name] = max(largest[name], float(values.max()))
            total[name] += float(values.reshape(len(a), -1).mean(axis=1).sum())
        norms = numpy.maximum(numpy.linalg.norm(a, axis=-1) * numpy.linalg.norm(b, axis=-1), 1e-30)
        cosine = (a * b).sum(axis=-1) / norms
        cosines["min"] = min(cosines["min"], float(cosine.min()))
        cosines["sum"] += float(cosine.mean(axis=1).sum())
        scale["max"] = max(scale["max"], float(numpy.abs(b).max()))
        scale["sum"] += float(numpy.abs(b).reshape(len(b), -1).mean(axis=1).sum())
    words = one.shape[0]
    return {**{name: {"max": largest[name], "mean": total[name] / words} for name in largest},
            "cosine": {"min": cosines["min"], "mean": cosines["sum"] / words},
            "reference_abs": {"max": scale["max"], "mean": scale["sum"] / words}}


def run_worker(args, setting: str, batching: str, work: Path) -> Dict:
    command = [sys.executable, "-m", "seqgraph_experiments.feature_speed", "--worker", setting,
               "--batching", batching, "--work", str(work), "--conllu", args.conllu,
               "--repeats", str(args.repeats), "--predict-batch-size", str(args.predict_batch_size)]
    if args.limit:
        command += ["--limit", str(args.limit)]
    if args.model_directory:
        command += ["--model-directory", args.model_directory]
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True)
    result = json.loads((work / f"{setting}.{batching}.json").read_text())
    # the whole fresh process: Python, torch and AllenNLP imported, the model loaded, the passes
    result["process_seconds"] = time.perf_counter() - start
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conllu", default=str(CONLLU), help="the CoNLL-U file whose features are computed")
    parser.add_argument("--model-directory", default=None,
                        help="all-mpnet-base-v2's directory (default: the shipped config's, PRETRAINED_MPNET)")
    parser.add_argument("--settings", nargs="+", choices=list(SETTINGS), default=DEFAULT_SETTINGS,
                        help="float32 always runs too, the reference (default: %(default)s)")
    parser.add_argument("--batchings", nargs="+", choices=BATCHINGS, default=list(BATCHINGS))
    parser.add_argument("--repeats", type=int, default=2, help="warm passes after the cold one, per process")
    parser.add_argument("--limit", type=int, default=None, help="the file's first sentences only (a smoke test)")
    parser.add_argument("--predict-batch-size", type=int, default=PREDICT_BATCH_SIZE,
                        help="sentences per predictor batch, before its word-length buckets (default: %(default)s)")
    parser.add_argument("--output", default=str(OUT))
    parser.add_argument("--worker", choices=list(SETTINGS), help=argparse.SUPPRESS)
    parser.add_argument("--batching", choices=BATCHINGS, help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    refuse_missing_files(parser, [args.conllu])
    if args.predict_batch_size < 1:
        parser.error("--predict-batch-size must be positive")
    settings = ["float32"] + [name for name in args.settings if name != "float32"]
    rows: Dict[str, Dict] = {}
    with tempfile.TemporaryDirectory() as directory:
        work = Path(directory)
        for setting in settings:
            row = {"options": SETTINGS[setting], "module_constants": MODULE_CONSTANTS.get(setting, {}),
                   "batchings": {}}
            for batching in args.batchings:
                row["batchings"][batching] = run_worker(args, setting, batching, work)
                result = row["batchings"][batching]
                print(f"{setting} ({result['precision_used']}), {batching} batches: "
                      f"{result['sentences_per_second_cold']:.1f} sentences/s cold, "
                      f"{result['sentences_per_second_warm'] or float('nan'):.1f} warm", flush=True)
            vectors = {batching: work / f"{setting}.{batching}.npy" for batching in args.batchings}
            row["difference_from_float32"] = {
                batching: difference(path, work / f"float32.{batching}.npy") for batching, path in vectors.items()
            }
            if len(vectors) == 2:
                row["predictor_against_training_batches"] = difference(vectors["predictor"], vectors["training"])
            if setting != "float32":
                for path in vectors.values():
                    path.unlink()
            rows[setting] = row
    words = read_words(args.conllu, args.limit)
    from seqgraph_allennlp.modules.cached_transformer_embedder import (
        BUCKET_MAX_PADDING,
        BUCKET_MIN_PIECES,
        BUCKET_MIN_SENTENCES,
    )

    indexer, embedder = shipped_mpnet(args.model_directory)
    model_directory = Path(embedder["model_name"])
    conllu = Path(args.conllu).resolve()
    written = write_json(Path(args.output), {
        "what": "the shipped English config's frozen all-mpnet-base-v2 features (four layers' word vectors, "
                "what the cached embedder keeps) of a CoNLL-U file, per transformer_precision and "
                "word_piece_buckets, each batching in a fresh process: seconds to build the embedder, the "
                "first pass (cold) and the median of the warm passes, the embedder alone; absolute differences "
                "from float32 in the same batching and between the two batchings, over every word and feature",
        "data": {"path": repository_path(args.conllu),
                 "sha256": sha256(conllu), "sentences": len(words), "words": sum(map(len, words)),
                 "limit": args.limit},
        "model": {"path": str(model_directory),
                  "weights_sha256": {path.name: sha256(path) for path in sorted(model_directory.glob("*"))
                                     if path.suffix in (".safetensors", ".bin")}},
        "embedder": {name: value for name, value in embedder.items() if name != "model_name"},
        "batchings": {"predictor": f"{args.predict_batch_size} sentences in file order, cut into the predictor's "
                                   "word-length buckets",
                      "training": f"{TRAIN_BATCH_SIZE} sentences sorted by words"},
        "buckets": {"min_sentences": BUCKET_MIN_SENTENCES, "max_padding": BUCKET_MAX_PADDING,
                    "min_pieces": BUCKET_MIN_PIECES},
        "repeats": args.repeats,
        "rows": rows,
        **stamp("scripts/feature_speed.py"),
    })
    print(f"wrote {written}")


if __name__ == "__main__":
    main()
