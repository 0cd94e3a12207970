from typing import Dict, List

import torch
from allennlp.nn.util import dist_reduce_sum
from allennlp.training.metrics import Metric


def universal_enhanced_table(labels: List[str]) -> torch.LongTensor:
    """
    For each enhanced label, the index of the first label with the same universal part as EULAS compares
    them (`udtools.udeval`: each `>`-separated step cut at its first `:`, so `conj>nsubj:pass` is
    `conj>nsubj`).
    """
    universal = [">".join(step.split(":")[0] for step in label.split(">")) for label in labels]
    first_index: Dict[str, int] = {}
    for index, relation in enumerate(universal):
        first_index.setdefault(relation, index)
    return torch.tensor([first_index[relation] for relation in universal], dtype=torch.long)


def labelled_adjacency(edges: torch.LongTensor, labels: torch.LongTensor, num_nodes: int) -> torch.LongTensor:
    """
    `(batch_size, E, 2)` `(head, dependent)` edges (-1 on padding) with their `(batch_size, E)` labels as a
    `(batch_size, V, V)` label matrix, -1 where there is no edge.
    """
    batch_size = edges.size(0)
    matrix = torch.full((batch_size, num_nodes * num_nodes + 1), -1, dtype=torch.long, device=edges.device)
    real = edges[..., 0] >= 0
    flat = torch.where(real, edges[..., 0] * num_nodes + edges[..., 1], num_nodes * num_nodes)
    matrix.scatter_(1, flat, torch.where(real, labels, -1))
    return matrix[:, :-1].view(batch_size, num_nodes, num_nodes)


@Metric.register("enhanced_attachment_scores")
class EnhancedAttachmentScores(Metric):
    """
    ELAS and EULAS of the IWPT shared tasks (`udtools.udeval`) on the gold tokenisation: the F1 of the
    predicted `(dependent, head, label)` edges of the enhanced graph against the gold ones, with the full
    label (ELAS) or its universal part (EULAS, `universal_enhanced_table`). Counts are summed over the
    batches (and workers) before the F1.

    A gold label absent from the training vocabulary is its unknown entry, which is never predicted: such
    an edge counts as wrong for both scores here, where the official scorer may count its universal part
    for EULAS. Reported test scores come from the official scorer on the written CoNLL-U
    (`seqgraph_allennlp.common.scoring`).

    # Parameters

    universal_label : `torch.LongTensor`, `(num_labels,)`, `universal_enhanced_table` of the labels.
    """

    def __init__(self, universal_label: torch.LongTensor) -> None:
        self._universal_label = universal_label
        self.reset()

    def __call__(  # type: ignore
        self, predicted: torch.LongTensor, gold: torch.LongTensor, uncounted_gold: int = 0
    ) -> None:
        """
        # Parameters

        predicted, gold : `torch.LongTensor`, `(batch_size, V, V)` label matrices `[head, dependent]`, -1
            where there is no edge (`labelled_adjacency`; padding has none).
        uncounted_gold : `int`, optional (default = `0`)
            Gold edges that `gold` cannot hold (a second label from the same head: the reader's
            `enhanced_uncounted`); counted as gold, never as right.
        """
        predicted, gold = self.detach_tensors(predicted, gold)
        table = self._universal_label.to(predicted.device)
        has_predicted = predicted >= 0
        has_gold = gold >= 0
        both = has_predicted & has_gold
        labelled = both & (predicted == gold)
        universal = both & (table[predicted.clamp(min=0)] == table[gold.clamp(min=0)])
        counts = torch.stack(
            [has_predicted.sum(), has_gold.sum() + uncounted_gold, labelled.sum(), universal.sum()]
        ).to(torch.long)
        counts = dist_reduce_sum(counts)
        self._predicted += int(counts[0])
        self._gold += int(counts[1])
        self._labelled += int(counts[2])
        self._universal += int(counts[3])

    @staticmethod
    def _f1(correct: int, predicted: int, gold: int) -> float:
        if predicted + gold == 0:
            return 0.0
        return 2.0 * correct / (predicted + gold)

    def get_metric(self, reset: bool = False) -> Dict[str, float]:
        """ELAS and EULAS; nothing while no gold edge was counted (a file without DEPS is not scored 0)."""
        metrics = {}
        if self._gold > 0:
            metrics = {
                "ELAS": self._f1(self._labelled, self._predicted, self._gold),
                "EULAS": self._f1(self._universal, self._predicted, self._gold),
            }
        if reset:
            self.reset()
        return metrics

    def reset(self) -> None:
        self._predicted = 0
        self._gold = 0
        self._labelled = 0
        self._universal = 0
