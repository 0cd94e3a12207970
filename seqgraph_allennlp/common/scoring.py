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

The gold file is held to what the `seqgraph_ud` reader accepts, with the same one-line errors: a gold
sentence whose HEAD column is not a tree is refused (`path:line: sentence starting at line N is not a
tree: cycle 3 -> 4 -> 3`), or, with `--skip-invalid-trees` (the reader's `skip_invalid_trees`), left out of
every score in gold and prediction alike, and the number skipped reported (`skipped:` line,
`skipped_invalid_trees` in `--json`). Only the basic tree must be one: the enhanced graph may have cycles.
Nothing to score (an empty file, every sentence skipped, every word excluded) is an error, not a score of 0.

Enhanced graphs (the DEPS column, `seqgraph_allennlp.common.enhanced`), scored whenever both files have
one: ELAS, F1 over (dependent, head, enhanced label) triples, and EULAS, the same with each label cut to
its universal part (`universal_enhanced_label`). As in the IWPT shared tasks, empty nodes are collapsed
first, in gold and prediction alike (a path `3 -conj-> 8.1 -nsubj-> 5` is the edge `3:conj>nsubj`); the
CoNLL 2018 evaluation, which scores ELAS and EULAS too, would otherwise drop every edge that touches an
empty node. The reported figures are udeval's on collapsed copies of the files (`enhanced_scores`), checked
against this module's own count (`count_enhanced`) as UAS and LAS are. A prediction with DEPS `_` on every
word is not scored for ELAS (nor a gold file without enhanced graph): it is said so, not given 0.

Command line:

    python -m seqgraph_allennlp.common.scoring GOLD.conllu PRED.conllu [--json] [--require-trees]
        [--skip-invalid-trees] [--exclude-upos TAGS]
"""
import argparse
import collections
import itertools
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from seqgraph_allennlp.common.conllu import (
    ConlluError,
    ConlluSentence,
    check_tree,
    find_tree_problem,
    format_gold,
    format_sentence,
    is_empty_node_line,
    read_sentences,
)
from seqgraph_allennlp.common.enhanced import EnhancedGraph, enhanced_graph, universal_enhanced_label


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
    # with `skip_invalid_trees`: the gold sentences left out as not trees, `(index in the files, why)`
    skipped: List[Tuple[int, str]] = field(default_factory=list)

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


def gold_trees(
    pairs: Iterable[Tuple[ConlluSentence, ConlluSentence]],
    skip_invalid_trees: bool = False,
    skipped: Optional[List[Tuple[int, str]]] = None,
) -> Iterator[Tuple[ConlluSentence, ConlluSentence]]:
    """
    The aligned pairs whose gold heads are a tree (or not all given: scoring refuses those itself). A gold
    sentence that is not a tree raises the reader's `ConlluError` (`check_tree`), or, with
    `skip_invalid_trees`, is left out with its prediction and appended to `skipped` as `(index, why)`.
    """
    for index, (gold, predicted) in enumerate(pairs):
        try:
            check_tree(gold)
        except ConlluError as error:
            if not skip_invalid_trees:
                raise
            if skipped is not None:
                skipped.append((index, str(error)))
            continue
        yield gold, predicted


def aligned_sentences(
    gold_sentences: Iterable[ConlluSentence],
    predicted_sentences: Iterable[ConlluSentence],
    gold_name: str = "gold",
    predicted_name: str = "predicted",
) -> Iterator[Tuple[ConlluSentence, ConlluSentence]]:
    """
    Pairs of gold and predicted sentences, checked to have the same number of words (their forms are
    checked word by word by `check_same_form`). Raises `AlignmentError` where a file has a sentence more
    or a sentence has another number of words.
    """
    for index, (gold, predicted) in enumerate(itertools.zip_longest(gold_sentences, predicted_sentences)):
        if predicted is None:
            raise AlignmentError(
                gold.file_path,
                gold.start_line,
                f"gold sentence {index + 1} has no counterpart: {predicted_name} has only {index} sentences",
            )
        if gold is None:
            raise AlignmentError(
                predicted.file_path,
                predicted.start_line,
                f"sentence {index + 1} has no counterpart: {gold_name} has only {index} sentences",
            )
        if len(gold.words) != len(predicted.words):
            raise AlignmentError(
                predicted.file_path,
                predicted.start_line,
                f"sentence {index + 1} has {len(predicted.words)} words but the gold sentence "
                f"at {gold.file_path}:{gold.start_line} has {len(gold.words)}",
            )
        yield gold, predicted


def check_same_form(gold: ConlluSentence, predicted: ConlluSentence, word_id: int) -> None:
    """Raises `AlignmentError` at the predicted word `word_id` when its FORM is not the gold word's."""
    gold_word, predicted_word = gold.words[word_id - 1], predicted.words[word_id - 1]
    if gold_word.form != predicted_word.form:
        raise AlignmentError(
            predicted.file_path,
            predicted_word.line_number,
            f"word {predicted_word.id} is {predicted_word.form!r} but the gold word at "
            f"{gold.file_path}:{gold_word.line_number} is {gold_word.form!r}",
        )


def count_sentences(
    gold_sentences: Iterable[ConlluSentence],
    predicted_sentences: Iterable[ConlluSentence],
    gold_name: str = "gold",
    predicted_name: str = "predicted",
    exclude_upos: Collection[str] = (),
    require_trees: bool = False,
    skip_invalid_trees: bool = False,
) -> AttachmentCounts:
    """
    Counts the attachments of aligned sentences, leaving out words whose gold UPOS is in `exclude_upos`
    (they still have to align), and the predicted sentences that are not trees with one root word.
    Raises `AlignmentError` when the sentences or words do not align, `ConlluError` when a gold word has
    no HEAD or DEPREL or a gold sentence is not a tree (unless `skip_invalid_trees`: then it is left out,
    with its prediction, and listed in `skipped`), and, with `require_trees`, at the first predicted
    sentence that is not a tree.
    """
    counts = AttachmentCounts()
    pairs = aligned_sentences(gold_sentences, predicted_sentences, gold_name, predicted_name)
    for gold, predicted in gold_trees(pairs, skip_invalid_trees, counts.skipped):
        all_heads = all_labels = True
        for gold_word, predicted_word in zip(gold.words, predicted.words):
            check_same_form(gold, predicted, gold_word.id)
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


def official_scores(
    gold_path: str, predicted_path: str, skip_sentences: Collection[int] = ()
) -> Dict[str, float]:
    """
    UAS, LAS and CLAS (fractions) of `predicted_path` against `gold_path` by the CoNLL 2018 shared task's
    evaluation (`udtools.udeval`). It refuses a sentence that is not a tree with one root word, and files
    whose texts differ: `ConlluError` naming the file (its message gives the line).

    `skip_sentences`: the 0-based indexes of sentences to leave out of both files (`AttachmentCounts.skipped`),
    scored on temporary copies without them.
    """
    if not skip_sentences:
        scores = _udeval(str(gold_path), str(predicted_path))
    else:
        with tempfile.TemporaryDirectory(prefix="seqgraph_trees_") as folder:
            copies = (os.path.join(folder, "gold.conllu"), os.path.join(folder, "predicted.conllu"))
            line_maps = (write_copy(gold_path, copies[0], skip_sentences),
                         write_copy(predicted_path, copies[1], skip_sentences))
            scores = _udeval(*copies, names=(str(gold_path), str(predicted_path)), original_lines=line_maps)
    return {metric: scores[metric].f1 for metric in OFFICIAL_METRICS}


def _udeval(
    gold_path: str,
    predicted_path: str,
    names: Optional[Tuple[str, str]] = None,
    original_lines: Tuple[Callable[[int], int], Callable[[int], int]] = (int, int),
) -> Dict[str, Any]:
    """
    `udtools.udeval.evaluate` of two files, its refusals as `ConlluError`s naming `names` (the files the user
    gave, where these are copies) at the line that `original_lines` maps each copy's line to.
    """
    from udtools import udeval

    names = names or (gold_path, predicted_path)
    loaded = []
    for path, name, original_line in zip((gold_path, predicted_path), names, original_lines):
        try:
            loaded.append(udeval.load_conllu_file(path))
        except (udeval.UDError, ValueError) as error:  # ValueError: a HEAD `_`, which udeval reads as int
            raise ConlluError(
                name, original_line(_line_of(str(error))),
                f"the CoNLL 2018 evaluation refuses it: {_map_lines(str(error), original_line)}",
            )
    try:
        return udeval.evaluate(*loaded)
    except udeval.UDError as error:
        raise AlignmentError(
            names[1], original_lines[1](_line_of(str(error))) or 1,
            f"the CoNLL 2018 evaluation cannot align it with {names[0]}: "
            f"{_map_lines(str(error), original_lines[1])}",
        )


def _map_lines(message: str, original_line: Callable[[int], int]) -> str:
    """One of udeval's messages with its line numbers mapped from a copy back to the original file."""
    return re.sub(r"\b(at (?:line )?)(\d+)", lambda found: found.group(1) + str(original_line(int(found.group(2)))),
                  message)


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
    gold_path: str,
    predicted_path: str,
    exclude_upos: Collection[str] = (),
    require_trees: bool = False,
    skip_invalid_trees: bool = False,
) -> AttachmentCounts:
    """
    `count_sentences` of two files. Raises `ConlluError` naming the gold file when no word is left to score
    (an empty file, every sentence skipped, every word excluded): a score of nothing is not 0.
    """
    counts = count_sentences(
        read_sentences(gold_path), read_sentences(predicted_path), str(gold_path), str(predicted_path),
        exclude_upos, require_trees, skip_invalid_trees,
    )
    if counts.words == 0:
        if counts.skipped and not counts.sentences:
            why = f"no sentences to score: all {len(counts.skipped)} are not trees and were skipped"
        elif not counts.sentences:
            why = "no sentences to score: the file is empty"
        else:
            why = f"no words to score: the gold UPOS of every word is excluded ({', '.join(sorted(exclude_upos))})"
        raise ConlluError(str(gold_path), None, why)
    return counts


