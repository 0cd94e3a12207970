"""
The reference lines of the enhanced graph's tables: the ELAS and EULAS of a basic tree copied into DEPS (each
word's one enhanced head is its HEAD, with its DEPREL as the label), for the gold tree and for the predicted
trees of the converged English parsers whose test outputs are committed (results/ewt_converged/*.test.conllu.gz).
What a tree parser scores on the enhanced layer, and so what the graph parser must beat. Also the ceiling of
the graph parser: the gold graph as it can write it (`gold_graph_representable`: one label per head and
dependent, no self-loop), and as the tree-first parser can output it at best (`gold_tree_first_ceiling`: that
graph plus the gold tree's edges the graph lacks, since the parser's graph always holds its tree), and, for
each graph parser whose test output is committed (results/enhanced/*.test.conllu.gz), what its own tree allows
with a perfect graph phase (`perfect_graph_phase`: its tree edges and every other gold edge; with its own
labels on the tree edges, and with the gold labels there). Writes results/enhanced/tree_copy.json.

    .venv/bin/python scripts/tree_copy.py

Scored by `seqgraph_allennlp.common.scoring.enhanced_scores` (udeval, empty nodes collapsed on both sides)
against the project's copy of EWT test (data/UD_English-EWT), with each tree's own UAS and LAS beside.
"""
import tempfile
from pathlib import Path
from typing import Dict

from seqgraph_allennlp.common.conllu import format_sentence, read_sentences
from seqgraph_allennlp.common.enhanced import enhanced_graph
from seqgraph_allennlp.common.scoring import enhanced_scores, official_scores
from seqgraph_experiments import RESULTS, ROOT
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_experiments.results import decompressed, write_json

GOLD = ROOT / "data" / "UD_English-EWT" / "en_ewt-ud-test.conllu"
PREDICTIONS = RESULTS / "ewt_converged"
GRAPH_PREDICTIONS = RESULTS / "enhanced"
OUT = RESULTS / "enhanced" / "tree_copy.json"


def tree_copy(predicted: Path, output: Path) -> None:
    """`predicted` (CoNLL-U) written to `output` with each word's DEPS its `HEAD:DEPREL`."""
    with open(output, "w", encoding="utf-8") as out:
        for sentence in read_sentences(str(predicted)):
            graph = [[(word.head, word.deprel)] for word in sentence.words]
            out.write(format_sentence(sentence, sentence.heads, sentence.deprels, deps=graph))


def representable_heads(dependent: int, pairs) -> Dict[int, str]:
    """A word's gold enhanced edges as the graph parser can output them, head to label: one label per head (the
    first in DEPS order: `enhanced_tags` holds one) and no self-loop (no action adds one)."""
    kept: Dict[int, str] = {}
    for head, label in pairs:
        if head != dependent:
            kept.setdefault(head, label)
    return kept


def gold_graph(output: Path, with_tree: bool = False) -> None:
    """
    EWT test's gold graph as the graph parser can output it (`representable_heads`), written to `output`: its ELAS
    is the parser's ceiling. `with_tree`: as the tree-first parser can output it at best: its graph always holds
    its basic tree (the valid decoder builds it first, and nothing removes an edge), so with the gold tree each
    gold tree edge that the enhanced graph lacks (0.5 % of EWT's, mostly the basic `nsubj`/`obj` of a relative
    pronoun, which the enhanced graph moves to the antecedent) is added, labelled with its basic relation: what a
    perfect tree and perfect extra edges would score.
    """
    with open(output, "w", encoding="utf-8") as out:
        for sentence in read_sentences(str(GOLD)):
            graph = []
            for dependent, (word, pairs) in enumerate(zip(sentence.words, enhanced_graph(sentence)), start=1):
                kept = representable_heads(dependent, pairs)
                if with_tree:
                    kept.setdefault(word.head, word.deprel)
                graph.append(sorted(kept.items()))
            out.write(format_sentence(sentence, sentence.heads, sentence.deprels, deps=graph))


