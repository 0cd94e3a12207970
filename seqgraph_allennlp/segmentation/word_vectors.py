"""
Pretrained word vectors as a feature of each character (`segmenter_features`): every character of a word
(a run of `\\w` characters, looked up lower-cased) carries that word's vector, other characters zeros. A
character model sees a word's letters, not what the word means; the vectors know words that a treebank shows
rarely or never, and which of them start or end sentences in running text without punctuation.

The vectors are the first `max_words` lines of a GloVe-style text file (`word v1 v2 ...`, most frequent
first, as GloVe's files are), kept in float16 in the segmenter's weights so that an archive needs no file.
"""
import re
from pathlib import Path
from typing import List, Tuple

import numpy
import torch

from seqgraph_allennlp.common.errors import SeqGraphError

WORD = re.compile(r"\w+")


class WordVectorError(SeqGraphError, ValueError):
    """A word vector file that cannot be read: its path and line in the message."""


def read_word_vectors(path: str, max_words: int) -> Tuple[List[str], torch.Tensor]:
    """
    The first `max_words` words of a GloVe-style text file and their vectors.

    # Returns

    `(words, vectors)`, `vectors` of shape `(len(words), dim)` float16, row i the vector of `words[i]`; a
    word written twice keeps its first vector.
    """
    if max_words < 1:
        raise WordVectorError(f"max_words must be positive, got {max_words}")
    file = Path(path)
    if not file.is_file():
        raise WordVectorError(f"{path}: no such word vector file")
    words: List[str] = []
    rows: List[List[float]] = []
    with file.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if len(words) >= max_words:
                break
            fields = line.rstrip("\n").split(" ")
            try:
                row = [float(value) for value in fields[1:]]
            except ValueError:
                raise WordVectorError(f"{path}, line {number}: not a word and its numbers") from None
            if not row or (rows and len(row) != len(rows[0])):
                raise WordVectorError(
                    f"{path}, line {number}: {len(row)} numbers, "
                    f"{'expected ' + str(len(rows[0])) if rows else 'expected some'}"
                )
            words.append(fields[0])
            rows.append(row)
    if not words:
        raise WordVectorError(f"{path}: no word vectors")
    return words, torch.tensor(rows, dtype=torch.float16)


class WordVectors:
    """
    `word_vectors(text)`: `(len(text), dim)` float32, each character of a `\\w+` run the vector of that run
    lower-cased (zeros for a word without one), zeros for other characters.

    # Parameters

    words : `List[str]`
    vectors : `torch.Tensor`
        `(len(words), dim)`.
    """

    def __init__(self, words: List[str], vectors: torch.Tensor) -> None:
        if len(words) != vectors.shape[0]:
            raise ValueError(f"{len(words)} words but {vectors.shape[0]} vectors")
        self.dim = int(vectors.shape[1])
        index = {}
        for number, word in enumerate(words):
            index.setdefault(word, number + 1)
        self.index = index
        # row 0: no word
        self.table = numpy.concatenate(
            [numpy.zeros((1, self.dim), dtype=numpy.float32), vectors.float().numpy()], axis=0
        )

    def __call__(self, text: str) -> numpy.ndarray:
        rows = numpy.zeros(len(text), dtype=numpy.int64)
        index = self.index
        for match in WORD.finditer(text):
            row = index.get(match.group().lower(), 0)
            if row:
                rows[match.start():match.end()] = row
        return self.table[rows]