def score_report(
    gold_path: str,
    predicted_path: str,
    exclude_upos: Collection[str] = (),
    require_trees: bool = False,
    skip_invalid_trees: bool = False,
) -> Tuple[AttachmentCounts, Dict[str, Any]]:
    """
    This module's counts and the scores to report: `UAS`, `LAS` and `CLAS` of the CoNLL 2018 evaluation
    (`official_scores`) where it scores the files (every predicted sentence a tree, no `exclude_upos`),
    this module's `UAS` and `LAS` otherwise; `UEM` and `LEM` from the counts; `scorer` says which, and
    `official_refused` why the official evaluation refused files this module could score. A gold sentence
    that is not a tree raises `ConlluError`, or with `skip_invalid_trees` is left out of every score
    (`counts.skipped`). Raises `ValueError` when this module's UAS or LAS differs from the official one.
    """
    counts = count_files(gold_path, predicted_path, exclude_upos, require_trees, skip_invalid_trees)
    scores: Dict[str, Any] = {**counts.scores(), "scorer": OWN_SCORER}
    if counts.invalid_trees == 0 and not exclude_upos:
        try:
            official = official_scores(gold_path, predicted_path, [index for index, _ in counts.skipped])
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


# Enhanced graphs: ELAS and EULAS

ENHANCED_METRICS = ("ELAS", "EULAS")
ENHANCED_SCORER = (
    "udtools.udeval (CoNLL 2018 / IWPT evaluation) on copies with empty nodes collapsed "
    "(seqgraph_allennlp.common.enhanced, as enhanced_collapse_empty_nodes.pl)"
)


