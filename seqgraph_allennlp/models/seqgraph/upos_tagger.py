"""
The UPOS tagger (`predict_upos`): each word's universal part of speech from the encoder's states of the words
(an ELU MLP and a linear layer over the `"upos"` namespace, like the label classifier's), trained with the
parser so that raw text gets a UPOS column. It never sees gold tags as input (that is `pos_tag_embedding`).
"""
from typing import List, NamedTuple

import torch
from allennlp.data import Vocabulary
from allennlp.modules import FeedForward, InputVariationalDropout
from allennlp.training.metrics import CategoricalAccuracy

from seqgraph_allennlp.models.seqgraph.labels import unpredictable_labels

# The vocabulary namespace of the tagger's tags, built from the `seqgraph_ud` reader's `upos_tags` field
# (`upos_targets: true`). Not the reader's `pos_tags` namespace ("pos"): those are gold input tags.
UPOS_NAMESPACE = "upos"


class UposTaggerModules(NamedTuple):
    """
    The tagger's layers. The parser registers them, under the names its archives' weights have
    (`upos_feedforward`, `upos_projection`, `_dropout`); kept in a tuple, they are not the tagger's own.
    """

    feedforward: FeedForward
    projection: torch.nn.Linear
    dropout: InputVariationalDropout


class UposTagger(torch.nn.Module):
    """
    Scores (`logits`), tags (`decode`) and the cross-entropy on gold tags (`loss`, counted in `accuracy`).

    # Parameters

    feedforward : `FeedForward`
        The MLP over the encoded words.
    projection : `torch.nn.Linear`
        The MLP's output to the `"upos"` namespace's scores.
    dropout : `InputVariationalDropout`
        Applied to the MLP's output.
    tags : `List[str]`
        The namespace's entries by index.
    vocab : `Vocabulary`
    """

    def __init__(
        self,
        feedforward: FeedForward,
        projection: torch.nn.Linear,
        dropout: InputVariationalDropout,
        tags: List[str],
        vocab: Vocabulary,
    ) -> None:
        super().__init__()
        self.shared = UposTaggerModules(feedforward, projection, dropout)
        self.tags = tags
        # the padding and unknown entries of the namespace are never predicted
        self.register_buffer("unpredictable", unpredictable_labels(vocab, tags), persistent=False)
        self.accuracy = CategoricalAccuracy()

    def logits(self, encoded: torch.Tensor) -> torch.Tensor:
        """
        `(batch_size, N, num_upos)` UPOS scores from the words' encoder states (the root left out); the
        namespace's padding and unknown entries are never predicted, but stay in the loss's softmax, as
        every tagger row was trained.
        """
        return self.shared.projection(self.shared.dropout(self.shared.feedforward(encoded[:, 1:])))

    def decode(self, logits: torch.Tensor) -> torch.LongTensor:
        """`(batch_size, N)` the best predictable tag of each word."""
        return logits.masked_fill(self.unpredictable, float("-inf")).argmax(dim=-1)

    def loss(self, logits: torch.Tensor, upos_tags: torch.LongTensor, mask: torch.BoolTensor) -> torch.Tensor:
        """
        The tagger's mean cross-entropy over the words (`mask` `(batch_size, N)`), counted in `accuracy` on
        every batch (tags without heads, a treebank with UPOS and `_` heads, still give a loss).
        """
        upos_log_probs = torch.log_softmax(logits, dim=-1)
        # shape (batch_size, N)
        upos_nll = -upos_log_probs.gather(-1, upos_tags.unsqueeze(-1)).squeeze(-1)
        predictable = logits.masked_fill(self.unpredictable, float("-inf"))
        self.accuracy(predictable, upos_tags, mask.contiguous())
        return (upos_nll * mask).sum() / mask.sum().clamp(min=1)

    def readable(self, tags: List[int]) -> List[str]:
        """The tags of one sentence's words, by name."""
        return [self.tags[tag] for tag in tags]
