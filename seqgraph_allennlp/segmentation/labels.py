"""
Segmentation as labels on characters (the formulation of UDPipe and Stanza): each character of a text is
labelled with what ends there. A token ends at its last character, a sentence at its last token's last
character, and a multiword token is marked where it ends; whitespace is labelled `INSIDE` and always
separates tokens. `text_labels` builds a treebank's text and labels from its CoNLL-U sentences,
`labels_to_sentences` turns a text and its labels (predicted) back into sentences of tokens.
"""
import re
from dataclasses import dataclass
from typing import Callable, Iterable, List, Optional, Sequence, Tuple

import numpy

from seqgraph_allennlp.common.conllu import ConlluSentence
from seqgraph_allennlp.segmentation.sentence import MultiwordToken, TextSentence

INSIDE = 0
TOKEN_END = 1
SENTENCE_END = 2
MULTIWORD_END = 3
MULTIWORD_SENTENCE_END = 4
LABELS = ("inside", "token_end", "sentence_end", "multiword_end", "multiword_sentence_end")
NUM_LABELS = len(LABELS)

# a blank line (two line breaks, other whitespace around them) always ends a sentence
PARAGRAPH_BREAK = re.compile(r"[^\S\n]*\n\s*\n")
_NON_SPACE = re.compile(r"\S+")


@dataclass(frozen=True)
class GoldToken:
    """A token of a CoNLL-U sentence: its form, its words, and whether whitespace followed it."""

    form: str
    words: Tuple[str, ...]
    space_after: bool

    @property
    def is_multiword(self) -> bool:
        return len(self.words) > 1


def _space_after(misc: str) -> bool:
    return "SpaceAfter=No" not in misc.split("|")


def gold_tokens(sentence: ConlluSentence) -> List[GoldToken]:
    """The tokens of a CoNLL-U sentence: its multiword-token ranges with their words, and the other words."""
    tokens: List[GoldToken] = []
    words = {word.id: word for word in sentence.words}
    covered = 0  # the last word id inside a range seen so far
    for line in sentence.lines:
        if line.startswith("#"):
            continue
        columns = line.split("\t")
        token_id = columns[0]
        if "-" in token_id:
            first, last = (int(part) for part in token_id.split("-"))
            forms = tuple(words[index].form for index in range(first, last + 1))
            tokens.append(GoldToken(columns[1], forms, _space_after(columns[9])))
            covered = last
        elif "." not in token_id and int(token_id) > covered:
            word = words[int(token_id)]
            tokens.append(GoldToken(word.form, (word.form,), word.space_after))
    return tokens


def sentence_text(tokens: Sequence[GoldToken]) -> str:
    """The text of a sentence's tokens, without the whitespace after its last token."""
    return "".join(token.form + (" " if token.space_after else "") for token in tokens[:-1]) + tokens[-1].form


def text_labels(
    paragraphs: Iterable[Sequence[ConlluSentence]], separator: Callable[[int], str] = lambda _: "\n\n"
) -> Tuple[str, numpy.ndarray, List[GoldToken]]:
    """
    The text of a document's paragraphs and each character's label, as UD's raw text is: the sentences of
    a paragraph joined by a space (none where the last token has `SpaceAfter=No`), `separator(i)` between
    paragraph `i` and the next (a blank line by default). Also gives the document's multiword tokens.

    Returns `(text, labels, multiword_tokens)`, `labels` an int64 array of `len(text)`.
    """
    pieces: List[str] = []
    labels: List[int] = []
    multiword: List[GoldToken] = []
    for number, paragraph in enumerate(paragraphs):
        if number:
            gap = separator(number - 1)
            pieces.append(gap)
            labels.extend([INSIDE] * len(gap))
        for index, sentence in enumerate(paragraph):
            tokens = gold_tokens(sentence)
            for position, token in enumerate(tokens):
                last_of_sentence = position == len(tokens) - 1
                end = MULTIWORD_END if token.is_multiword else TOKEN_END
                if last_of_sentence:
                    end += SENTENCE_END - TOKEN_END
                if token.is_multiword:
                    multiword.append(token)
                pieces.append(token.form)
                labels.extend([INSIDE] * (len(token.form) - 1) + [end])
                if token.space_after and not (last_of_sentence and index == len(paragraph) - 1):
                    pieces.append(" ")
                    labels.append(INSIDE)
    text = "".join(pieces)
    assert len(text) == len(labels)
    return text, numpy.asarray(labels, dtype=numpy.int64), multiword


def labels_to_sentences(
    text: str,
    labels: numpy.ndarray,
    expand: Optional[Callable[[str], Sequence[str]]] = None,
) -> List[TextSentence]:
    """
    The sentences of `text` under predicted `labels` (one per character). Whitespace always separates
    tokens and is never part of one; the last character before whitespace or the end of the text always
    ends a token; a blank line always ends a sentence. A token labelled as multiword is split into the
    words that `expand` gives it; where it gives one word (or there is no `expand`), it stays one word.
    """
    if len(labels) != len(text):
        raise ValueError(f"{len(labels)} labels for a text of {len(text)} characters")
    ends = numpy.flatnonzero(numpy.asarray(labels) != INSIDE)
    breaks = [match.start() for match in PARAGRAPH_BREAK.finditer(text)]
    sentences: List[TextSentence] = []
    words: List[str] = []
    space_after: List[bool] = []
    multiword: List[MultiwordToken] = []

    def close() -> None:
        nonlocal words, space_after, multiword
        if words:
            sentences.append(TextSentence(words, space_after, tuple(multiword)))
        words, space_after, multiword = [], [], []

    next_break = 0
    for run in _NON_SPACE.finditer(text):
        start, stop = run.span()
        while next_break < len(breaks) and breaks[next_break] < start:
            close()
            next_break += 1
        # the token ends inside this run: the labelled ones and the run's last character
        cuts = ends[numpy.searchsorted(ends, start):numpy.searchsorted(ends, stop - 1)].tolist() + [stop - 1]
        begin = start
        for cut in cuts:
            form = text[begin:cut + 1]
            label = int(labels[cut])
            pieces = list(expand(form)) if expand is not None and label in (MULTIWORD_END, MULTIWORD_SENTENCE_END) else []
            if len(pieces) > 1:
                multiword.append(MultiwordToken(len(words), len(words) + len(pieces) - 1, form))
                words.extend(pieces)
                space_after.extend([False] * len(pieces))
            else:
                words.append(form)
                space_after.append(False)
            space_after[-1] = cut == stop - 1
            if label in (SENTENCE_END, MULTIWORD_SENTENCE_END):
                close()
            begin = cut + 1
    close()
    return sentences
