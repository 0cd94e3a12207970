"""
The predictor's rules over a predicted enhanced graph (`seqgraph_allennlp.common.enhanced_rules`): the lexical
part of the labels filled from the words (`lexical_labels: "filled"`) and the tree edge of a word attached by
`ref` taken out (`drop_ref_tree_edges`), each against the model's own graph, on EWT. Writes
results/enhanced/enhanced_rules.json.

    .venv/bin/python scripts/enhanced_rules.py

Measurements:

* **the rules on gold** (train, dev, test): (a) the gold graph with every lexical subtype taken off (`obl:in`
  -> `obl`; basic subtypes such as `nmod:poss` kept), filled again from the gold basic tree and lemmas: the
  fraction of the edges of the five relations that get their gold label back; (b) the words whose gold tree
  edge is not an enhanced edge, and how many of them the `ref` rule finds (their gold graph has `ref`). What
  the rules get right, whatever the parser;
* **on a parser's output**: each committed test prediction of results/enhanced/ made without the rules (a
  row's `test_without_rules.predictions`, kept by `enhanced_eval` since 2026-11-27, or a prediction written
  before the rules existed), scored as it is (`none`), with the lexical labels filled from its own predicted
  tree (`filled`; `filled_only_subtyped`: only where the model gave a subtype), with the `ref` rule
  (`ref_dropped`), and with both, as the predictor does by default (`filled_ref_dropped`); for a row whose
  prediction without the rules was not kept, its two scores (`test`, and `test_without_rules`). ELAS and
  EULAS by udeval with empty nodes collapsed on both sides (`seqgraph_allennlp.common.scoring.enhanced_scores`).

The basic relations whose subtypes are not lexical are the DEPREL values of EWT train (what the model's
"head_tags" vocabulary holds, and what the predictor passes).
"""
import argparse
import tempfile
from collections import Counter
from pathlib import Path
from typing import Dict, Set

from seqgraph_allennlp.common.conllu import format_sentence, read_sentences
from seqgraph_allennlp.common.enhanced import enhanced_graph
from seqgraph_allennlp.common.enhanced_rules import (
    MARKERS,
    drop_replaced_tree_edges,
    fill_lexical_labels,
    universal_relation,
)
from seqgraph_allennlp.common.scoring import enhanced_scores
from seqgraph_experiments import RESULTS, ROOT
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_experiments.results import decompressed, read_json, write_json

TREEBANK = ROOT / "data" / "UD_English-EWT"
SPLITS = {split: TREEBANK / f"en_ewt-ud-{split}.conllu" for split in ("train", "dev", "test")}
OUT = RESULTS / "enhanced" / "enhanced_rules.json"
# name: (fill the lexical labels, only where the model gave a subtype, drop the tree edges of `ref` words)
VARIANTS = {
    "filled": (True, False, False),
    "filled_only_subtyped": (True, True, False),
    "ref_dropped": (False, False, True),
    "filled_ref_dropped": (True, False, True),
}


def basic_relations(path: Path) -> Set[str]:
    return {word.deprel for sentence in read_sentences(str(path)) for word in sentence.words}


def strip_lexical(label: str, basic: Set[str]) -> str:
    """A gold label without its lexical subtype (`obl:in` -> `obl`); basic subtypes and paths as they are."""
    relation = universal_relation(label)
    if ">" in label or relation not in MARKERS or label in basic:
        return label
    return relation


def rules_on_gold(path: Path, basic: Set[str]) -> Dict[str, float]:
    names = ("lexical_edges", "lexical_recovered", "tree_edges_not_enhanced", "of_which_dropped",
             "enhanced_tree_edges_dropped")
    counts: Counter = Counter({name: 0 for name in names})
    for sentence in read_sentences(str(path)):
        words = sentence.words
        gold = enhanced_graph(sentence)
        stripped = [[(head, strip_lexical(label, basic)) for head, label in pairs] for pairs in gold]
        filled = fill_lexical_labels([w.form for w in words], [w.lemma for w in words], [w.head for w in words],
                                     [w.deprel for w in words], stripped, basic, upos=[w.upos for w in words])
        # the gold tree's edges added to the gold graph, as the parser's graph holds its tree
        with_tree = [sorted(set(pairs) | {(word.head, word.deprel)}) for word, pairs in zip(words, gold)]
        dropped = drop_replaced_tree_edges([w.head for w in words], with_tree)
        for word, gold_pairs, filled_pairs, kept_pairs in zip(words, gold, filled, dropped):
            for head, label in gold_pairs:
                if ">" not in label and universal_relation(label) in MARKERS:
                    counts["lexical_edges"] += 1
                    counts["lexical_recovered"] += (head, label) in filled_pairs
            gold_heads = {head for head, _ in gold_pairs}
            if word.head not in gold_heads:
                counts["tree_edges_not_enhanced"] += 1
                counts["of_which_dropped"] += word.head not in {head for head, _ in kept_pairs}
            elif word.head not in {head for head, _ in kept_pairs}:
                counts["enhanced_tree_edges_dropped"] += 1
    return {
        **{name: counts[name] for name in names},
        "lexical_fraction": counts["lexical_edges"] and counts["lexical_recovered"] / counts["lexical_edges"],
    }


