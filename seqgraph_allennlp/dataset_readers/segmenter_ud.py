"""
The `segmenter_ud` dataset reader: a UD treebank's raw text, cut into windows of characters, each
character labelled with what ends there (`seqgraph_allennlp.segmentation.labels`).
"""
import logging
import random
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

import numpy
import torch
from allennlp.common.file_utils import cached_path
from allennlp.data.dataset_readers.dataset_reader import DatasetReader
from allennlp.data.fields import MetadataField, TensorField, TextField
from allennlp.data.instance import Instance
from allennlp.data.token_indexers import SingleIdTokenIndexer, TokenIndexer
from allennlp.data.tokenizers import Token

from seqgraph_allennlp.common.conllu import read_sentences
from seqgraph_allennlp.segmentation.documents import documents
from seqgraph_allennlp.segmentation.features import character_token, segmenter_features
from seqgraph_allennlp.segmentation.labels import (
    MULTIWORD_END,
    MULTIWORD_SENTENCE_END,
    gold_tokens,
    sentence_text,
    text_labels,
)
from seqgraph_allennlp.segmentation.pieces import PieceEnds, read_tokenizer_json

logger = logging.getLogger(__name__)

CHARACTERS = "characters"


@DatasetReader.register("segmenter_ud")
class SegmenterUDReader(DatasetReader):
    """
    Reads a CoNLL-U treebank as its raw text: each document's paragraphs (`# newdoc`, `# newpar`; a file
    without them is one paragraph) rebuilt from their tokens and `SpaceAfter=No`, as UD's raw text files
    are, and cut into windows of `window_length` characters that do not overlap; a small file is read
    several times (`min_characters`). Each window is an instance:

    * `characters`: a `TextField` of its characters, one token each (namespace `characters`);
    * `features`: `(window_length, NUM_FEATURES)` case and Unicode-category features of each character
      (one more with `piece_tokenizer`: whether a piece of that tokenizer ends there);
    * `labels`: each character's label (`INSIDE`, `TOKEN_END`, ... of `segmentation.labels`);
    * `metadata`: `{"multiword_tokens": [(form, words), ...]}`, the multiword tokens that end in the window
      (so each is counted once: the segmenter's expander learns from them).

    # Parameters

    window_length : `int`, optional (default = `256`)
        Characters per instance.
    paragraph_separators : `Sequence[str]`, optional (default = `("\\n\\n", " ")`)
        What stands between two paragraphs of a document, drawn for each gap (with `seed`): a blank line as
        in UD's raw text files, a space as in running text, so that the segmenter does not count on blank
        lines to end sentences.
    min_characters : `int`, optional (default = `0`)
        Read the file's text as many times as it takes to give at least this many characters (once at
        least), each pass with its windows shifted by `window_length / passes` and its paragraph separators
        drawn again: a small treebank then gives an epoch as many updates as a large one, over windows that
        are not the same ones repeated. Training only: a validation reader keeps `0`.
    piece_tokenizer : `str`, optional (default = `None`)
        A Hugging Face `tokenizer.json` (or a model directory with one) whose piece ends are a feature
        (`segmentation.pieces`); the segmenter model must name the same one.
    seed : `int`, optional (default = `13`)
    token_indexers : `Dict[str, TokenIndexer]`, optional
        Default: one `SingleIdTokenIndexer` over the `characters` namespace.
    """

    def __init__(
        self,
        window_length: int = 256,
        paragraph_separators: Sequence[str] = ("\n\n", " "),
        min_characters: int = 0,
        piece_tokenizer: Optional[str] = None,
        seed: int = 13,
        token_indexers: Optional[Dict[str, TokenIndexer]] = None,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        if window_length < 1:
            raise ValueError(f"window_length must be positive, got {window_length}")
        if not paragraph_separators or not all(separator and not separator.strip() for separator in paragraph_separators):
            raise ValueError(f"paragraph_separators must be whitespace, got {paragraph_separators!r}")
        self.window_length = window_length
        self.paragraph_separators = tuple(paragraph_separators)
        self.min_characters = min_characters
        self.seed = seed
        # read when first needed: a segmenter archive is loaded (its readers built) where the file may be gone
        self.piece_tokenizer = piece_tokenizer
        self._piece_ends: Optional[PieceEnds] = None
        self.token_indexers = token_indexers or {"characters": SingleIdTokenIndexer(namespace=CHARACTERS)}

    def _read(self, file_path: str) -> Iterator[Instance]:
        local_path = cached_path(file_path)
        docs = documents(read_sentences(local_path, display_path=file_path))
        generator = random.Random(self.seed)
        length = sum(len(sentence_text(gold_tokens(sentence)))
                     for document in docs for paragraph in document for sentence in paragraph)
        passes = max(1, -(-self.min_characters // max(1, length)))
        if passes > 1:
            logger.info("%s: %d characters, read %d times (min_characters %d)", file_path, length, passes,
                        self.min_characters)
        for number in range(passes):
            offset = (number * self.window_length) // passes
            for document in docs:
                text, labels, multiword_tokens = text_labels(
                    document, lambda _: generator.choice(self.paragraph_separators)
                )
                # each multiword token goes with the window where it ends
                ends = numpy.flatnonzero(numpy.isin(labels, (MULTIWORD_END, MULTIWORD_SENTENCE_END)))
                multiword = [(end, (token.form, token.words)) for end, token in zip(ends.tolist(), multiword_tokens)]
                # pieces of the whole text: a window's edge does not cut them
                features = self.features(text)
                starts = sorted({0, *range(offset, len(text), self.window_length)})
                for start, stop in zip(starts, starts[1:] + [len(text)]):
                    yield self.text_to_instance(
                        text[start:stop],
                        labels[start:stop],
                        [pair for end, pair in multiword if start <= end < stop],
                        features[start:stop],
                    )

    def features(self, text: str) -> numpy.ndarray:
        """`(len(text), number of features)` float32: what the segmenter sees of each character besides itself."""
        if self.piece_tokenizer is not None and self._piece_ends is None:
            self._piece_ends = PieceEnds(read_tokenizer_json(self.piece_tokenizer))
        return segmenter_features(text, self._piece_ends)

    def text_to_instance(  # type: ignore[override]
        self,
        text: str,
        labels: Optional[numpy.ndarray] = None,
        multiword_tokens: Optional[List[Tuple[str, Tuple[str, ...]]]] = None,
        features: Optional[numpy.ndarray] = None,
    ) -> Instance:
        features = self.features(text) if features is None else features
        fields = {
            "characters": TextField([Token(character_token(character)) for character in text], self.token_indexers),
            "features": TensorField(torch.from_numpy(numpy.ascontiguousarray(features))),
            "metadata": MetadataField({"multiword_tokens": multiword_tokens or []}),
        }
        if labels is not None:
            fields["labels"] = TensorField(torch.from_numpy(numpy.asarray(labels, dtype=numpy.int64)), padding_value=-1)
        return Instance(fields)

