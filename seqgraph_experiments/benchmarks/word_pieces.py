"""
How long splitting a CoNLL-U file's words into word pieces takes (issue 43): AllenNLP's
`pretrained_transformer_mismatched` indexer against this package's `word_piece_mismatched`
(seqgraph_allennlp/dataset_readers/word_piece_indexer.py), both built as the English config builds its mpnet
indexer, each sentence indexed as the model's batches index it (`tokens_to_indices`); the two in turns
(`settings.interleaved_seconds`), medians of `--repeats` passes after one uncounted pass each. Every sentence
must give the same output. Writes results/benchmarks/word_pieces.json:

    .venv/bin/python benchmarks/word_pieces.py [data/UD_English-EWT/en_ewt-ud-test.conllu]

Run it on a quiet machine (one thread: the indexers do not use torch).
"""
import argparse
from pathlib import Path

from allennlp.data import Token, Vocabulary
from allennlp.data.token_indexers import PretrainedTransformerMismatchedIndexer

from seqgraph_allennlp.dataset_readers import SeqGraphUDReader
from seqgraph_allennlp.dataset_readers.word_piece_indexer import WordPieceMismatchedIndexer
from seqgraph_experiments import ROOT
from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.benchmarks.settings import interleaved_seconds, per_second
from seqgraph_experiments.feature_speed import shipped_mpnet
from seqgraph_experiments.provenance import repository_path, sha256, stamp
from seqgraph_experiments.results import BENCHMARKS, write_json

INDEXERS = {"pretrained_transformer_mismatched": PretrainedTransformerMismatchedIndexer,
            "word_piece_mismatched": WordPieceMismatchedIndexer}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("conllu", nargs="?", default=str(ROOT / "data" / "UD_English-EWT" / "en_ewt-ud-test.conllu"))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--output", default=str(BENCHMARKS / "word_pieces.json"))
    args = parser.parse_args()
    refuse_missing_files(parser, [args.conllu])
    params, _ = shipped_mpnet()
    options = {name: value for name, value in params.items() if name != "type"}
    indexers = {name: kind(**options) for name, kind in INDEXERS.items()}
    sentences = [[Token(token.text) for token in instance["words"].tokens]
                 for instance in SeqGraphUDReader().read(args.conllu)]
    vocabulary = Vocabulary()
    outputs = {}

    def index(name: str) -> None:
        outputs[name] = [indexers[name].tokens_to_indices(words, vocabulary) for words in sentences]

    for name in indexers:
        index(name)  # uncounted: the vocabulary's word pieces are added at the first call
    seconds = interleaved_seconds({name: name for name in indexers}, index, args.repeats)
    reference = outputs["pretrained_transformer_mismatched"]
    same = [sum(ours == theirs for ours, theirs in zip(outputs[name], reference)) for name in indexers]
    rows = {name: {"seconds": seconds[name], "sentences_per_second": per_second(len(sentences), seconds[name]),
                   "sentences_as_allennlps": count} for name, count in zip(indexers, same)}
    for name, row in rows.items():
        print(f"{name}: {min(row['seconds']):.3f} s (best of {args.repeats}), "
              f"{row['sentences_as_allennlps']} of {len(sentences)} sentences as AllenNLP's indexer gives them")
    write_json(Path(args.output), {
        "what": "seconds to split a CoNLL-U file's words into word pieces (tokens_to_indices of every sentence) "
                "with AllenNLP's mismatched indexer and with word_piece_mismatched, in turns; outputs compared",
        "data": {"path": repository_path(args.conllu), "sha256": sha256(Path(args.conllu)), "sentences": len(sentences),
                 "words": sum(map(len, sentences))},
        "indexer": options,
        "repeats": args.repeats,
        "rows": rows,
        "ratio_of_medians": per_second(1, seconds["pretrained_transformer_mismatched"])
        / per_second(1, seconds["word_piece_mismatched"]),
        **stamp("benchmarks/word_pieces.py"),
    })


if __name__ == "__main__":
    main()
