"""
What tying the `root` label to head 0 (`structs.tree.root_label_support`, in the sequential parser's label
decoding and in the biaffine baseline's, since 2026-11-26) changes on the committed test predictions of the
converged English parsers (results/ewt_converged/*.test.conllu.gz, results/enhanced/*.test.conllu.gz), made
before it. Writes results/ewt_converged/root_labels.json.

    .venv/bin/python scripts/root_labels.py

The constraint changes a prediction only where it was broken: a word attached to 0 with another label, or a
word labelled `root` under another word. Both parsers keep their trees (the sequential parser decodes the
tree before the labels; the baseline's MST runs on allennlp-models' energies as before and only the chosen
edges' labels are constrained), and a word whose best label was allowed keeps it. So a file without a broken
word is exactly what the constrained parser writes, and its LAS does not move. For a broken word: one attached
to 0 becomes `root` (right exactly where the gold head is 0, then LAS gains it); one labelled `root` under
another word gets its best other label, which the file does not hold (LAS can gain at most that word).
"""
import tempfile
from pathlib import Path
from typing import Dict

from seqgraph_allennlp.common.conllu import read_sentences
from seqgraph_experiments import RESULTS, ROOT
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_experiments.results import decompressed, write_json

GOLD = ROOT / "data" / "UD_English-EWT" / "en_ewt-ud-test.conllu"
OUT = RESULTS / "ewt_converged" / "root_labels.json"


def broken_words(packed: Path, directory: Path, gold_path: Path = GOLD) -> Dict[str, int]:
    """The words of a gzipped prediction of `gold_path` whose label breaks the constraint, by kind."""
    plain = decompressed(packed, directory)
    counts = {"words": 0, "attached_to_0_not_root": 0, "of_which_gold_head_0": 0, "root_under_a_word": 0}
    for gold, predicted in zip(read_sentences(str(gold_path)), read_sentences(str(plain))):
        for gold_word, word in zip(gold.words, predicted.words):
            counts["words"] += 1
            if word.head == 0 and word.deprel != "root":
                counts["attached_to_0_not_root"] += 1
                counts["of_which_gold_head_0"] += gold_word.head == 0
            if word.head != 0 and word.deprel == "root":
                counts["root_under_a_word"] += 1
    return counts


def main() -> None:
    rows = {}
    with tempfile.TemporaryDirectory() as directory:
        for packed in sorted([*(RESULTS / "ewt_converged").glob("*.test.conllu.gz"),
                              *(RESULTS / "enhanced").glob("*.test.conllu.gz")]):
            counts = broken_words(packed, Path(directory))
            broken = counts["attached_to_0_not_root"] + counts["root_under_a_word"]
            rows[str(packed.relative_to(RESULTS))] = {
                "sha256": sha256(packed),
                **counts,
                # LAS points (of 100) that the constraint adds: exact for the first kind, at most for the second
                "las_gain_at_least": 100 * counts["of_which_gold_head_0"] / counts["words"],
                "las_gain_at_most": 100 * (counts["of_which_gold_head_0"] + counts["root_under_a_word"])
                / counts["words"],
                "unchanged": broken == 0,
            }
    write_json(OUT, {
        "what": "words whose label breaks `root` exactly on head 0, in each committed EWT test prediction made "
                "before the constraint, and the LAS (points of 100) that the constraint adds to it",
        "gold": {"path": str(GOLD.relative_to(ROOT)), "sha256": sha256(GOLD)},
        "predictions": rows,
        **stamp("scripts/root_labels.py"),
    })
    for name, row in rows.items():
        print(f"{name:60} broken {row['attached_to_0_not_root'] + row['root_under_a_word']:3d}  "
              f"LAS +{row['las_gain_at_least']:.2f} .. +{row['las_gain_at_most']:.2f}")


if __name__ == "__main__":
    main()
