"""
Is one parser's lead over another on a test file more than luck of the test sentences? A paired bootstrap
over sentences (Koehn 2004; Berg-Kirkpatrick et al. 2012): the two parsers' predictions of the same file
are scored per sentence (CoNLL 2018 UAS and LAS, every word), the test sentences are resampled with
replacement, and the difference in UAS (words right over words, pooled) is recomputed on each sample.
When the gold file and both predictions have enhanced graphs (DEPS), ELAS and EULAS are resampled too, over
the same samples: per sentence its gold edges, predicted edges and right edges (empty nodes collapsed, as
`seqgraph_allennlp.common.scoring` counts them), F1 of the pooled counts on each sample.
Writes results/significance/<name>.json; `scripts/run_experiments.py --regenerate` puts its table in
docs/RESULTS.md ("Paired bootstrap").

    .venv/bin/python scripts/paired_bootstrap.py data/UD_English-EWT/en_ewt-ud-test.conllu \\
        experiments/ewt_converged/coach_valid_mpnet/test_predictions.conllu \\
        experiments/ewt_converged/biaffine_mst_mpnet/test_predictions.conllu \\
        --names coach_valid_mpnet biaffine_mst_mpnet --name ewt_mpnet

A prediction may also be the gzipped copy that the runner keeps beside a row's results JSON
(`results/<section>/<run>.test.conllu.gz`), which outlives the run's directory.

It measures how much the test sentences alone could move the difference, for these two trained models. It
says nothing of the training seed's share of the spread, which only more training runs measure.
"""
import argparse
from pathlib import Path
from typing import Dict, Optional, Sequence, Tuple

import numpy

from seqgraph_allennlp.common.conllu import read_sentences
from seqgraph_allennlp.common.scoring import count_enhanced, count_sentences
from seqgraph_experiments import RESULTS
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_experiments.results import read_predictions, write_json

OUT = RESULTS / "significance"


def sentence_tables(gold_path: str, predicted_path: str) -> Tuple[numpy.ndarray, Optional[numpy.ndarray]]:
    """
    Both files read once and aligned as `seqgraph_allennlp.common.scoring` aligns them, and per sentence:

    * `(sentences, 3)`: the words, the words with the right head and the words with the right head and
      universal relation;
    * `(sentences, 4)`: the gold enhanced edges, the predicted ones, the predicted ones right with their full
      label (ELAS) and with its universal part (EULAS); None when either file has no DEPS at all.
    """
    golds, predictions = list(read_sentences(gold_path)), read_predictions(predicted_path)
    # the scorer over the whole files refuses files that do not align, sentence counts included
    count_sentences(golds, predictions, str(gold_path), str(predicted_path))
    tree_rows, graph_rows, graphs = [], [], numpy.zeros(2, dtype=numpy.int64)
    for gold, predicted in zip(golds, predictions):
        tree = count_sentences([gold], [predicted], str(gold_path), str(predicted_path))
        tree_rows.append((tree.words, tree.unlabeled_correct, tree.labeled_correct))
        graph = count_enhanced([gold], [predicted], str(gold_path), str(predicted_path))
        graph_rows.append((graph.gold_edges, graph.predicted_edges, graph.labeled_correct, graph.universal_correct))
        graphs += (graph.gold_graphs, graph.predicted_graphs)
    enhanced = numpy.array(graph_rows, dtype=numpy.int64) if graphs.all() else None
    return numpy.array(tree_rows, dtype=numpy.int64), enhanced


def sentence_counts(gold_path: str, predicted_path: str) -> numpy.ndarray:
    """The first table of `sentence_tables`: words, and words with the right head (and relation)."""
    return sentence_tables(gold_path, predicted_path)[0]


def enhanced_sentence_counts(gold_path: str, predicted_path: str) -> Optional[numpy.ndarray]:
    """The second table of `sentence_tables`: enhanced edges, gold, predicted and right; None without DEPS."""
    return sentence_tables(gold_path, predicted_path)[1]


def resample(num_sentences: int, samples: int, seed: int) -> numpy.ndarray:
    """`(samples, sentences)`: how often each sentence is drawn in each sample; the same for the same seed."""
    generator = numpy.random.default_rng(seed)
    return generator.multinomial(num_sentences, numpy.full(num_sentences, 1.0 / num_sentences), size=samples)


