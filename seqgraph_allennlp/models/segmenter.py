"""
The `segmenter` model: a tokeniser, sentence splitter and multiword-token expander learned from a UD
treebank, over characters (`seqgraph_allennlp.segmentation`).
"""
from collections import Counter
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy
import torch
from allennlp.data import TextFieldTensors, Vocabulary
from allennlp.models.model import Model
from allennlp.modules import Seq2SeqEncoder
from allennlp.nn import InitializerApplicator, util

from seqgraph_allennlp.dataset_readers.segmenter_ud import CHARACTERS
from seqgraph_allennlp.segmentation.features import (
    NUM_FEATURES,
    character_token,
    segmenter_features,
    unique_characters,
)
from seqgraph_allennlp.segmentation.labels import (
    MULTIWORD_END,
    MULTIWORD_SENTENCE_END,
    NUM_LABELS,
    SENTENCE_END,
    labels_to_sentences,
)
from seqgraph_allennlp.segmentation.multiword import MultiwordExpander
from seqgraph_allennlp.segmentation.pieces import PieceEnds, PieceTokenizerError, read_tokenizer_json
from seqgraph_allennlp.segmentation.sentence import TextSentence

# what each F1 of `get_metrics` counts: the labels that are its boundary
BOUNDARIES = {
    "token": (1, 2, 3, 4),
    "sentence": (SENTENCE_END, MULTIWORD_SENTENCE_END),
    "multiword": (MULTIWORD_END, MULTIWORD_SENTENCE_END),
}