@dataclass
class EnhancedCounts:
    """
    The edges of the collapsed enhanced graphs of aligned gold and predicted files, and how many match.

    `labeled_correct` (ELAS) counts the predicted `(dependent, head, label)` triples that are gold ones;
    `universal_correct` (EULAS) the same on universal labels, each gold edge matched at most once.
    `universal_repeats` counts the words, gold or predicted, with two edges from one head whose labels have
    the same universal part (`2:obl:in|2:obl:on`): udeval counts every pair of such edges that match (so
    `2:obl:in|2:obl:on` against itself makes 4 matches of 2 edges) where this count matches each edge
    once; only there can the two EULAS differ.
    """

    gold_edges: int = 0
    predicted_edges: int = 0
    labeled_correct: int = 0
    universal_correct: int = 0
    gold_graphs: int = 0
    predicted_graphs: int = 0
    universal_repeats: int = 0
    # with `skip_invalid_trees`: the gold sentences left out as their HEAD column is not a tree, `(index, why)`
    skipped: List[Tuple[int, str]] = field(default_factory=list)

    def scores(self) -> Dict[str, float]:
        """`ELAS` and `EULAS`: F1 (fractions; 0 when neither file has an edge)."""
        edges = max(self.gold_edges + self.predicted_edges, 1)
        return {"ELAS": 2 * self.labeled_correct / edges, "EULAS": 2 * self.universal_correct / edges}


