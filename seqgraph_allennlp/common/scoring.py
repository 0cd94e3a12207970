"""
CoNLL 2018 attachment scores of a predicted CoNLL-U file against a gold one with the same tokenisation,
computed independently of any model: UAS, LAS, UEM and LEM.

* Every word (integer-id line) counts, punctuation included; multiword-token ranges (`1-2`) and empty
  nodes (`8.1`) do not.
* UAS: the fraction of words whose predicted HEAD is the gold HEAD.
* LAS: the fraction of words whose HEAD is right and whose DEPREL is right on its universal part (before
  the first `:`), as `conll18_ud_eval.py` compares them: `nmod:poss` for `nmod` is right.
* UEM / LEM: the fraction of sentences whose every HEAD (and, for LEM, every universal DEPREL) is right.

`--exclude-upos PUNCT,SYM` leaves out the words whose gold UPOS is in the list (allennlp-models'
`biaffine_parser` scores UD data that way); such a figure is an extra, never the table's main score.

A predicted `_` HEAD or DEPREL is wrong. The two files must hold the same sentences with the same words
(the same number of words and the same FORM each); anything else is an `AlignmentError` naming the files
and lines.

UAS and LAS come from the UD team's own evaluation (`udtools.udeval`, the CoNLL 2018 shared task's
`conll18_ud_eval.py`) wherever it can score the file (`official_scores`), with its CLAS (LAS of content
words) beside them; this module's own counts, which must agree with it, cover what it lacks: the
file:line alignment errors, UEM and LEM, `--exclude-upos`, and files with predicted sentences that are
not trees with one root word (a cycle, several root words, a missing HEAD), which the official script
refuses. Such a file is scored here, those sentences counted and reported (`trees:` line,
`invalid_trees` in `--json`), and refused as the official script does with `--require-trees`. Its MLAS
and BLEX are left out: they compare UPOS, FEATS and LEMMA, which a prediction copies from its input file.
Command line:

    python -m seqgraph_allennlp.common.scoring GOLD.conllu PRED.conllu [--json] [--require-trees]
"""
import argparse
import itertools
import json
import re
import sys
from dataclasses import dataclass
from typing import Any, Collection, Dict, Iterable, Optional, Sequence, Tuple

from seqgraph_allennlp.common.conllu import ConlluError, ConlluSentence, find_tree_problem, read_sentences


class AlignmentError(ConlluError):
    """The gold and predicted files do not hold the same sentences and words. One line: `path:line: problem`."""


def universal_relation(deprel: str) -> str:
    """The universal part of a DEPREL: `nmod:poss` -> `nmod`."""
    return deprel.split(":")[0]


@dataclass
class AttachmentCounts:
    words: int = 0
    sentences: int = 0
    unlabeled_correct: int = 0
    labeled_correct: int = 0
    unlabeled_exact: int = 0
    labeled_exact: int = 0
    # predicted sentences that are not single-rooted trees, and where the first one is
    invalid_trees: int = 0
    first_invalid_tree: Optional[str] = None

    def scores(self) -> Dict[str, float]:
        """`UAS`, `LAS`, `UEM`, `LEM` as fractions (0 when there is nothing to score)."""
        words = max(self.words, 1)
        sentences = max(self.sentences, 1)
        return {
            "UAS": self.unlabeled_correct / words,
            "LAS": self.labeled_correct / words,
            "UEM": self.unlabeled_exact / sentences,
            "LEM": self.labeled_exact / sentences,
        }


def tree_problem(sentence: ConlluSentence) -> Optional[ConlluError]:
    """
    Why a predicted sentence is not a tree with one root word (a word without HEAD, a cycle, no or several
    root words), as a `ConlluError` at the word concerned; `None` for a tree.
    """
    for word in sentence.words:
        if word.head is None:
            return ConlluError(sentence.file_path, word.line_number, f"predicted word {word.id} has no HEAD")
    problem = find_tree_problem([word.head for word in sentence.words])
    if problem is None:
        return None
    word, description = problem
    return ConlluError(
        sentence.file_path, sentence.words[word - 1].line_number,
        f"predicted sentence starting at line {sentence.start_line} is not a tree: {description}",
    )


