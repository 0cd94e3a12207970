"""
How fast a trained segmenter splits a treebank's raw text under each inference setting, and what each
setting scores: the windows it reads (`window_length`, `context`: characters labelled from each window's
middle) and how many windows go to the encoder at once (`batch_size`). None of them is learned, so one
archive is loaded once and its model's settings changed between runs; each setting is timed in turns with
the others (`settings.interleaved_seconds`), medians of `--repeats`, after one untimed run each. Where the
time of the shipped setting goes (features, encoder, labels to sentences) is measured by the same code
split in its steps. Writes results/benchmarks/segmenter_speed.json:

    .venv/bin/python benchmarks/segmenter_speed.py SEGMENTER.tar.gz data/UD_English-EWT/en_ewt-ud-test.conllu

Run it on a quiet machine.
"""
import argparse
import statistics
import time
from pathlib import Path
from typing import Dict, List

import torch
from allennlp.models.archival import load_archive

import seqgraph_allennlp  # noqa: F401  (registers the segmenter)
from seqgraph_allennlp.common.conllu import read_sentences
from seqgraph_allennlp.segmentation.documents import documents
from seqgraph_allennlp.segmentation.labels import labels_to_sentences
from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.benchmarks.settings import interleaved_seconds, per_second
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_experiments.raw_text import layout_texts
from seqgraph_experiments.results import BENCHMARKS, write_json
from seqgraph_experiments.segmenter_eval import scores, segmented_conllu

# (window_length, context, batch_size); the first is the archive's own (the shipped defaults)
SETTINGS = [(512, 64, 64), (512, 64, 256), (256, 32, 256), (256, 48, 256), (256, 32, 1024), (1024, 64, 64)]


def step_seconds(model, texts: List[str], repeats: int) -> Dict[str, float]:
    """Median seconds of each step of `segment`: features and ids, encoder and labels, labels to sentences."""
    features, network, sentences = [], [], []
    for _ in range(repeats):
        start = time.perf_counter()
        for text in texts:
            model._character_ids(text), model._features(text)
        features.append(time.perf_counter() - start)
        start = time.perf_counter()
        labels = model.predict_labels(texts)
        network.append(time.perf_counter() - start)
        expand = model.expander.expand
        start = time.perf_counter()
        for text, text_labels in zip(texts, labels):
            labels_to_sentences(text, text_labels, expand)
        sentences.append(time.perf_counter() - start)
    network_only = statistics.median(network) - statistics.median(features)
    return {"features_and_ids": round(statistics.median(features), 3),
            "encoder_and_labels (predict_labels without its features)": round(network_only, 3),
            "labels_to_sentences": round(statistics.median(sentences), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("segmenter", help="a trained segmenter archive (model.tar.gz)")
    parser.add_argument("conllu", help="a UD CoNLL-U file with # text lines")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--output", default=str(BENCHMARKS / "segmenter_speed.json"))
    args = parser.parse_args()
    refuse_missing_files(parser, [args.segmenter, args.conllu])

    sentences = list(read_sentences(args.conllu))
    texts = layout_texts(documents(sentences), "paragraphs")
    model = load_archive(args.segmenter).model
    shipped = (model.window_length, model.context, model.batch_size)
    settings = [shipped] + [setting for setting in SETTINGS if setting != shipped]

    def configure(setting):
        model.window_length, model.context, model.batch_size = setting

    rows = {}
    for setting in settings:  # scores, and the untimed first run of each
        configure(setting)
        found = [sentence for text in model.segment(texts) for sentence in text]
        rows[setting] = {"window_length": setting[0], "context": setting[1], "batch_size": setting[2],
                         **scores(Path(args.conllu), segmented_conllu(found))}
    seconds = interleaved_seconds({setting: setting for setting in settings},
                                  lambda setting: (configure(setting), model.segment(texts)), args.repeats)
    for setting, values in seconds.items():
        rows[setting].update({"sentences_per_second": round(per_second(len(sentences), values), 1),
                              "seconds": [round(value, 3) for value in values]})
    configure(shipped)
    steps = step_seconds(model, texts, args.repeats)
    write_json(Path(args.output), {
        "what": "one segmenter, each inference setting segmenting the file's raw text (paragraphs) in turns; "
                "sentences/s counts the gold file's sentences; medians; loading and start-up not included; "
                "scores: udtools.udeval F1 %",
        "segmenter": {"path": args.segmenter, "sha256": sha256(Path(args.segmenter))},
        "data": {"path": args.conllu, "sha256": sha256(Path(args.conllu)), "sentences": len(sentences),
                 "texts": len(texts), "characters": sum(len(text) for text in texts)},
        "torch_threads": torch.get_num_threads(),
        "repeats": args.repeats,
        "rows": list(rows.values()),
        "steps_of_the_archive_setting_seconds": steps,
        **stamp("benchmarks/segmenter_speed.py"),
    })
    for row in rows.values():
        print(row)
    print(steps)


if __name__ == "__main__":
    main()
