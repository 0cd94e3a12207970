"""
Enhanced labels predicted, or their lexical part filled from the words (`seqgraph_allennlp.common.lexical_labels`,
the predictor's `lexical_labels` option): which scores better on EWT test. Writes
results/enhanced/lexical_labels.json.

    .venv/bin/python scripts/lexical_labels.py

Two measurements:

* **the rule on gold trees** (train, dev, test): the gold graph with every lexical subtype taken off (`obl:in`
  -> `obl`; basic subtypes such as `nmod:poss` kept), filled again from the gold basic tree and lemmas: the
  fraction of the edges of the five relations that get their gold label back. What the rule itself gets
  right, whatever the parser;
* **on a parser's output**: each committed test prediction of results/enhanced/ made with the model's own
  labels (`lexical_labels: "predicted"`, what every prediction written before the option existed has), scored
  as it is and filled from its own predicted tree (all five relations, or `only_subtyped`: only where the
  model gave a subtype); for a row that `enhanced_eval` predicted filled (the predictor's default), its two
  scores (`test`, and `test_own_labels` of a second prediction with the model's own labels). The scores are udeval's ELAS and EULAS with empty nodes collapsed on both sides
  (`seqgraph_allennlp.common.scoring.enhanced_scores`); EULAS cannot change (filling touches only the part
  after `:`).

The basic relations whose subtypes are not lexical are the DEPREL values of EWT train (what the model's
"head_tags" vocabulary holds, and what the predictor passes).
"""
import gzip
import tempfile
from collections import Counter
from pathlib import Path
from typing import Dict, Set

from seqgraph_allennlp.common.conllu import format_sentence, read_sentences
from seqgraph_allennlp.common.enhanced import enhanced_graph
from seqgraph_allennlp.common.lexical_labels import MARKERS, fill_lexical_labels, universal_relation
from seqgraph_allennlp.common.scoring import enhanced_scores
from seqgraph_experiments import RESULTS, ROOT
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_experiments.results import read_json, write_json

TREEBANK = ROOT / "data" / "UD_English-EWT"
SPLITS = {split: TREEBANK / f"en_ewt-ud-{split}.conllu" for split in ("train", "dev", "test")}
OUT = RESULTS / "enhanced" / "lexical_labels.json"


def basic_relations(path: Path) -> Set[str]:
    return {word.deprel for sentence in read_sentences(str(path)) for word in sentence.words}


def strip_lexical(label: str, basic: Set[str]) -> str:
    """A gold label without its lexical subtype (`obl:in` -> `obl`); basic subtypes and paths as they are."""
    relation = universal_relation(label)
    if ">" in label or relation not in MARKERS or label in basic:
        return label
    return relation


def rule_on_gold(path: Path, basic: Set[str]) -> Dict[str, float]:
    counts: Counter = Counter()
    for sentence in read_sentences(str(path)):
        words = sentence.words
        gold = enhanced_graph(sentence)
        stripped = [[(head, strip_lexical(label, basic)) for head, label in pairs] for pairs in gold]
        filled = fill_lexical_labels([w.form for w in words], [w.lemma for w in words], [w.head for w in words],
                                     [w.deprel for w in words], stripped, basic)
        for gold_pairs, filled_pairs in zip(gold, filled):
            for head, label in gold_pairs:
                if ">" in label or universal_relation(label) not in MARKERS:
                    continue
                counts["edges"] += 1
                counts["recovered"] += (head, label) in filled_pairs
    return {"edges": counts["edges"], "recovered": counts["recovered"],
            "fraction": counts["recovered"] / counts["edges"]}


def fill_file(predicted: Path, output: Path, basic: Set[str], only_subtyped: bool) -> None:
    """A prediction with its DEPS filled from its own tree, as the predictor fills them."""
    with open(output, "w", encoding="utf-8") as out:
        for sentence in read_sentences(str(predicted)):
            words = sentence.words
            graph = fill_lexical_labels([w.form for w in words], [w.lemma for w in words], sentence.heads,
                                        sentence.deprels, enhanced_graph(sentence), basic, only_subtyped)
            out.write(format_sentence(sentence, sentence.heads, sentence.deprels, deps=graph))


def on_prediction(packed: Path, basic: Set[str], directory: Path) -> Dict[str, Dict[str, float]]:
    plain = directory / packed.name.replace(".gz", "")
    plain.write_bytes(gzip.decompress(packed.read_bytes()))
    rows = {"predicted": enhanced_scores(str(SPLITS["test"]), str(plain))}
    for name, only_subtyped in (("filled", False), ("filled_only_subtyped", True)):
        filled = directory / f"{name}.{plain.name}"
        fill_file(plain, filled, basic, only_subtyped)
        rows[name] = enhanced_scores(str(SPLITS["test"]), str(filled))
    return rows


def main() -> None:
    basic = basic_relations(SPLITS["train"])
    gold = {split: rule_on_gold(path, basic) for split, path in SPLITS.items()}
    predictions = {}
    with tempfile.TemporaryDirectory() as directory:
        for record in sorted((RESULTS / "enhanced").glob("*.json")):
            result = read_json(record)
            if result.get("kind") != "enhanced_eval":
                continue
            packed = ROOT / result["test_predictions"]["path"]
            if result.get("lexical_labels", "predicted") == "predicted":
                rows = on_prediction(packed, basic, Path(directory))
            else:
                # predicted filled by the predictor; enhanced_eval scored the model's own labels beside them
                own = result["test_own_labels"]
                rows = {"predicted": {name: own[name] for name in ("ELAS", "EULAS")},
                        "filled": {name: result["test"][name] for name in ("ELAS", "EULAS")}}
            predictions[record.stem] = {
                "prediction": {"path": str(packed.relative_to(ROOT)), "sha256": sha256(packed),
                               "lexical_labels": result.get("lexical_labels", "predicted")},
                **rows,
            }
    write_json(OUT, {
        "what": "enhanced labels as the model predicts them against their lexical part filled from the words "
                "(seqgraph_allennlp.common.lexical_labels); EWT; fractions",
        "rule_on_gold_trees": gold,
        "test_predictions": predictions,
        "basic_relations_from": {"path": str(SPLITS["train"].relative_to(ROOT)), "sha256": sha256(SPLITS["train"])},
        **stamp("scripts/lexical_labels.py"),
    })
    for split, row in gold.items():
        print(f"rule on gold {split}: {row['recovered']} of {row['edges']} ({100 * row['fraction']:.2f} %)")
    for name, rows in predictions.items():
        print(name + ": " + "; ".join(f"{variant} ELAS {100 * rows[variant]['ELAS']:.2f}"
                                      for variant in ("predicted", "filled", "filled_only_subtyped") if variant in rows))


if __name__ == "__main__":
    main()
