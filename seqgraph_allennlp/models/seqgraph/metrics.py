"""
How `SeqGraphParser` scores its decoded parses against the gold ones: the attachment scores of the tree as
CoNLL 2018 counts them (every word, punctuation included; LAS on universal relations) and, with a graph phase,
ELAS and EULAS of the enhanced graph. The losses' running averages are the parts' own (`TreePhase.kl`,
`GraphPhase.graph_kl`, `EnhancedLabelClassifier.mean_loss`, `UposTagger.accuracy`).
"""
from typing import Any, Dict, List, Optional

import torch

from seqgraph_allennlp.models.seqgraph.labels import LabelClassifier
from seqgraph_allennlp.training.attachment_scores import ShardSafeAttachmentScores, gold_universal_labels
from seqgraph_allennlp.training.enhanced_scores import (
    EnhancedAttachmentScores,
    labelled_adjacency,
    universal_enhanced_table,
)


class ParseScores:
    """
    UAS, LAS, UEM, LEM of the decoded trees (`attachment_scores`; without a label classifier UAS and UEM
    only), and ELAS and EULAS of the decoded graphs (`enhanced_scores`, with enhanced labels).

    # Parameters

    label_classifier : `LabelClassifier`, optional
        Its relations' universal parts, which LAS compares.
    enhanced_labels : `List[str]`, optional
        The `"enhanced_tags"` namespace's entries by index, for ELAS and EULAS.
    """

    def __init__(self, label_classifier: Optional[LabelClassifier], enhanced_labels: Optional[List[str]] = None) -> None:
        self._label_classifier = label_classifier
        self.attachment_scores = ShardSafeAttachmentScores()
        self.enhanced_scores = (
            EnhancedAttachmentScores(universal_enhanced_table(enhanced_labels)) if enhanced_labels is not None else None
        )

    def __call__(
        self,
        output: Dict[str, Any],
        node_mask: torch.BoolTensor,
        metadata: Optional[List[Dict[str, Any]]],
        head_indices: Optional[torch.LongTensor],
        head_tags: Optional[torch.LongTensor],
        enhanced_tags: Optional[torch.LongTensor],
    ) -> None:
        """Counts a decoded batch (`SeqGraphParser.decode`'s `output`) against its gold, where there is one."""
        if self.enhanced_scores is not None and enhanced_tags is not None:
            uncounted = sum(instance.get("enhanced_uncounted", 0) for instance in metadata or [])
            predicted = labelled_adjacency(output["enhanced_edges"], output["enhanced_tags"], node_mask.size(1))
            self.enhanced_scores(predicted, enhanced_tags, uncounted)
        if head_indices is None:
            return
        heads = output["heads"][:, 1:]
        mask = node_mask[:, 1:]
        labels = self._label_classifier
        if labels is not None and head_tags is not None:
            gold_universal = gold_universal_labels(metadata, labels.labels, mask.size(1), mask.device)
            self.attachment_scores(
                heads,
                labels.universal_labels(output["head_tags"][:, 1:]),
                head_indices,
                labels.universal_labels(head_tags) if gold_universal is None else gold_universal,
                mask,
            )
        else:
            # no labels to compare: LAS and LEM are dropped in get_metric
            self.attachment_scores(heads, heads, head_indices, head_indices, mask)

    def get_metric(self, reset: bool, training: bool) -> Dict[str, float]:
        """
        The scores, reset if `reset`; none in training, whose batches are not decoded
        (`SeqGraphParser.forward`).
        """
        metrics = self.attachment_scores.get_metric(reset)
        if training:
            metrics = {}
        elif self._label_classifier is None:
            metrics = {key: value for key, value in metrics.items() if key in ("UAS", "UEM")}
        if self.enhanced_scores is not None:
            enhanced = self.enhanced_scores.get_metric(reset)
            if not training:
                metrics.update(enhanced)
        return metrics
