"""
Where the time of parsing raw text goes: one `seqgraph_allennlp.Parser` (loaded once) parses a treebank's
test file from its gold tokens (`parse_conllu`) and from its raw text (each document rebuilt from the
`# text` lines, paragraphs separated by a blank line: `seqgraph_experiments.raw_text`), the raw text both
as all documents in one call (`parse_texts`) and one document per call (`parse` on each, what
`scripts/raw_text_eval.py` did before `parse_texts`), with each splitter the archive has (its learned
segmenter, spaCy's rules), and the splitters alone; and gold tokens and `parse_texts` with the learned segmenter
again with the sentences that have a long word bucketed with the others (`predictors.batching.LONG_WORD` lifted),
as they were before 2026-12-07. Each setting is timed in turns with the others
(`settings.interleaved_seconds`), medians of `--repeats`; model loading and start-up not included.
Writes results/benchmarks/raw_text_speed.json:

    .venv/bin/python benchmarks/raw_text_speed.py MODEL.tar.gz data/UD_English-EWT/en_ewt-ud-test.conllu \\
        --weights "..."

Run it on a quiet machine.
"""
import argparse
from pathlib import Path

import torch
from allennlp.models.archival import load_archive

from seqgraph_allennlp.api import Parser
from seqgraph_allennlp.common.conllu import read_sentences
from seqgraph_allennlp.predictors import batching
from seqgraph_allennlp.segmentation.documents import documents
from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.benchmarks.settings import interleaved_seconds, per_second
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_experiments.raw_text import layout_texts
from seqgraph_experiments.results import BENCHMARKS, write_json


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="a parser's archive (model.tar.gz), with or without a segmenter")
    parser.add_argument("conllu", help="a UD CoNLL-U file with # text lines")
    parser.add_argument("--weights", required=True, help="which weights the archive holds (kept in the JSON)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-per-text", action="store_true",
                        help="leave out the rows of one text per `parse` call (the slowest, a third of the time)")
    parser.add_argument("--output", default=str(BENCHMARKS / "raw_text_speed.json"))
    args = parser.parse_args()
    refuse_missing_files(parser, [args.model, args.conllu])

    sentences = list(read_sentences(args.conllu))
    texts = layout_texts(documents(sentences), "paragraphs")
    archive = load_archive(args.model)
    splitters = (["learned"] if getattr(archive.model, "segmenter", None) is not None else []) + ["rules"]
    parsers = {splitter: Parser(archive.model, archive.validation_dataset_reader, segmenter=splitter)
               for splitter in splitters}
    gold_parser = parsers["rules"]

    settings = {"gold tokens (parse_conllu)": lambda: gold_parser.parse_conllu(args.conllu)}
    for splitter, api in parsers.items():
        settings[f"raw text, {splitter}, all texts at once (parse_texts)"] = lambda api=api: api.parse_texts(texts)
        if not args.no_per_text:
            settings[f"raw text, {splitter}, one text per call (parse)"] = lambda api=api: [api.parse(text) for text in texts]
        # the predictor's splitter alone, as parse_texts calls it
        splitter_alone = api._predictor().text_splitter
        settings[f"{splitter} splitter alone"] = lambda split=splitter_alone: split.split_all(texts)

    def long_words_with_the_others(work):
        kept, batching.LONG_WORD = batching.LONG_WORD, 10 ** 9
        try:
            return work()
        finally:
            batching.LONG_WORD = kept

    settings["gold tokens (parse_conllu), long words bucketed with the others"] = \
        lambda: long_words_with_the_others(settings["gold tokens (parse_conllu)"])
    if "learned" in parsers:
        settings["raw text, learned, all texts at once (parse_texts), long words bucketed with the others"] = \
            lambda: long_words_with_the_others(lambda: parsers["learned"].parse_texts(texts))
    for work in settings.values():  # warm-up: first calls pay for lazy initialisation
        work()
    seconds = interleaved_seconds(settings, lambda work: work(), args.repeats)
    gold = per_second(len(sentences), seconds["gold tokens (parse_conllu)"])
    rows = {name: {"sentences_per_second": per_second(len(sentences), values), "seconds": values,
                   "of_gold_tokens_speed": round(per_second(len(sentences), values) / gold, 3)}
            for name, values in seconds.items()}
    write_json(Path(args.output), {
        "what": "one Parser, each way of parsing the file's raw text and its gold tokens in turns; sentences/s "
                "counts the gold file's sentences; medians; loading and start-up not included",
        "model": {"path": args.model, "sha256": sha256(Path(args.model)), "weights": args.weights},
        "data": {"path": args.conllu, "sha256": sha256(Path(args.conllu)), "sentences": len(sentences),
                 "texts": len(texts)},
        "torch_threads": torch.get_num_threads(),
        "repeats": args.repeats,
        "rows": rows,
        **stamp("benchmarks/raw_text_speed.py"),
    })
    for name, row in rows.items():
        print(f"{name}: {row['sentences_per_second']:.1f} sentences/s ({row['of_gold_tokens_speed']:.2f} of gold)")


if __name__ == "__main__":
    main()
