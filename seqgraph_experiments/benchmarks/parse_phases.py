"""
Where the parsing time of a model goes, phase by phase: parses a CoNLL-U file with the `seqgraph_parser`
predictor as `allennlp predict --batch-size 64` does (batches of `--batch-size` in file order, each cut into
length buckets, the predictor's rules over the graph included), with a wall-clock timer around each phase, and
writes the seconds of each (median of `--repeats` parses) to results/benchmarks/enhanced_parse_phases.json
(the frozen features and the encoder as the archive and `--overrides` say, unless `--features-precision` or
`--encoder-precision` give the predictor another choice, as `allennlp predict --predictor-args` would):

    .venv/bin/python benchmarks/parse_phases.py MODEL.tar.gz data/UD_English-EWT/en_ewt-ud-test.conllu

A model of the basic tree alone (no graph phase) gets zero seconds in the graph's phases. In a model over a
frozen transformer (`cached_pretrained_transformer_mismatched`) `transformer` is the transformer's own forward
pass with the word pieces averaged to words (part of `embedding`, counted apart); its vectors are computed in
every parse as in a cold `allennlp predict` (the embedder keeps none in memory or on disk here), so the repeats
time the transformer too.

The phases (`PHASES`) are the model's own methods, its parts' and the decoders they call, timed where they are
called; the CPU computes synchronously, so a phase's wall clock is its cost. `reading` is the dataset reader on
the file (CoNLL-U parsed, instances built), as `allennlp predict --use-dataset-reader` reads it; `predictor` is
what `predict_batch_instance` spends outside the model's `forward_on_instances` (the rules over the graph, the
outputs); `batching` what `forward_on_instances` spends outside `forward` and `make_output_human_readable`
(indexing, padding, tensors). Not timed: start-up, and writing the output file (`allennlp predict`'s own).
Run it on a quiet machine: the timers add little (a few thousand calls), but one run varies by ~10 %.
"""
import argparse
import functools
import importlib
import statistics
import time
from pathlib import Path
from typing import Callable, Dict, List

import torch

from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_experiments.results import BENCHMARKS, write_json

RESULT = BENCHMARKS / "enhanced_parse_phases.json"
BATCH_SIZE = 64
# name: (where, attribute, what it is); "model" methods are timed on the model, a part's (`tree_phase`,
# `label_classifier`, ...) on the model's part where it has it, a "module:" function in the module that calls it
PHASES = {
    "embedding": ("text_field_embedder", None, "the words' and characters' embeddings (the character CNN)"),
    "transformer": ("transformer", None, "a frozen transformer's layers and word-piece averaging, if any"),
    "encoder": ("encoder", None, "the BiLSTM"),
    "encode": ("model", "encode", "embedding, encoder and the tree's initial arc scores S_0 (MLPs, biaffine)"),
    "graph_initial_scores": ("model", "graph_initial_scores", "the graph phase's own arc scores (MLPs, biaffine)"),
    "tree_decoder": ("module:seqgraph_allennlp.models.seqgraph.tree_phase", "greedy_valid_decode",
                     "the valid decoder's steps (recurrent updates included)"),
    "graph_decoder": ("module:seqgraph_allennlp.models.seqgraph.graph_phase", "greedy_graph_decode",
                      "the graph phase's steps until STOP"),
    "label_representations": ("label_classifier", "representations", "the label MLPs"),
    "basic_labels": ("label_classifier", "decode", "the basic relations' bilinear classifier"),
    "enhanced_labels": ("enhanced_label_classifier", "decode", "the enhanced labels' bilinear classifier"),
    "upos": ("upos_tagger", "logits", "the UPOS tagger"),
    "forward": ("model", "forward", "the model's whole forward pass"),
    "human_readable": ("model", "make_output_human_readable", "the outputs as words and labels"),
    "forward_on_instances": ("model", "forward_on_instances", "batching, forward and outputs"),
    "predict": ("predictor", "predict_batch_instance", "everything after reading"),
}


def timed(function: Callable, totals: Dict[str, float], name: str) -> Callable:
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            totals[name] = totals.get(name, 0.0) + time.perf_counter() - start
    return wrapper


def instrument(predictor, totals: Dict[str, float]) -> None:
    """
    Puts a timer around each of `PHASES`: the model's methods, modules and parts and the predictor's on those
    instances, the decoders in the parts' modules for the whole process (a benchmark's process only). A part
    the model has not (`enhanced_label_classifier` of a tree model) is not timed: its phase counts zero.
    """
    model = predictor._model
    for name, (where, attribute, _) in PHASES.items():
        if where == "transformer":
            for embedder in frozen_transformers(model):
                embedder._matched_embedder.forward = timed(embedder._matched_embedder.forward, totals, name)
        elif where.startswith("module:"):
            module = importlib.import_module(where[len("module:"):])
            setattr(module, attribute, timed(getattr(module, attribute), totals, name))
        elif where == "predictor":
            setattr(predictor, attribute, timed(getattr(predictor, attribute), totals, name))
        elif where == "model":
            setattr(model, attribute, timed(getattr(model, attribute), totals, name))
        elif attribute is None:
            module = getattr(model, where)
            module.forward = timed(module.forward, totals, name)
        elif getattr(model, where, None) is not None:
            part = getattr(model, where)
            setattr(part, attribute, timed(getattr(part, attribute), totals, name))