def count_enhanced(
    gold_sentences: Iterable[ConlluSentence],
    predicted_sentences: Iterable[ConlluSentence],
    gold_name: str = "gold",
    predicted_name: str = "predicted",
    skip_invalid_trees: bool = False,
) -> EnhancedCounts:
    """
    Counts the edges of the enhanced graphs (`enhanced_graph`: empty nodes collapsed) of aligned sentences
    and the predicted ones that are right with their full label (ELAS) and with its universal part (EULAS).
    A sentence without enhanced annotation has no edges. Raises `AlignmentError` when the sentences or words
    do not align, `ConlluError` at a malformed DEPS or a gold sentence whose basic tree (HEAD) is not one,
    which `skip_invalid_trees` leaves out instead (`skipped`); the enhanced graph itself may have cycles.
    """
    counts = EnhancedCounts()
    pairs = aligned_sentences(gold_sentences, predicted_sentences, gold_name, predicted_name)
    for gold, predicted in gold_trees(pairs, skip_invalid_trees, counts.skipped):
        for word_id in range(1, len(gold) + 1):
            check_same_form(gold, predicted, word_id)
        gold_graph, predicted_graph = enhanced_graph(gold), enhanced_graph(predicted)
        counts.gold_graphs += gold_graph is not None
        counts.predicted_graphs += predicted_graph is not None
        for gold_edges, predicted_edges in zip(_edges_per_word(gold_graph, len(gold)),
                                               _edges_per_word(predicted_graph, len(gold))):
            counts.gold_edges += len(gold_edges)
            counts.predicted_edges += len(predicted_edges)
            counts.labeled_correct += len(set(gold_edges) & set(predicted_edges))
            gold_universal = collections.Counter(_universal(gold_edges))
            predicted_universal = collections.Counter(_universal(predicted_edges))
            counts.universal_correct += sum((gold_universal & predicted_universal).values())
            counts.universal_repeats += any(number > 1 for number in gold_universal.values())
            counts.universal_repeats += any(number > 1 for number in predicted_universal.values())
    return counts


def _edges_per_word(graph: Optional[EnhancedGraph], num_words: int) -> EnhancedGraph:
    return graph if graph is not None else [[] for _ in range(num_words)]


def _universal(edges: Sequence[Tuple[int, str]]) -> List[Tuple[int, str]]:
    return [(head, universal_enhanced_label(label)) for head, label in edges]


def count_enhanced_files(gold_path: str, predicted_path: str, skip_invalid_trees: bool = False) -> EnhancedCounts:
    return count_enhanced(read_sentences(gold_path), read_sentences(predicted_path), str(gold_path),
                          str(predicted_path), skip_invalid_trees)


def has_enhanced_graph(path: str) -> bool:
    """Whether a CoNLL-U file has an enhanced graph (DEPS other than `_`) in any sentence."""
    return any(enhanced_graph(sentence) is not None for sentence in read_sentences(path))


def write_collapsed(path: str, collapsed_path: str, skip_sentences: Collection[int] = ()) -> Callable[[int], int]:
    """
    Writes a copy of a CoNLL-U file with each sentence's enhanced graph collapsed (DEPS from
    `enhanced_graph`, no empty-node lines; everything else as read) and returns the map from a line of the
    copy to the line of the original it comes from (for error messages). `skip_sentences`: 0-based indexes
    of sentences to leave out.
    """
    return write_copy(path, collapsed_path, skip_sentences, collapse=True)