def count_sentences(
    gold_sentences: Iterable[ConlluSentence],
    predicted_sentences: Iterable[ConlluSentence],
    gold_name: str = "gold",
    predicted_name: str = "predicted",
    exclude_upos: Collection[str] = (),
    require_trees: bool = False,
) -> AttachmentCounts:
    """
    Counts the attachments of aligned sentences, leaving out words whose gold UPOS is in `exclude_upos`
    (they still have to align), and the predicted sentences that are not trees with one root word.
    Raises `AlignmentError` when the sentences or words do not align, `ConlluError` when a gold word has
    no HEAD or DEPREL, and, with `require_trees`, at the first predicted sentence that is not a tree.
    """
    counts = AttachmentCounts()
    for gold, predicted in itertools.zip_longest(gold_sentences, predicted_sentences):
        if predicted is None:
            raise AlignmentError(
                gold.file_path,
                gold.start_line,
                f"gold sentence {counts.sentences + 1} has no counterpart: {predicted_name} has only "
                f"{counts.sentences} sentences",
            )
        if gold is None:
            raise AlignmentError(
                predicted.file_path,
                predicted.start_line,
                f"sentence {counts.sentences + 1} has no counterpart: {gold_name} has only "
                f"{counts.sentences} sentences",
            )
        if len(gold.words) != len(predicted.words):
            raise AlignmentError(
                predicted.file_path,
                predicted.start_line,
                f"sentence {counts.sentences + 1} has {len(predicted.words)} words but the gold sentence "
                f"at {gold.file_path}:{gold.start_line} has {len(gold.words)}",
            )
        all_heads = all_labels = True
        for gold_word, predicted_word in zip(gold.words, predicted.words):
            if gold_word.form != predicted_word.form:
                raise AlignmentError(
                    predicted.file_path,
                    predicted_word.line_number,
                    f"word {predicted_word.id} is {predicted_word.form!r} but the gold word at "
                    f"{gold.file_path}:{gold_word.line_number} is {gold_word.form!r}",
                )
            if gold_word.head is None or gold_word.deprel == "_":
                raise ConlluError(
                    gold.file_path,
                    gold_word.line_number,
                    f"gold word {gold_word.id} has no HEAD or DEPREL: cannot score against it",
                )
            if gold_word.upos in exclude_upos:
                continue
            head_right = predicted_word.head is not None and predicted_word.head == gold_word.head
            label_right = head_right and (
                predicted_word.deprel != "_"
                and universal_relation(predicted_word.deprel) == universal_relation(gold_word.deprel)
            )
            counts.words += 1
            counts.unlabeled_correct += head_right
            counts.labeled_correct += label_right
            all_heads &= head_right
            all_labels &= label_right
        problem = tree_problem(predicted)
        if problem is not None:
            if require_trees:
                raise problem
            counts.invalid_trees += 1
            if counts.first_invalid_tree is None:
                counts.first_invalid_tree = str(problem)
        counts.sentences += 1
        counts.unlabeled_exact += all_heads
        counts.labeled_exact += all_labels
    return counts


# `score_report`'s `scorer`: the CoNLL 2018 shared task's evaluation, or this module where it cannot score
OFFICIAL_SCORER = "udtools.udeval (CoNLL 2018 shared task evaluation)"
OWN_SCORER = "seqgraph_allennlp.common.scoring"
# what `official_scores` reports of udeval's metrics (F1, which is accuracy on the gold tokenisation)
OFFICIAL_METRICS = ("UAS", "LAS", "CLAS")


def official_scores(gold_path: str, predicted_path: str) -> Dict[str, float]:
    """
    UAS, LAS and CLAS (fractions) of `predicted_path` against `gold_path` by the CoNLL 2018 shared task's
    evaluation (`udtools.udeval`). It refuses a predicted sentence that is not a tree with one root word,
    and files whose texts differ: `ConlluError` naming the file (its message gives the line).
    """
    from udtools import udeval

    loaded = []
    for path in (gold_path, predicted_path):
        try:
            loaded.append(udeval.load_conllu_file(str(path)))
        except udeval.UDError as error:
            raise ConlluError(str(path), _line_of(str(error)), f"the CoNLL 2018 evaluation refuses it: {error}")
    try:
        scores = udeval.evaluate(*loaded)
    except udeval.UDError as error:
        raise AlignmentError(
            str(predicted_path), _line_of(str(error)) or 1,
            f"the CoNLL 2018 evaluation cannot align it with {gold_path}: {error}",
        )
    return {metric: scores[metric].f1 for metric in OFFICIAL_METRICS}


def _line_of(message: str) -> int:
    """The line number in one of udeval's messages ("... at line 12", "... ends at 12"), 0 where none."""
    found = re.search(r"\bat (?:line )?(\d+)", message)
    return int(found.group(1)) if found else 0


def score_files(gold_path: str, predicted_path: str, exclude_upos: Collection[str] = ()) -> Dict[str, float]:
    """
    `{"UAS", "LAS", "UEM", "LEM"}` of `predicted_path` against `gold_path` (fractions in `[0, 1]`).
    """
    counts = count_files(gold_path, predicted_path, exclude_upos)
    return counts.scores()