@Model.register("segmenter")
class Segmenter(Model):
    """
    Labels each character of a text with what ends there (a token, a sentence, a multiword token: the
    labels of `segmentation.labels`), from an embedding of the character, its case and Unicode-category
    features (`segmentation.features`) and a `Seq2SeqEncoder` over a window of the text (UDPipe's and
    Stanza's formulation). Multiword tokens are expanded by a `MultiwordExpander` learned from the
    multiword tokens of the training windows, which the model counts as it trains and keeps in its state
    (so the archive carries it).

    `segment(texts)` is what a predictor calls: each text into `TextSentence`s, read in overlapping windows
    of `window_length` characters (each character labelled from the window where it has `context`
    characters on both sides), so any length of text takes bounded memory.

    # Parameters

    vocab : `Vocabulary`
        With the `characters` namespace of `segmenter_ud`.
    encoder : `Seq2SeqEncoder`
        Its input dimension is `character_embedding_dim + NUM_FEATURES` (+ 1 with `piece_tokenizer`).
    character_embedding_dim : `int`, optional (default = `32`)
    dropout : `float`, optional (default = `0.1`)
    window_length : `int`, optional (default = `512`)
        Characters per window when segmenting.
    context : `int`, optional (default = `64`)
        Characters on each side of a window's labelled middle when segmenting.
    batch_size : `int`, optional (default = `64`)
        Windows per call to the encoder when segmenting.
    piece_tokenizer : `str`, optional (default = `None`)
        The `tokenizer.json` (or model directory) whose piece ends the reader gave as a feature
        (`segmentation.pieces`). Its contents are kept in the weights: a trained archive needs no file.
    initializer : `InitializerApplicator`, optional
    """

    default_predictor = "segmenter"

    def __init__(
        self,
        vocab: Vocabulary,
        encoder: Seq2SeqEncoder,
        character_embedding_dim: int = 32,
        dropout: float = 0.1,
        window_length: int = 512,
        context: int = 64,
        batch_size: int = 64,
        piece_tokenizer: Optional[str] = None,
        initializer: InitializerApplicator = InitializerApplicator(),
        **kwargs,
    ) -> None:
        super().__init__(vocab, **kwargs)
        num_features = NUM_FEATURES + (piece_tokenizer is not None)
        if encoder.get_input_dim() != character_embedding_dim + num_features:
            raise ValueError(
                f"the encoder's input dimension must be character_embedding_dim + {num_features} features = "
                f"{character_embedding_dim + num_features}, got {encoder.get_input_dim()}"
            )
        self.piece_tokenizer = piece_tokenizer
        # read when it is there (training); an archive loaded elsewhere gets it from its weights
        self._tokenizer_json: Optional[str] = None
        self._piece_ends: Optional[PieceEnds] = None
        if piece_tokenizer is not None:
            try:
                self._tokenizer_json = read_tokenizer_json(piece_tokenizer)
            except PieceTokenizerError:
                pass
        if not 0 <= 2 * context < window_length:
            raise ValueError(f"context ({context}) must be under half of window_length ({window_length})")
        self.character_embedding = torch.nn.Embedding(vocab.get_vocab_size(CHARACTERS), character_embedding_dim)
        self.encoder = encoder
        self.dropout = torch.nn.Dropout(dropout)
        self.label_projection = torch.nn.Linear(encoder.get_output_dim(), NUM_LABELS)
        self.window_length = window_length
        self.context = context
        self.batch_size = batch_size
        self._multiword_counts: Counter = Counter()
        self._expander: Optional[MultiwordExpander] = None
        self._counts = {name: torch.zeros(3, dtype=torch.long) for name in BOUNDARIES}  # tp, fp, fn
        initializer(self)

    # Network

    def _logits(self, characters: torch.Tensor, features: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        # characters: (batch, length), features: (batch, length, NUM_FEATURES) -> (batch, length, NUM_LABELS)
        embedded = torch.cat([self.character_embedding(characters), features], dim=-1)
        encoded = self.encoder(self.dropout(embedded), mask)
        return self.label_projection(self.dropout(encoded))

    def forward(  # type: ignore[override]
        self,
        characters: TextFieldTensors,
        features: torch.Tensor,
        labels: Optional[torch.Tensor] = None,
        metadata: Optional[List[Dict[str, Any]]] = None,
    ) -> Dict[str, torch.Tensor]:
        mask = util.get_text_field_mask(characters)
        logits = self._logits(util.get_token_ids_from_text_field_tensors(characters), features, mask)
        output = {"logits": logits, "mask": mask}
        if labels is not None:
            output["loss"] = self.loss(logits, labels, mask)
            self._count(logits.argmax(-1), labels, mask)
            if self.training and metadata is not None:
                for window in metadata:
                    self._multiword_counts.update(
                        (form, tuple(words)) for form, words in window["multiword_tokens"]
                    )
                self._expander = None
        return output

    @staticmethod
    def loss(logits: torch.Tensor, labels: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Mean cross-entropy of the characters' labels."""
        return torch.nn.functional.cross_entropy(logits[mask], labels[mask])

    # Segmenting

    def segment(self, texts: Sequence[str]) -> List[List[TextSentence]]:
        """Each text as its sentences (none for a text of only whitespace)."""
        labels = self.predict_labels(texts)
        expand = self.expander.expand
        return [labels_to_sentences(text, text_labels, expand) for text, text_labels in zip(texts, labels)]

    def predict_labels(self, texts: Sequence[str]) -> List[numpy.ndarray]:
        """Each text's predicted label for each of its characters."""
        windows: List[Tuple[int, int, int, int, int]] = []  # text, start, stop, labelled start, stop
        encoded = []
        core = self.window_length - 2 * self.context
        for number, text in enumerate(texts):
            encoded.append((self._character_ids(text), self._features(text)))
            for middle in range(0, len(text), core):
                start, stop = max(0, middle - self.context), min(len(text), middle + core + self.context)
                windows.append((number, start, stop, middle, min(len(text), middle + core)))
        results = [numpy.zeros(len(text), dtype=numpy.int64) for text in texts]
        # windows of similar lengths together: little padding
        windows.sort(key=lambda window: window[2] - window[1])
        was_training = self.training
        self.eval()
        try:
            with torch.inference_mode():
                for first in range(0, len(windows), self.batch_size):
                    batch = windows[first:first + self.batch_size]
                    length = max(stop - start for _, start, stop, _, _ in batch)
                    ids = numpy.zeros((len(batch), length), dtype=numpy.int64)
                    features = numpy.zeros((len(batch), length, encoded[0][1].shape[1]), dtype=numpy.float32)
                    for row, (number, start, stop, _, _) in enumerate(batch):
                        ids[row, : stop - start] = encoded[number][0][start:stop]
                        features[row, : stop - start] = encoded[number][1][start:stop]
                    ids_tensor = torch.from_numpy(ids)
                    mask = ids_tensor != 0
                    predicted = self._logits(ids_tensor, torch.from_numpy(features), mask).argmax(-1).numpy()
                    for row, (number, start, _, middle, end) in enumerate(batch):
                        results[number][middle:end] = predicted[row, middle - start:end - start]
        finally:
            self.train(was_training)
        return results

    def _features(self, text: str) -> numpy.ndarray:
        if self.piece_tokenizer is not None and self._piece_ends is None:
            if self._tokenizer_json is None:
                raise PieceTokenizerError(f"{self.piece_tokenizer}: no such file, and the weights do not hold it")
            self._piece_ends = PieceEnds(self._tokenizer_json)
        return segmenter_features(text, self._piece_ends)

    def _character_ids(self, text: str) -> numpy.ndarray:
        characters, inverse = unique_characters(text)
        table = numpy.asarray(
            [self.vocab.get_token_index(character_token(character), CHARACTERS) for character in characters], dtype=numpy.int64
        )
        return table[inverse] if len(text) else numpy.zeros(0, dtype=numpy.int64)

    # Multiword tokens

    @property
    def expander(self) -> MultiwordExpander:
        """The expansions of the multiword tokens seen in training, and the rules induced from them."""
        if self._expander is None:
            pairs = [pair for pair, count in self._multiword_counts.items() for _ in range(count)]
            self._expander = MultiwordExpander(pairs)
        return self._expander

    def get_extra_state(self) -> Dict[str, Any]:
        state: Dict[str, Any] = {"multiword_tokens": [[form, list(words), count]
                                                      for (form, words), count in sorted(self._multiword_counts.items())]}
        if self._tokenizer_json is not None:
            state["piece_tokenizer"] = self._tokenizer_json
        return state

    def set_extra_state(self, state: Dict[str, Any]) -> None:
        self._multiword_counts = Counter(
            {(form, tuple(words)): count for form, words, count in state["multiword_tokens"]}
        )
        self._expander = None
        if "piece_tokenizer" in state:
            self._tokenizer_json, self._piece_ends = state["piece_tokenizer"], None

    # Metrics

    def _count(self, predicted: torch.Tensor, gold: torch.Tensor, mask: torch.Tensor) -> None:
        for name, labels in BOUNDARIES.items():
            boundary = torch.tensor(labels, device=gold.device)
            is_predicted = torch.isin(predicted, boundary) & mask
            is_gold = torch.isin(gold, boundary) & mask
            self._counts[name] += torch.stack([
                (is_predicted & is_gold).sum(), (is_predicted & ~is_gold).sum(), (~is_predicted & is_gold).sum()
            ]).cpu()

    def get_metrics(self, reset: bool = False) -> Dict[str, float]:
        """F1 of the characters that end a token, a sentence, a multiword token (of the windows read)."""
        metrics = {}
        for name, (true_positives, false_positives, false_negatives) in self._counts.items():
            found, expected = true_positives + false_positives, true_positives + false_negatives
            precision = float(true_positives) / float(found) if found else 0.0
            recall = float(true_positives) / float(expected) if expected else 0.0
            metrics[f"{name}_f1"] = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        if reset:
            for counts in self._counts.values():
                counts.zero_()
        return metrics