def write_copy(
    path: str, copy_path: str, skip_sentences: Collection[int] = (), collapse: bool = False
) -> Callable[[int], int]:
    """
    Writes a copy of a CoNLL-U file without the sentences whose 0-based indexes are in `skip_sentences`,
    each other one as read (`format_gold`) or, with `collapse`, with its enhanced graph collapsed
    (`write_collapsed`), and returns the map from a line of the copy to the line of the original.
    """
    skip = set(skip_sentences)
    original = [0]  # line 0: none
    with open(copy_path, "w", encoding="utf-8") as copy:
        for index, sentence in enumerate(read_sentences(path)):
            if index in skip:
                continue
            if collapse:
                copy.write(format_sentence(sentence, sentence.heads, sentence.deprels,
                                           deps=enhanced_graph(sentence), collapsed=True))
                original += [number for line, number in zip(sentence.lines, sentence.line_numbers)
                             if not is_empty_node_line(line)]
            else:
                copy.write(format_gold(sentence))
                original += sentence.line_numbers
            original.append(sentence.line_numbers[-1] + 1)  # the blank line that ends it
    return lambda line: original[line] if 0 <= line < len(original) else line


def enhanced_scores(gold_path: str, predicted_path: str, skip_sentences: Collection[int] = ()) -> Dict[str, float]:
    """
    ELAS and EULAS (F1, fractions) of `predicted_path` against `gold_path` by the CoNLL 2018 / IWPT
    evaluation (`udtools.udeval`), both files' empty nodes collapsed first (temporary copies written by
    `write_collapsed`), as the IWPT shared tasks scored them.

    # Parameters

    gold_path : `str`
        A gold CoNLL-U file with enhanced graphs.
    predicted_path : `str`
        A prediction of the same sentences and words, with enhanced graphs.
    skip_sentences : `Collection[int]`, optional (default = `()`)
        0-based indexes of sentences left out of both files (`EnhancedCounts.skipped`).

    # Raises

    `ValueError` when either file has no enhanced graph (DEPS `_` everywhere: not an ELAS of 0),
    `ConlluError` at a malformed DEPS or where udeval refuses a file (e.g. a basic layer that is not a tree),
    `AlignmentError` where it cannot align them.
    """
    for path, role in ((gold_path, "gold file"), (predicted_path, "prediction")):
        if not has_enhanced_graph(path):
            raise ValueError(f"{path}: the {role} has no enhanced graph (DEPS is _ everywhere): ELAS is not scored")
    with tempfile.TemporaryDirectory(prefix="seqgraph_enhanced_") as folder:
        copies = (os.path.join(folder, "gold.conllu"), os.path.join(folder, "predicted.conllu"))
        line_maps = (write_collapsed(gold_path, copies[0], skip_sentences),
                     write_collapsed(predicted_path, copies[1], skip_sentences))
        scores = _udeval(*copies, names=(str(gold_path), str(predicted_path)), original_lines=line_maps)
    return {metric: scores[metric].f1 for metric in ENHANCED_METRICS}