def apply_rules(predicted: Path, output: Path, basic: Set[str], fill: bool, only_subtyped: bool, drop: bool) -> None:
    """A prediction with the predictor's rules applied to its DEPS, as the predictor applies them."""
    with open(output, "w", encoding="utf-8") as out:
        for sentence in read_sentences(str(predicted)):
            words = sentence.words
            graph = enhanced_graph(sentence)
            if fill:
                graph = fill_lexical_labels([w.form for w in words], [w.lemma for w in words], sentence.heads,
                                            sentence.deprels, graph, basic, only_subtyped,
                                            upos=[w.upos for w in words])
            if drop:
                graph = drop_replaced_tree_edges(sentence.heads, graph)
            out.write(format_sentence(sentence, sentence.heads, sentence.deprels, deps=graph))


def on_prediction(packed: Path, basic: Set[str], directory: Path) -> Dict[str, Dict[str, float]]:
    plain = decompressed(packed, directory)
    rows = {"none": enhanced_scores(str(SPLITS["test"]), str(plain))}
    for name, (fill, only_subtyped, drop) in VARIANTS.items():
        output = directory / f"{name}.{plain.name}"
        apply_rules(plain, output, basic, fill, only_subtyped, drop)
        rows[name] = enhanced_scores(str(SPLITS["test"]), str(output))
    return rows


def main() -> None:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    basic = basic_relations(SPLITS["train"])
    gold = {split: rules_on_gold(path, basic) for split, path in SPLITS.items()}
    predictions = {}
    with tempfile.TemporaryDirectory() as directory:
        for record in sorted((RESULTS / "enhanced").glob("*.json")):
            result = read_json(record)
            if result.get("kind") != "enhanced_eval":
                continue
            packed = ROOT / result["test_predictions"]["path"]
            raw = result.get("test_without_rules", {}).get("predictions")
            rules = result.get("rules", "none")
            if "rules" not in result:
                rows = on_prediction(packed, basic, Path(directory))
            elif raw is not None:
                # the model's own graph was kept too: every variant, from it
                packed = ROOT / raw["path"]
                rows = on_prediction(packed, basic, Path(directory))
                rules = "none"
            else:
                # predicted with the rules by the predictor; enhanced_eval scored a prediction without them too
                none = result["test_without_rules"]
                rows = {"none": {name: none[name] for name in ("ELAS", "EULAS")},
                        "filled_ref_dropped": {name: result["test"][name] for name in ("ELAS", "EULAS")}}
            predictions[record.stem] = {
                "prediction": {"path": str(packed.relative_to(ROOT)), "sha256": sha256(packed),
                               "rules": rules},
                **rows,
            }
    write_json(OUT, {
        "what": "the predictor's rules over a predicted enhanced graph (lexical labels filled from the words, the "
                "tree edge of a word attached by ref taken out; seqgraph_allennlp.common.enhanced_rules) against "
                "the model's own graph; EWT; fractions",
        "rules_on_gold": gold,
        "test_predictions": predictions,
        "basic_relations_from": {"path": str(SPLITS["train"].relative_to(ROOT)), "sha256": sha256(SPLITS["train"])},
        **stamp("scripts/enhanced_rules.py"),
    })
    for split, row in gold.items():
        print(f"gold {split}: lexical labels {row['lexical_recovered']} of {row['lexical_edges']} "
              f"({100 * row['lexical_fraction']:.2f} %); tree edges not enhanced {row['tree_edges_not_enhanced']}, "
              f"dropped by the ref rule {row['of_which_dropped']}, enhanced ones dropped "
              f"{row['enhanced_tree_edges_dropped']}")
    for name, rows in predictions.items():
        print(name + ": " + "; ".join(f"{variant} ELAS {100 * scores['ELAS']:.2f}" for variant, scores in rows.items()
                                      if variant != "prediction"))


if __name__ == "__main__":
    main()
