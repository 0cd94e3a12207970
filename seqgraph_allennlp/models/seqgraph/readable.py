"""
`SeqGraphParser.make_output_human_readable`: the decoded tensors as one list per sentence, with words' labels
and tags by name, which the predictor writes as JSON or CoNLL-U.
"""
from typing import Any, Dict, List, Optional

from seqgraph_allennlp.models.seqgraph.enhanced_labels import EnhancedLabelClassifier
from seqgraph_allennlp.models.seqgraph.upos_tagger import UposTagger


def human_readable(
    output_dict: Dict[str, Any],
    labels: Optional[List[str]],
    enhanced_labels: Optional[EnhancedLabelClassifier],
    upos_tagger: Optional[UposTagger],
) -> Dict[str, Any]:
    """
    Replaces the decoder's tensors of `output_dict` (`SeqGraphParser.forward`) by `predicted_heads`,
    `predicted_dependencies` (`_` without a label classifier: `labels` is `None`), for the valid decoder
    `generation_order` and `edge_probabilities`, with a tagger `predicted_upos`, and with a graph phase
    `predicted_deps`, `extra_edges` and `extra_edge_probabilities`, one entry per sentence; the rest of
    `output_dict` is left as it is.
    """
    heads = output_dict.pop("heads").cpu()
    label_indices = output_dict.pop("head_tags").cpu()
    mask = output_dict.pop("mask").cpu()
    lengths = mask.sum(dim=-1).tolist()
    edges = output_dict.pop("edges", None)
    probabilities = output_dict.pop("edge_probabilities", None)
    output_dict.pop("edge_steps", None)
    enhanced_edges = output_dict.pop("enhanced_edges", None)
    enhanced_tags = output_dict.pop("enhanced_tags", None)
    extra_edges = output_dict.pop("extra_edges", None)
    extra_probabilities = output_dict.pop("extra_edge_probabilities", None)
    if extra_edges is not None:
        real = (extra_edges[..., 0] >= 0).sum(dim=-1).tolist()
        output_dict["extra_edges"] = [edges[:count] for edges, count in zip(extra_edges.cpu().tolist(), real)]
        output_dict["extra_edge_probabilities"] = [
            probabilities[:count] for probabilities, count in zip(extra_probabilities.cpu().tolist(), real)
        ]
    if enhanced_edges is not None:
        output_dict["predicted_deps"] = [
            enhanced_labels.word_deps(sentence_edges, sentence_labels, length - 1)
            for sentence_edges, sentence_labels, length in zip(
                enhanced_edges.cpu().tolist(), enhanced_tags.cpu().tolist(), lengths
            )
        ]
    upos = output_dict.pop("upos", None)
    if upos is not None:
        output_dict["predicted_upos"] = [
            upos_tagger.readable(tags[: length - 1]) for tags, length in zip(upos.cpu().tolist(), lengths)
        ]
    predicted_heads, predicted_dependencies, orders, edge_probabilities = [], [], [], []
    for index, length in enumerate(lengths):
        num_words = length - 1
        predicted_heads.append(heads[index, 1:length].tolist())
        if labels is not None:
            predicted_dependencies.append([labels[label] for label in label_indices[index, 1:length].tolist()])
        else:
            predicted_dependencies.append(["_"] * num_words)
        if edges is not None:
            orders.append(edges[index, :num_words].cpu().tolist())
            edge_probabilities.append(probabilities[index, :num_words].cpu().tolist())
    output_dict["predicted_heads"] = predicted_heads
    output_dict["predicted_dependencies"] = predicted_dependencies
    if edges is not None:
        output_dict["generation_order"] = orders
        output_dict["edge_probabilities"] = edge_probabilities
    return output_dict