def enhanced_report(
    gold_path: str, predicted_path: str, skip_invalid_trees: bool = False
) -> Tuple[Optional[EnhancedCounts], Dict[str, Any]]:
    """
    This module's enhanced counts and what to report of ELAS and EULAS: `{}` when neither file has an enhanced
    graph; `{"enhanced_not_scored": why}` when only one has; else udeval's `ELAS` and `EULAS`
    (`enhanced_scores`) and `enhanced_scorer`. Raises `ValueError` where this module's count disagrees with
    udeval: ELAS always, EULAS unless `universal_repeats` explains it (then both are reported, udeval's as
    `EULAS`, this module's as `EULAS_matched_once`). A gold sentence whose basic tree is not one raises
    `ConlluError`, or is left out with `skip_invalid_trees`, as in `score_report`.
    """
    counts = count_enhanced_files(gold_path, predicted_path, skip_invalid_trees)
    if not counts.gold_graphs and not counts.predicted_graphs:
        return counts, {}
    if not counts.gold_graphs or not counts.predicted_graphs:
        missing = "the gold file" if not counts.gold_graphs else "the prediction"
        return counts, {"enhanced_not_scored": f"{missing} has no enhanced graph (DEPS is _ on every word)"}
    official = enhanced_scores(gold_path, predicted_path, [index for index, _ in counts.skipped])
    own = counts.scores()
    report: Dict[str, Any] = {**official, "enhanced_scorer": ENHANCED_SCORER}
    for metric in ENHANCED_METRICS:
        if abs(official[metric] - own[metric]) > 1e-9:
            if metric == "EULAS" and counts.universal_repeats:
                report["EULAS_matched_once"] = own[metric]
                continue
            raise ValueError(
                f"{predicted_path}: {metric} {own[metric]:.6f} here but {official[metric]:.6f} by the CoNLL 2018 "
                "evaluation (udtools.udeval): please report this file"
            )
    return counts, report


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
    parser.add_argument("--skip-invalid-trees", action="store_true",
                        help="leave out the gold sentences that are not trees (a cycle, no or several root words), "
                        "in gold and prediction alike, and say how many, as the seqgraph_ud reader's "
                        "skip_invalid_trees does (default: such a gold file is an error, as for the reader)")
    parser.add_argument("--exclude-upos", default="", metavar="TAGS",
                        help="comma-separated gold UPOS tags whose words are left out, e.g. PUNCT,SYM "
                        "(allennlp-models' punctuation-free UAS); default: every word counts")
    args = parser.parse_args(argv)
    exclude_upos = {tag.strip() for tag in args.exclude_upos.split(",") if tag.strip()}
    try:
        counts, scores = score_report(args.gold, args.predicted, exclude_upos, args.require_trees,
                                      args.skip_invalid_trees)
        enhanced_counts, enhanced = enhanced_report(args.gold, args.predicted, args.skip_invalid_trees)
    except (ValueError, OSError) as error:  # ConlluError and AlignmentError are ValueErrors
        print(f"error: {error}", file=sys.stderr)
        return 1
    skipped = {"skipped_invalid_trees": len(counts.skipped)} if args.skip_invalid_trees else {}
    if args.json:
        print(json.dumps({**scores, "invalid_trees": counts.invalid_trees, **skipped, **enhanced}))
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
    if args.skip_invalid_trees:
        print_skipped(counts)
    print_enhanced(enhanced_counts, enhanced)
    return 0


def print_skipped(counts: AttachmentCounts) -> None:
    """The `skipped:` line of `--skip-invalid-trees`."""
    total = counts.sentences + len(counts.skipped)
    if not counts.skipped:
        print(f"skipped: none, all {total} gold sentences are trees")
        return
    print(f"skipped: {len(counts.skipped)} of {total} gold sentences are not trees and were left out of every score, "
          f"with their predictions; the first: {counts.skipped[0][1]}")


def print_enhanced(counts: Optional[EnhancedCounts], report: Dict[str, Any]) -> None:
    """The text lines of `enhanced_report`: nothing where neither file has an enhanced graph."""
    if "enhanced_not_scored" in report:
        print(f"ELAS, EULAS: not scored: {report['enhanced_not_scored']}")
        return
    if not report or counts is None:
        return
    edges = f"of {counts.gold_edges} gold and {counts.predicted_edges} predicted enhanced edges"
    print(f"ELAS: {report['ELAS']:.6f} (F1: {counts.labeled_correct} right {edges})")
    if "EULAS_matched_once" in report:
        print(f"EULAS: {report['EULAS']:.6f} (F1 {edges}, every matching pair counted, as udeval counts them)")
        print(f"EULAS_matched_once: {report['EULAS_matched_once']:.6f} (F1: {counts.universal_correct} right on "
              f"universal labels, each edge matched once; {counts.universal_repeats} words have two edges from "
              "one head with the same universal label)")
    else:
        print(f"EULAS: {report['EULAS']:.6f} (F1: {counts.universal_correct} right on universal labels {edges})")
    print(f"scorer: ELAS, EULAS by {report['enhanced_scorer']}")


if __name__ == "__main__":
    sys.exit(main())