def frozen_transformers(model) -> List[torch.nn.Module]:
    """
    The model's frozen-transformer embedders, each set to keep no vectors (in memory or on disk), so that every
    parse computes them as a cold `allennlp predict` does.
    """
    from seqgraph_allennlp.modules.cached_transformer_embedder import CachedPretrainedTransformerMismatchedEmbedder

    embedders = [module for module in model.modules()
                 if isinstance(module, CachedPretrainedTransformerMismatchedEmbedder)]
    for embedder in embedders:
        embedder._max_cached_words = 0
        embedder._cache.clear()
        embedder._cache_directory = embedder._directory = None
    return embedders


def derived(seconds: Dict[str, float], reading: float) -> Dict[str, float]:
    """
    The exclusive parts that the nested timers leave: what each includes minus what it calls. A phase never
    called (the graph's, in a model of the tree alone) counts zero.
    """
    seconds = {name: seconds.get(name, 0.0) for name in PHASES}
    return {
        "reading": reading,
        "transformer": seconds["transformer"],
        "embedding": seconds["embedding"] - seconds["transformer"],
        "encoder": seconds["encoder"],
        "tree_initial_scores": seconds["encode"] - seconds["embedding"] - seconds["encoder"],
        "graph_initial_scores": seconds["graph_initial_scores"],
        "tree_decoder": seconds["tree_decoder"],
        "graph_decoder": seconds["graph_decoder"],
        "labels": seconds["label_representations"] + seconds["basic_labels"] + seconds["enhanced_labels"],
        "upos": seconds["upos"],
        "rest_of_forward": seconds["forward"] - sum(seconds[name] for name in (
            "encode", "graph_initial_scores", "tree_decoder", "graph_decoder", "label_representations",
            "basic_labels", "enhanced_labels", "upos")),
        "human_readable": seconds["human_readable"],
        "batching": seconds["forward_on_instances"] - seconds["forward"] - seconds["human_readable"],
        "predictor": seconds["predict"] - seconds["forward_on_instances"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="the archive of a seqgraph_parser model (model.tar.gz)")
    parser.add_argument("conllu", help="the CoNLL-U file to parse")
    parser.add_argument("--repeats", type=int, default=3, help="timed parses of the file (after a warm-up)")
    parser.add_argument("--overrides", default="",
                        help="dotted overrides of the archive's config (JSON), e.g. a precision option")
    parser.add_argument("--features-precision", default="as_trained",
                        help="the predictor's features_precision (default: as_trained, so that --overrides apply; "
                             "auto is what allennlp predict computes by default)")
    parser.add_argument("--encoder-precision", default="as_trained",
                        help="the predictor's encoder_precision (default: as_trained; auto is allennlp predict's)")
    parser.add_argument("--batch-size", type=int, default=BATCH_SIZE,
                        help="sentences handed to the predictor at a time, as allennlp predict's --batch-size")
    parser.add_argument("--output", default=str(RESULT))
    args = parser.parse_args()
    refuse_missing_files(parser, [args.model, args.conllu])
    from allennlp.models.archival import load_archive
    from allennlp.predictors import Predictor

    import seqgraph_allennlp  # noqa: F401  (registers the components)

    predictor = Predictor.from_archive(load_archive(args.model, overrides=args.overrides), "seqgraph_parser",
                                       extra_args={"features_precision": args.features_precision,
                                                   "encoder_precision": args.encoder_precision})
    totals: Dict[str, float] = {}
    instrument(predictor, totals)
    runs: List[Dict[str, float]] = []
    for repeat in range(args.repeats + 1):
        totals.clear()
        start = time.perf_counter()
        instances = list(predictor._dataset_reader.read(args.conllu))
        reading = time.perf_counter() - start
        for batch in range(0, len(instances), args.batch_size):
            predictor.predict_batch_instance(instances[batch:batch + args.batch_size])
        if repeat:  # the first is a warm-up
            runs.append(derived(dict(totals), reading))
    medians = {name: statistics.median(run[name] for run in runs) for name in runs[0]}
    total = sum(medians.values())
    result = {
        "what": "seconds of each phase of parsing a CoNLL-U file with the seqgraph_parser predictor in batches of "
                f"{args.batch_size} (file order, length buckets), exclusive of each other; medians of the repeats; "
                "start-up and writing the output not included",
        "phases": {name: {"what": description} for name, (_, _, description) in PHASES.items()},
        "model": {"path": args.model, "sha256": sha256(args.model)},
        "overrides": args.overrides,
        "features_precision": args.features_precision,
        "encoder_precision": args.encoder_precision,
        "data": {"path": args.conllu, "sha256": sha256(args.conllu), "sentences": len(instances)},
        "torch_threads": torch.get_num_threads(),
        "batch_size": args.batch_size,
        "repeats": args.repeats,
        "seconds": medians,
        "share": {name: value / total for name, value in medians.items()},
        "total_seconds": total,
        "sentences_per_second": len(instances) / total,
        "all_runs": runs,
        **stamp("benchmarks/parse_phases.py"),
    }
    write_json(Path(args.output), result)
    for name, value in sorted(medians.items(), key=lambda item: -item[1]):
        print(f"{name:22s} {value:6.2f} s  {100 * value / total:5.1f} %")
    print(f"total {total:.2f} s, {len(instances) / total:.1f} sentences/s; wrote {args.output}")


if __name__ == "__main__":
    main()