def ratio_difference(draws: numpy.ndarray, first: numpy.ndarray, second: numpy.ndarray) -> Dict:
    """
    `first` and `second`: `(sentences, 2)`, each sentence's numerator and denominator of a pooled ratio (0 where
    the denominator is). The difference `first - second` of the ratios on the file and over the samples
    `draws`: the observed difference, the 2.5 and 97.5 percentiles, and the share of samples where the first
    parser does not lead (a one-sided p-value of its lead).
    """
    def pooled(counts: numpy.ndarray, weights: numpy.ndarray) -> numpy.ndarray:
        sums = weights @ counts
        return sums[..., 0] / numpy.maximum(sums[..., 1], 1)

    whole = numpy.ones(first.shape[0], dtype=numpy.int64)
    differences = pooled(first, draws) - pooled(second, draws)
    low, high = numpy.percentile(differences, [2.5, 97.5])
    return {
        "difference": float(pooled(first, whole) - pooled(second, whole)),
        "interval_95": [float(low), float(high)],
        "share_not_leading": float((differences <= 0).mean()),
    }


def paired_bootstrap(first: numpy.ndarray, second: numpy.ndarray, samples: int, seed: int) -> Dict:
    """
    `ratio_difference` of pooled UAS and LAS (fractions) of two `sentence_counts` tables over `samples`
    resamplings of the sentences.
    """
    if first.shape != second.shape or not (first[:, 0] == second[:, 0]).all():
        raise ValueError("the two predictions do not have the same sentences and words")
    draws = resample(first.shape[0], samples, seed)
    return {metric: ratio_difference(draws, first[:, [column, 0]], second[:, [column, 0]])
            for metric, column in (("UAS", 1), ("LAS", 2))}


def f1_counts(table: numpy.ndarray, column: int) -> numpy.ndarray:
    """`(sentences, 2)`: twice the right edges in `column` of an `enhanced_sentence_counts` table, and the gold
    and predicted edges: the numerator and denominator of F1."""
    return numpy.stack([2 * table[:, column], table[:, 0] + table[:, 1]], axis=1)


def f1(table: numpy.ndarray, column: int) -> float:
    """The pooled F1 (fraction) of an `enhanced_sentence_counts` table's right edges in `column`."""
    numerator, denominator = f1_counts(table, column).sum(axis=0)
    return float(numerator / max(denominator, 1))


def enhanced_paired_bootstrap(first: numpy.ndarray, second: numpy.ndarray, samples: int, seed: int) -> Dict:
    """
    As `paired_bootstrap`, for ELAS and EULAS (F1) of two `enhanced_sentence_counts` tables; with the same
    seed, over the same samples of sentences as `paired_bootstrap`.
    """
    if first.shape != second.shape or not (first[:, 0] == second[:, 0]).all():
        raise ValueError("the two predictions do not have the same sentences and gold edges")
    draws = resample(first.shape[0], samples, seed)
    return {metric: ratio_difference(draws, f1_counts(first, column), f1_counts(second, column))
            for metric, column in (("ELAS", 2), ("EULAS", 3))}


def main(argv: Sequence[str] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("gold")
    parser.add_argument("first", help="the first parser's CoNLL-U prediction of the gold file")
    parser.add_argument("second", help="the second parser's")
    parser.add_argument("--names", nargs=2, required=True, metavar=("FIRST", "SECOND"))
    parser.add_argument("--name", required=True, help="results/significance/<name>.json")
    parser.add_argument("--samples", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    tables, graphs = zip(*(sentence_tables(args.gold, path) for path in (args.first, args.second)))
    enhanced = all(graph is not None for graph in graphs)
    # both align with the gold file: its sentences and words are those of either table
    words_per_sentence = tables[0][:, 0]
    result = {
        "name": args.name,
        "gold": {"path": args.gold, "sha256": sha256(Path(args.gold)), "sentences": len(words_per_sentence),
                 "words": int(words_per_sentence.sum())},
        "parsers": [
            {"name": name, "path": path, "sha256": sha256(Path(path)),
             "UAS": float(table[:, 1].sum() / table[:, 0].sum()), "LAS": float(table[:, 2].sum() / table[:, 0].sum()),
             **({"ELAS": f1(graph, 2), "EULAS": f1(graph, 3)} if enhanced else {})}
            for name, path, table, graph in zip(args.names, (args.first, args.second), tables, graphs)
        ],
        "samples": args.samples,
        "seed": args.seed,
        **paired_bootstrap(tables[0], tables[1], args.samples, args.seed),
        **(enhanced_paired_bootstrap(graphs[0], graphs[1], args.samples, args.seed) if enhanced else {}),
        **stamp("scripts/paired_bootstrap.py"),
    }
    write_json(OUT / f"{args.name}.json", result)
    for metric in ("UAS", "ELAS") if enhanced else ("UAS",):
        difference = result[metric]
        print(f"{args.names[0]} - {args.names[1]}: {metric} {100 * difference['difference']:+.2f} "
              f"(95 % {100 * difference['interval_95'][0]:+.2f} to {100 * difference['interval_95'][1]:+.2f}), "
              f"not leading in {100 * difference['share_not_leading']:.2f} % of {args.samples} samples")


if __name__ == "__main__":
    main()
