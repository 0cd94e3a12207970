"""
The enhanced label of each edge of the graph (`predict_enhanced`; the DEPS column's relations, namespace
`"enhanced_tags"`): a bilinear layer of its own over the basic label classifier's MLP representations, trained
on the gold graph's edges and applied to the decoded graph's (the tree's and the graph phase's extra ones).
"""
from typing import Any, List, NamedTuple

import torch
from allennlp.data import Vocabulary
from allennlp.training.metrics import Average

from seqgraph_allennlp.models.seqgraph.labels import Representations, unpredictable_labels
from seqgraph_allennlp.modules.bilinear import MatmulBilinear
from seqgraph_allennlp.structs.tree import is_root_relation, root_label_support

# The enhanced relations (DEPS labels), from the `seqgraph_ud` reader's `enhanced_tags` field (`enhanced: true`).
ENHANCED_NAMESPACE = "enhanced_tags"


class EnhancedLabelModules(NamedTuple):
    """
    The enhanced label classifier's layer. The parser registers it, under the name its archives' weights have
    (`enhanced_tag_bilinear`); kept in a tuple, it is not the classifier's own parameter.
    """

    bilinear: MatmulBilinear


class EnhancedLabelClassifier(torch.nn.Module):
    """
    The enhanced label of each `head -> dependent` edge; only the real edges are scored (a third of a
    batch's rows are padding on EWT test), `root` exactly on the edges from the root.

    # Parameters

    bilinear : `MatmulBilinear`
        `(head, dependent)` label MLP representations to the `"enhanced_tags"` namespace's scores.
    labels : `List[str]`
        The namespace's entries by index.
    vocab : `Vocabulary`
    """

    def __init__(self, bilinear: MatmulBilinear, labels: List[str], vocab: Vocabulary) -> None:
        super().__init__()
        self.shared = EnhancedLabelModules(bilinear)
        self.labels = labels
        self.register_buffer("unpredictable", unpredictable_labels(vocab, labels), persistent=False)
        self.register_buffer("is_root", torch.tensor([is_root_relation(label) for label in labels]), persistent=False)
        # the mean of `loss` over the batches
        self.mean_loss = Average()

    def edge_logits(
        self,
        representations: Representations,
        batch_index: torch.LongTensor,
        heads: torch.LongTensor,
        dependents: torch.LongTensor,
    ) -> torch.Tensor:
        """
        `(num_edges, num_enhanced_labels)` enhanced label scores of the edges `heads[i] -> dependents[i]` of
        sentence `batch_index[i]` (all three `(num_edges,)`).
        """
        head_tag_representation, dependent_tag_representation = representations
        return self.shared.bilinear(
            head_tag_representation[batch_index, heads], dependent_tag_representation[batch_index, dependents]
        )

    def loss(self, representations: Representations, enhanced_tags: torch.LongTensor) -> torch.Tensor:
        """
        The mean over the gold graph's edges of the enhanced label's cross-entropy, given the gold edge;
        `enhanced_tags` `(batch_size, V, V)` has the gold label at `[head, dependent]`, -1 where there is no
        edge. Counted in `mean_loss`.
        """
        batch_index, heads, dependents = (enhanced_tags >= 0).nonzero(as_tuple=True)
        if batch_index.numel() == 0:
            loss = representations[0].sum() * 0.0
        else:
            logits = self.edge_logits(representations, batch_index, heads, dependents)
            gold_labels = enhanced_tags[batch_index, heads, dependents]
            loss = -torch.log_softmax(logits, dim=-1).gather(-1, gold_labels.unsqueeze(-1)).mean()
        self.mean_loss(loss.item())
        return loss

    def decode(self, representations: Representations, edges: torch.LongTensor) -> torch.LongTensor:
        """
        The best enhanced label of each `(batch_size, E, 2)` edge `[head, dependent]`, `(batch_size, E)`,
        -1 on padding (edges of -1).
        """
        labels = edges.new_full(edges.shape[:-1], -1)
        batch_index, edge_index = (edges[..., 0] >= 0).nonzero(as_tuple=True)
        if batch_index.numel() == 0:
            return labels
        real_edges = edges[batch_index, edge_index]
        unpredictable = self.unpredictable | ~root_label_support(real_edges[:, 0], self.is_root)
        logits = self.edge_logits(representations, batch_index, real_edges[:, 0], real_edges[:, 1])
        labels[batch_index, edge_index] = logits.masked_fill(unpredictable, float("-inf")).argmax(dim=-1)
        return labels

    def word_deps(self, edges: List[List[int]], labels: List[int], num_words: int) -> List[List[List[Any]]]:
        """
        One sentence's DEPS: each word's enhanced `[head, label]` pairs, sorted by head and label, from its
        decoded `[head, dependent]` edges (-1 on padding) and their label indices.
        """
        deps: List[List[List[Any]]] = [[] for _ in range(num_words)]
        for (head, dependent), label in zip(edges, labels):
            if head >= 0:
                deps[dependent - 1].append([head, self.labels[label]])
        return [sorted(word) for word in deps]
