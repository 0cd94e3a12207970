from typing import Any, Dict, List, Optional, Sequence

import torch
from allennlp.nn.util import dist_reduce_sum
from allennlp.training.metrics import AttachmentScores


class ShardSafeAttachmentScores(AttachmentScores):
    """
    AllenNLP's `AttachmentScores` (UAS, LAS, UEM, LEM), counted so that distributed training works.

    AllenNLP 2.10's version all-reduces the per-word `(batch_size, N)` correctness tensors themselves; two
    workers whose batches differ in shape (always, with bucketed batches of different sentences) then send
    collectives of different sizes and gloo or NCCL aborts ("Received data size doesn't match expected
    size"). This one sums each worker's batch to six counts first and all-reduces those, so every worker
    sends the same shape; single-process results are the same.
    """

    def __call__(  # type: ignore
        self,
        predicted_indices: torch.Tensor,
        predicted_labels: torch.Tensor,
        gold_indices: torch.Tensor,
        gold_labels: torch.Tensor,
        mask: Optional[torch.BoolTensor] = None,
    ) -> None:
        detached = self.detach_tensors(predicted_indices, predicted_labels, gold_indices, gold_labels, mask)
        predicted_indices, predicted_labels, gold_indices, gold_labels, mask = detached
        if mask is None:
            mask = torch.ones_like(predicted_indices).bool()
        for label in self._ignore_classes:
            mask = mask & ~gold_labels.eq(label)
        correct_indices = predicted_indices.long().eq(gold_indices.long()) & mask
        correct_both = correct_indices & predicted_labels.long().eq(gold_labels.long())
        # shape (6,): the batch's counts, the only thing exchanged between workers
        counts = torch.stack(
            [
                correct_indices.sum(),
                (correct_indices | ~mask).all(dim=-1).sum(),
                correct_both.sum(),
                (correct_both | ~mask).all(dim=-1).sum(),
                torch.tensor(correct_indices.size(0), device=mask.device),
                mask.sum(),
            ]
        ).long()
        counts: List[int] = dist_reduce_sum(counts).tolist()
        self._unlabeled_correct += counts[0]
        self._exact_unlabeled_correct += counts[1]
        self._labeled_correct += counts[2]
        self._exact_labeled_correct += counts[3]
        self._total_sentences += counts[4]
        self._total_words += counts[5]


class UniversalRelationAttachmentScores(ShardSafeAttachmentScores):
    """
    `ShardSafeAttachmentScores` whose LAS and LEM compare universal relations, as CoNLL 2018 does
    (`nmod:poss` for `nmod` is right): both label tensors go through `universal_label`, which maps each
    label index to the index of the first label with the same universal part.

    # Parameters

    universal_label : `torch.LongTensor`, required
        Shape `(num_labels,)`.
    """

    def __init__(self, universal_label: torch.LongTensor, ignore_classes: Optional[List[int]] = None) -> None:
        super().__init__(ignore_classes)
        self._universal_label = universal_label
        # set by a model that has the gold relations as strings, for its next call (see `gold_universal`)
        self.gold_universal: Optional[torch.LongTensor] = None

    def __call__(  # type: ignore
        self,
        predicted_indices: torch.Tensor,
        predicted_labels: torch.Tensor,
        gold_indices: torch.Tensor,
        gold_labels: torch.Tensor,
        mask: Optional[torch.BoolTensor] = None,
    ) -> None:
        table = self._universal_label.to(predicted_labels.device)
        gold = table[gold_labels.long()] if self.gold_universal is None else self.gold_universal
        self.gold_universal = None
        super().__call__(predicted_indices, table[predicted_labels.long()], gold_indices, gold, mask)


def universal_label_table(labels: List[str]) -> torch.LongTensor:
    """For each label, the index of the first label with the same universal part (before `:`)."""
    universal = [label.split(":")[0] for label in labels]
    return torch.tensor([universal.index(relation) for relation in universal], dtype=torch.long)


def gold_universal_labels(
    metadata: Optional[Sequence[Dict[str, Any]]], labels: List[str], num_words: int, device: torch.device
) -> Optional[torch.LongTensor]:
    """
    The gold relations of a batch as `universal_label_table` indices, taken from their strings (the
    reader's `metadata["deprels"]`), `(batch_size, num_words)`: a gold relation whose full form was not in
    the training data (`nmod:tmod`) still matches a predicted label with its universal part (`nmod`), as
    in the CoNLL 2018 evaluation; the indexed gold label would be the unknown label and never match. A
    universal relation no label has gets -1 (no prediction can match it), padding too. `None` when the
    metadata has no relation strings.
    """
    if not metadata or any(instance.get("deprels") is None for instance in metadata):
        return None
    universal = [label.split(":")[0] for label in labels]
    first_index = {}
    for index, relation in enumerate(universal):
        first_index.setdefault(relation, index)
    rows = [[first_index.get(deprel.split(":")[0], -1) for deprel in instance["deprels"]] for instance in metadata]
    result = torch.full((len(rows), num_words), -1, dtype=torch.long)
    for row, values in enumerate(rows):
        result[row, : len(values)] = torch.tensor(values, dtype=torch.long)
    return result.to(device)
