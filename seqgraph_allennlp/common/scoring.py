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

The official `conll18_ud_eval.py` refuses a predicted sentence that is not a tree with one root word (a
cycle, several root words, a missing HEAD). This scorer scores such a file but counts those sentences
and reports them (`trees:` line, `invalid_trees` in `--json`), and refuses it as the official script does
with `--require-trees`. Command line:

    python -m seqgraph_allennlp.common.scoring GOLD.conllu PRED.conllu [--json] [--require-trees]
"""
import argparse
import itertools
import json
import sys
from dataclasses import dataclass
from typing import Collection, Dict, Iterable, Optional, Sequence

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
        counts = count_files(args.gold, args.predicted, exclude_upos, args.require_trees)
    except (ValueError, OSError) as error:  # ConlluError and AlignmentError are ValueErrors
        print(f"error: {error}", file=sys.stderr)
        return 1
    scores = counts.scores()
    if args.json:
        print(json.dumps({**scores, "invalid_trees": counts.invalid_trees}))
        return 0
    word_counts = {"UAS": counts.unlabeled_correct, "LAS": counts.labeled_correct}
    sentence_counts = {"UEM": counts.unlabeled_exact, "LEM": counts.labeled_exact}
    for name, value in scores.items():
        if name in word_counts:
            detail = f"{word_counts[name]}/{counts.words} words"
        else:
            detail = f"{sentence_counts[name]}/{counts.sentences} sentences"
        print(f"{name}: {value:.6f} ({detail})")
    if counts.invalid_trees:
        print(f"trees: {counts.invalid_trees} of {counts.sentences} predicted sentences are not trees with one root "
              f"word (the official CoNLL 2018 script refuses such a file); the first: {counts.first_invalid_tree}")
    else:
        print(f"trees: all {counts.sentences} predicted sentences are trees with one root word")
    return 0


if __name__ == "__main__":
    sys.exit(main())