def count_files(
    gold_path: str, predicted_path: str, exclude_upos: Collection[str] = (), require_trees: bool = False
) -> AttachmentCounts:
    counts = count_sentences(
        read_sentences(gold_path), read_sentences(predicted_path), str(gold_path), str(predicted_path),
        exclude_upos, require_trees,
    )
    if counts.words == 0:
        raise ValueError(f"{gold_path}: no sentences to score")
    return counts


def score_report(
    gold_path: str, predicted_path: str, exclude_upos: Collection[str] = (), require_trees: bool = False
) -> Tuple[AttachmentCounts, Dict[str, Any]]:
    """
    This module's counts and the scores to report: `UAS`, `LAS` and `CLAS` of the CoNLL 2018 evaluation
    (`official_scores`) where it scores the files (every predicted sentence a tree, no `exclude_upos`),
    this module's `UAS` and `LAS` otherwise; `UEM` and `LEM` from the counts; `scorer` says which, and
    `official_refused` why the official evaluation refused files this module could score (e.g. a gold
    sentence with two root words). Raises `ValueError` when this module's UAS or LAS differs from the
    official one.
    """
    counts = count_files(gold_path, predicted_path, exclude_upos, require_trees)
    scores: Dict[str, Any] = {**counts.scores(), "scorer": OWN_SCORER}
    if counts.invalid_trees == 0 and not exclude_upos:
        try:
            official = official_scores(gold_path, predicted_path)
        except ConlluError as refusal:
            return counts, {**scores, "official_refused": str(refusal)}
        for metric in ("UAS", "LAS"):
            if abs(official[metric] - scores[metric]) > 1e-9:
                raise ValueError(
                    f"{predicted_path}: {metric} {scores[metric]:.6f} here but {official[metric]:.6f} by the CoNLL "
                    "2018 evaluation (udtools.udeval): please report this file"
                )
        scores = {**official, "UEM": scores["UEM"], "LEM": scores["LEM"], "scorer": OFFICIAL_SCORER}
    return counts, scores


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m seqgraph_allennlp.common.scoring",
        description="CoNLL 2018 UAS, LAS (universal relations), UEM and LEM of a predicted CoNLL-U file "
        "against a gold one with the same tokenisation. Every word counts, punctuation included.",
    )
    parser.add_argument("gold", help="gold CoNLL-U file")
    parser.add_argument("predicted", help="predicted CoNLL-U file (same sentences and words)")
    parser.add_argument("--json", action="store_true", help="print the scores as one JSON object")
    parser.add_argument("--require-trees", action="store_true",
                        help="refuse a predicted sentence that is not a tree with one root word, as the official "
                        "CoNLL 2018 script does (default: score it and report it)")
    parser.add_argument("--exclude-upos", default="", metavar="TAGS",
                        help="comma-separated gold UPOS tags whose words are left out, e.g. PUNCT,SYM "
                        "(allennlp-models' punctuation-free UAS); default: every word counts")
    args = parser.parse_args(argv)
    exclude_upos = {tag.strip() for tag in args.exclude_upos.split(",") if tag.strip()}
    try:
        counts, scores = score_report(args.gold, args.predicted, exclude_upos, args.require_trees)
    except (ValueError, OSError) as error:  # ConlluError and AlignmentError are ValueErrors
        print(f"error: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({**scores, "invalid_trees": counts.invalid_trees}))
        return 0
    details = {
        "UAS": f"{counts.unlabeled_correct}/{counts.words} words",
        "LAS": f"{counts.labeled_correct}/{counts.words} words",
        "CLAS": "content words",
        "UEM": f"{counts.unlabeled_exact}/{counts.sentences} sentences",
        "LEM": f"{counts.labeled_exact}/{counts.sentences} sentences",
    }
    for name, value in scores.items():
        if name in details:
            print(f"{name}: {value:.6f} ({details[name]})")
    refused = ""
    if "official_refused" in scores:
        refused = f" (the CoNLL 2018 evaluation refuses the files: {scores['official_refused']})"
    print(f"scorer: UAS, LAS{', CLAS' if 'CLAS' in scores else ''} by {scores['scorer']}{refused}")
    if counts.invalid_trees:
        print(f"trees: {counts.invalid_trees} of {counts.sentences} predicted sentences are not trees with one root "
              f"word (the official CoNLL 2018 script refuses such a file); the first: {counts.first_invalid_tree}")
    else:
        print(f"trees: all {counts.sentences} predicted sentences are trees with one root word")
    return 0


if __name__ == "__main__":
    sys.exit(main())