def perfect_graph_phase(predicted: Path, output: Path, gold_tree_labels: bool) -> None:
    """
    A graph parser's test output (`predicted`, with DEPS) with a perfect graph phase, written to `output`: each
    word keeps its predicted tree edge (HEAD, labelled as the output's DEPS labels that edge, else with its
    DEPREL; with `gold_tree_labels`, with the gold graph's label where the gold graph has that edge) and gets
    every other edge of the gold graph (`gold_graph`'s: no self-loop, one label per head). The graph
    phase only adds edges to the tree, so this is what the parser's tree allows at best: a ceiling that a
    better graph phase cannot pass, only a better tree.
    """
    with open(output, "w", encoding="utf-8") as out:
        for gold, sentence in zip(read_sentences(str(GOLD)), read_sentences(str(predicted))):
            graph = []
            for dependent, (word, gold_pairs, pairs) in enumerate(
                zip(sentence.words, enhanced_graph(gold), enhanced_graph(sentence)), start=1
            ):
                gold_labels = representable_heads(dependent, gold_pairs)
                predicted_labels = dict(pairs)
                tree_label = predicted_labels.get(word.head, word.deprel)
                if gold_tree_labels:
                    tree_label = gold_labels.get(word.head, tree_label)
                kept = {word.head: tree_label}
                for head, label in gold_labels.items():
                    kept.setdefault(head, label)
                graph.append(sorted(kept.items()))
            out.write(format_sentence(sentence, sentence.heads, sentence.deprels, deps=graph))


def graph_scores(predicted: Path) -> Dict[str, float]:
    """ELAS and EULAS of `predicted` against `GOLD`."""
    return {name: value for name, value in enhanced_scores(str(GOLD), str(predicted)).items()
            if name in ("ELAS", "EULAS")}


def score(predicted: Path, directory: Path) -> Dict[str, float]:
    copy = directory / (predicted.name.replace(".gz", "") + ".copy.conllu")
    predicted = decompressed(predicted, directory)
    tree_copy(predicted, copy)
    scores = {**enhanced_scores(str(GOLD), str(copy)), **official_scores(str(GOLD), str(predicted))}
    return {name: scores[name] for name in ("ELAS", "EULAS", "UAS", "LAS")}


def main() -> None:
    rows = {}
    with tempfile.TemporaryDirectory() as directory:
        rows["gold"] = score(GOLD, Path(directory))
        for name, with_tree in (("gold_graph_representable", False), ("gold_tree_first_ceiling", True)):
            gold_graph(Path(directory) / f"{name}.conllu", with_tree)
            rows[name] = graph_scores(Path(directory) / f"{name}.conllu")
        for predicted in sorted(PREDICTIONS.glob("*.test.conllu.gz")):
            rows[predicted.name.replace(".test.conllu.gz", "")] = score(predicted, Path(directory))
        for predicted in sorted(GRAPH_PREDICTIONS.glob("*.test.conllu.gz")):
            name = predicted.name.replace(".test.conllu.gz", "")
            plain = decompressed(predicted, Path(directory))
            for suffix, gold_tree_labels in (("", False), ("_gold_tree_labels", True)):
                perfect = Path(directory) / f"{name}{suffix}.perfect.conllu"
                perfect_graph_phase(plain, perfect, gold_tree_labels)
                rows[f"{name}_perfect_graph_phase{suffix}"] = graph_scores(perfect)
    write_json(OUT, {
        "what": "ELAS / EULAS of a basic tree copied into DEPS (HEAD:DEPREL), EWT test, udeval with empty "
                "nodes collapsed on both sides; UAS / LAS of the tree itself (CoNLL 2018); fractions",
        "gold": {"path": str(GOLD.relative_to(ROOT)), "sha256": sha256(GOLD)},
        "rows": rows,
        **stamp("scripts/tree_copy.py"),
    })
    for name, row in rows.items():
        print(f"{name:40} " + "  ".join(f"{metric} {100 * value:6.2f}" for metric, value in row.items()))


if __name__ == "__main__":
    main()
