"""
The basic dependency relation of each word given its head (`predict_labels`), as allennlp-models' biaffine
parser labels edges: ELU MLPs of the head's and the dependent's encoded nodes and a bilinear layer over the
`"head_tags"` namespace. Its MLPs' representations also feed the enhanced labels (`enhanced_labels`).
"""
from typing import List, NamedTuple, Tuple

import torch
from allennlp.common.checks import ConfigurationError
from allennlp.data import Vocabulary
from allennlp.modules import FeedForward, InputVariationalDropout

from seqgraph_allennlp.modules.bilinear import MatmulBilinear
from seqgraph_allennlp.structs.tree import is_root_relation, root_label_support, word_mask
from seqgraph_allennlp.training.attachment_scores import universal_label_table

# The head and dependent representations of every node, each (batch_size, V, tag_representation_dim)
Representations = Tuple[torch.Tensor, torch.Tensor]


def namespace_labels(vocab: Vocabulary, namespace: str, option: str, reader_option: str) -> List[str]:
    """
    A label namespace's entries by index; raises `ConfigurationError` when it has no label (the `option`
    that needs it would have nothing to predict; `reader_option` says what builds the namespace).
    """
    message = (
        f'seqgraph_parser: {option} needs the "{namespace}" vocabulary namespace, built from the '
        f"reader's {reader_option}; "
    )
    # get_vocab_size would create a missing namespace (padding and unknown entries only)
    if namespace not in vocab.get_namespaces():
        raise ConfigurationError(message + "the vocabulary has none")
    size = vocab.get_vocab_size(namespace)
    tags = [vocab.get_token_from_index(index, namespace) for index in range(size)]
    if not set(tags) - {vocab._padding_token, vocab._oov_token}:
        raise ConfigurationError(message + "the namespace has no label")
    return tags


def unpredictable_labels(vocab: Vocabulary, labels: List[str]) -> torch.BoolTensor:
    """
    Which labels are the namespace's padding and unknown entries: they keep unseen gold labels scorable
    (their softmax includes them) and are never predicted.
    """
    return torch.tensor([label in (vocab._padding_token, vocab._oov_token) for label in labels])


class LabelClassifierModules(NamedTuple):
    """
    The label classifier's layers. The parser registers them, under the names its archives' weights have
    (`head_tag_feedforward`, `dependent_tag_feedforward`, `tag_bilinear`, `_dropout`); kept in a tuple, they
    are not the classifier's own parameters.
    """

    head_feedforward: FeedForward
    dependent_feedforward: FeedForward
    bilinear: MatmulBilinear
    dropout: InputVariationalDropout


class LabelClassifier(torch.nn.Module):
    """
    The relation of each word given its head: trained on the gold heads (`loss`), applied to the decoded
    tree (`decode`), `root` exactly for the words attached to the root.

    # Parameters

    head_feedforward, dependent_feedforward : `FeedForward`
        The label MLPs over the encoded nodes.
    bilinear : `MatmulBilinear`
        `(head, dependent)` representations to the `"head_tags"` namespace's scores.
    dropout : `InputVariationalDropout`
        Applied to the MLPs' outputs.
    vocab : `Vocabulary`
    """

    def __init__(
        self,
        head_feedforward: FeedForward,
        dependent_feedforward: FeedForward,
        bilinear: MatmulBilinear,
        dropout: InputVariationalDropout,
        vocab: Vocabulary,
    ) -> None:
        super().__init__()
        self.shared = LabelClassifierModules(head_feedforward, dependent_feedforward, bilinear, dropout)
        labels = [vocab.get_token_from_index(index, "head_tags") for index in range(vocab.get_vocab_size("head_tags"))]
        self.labels = labels
        # a "head_tags" namespace with padding and unknown entries (see training_config/common.libsonnet)
        # keeps unseen gold relations scorable; they are never predicted
        self.register_buffer("unpredictable", unpredictable_labels(vocab, labels), persistent=False)
        # CoNLL 2018 LAS compares universal relations only (nmod:poss counts as nmod)
        self.register_buffer("universal", universal_label_table(labels), persistent=False)
        # `root` exactly for the words attached to 0 (`root_label_support`)
        self.register_buffer("is_root", torch.tensor([is_root_relation(label) for label in labels]), persistent=False)

    def representations(self, encoded: torch.Tensor) -> Representations:
        """The label MLPs' head and dependent representations `(batch_size, V, tag_representation_dim)`."""
        dropout = self.shared.dropout
        return dropout(self.shared.head_feedforward(encoded)), dropout(self.shared.dependent_feedforward(encoded))

    def logits(
        self,
        head_tag_representation: torch.Tensor,
        dependent_tag_representation: torch.Tensor,
        heads: torch.LongTensor,
    ) -> torch.Tensor:
        """
        `(batch_size, V, num_labels)` label scores of each word with the given head (as allennlp-models'
        biaffine parser scores tags).
        """
        batch_index = torch.arange(heads.size(0), device=heads.device).unsqueeze(1)
        selected_heads = head_tag_representation[batch_index, heads].contiguous()
        return self.shared.bilinear(selected_heads, dependent_tag_representation)

    def loss(
        self,
        representations: Representations,
        node_mask: torch.BoolTensor,
        gold_heads: torch.LongTensor,
        head_tags: torch.LongTensor,
    ) -> torch.Tensor:
        """
        The cross-entropy of the gold relations `(batch_size, N)` given the gold heads `(batch_size, V)`,
        a mean over the words.
        """
        gold_labels = torch.cat([head_tags.new_zeros(head_tags.size(0), 1), head_tags], dim=1)
        label_log_probs = torch.log_softmax(self.logits(*representations, gold_heads), dim=-1)
        # shape (batch_size, V)
        label_nll = -label_log_probs.gather(-1, gold_labels.unsqueeze(-1)).squeeze(-1)
        words = word_mask(node_mask)
        return (label_nll * words).sum() / words.sum().clamp(min=1)

    def decode(self, representations: Representations, heads: torch.LongTensor) -> torch.LongTensor:
        """Each word's best relation given its head `(batch_size, V)`; `root` exactly for the root's dependents."""
        unpredictable = self.unpredictable | ~root_label_support(heads, self.is_root)
        return self.logits(*representations, heads).masked_fill(unpredictable, float("-inf")).argmax(dim=-1)

    def universal_labels(self, labels: torch.LongTensor) -> torch.LongTensor:
        """The universal relation (`nmod` for `nmod:poss`) of each label index, the same shape."""
        return self.universal[labels]
