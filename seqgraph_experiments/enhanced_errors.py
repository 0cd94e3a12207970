"""
Where an enhanced graph loses its ELAS: compares a predicted CoNLL-U file's DEPS with the gold file's, edge by
edge (empty nodes collapsed, as the IWPT scorer and `seqgraph_allennlp.common.enhanced.enhanced_graph` collapse
them), and writes a JSON of:

* each gold enhanced edge's kind: `tree` when its head is the word's gold basic HEAD, else `extra:<relation>`
  (a second head: the subject of a controlled verb or of a conjunct, a head shared by conjuncts, `ref`, ...);
  per kind the gold count, unlabelled and labelled recall, the ELAS recall points it loses, and how often the
  word's predicted basic head was right;
* all the gold edges off the gold basic tree together (`gold_extra`: their count, unlabelled and labelled
  recall), against the predicted edges' precision, split into those on the predicted basic tree and the extra
  ones: how many second heads a parser finds, and at what precision it adds them;
* the most frequent label confusions where the head is right.

    .venv/bin/python scripts/enhanced_errors.py GOLD.conllu PREDICTED.conllu --out results/enhanced/errors/NAME.json

The prediction may be the gzipped copy a row keeps (`results/enhanced/<run>.test.conllu.gz`). Choose on dev:
this is for deciding what to work on, or for describing rows already run, not a score.
"""
import argparse
import collections
from pathlib import Path
from typing import Dict, Optional, Sequence

from seqgraph_allennlp.common.conllu import read_sentences
from seqgraph_allennlp.common.enhanced import enhanced_graph
from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_experiments.results import read_predictions, write_json

KEPT_CONFUSIONS = 20


def relation(label: str) -> str:
    """The universal relation of an enhanced label (`obl:in` -> `obl`, a collapsed `conj>nsubj` -> `conj`)."""
    return label.split(">")[0].split(":")[0]


def compare(gold_path: str, predicted_path: str) -> Dict:
    gold_sentences = list(read_sentences(gold_path))
    predicted_sentences = read_predictions(predicted_path)
    if len(gold_sentences) != len(predicted_sentences):
        raise SystemExit(f"error: {gold_path} has {len(gold_sentences)} sentences, {predicted_path} "
                         f"{len(predicted_sentences)}")
    gold_count, unlabelled, labelled, basic_right = (collections.Counter() for _ in range(4))
    predicted_count, predicted_right = collections.Counter(), collections.Counter()
    confusions: collections.Counter = collections.Counter()
    for gold, predicted in zip(gold_sentences, predicted_sentences):
        gold_graph, predicted_graph = enhanced_graph(gold), enhanced_graph(predicted)
        if gold_graph is None or predicted_graph is None:
            raise SystemExit(f"error: sentence {gold.sent_id or gold.start_line}: DEPS missing in one file")
        for index, (gold_pairs, predicted_pairs) in enumerate(zip(gold_graph, predicted_graph)):
            gold_head, predicted_head = gold.words[index].head, predicted.words[index].head
            gold_edges = {(int(head), label) for head, label in gold_pairs}
            predicted_edges = {(int(head), label) for head, label in predicted_pairs}
            predicted_heads = {head: label for head, label in predicted_edges}
            for head, label in gold_edges:
                kind = "tree" if head == gold_head else f"extra:{relation(label)}"
                gold_count[kind] += 1
                unlabelled[kind] += head in predicted_heads
                labelled[kind] += (head, label) in predicted_edges
                basic_right[kind] += predicted_head == gold_head
                if head in predicted_heads and (head, label) not in predicted_edges:
                    confusions[f"{label} -> {predicted_heads[head]}"] += 1
            for head, label in predicted_edges:
                kind = "tree" if head == predicted_head else "extra"
                predicted_count[kind] += 1
                predicted_right[kind] += (head, label) in gold_edges
    total = sum(gold_count.values())
    extra = [kind for kind in gold_count if kind != "tree"]
    extra_edges = sum(gold_count[kind] for kind in extra)
    return {
        "gold_edges": total,
        "labelled_recall": sum(labelled.values()) / total,
        "unlabelled_recall": sum(unlabelled.values()) / total,
        "gold_by_kind": {
            kind: {
                "edges": count,
                "share": count / total,
                "unlabelled_recall": unlabelled[kind] / count,
                "labelled_recall": labelled[kind] / count,
                "recall_points_lost": 100.0 * (count - labelled[kind]) / total,
                "basic_head_right": basic_right[kind] / count,
            }
            for kind, count in gold_count.most_common()
        },
        "gold_extra": {
            "edges": extra_edges,
            "unlabelled_recall": sum(unlabelled[kind] for kind in extra) / extra_edges if extra_edges else None,
            "labelled_recall": sum(labelled[kind] for kind in extra) / extra_edges if extra_edges else None,
        },
        "predicted_by_kind": {
            kind: {"edges": count, "labelled_precision": predicted_right[kind] / count}
            for kind, count in predicted_count.most_common()
        },
        "label_confusions_head_right": dict(confusions.most_common(KEPT_CONFUSIONS)),
    }


def parse_arguments(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("gold", help="the gold CoNLL-U file (with DEPS)")
    parser.add_argument("predicted", help="a prediction of it (allennlp predict's CoNLL-U, with DEPS)")
    parser.add_argument("--out", required=True, help="the JSON to write")
    parser.add_argument("--model", default=None, help="what made the prediction, recorded as given")
    args = parser.parse_args(argv)
    refuse_missing_files(parser, [args.gold, args.predicted])
    return args


def main(argv: Optional[Sequence[str]] = None) -> None:
    args = parse_arguments(argv)
    result = {
        "what": "the predicted enhanced graph against the gold one, edge by edge (empty nodes collapsed)",
        "gold": {"path": args.gold, "sha256": sha256(Path(args.gold))},
        "predicted": {"path": args.predicted, "sha256": sha256(Path(args.predicted))},
        "model": args.model,
        **compare(args.gold, args.predicted),
        **stamp("scripts/enhanced_errors.py"),
    }
    write_json(Path(args.out), result)
    print(f"labelled recall {100 * result['labelled_recall']:.2f}; wrote {args.out}")


if __name__ == "__main__":
    main()
