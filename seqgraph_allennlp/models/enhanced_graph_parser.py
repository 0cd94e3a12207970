from typing import Any, Dict, List, Tuple

import torch
from allennlp.data import TextFieldTensors, Vocabulary
from allennlp.models.model import Model
from allennlp.modules.matrix_attention.bilinear_matrix_attention import BilinearMatrixAttention
from allennlp.nn.util import get_text_field_mask, min_value_of_dtype
from allennlp_models.structured_prediction.models.graph_parser import GraphParser

from seqgraph_allennlp.modules.bilinear import outer_product_bilinear
from seqgraph_allennlp.modules.initialization import LoadedWithoutInit
from seqgraph_allennlp.segmentation.archive import CarriesSegmenter
from seqgraph_allennlp.structs.tree import is_root_relation, mst_decode, pair_mask, root_label_support
from seqgraph_allennlp.training.attachment_scores import (
    UniversalRelationAttachmentScores,
    gold_universal_labels,
    universal_label_table,
)
from seqgraph_allennlp.training.enhanced_scores import EnhancedAttachmentScores, universal_enhanced_table

ENHANCED_NAMESPACE = "enhanced_tags"
BASIC_NAMESPACE = "head_tags"


@Model.register("enhanced_graph_parser")
class EnhancedGraphParser(CarriesSegmenter, LoadedWithoutInit, GraphParser):
    """
    allennlp-models' `graph_parser` (Dozat & Manning, 2018: every edge a sigmoid, its label a softmax, all in
    one step) on UD's enhanced graph: the one-step baseline of the sequential graph parser
    (`seqgraph_parser` with `predict_enhanced`), on the same reader, embedder and encoder. Its modules,
    loss and threshold are graph_parser's; what changes is what UD needs and graph_parser's semantic
    dependency inputs lack:

    * **the root**: a learned vector prepended to the encoded words (as `biaffine_parser`'s head sentinel
      and `seqgraph_parser`'s root), so that the `0:root` edges are edges like the others;
    * **fields and labels**: this project's reader (`words`, the gold graph `enhanced_tags`, namespace
      `"enhanced_tags"`, instead of `tokens` and `arc_tags` in `"labels"`);
    * **a basic tree** for HEAD and DEPREL, so that its CoNLL-U is complete: the single-rooted MST over
      its edge scores (`structs.tree.mst_decode`), each edge labelled with the best of its enhanced labels
      that are basic relations (in the `"head_tags"` namespace; `ref`, paths and lexical subtypes such as
      `obl:in` are not). graph_parser trains no tree: this tree is a by-product, not a basic parser;
    * **decoding**: the edges above the threshold, as graph_parser's, but none into the root, and with
      `connect` the tree's edges as well, so that the graph is rooted and connected as UD requires (the
      shape of the IWPT systems that add edges to a spanning tree); without it, a word that no edge reaches
      gets its most probable head (DEPS cannot leave a word without one), and the graph may still be
      disconnected. `root` labels exactly the edges from the root (`structs.tree.root_label_support`);
    * **metrics**: ELAS and EULAS (`EnhancedAttachmentScores`, as `seqgraph_parser`), and UAS/LAS of
      that tree by the CoNLL 2018 definition;
    * **labels scored on the edges that need them**: graph_parser scores every label of every pair of words,
      a `(batch_size, labels, V, V)` tensor (~380 enhanced labels on EWT: most of a training batch's time,
      forward and backward), though its label loss reads only the gold edges and decoding only the predicted
      ones. Here the same bilinear (`tag_bilinear`, the same parameters) scores only those edges: the same
      losses and labels up to floating-point rounding (`_edge_label_logits`).

    # Parameters

    connect : `bool`, optional (default = `True`)
        Add the basic tree's edges to the predicted graph (see above).

    The others are those of `graph_parser`.
    """

    def __init__(self, vocab: Vocabulary, tag_representation_dim: int, connect: bool = True, **kwargs) -> None:
        super().__init__(vocab, tag_representation_dim=tag_representation_dim, **kwargs)
        self.connect = connect
        enhanced_labels = [
            vocab.get_token_from_index(index, ENHANCED_NAMESPACE)
            for index in range(vocab.get_vocab_size(ENHANCED_NAMESPACE))
        ]
        if len(enhanced_labels) <= 2:
            raise ValueError(
                "enhanced_graph_parser needs the enhanced graph as its target: set the reader's `enhanced: true`"
            )
        # graph_parser sizes its label scorer by the "labels" namespace (no input biases, no activation: the
        # products `_edge_label_logits` computes)
        self.tag_bilinear = BilinearMatrixAttention(
            tag_representation_dim, tag_representation_dim, label_dim=len(enhanced_labels)
        )
        encoder_dim = self.encoder.get_output_dim()
        # on the scale of the encoder's outputs, as seqgraph_parser's root
        self._root_vector = torch.nn.Parameter(torch.randn(1, 1, encoder_dim) * 0.01)
        unpredictable = [label in (vocab._padding_token, vocab._oov_token) for label in enhanced_labels]
        self.register_buffer("_unpredictable_enhanced", torch.tensor(unpredictable), persistent=False)
        self.register_buffer(
            "_root_enhanced", torch.tensor([is_root_relation(label) for label in enhanced_labels]), persistent=False
        )
        # each enhanced label's basic relation (an index in "head_tags"), -1 where it is none
        basic_labels = [
            vocab.get_token_from_index(index, BASIC_NAMESPACE) for index in range(vocab.get_vocab_size(BASIC_NAMESPACE))
        ]
        basic_index = {
            label: index for index, label in enumerate(basic_labels)
            if label not in (vocab._padding_token, vocab._oov_token)
        }
        self.register_buffer(
            "_basic_label", torch.tensor([basic_index.get(label, -1) for label in enhanced_labels]), persistent=False
        )
        self._enhanced_labels = enhanced_labels
        self._basic_labels = basic_labels
        self._enhanced_scores = EnhancedAttachmentScores(universal_enhanced_table(enhanced_labels))
        self._attachment_scores = UniversalRelationAttachmentScores(universal_label_table(basic_labels))

    def forward(  # type: ignore
        self,
        words: TextFieldTensors,
        metadata: List[Dict[str, Any]] = None,
        pos_tags: torch.LongTensor = None,
        head_tags: torch.LongTensor = None,
        head_indices: torch.LongTensor = None,
        enhanced_tags: torch.LongTensor = None,
        upos_tags: torch.LongTensor = None,
    ) -> Dict[str, torch.Tensor]:
        """
        # Parameters

        words : `TextFieldTensors`
        metadata : `List[Dict[str, Any]]`, optional
        pos_tags : `torch.LongTensor`, optional, `(batch_size, N)`, read if the model embeds them.
        head_tags, head_indices : `torch.LongTensor`, optional, `(batch_size, N)`
            The gold basic tree: only scored (UAS, LAS of the by-product tree), never trained on.
        enhanced_tags : `torch.LongTensor`, optional, `(batch_size, V, V)`
            The gold enhanced graph, labels at `[head, dependent]`, -1 where there is no edge.
        upos_tags : unused (the reader's UPOS targets).

        # Returns

        `edge_probs` `(batch_size, V, V)`, `enhanced_adjacency` `(batch_size, V, V)` (the predicted graph's
        labels, -1 where no edge), `heads` and `head_tags` `(batch_size, V)` (the tree), `mask` `(batch_size,
        V)`, and with a gold graph `loss` (graph_parser's edge and label losses).
        """
        embedded = self.text_field_embedder(words)
        if self._pos_tag_embedding is not None:
            embedded = torch.cat([embedded, self._pos_tag_embedding(pos_tags)], dim=-1)
        mask = get_text_field_mask(words)
        encoded = self.encoder(self._input_dropout(embedded), mask)
        batch_size = mask.size(0)
        # shape (batch_size, V, encoder_dim), V = N + 1 with the root first
        encoded = self._dropout(torch.cat([self._root_vector.expand(batch_size, 1, -1), encoded], dim=1))
        node_mask = torch.cat([mask.new_ones(batch_size, 1), mask], dim=1)

        head_arc = self._dropout(self.head_arc_feedforward(encoded))
        child_arc = self._dropout(self.child_arc_feedforward(encoded))
        head_tag = self._dropout(self.head_tag_feedforward(encoded))
        child_tag = self._dropout(self.child_tag_feedforward(encoded))
        # shape (batch_size, V, V), [head, dependent]
        arc_scores = self.arc_attention(head_arc, child_arc)
        # as graph_parser: padding far below any score, not at the minimum (the loss adds to it)
        minus_mask = ~node_mask * min_value_of_dtype(arc_scores.dtype) / 10
        arc_scores = arc_scores + minus_mask.unsqueeze(2) + minus_mask.unsqueeze(1)

        output: Dict[str, Any] = {"mask": node_mask}
        if enhanced_tags is not None:
            arc_nll, tag_nll = self._edge_and_label_losses(arc_scores, head_tag, child_tag, enhanced_tags, node_mask)
            output["loss"] = arc_nll + tag_nll
            output["arc_loss"] = arc_nll
            output["tag_loss"] = tag_nll
        if self.training:
            return output

        heads = mst_decode(arc_scores, node_mask)
        edge_probs, adjacency = self._decode_graph(arc_scores, head_tag, child_tag, node_mask, heads)
        # shape (batch_size, V, num_labels): the labels of the tree's edges
        num_nodes = node_mask.size(1)
        batch_index = torch.arange(batch_size, device=heads.device).repeat_interleave(num_nodes)
        dependents = torch.arange(num_nodes, device=heads.device).repeat(batch_size)
        tree_logits = self._edge_label_logits(head_tag, child_tag, batch_index, heads.reshape(-1), dependents)
        tree_logits = tree_logits.view(batch_size, num_nodes, -1)
        # shape (batch_size, V): the best enhanced label of each tree edge that is a basic relation
        basic = (self._basic_label >= 0) & root_label_support(heads, self._root_enhanced)
        head_tags_predicted = self._basic_label[tree_logits.masked_fill(~basic, float("-inf")).argmax(dim=-1)]
        output.update(
            {"edge_probs": edge_probs, "enhanced_adjacency": adjacency, "heads": heads, "head_tags": head_tags_predicted}
        )
        if enhanced_tags is not None:
            uncounted = sum(instance.get("enhanced_uncounted", 0) for instance in metadata or [])
            self._enhanced_scores(adjacency, enhanced_tags, uncounted)
        if head_indices is not None and head_tags is not None:
            # LAS from the gold relation strings (unseen subtypes keep their universal part)
            self._attachment_scores.gold_universal = gold_universal_labels(
                metadata, self._basic_labels, head_tags.size(1), head_tags.device
            )
            self._attachment_scores(heads[:, 1:], head_tags_predicted[:, 1:], head_indices, head_tags, mask)
        if metadata is not None:
            output["words"] = [instance["words"] for instance in metadata]
        return output

    def _edge_label_logits(
        self,
        head_tag: torch.Tensor,
        child_tag: torch.Tensor,
        batch_index: torch.LongTensor,
        heads: torch.LongTensor,
        dependents: torch.LongTensor,
    ) -> torch.Tensor:
        """
        `(num_edges, num_labels)`: `tag_bilinear`'s label scores of the edges `heads[i] -> dependents[i]` of
        sentence `batch_index[i]` (each `(num_edges,)`), the entries `[b, heads[i], dependents[i], :]` of
        graph_parser's `(batch_size, V, V, num_labels)` tensor without the other pairs.
        """
        logits = outer_product_bilinear(
            head_tag[batch_index, heads], child_tag[batch_index, dependents], self.tag_bilinear._weight_matrix
        )
        return logits + self.tag_bilinear._bias

    def _edge_and_label_losses(
        self,
        arc_scores: torch.Tensor,
        head_tag: torch.Tensor,
        child_tag: torch.Tensor,
        arc_tags: torch.LongTensor,
        node_mask: torch.BoolTensor,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        """
        graph_parser's `_construct_loss` with the labels scored on the gold edges only, the ones its label loss
        reads: the edges' binary cross-entropy over all pairs of real nodes and the gold labels' cross-entropy,
        each summed and divided by the number of gold edges.
        """
        pairs = node_mask.unsqueeze(1) & node_mask.unsqueeze(2)
        gold = (arc_tags != -1) & pairs
        arc_nll = self._arc_loss(arc_scores, gold.to(arc_scores.dtype)) * pairs
        batch_index, heads, dependents = gold.nonzero(as_tuple=True)
        logits = self._edge_label_logits(head_tag, child_tag, batch_index, heads, dependents)
        tag_nll = self._tag_loss(logits, arc_tags[batch_index, heads, dependents])
        num_gold = gold.sum().to(arc_scores.dtype)
        return arc_nll.sum() / num_gold, tag_nll.sum() / num_gold

    def _decode_graph(
        self,
        arc_scores: torch.Tensor,
        head_tag: torch.Tensor,
        child_tag: torch.Tensor,
        node_mask: torch.BoolTensor,
        tree_heads: torch.LongTensor,
    ) -> Tuple[torch.Tensor, torch.LongTensor]:
        """
        The edge probabilities `(batch_size, V, V)` and the predicted graph as a label matrix `(batch_size,
        V, V)` (-1 where no edge): the edges above the threshold between real nodes, no self-loop and none
        into the root, with `connect` the tree's (`tree_heads`, `(batch_size, V)`), else each word's most
        probable head where it has none; each edge labelled with its best label (`root` exactly from 0).
        """
        num_nodes = node_mask.size(1)
        possible = pair_mask(node_mask) & ~torch.eye(num_nodes, dtype=torch.bool, device=node_mask.device)
        possible[:, :, 0] = False
        edge_probs = arc_scores.sigmoid() * possible
        added_heads = tree_heads.unsqueeze(1) if self.connect else edge_probs.argmax(dim=1, keepdim=True)
        edges = (edge_probs > self.edge_prediction_threshold) | (
            torch.zeros_like(possible).scatter_(1, added_heads, True) & possible
        )
        batch_index, heads, dependents = edges.nonzero(as_tuple=True)
        logits = self._edge_label_logits(head_tag, child_tag, batch_index, heads, dependents)
        unpredictable = self._unpredictable_enhanced | ~root_label_support(heads, self._root_enhanced)
        labels = torch.full_like(edges, -1, dtype=torch.long)
        labels[batch_index, heads, dependents] = logits.masked_fill(unpredictable, float("-inf")).argmax(dim=-1)
        return edge_probs, labels

    def make_output_human_readable(self, output_dict: Dict[str, Any]) -> Dict[str, Any]:
        heads = output_dict.pop("heads").cpu()
        labels = output_dict.pop("head_tags").cpu()
        adjacency = output_dict.pop("enhanced_adjacency").cpu()
        lengths = output_dict.pop("mask").sum(dim=-1).tolist()
        for key in ("edge_probs", "loss", "arc_loss", "tag_loss"):
            output_dict.pop(key, None)
        predicted_heads, predicted_dependencies, predicted_deps = [], [], []
        for sentence, length in enumerate(lengths):
            predicted_heads.append(heads[sentence, 1:length].tolist())
            predicted_dependencies.append(
                [self._basic_labels[label] for label in labels[sentence, 1:length].tolist()]
            )
            deps: List[List[List[Any]]] = [[] for _ in range(length - 1)]
            for head, dependent in (adjacency[sentence] >= 0).nonzero().tolist():
                deps[dependent - 1].append([head, self._enhanced_labels[int(adjacency[sentence, head, dependent])]])
            predicted_deps.append(deps)
        output_dict["predicted_heads"] = predicted_heads
        output_dict["predicted_dependencies"] = predicted_dependencies
        output_dict["predicted_deps"] = predicted_deps
        return output_dict

    def get_metrics(self, reset: bool = False) -> Dict[str, float]:
        if self.training:
            return {}
        metrics = self._attachment_scores.get_metric(reset)
        metrics.update(self._enhanced_scores.get_metric(reset))
        return metrics

    default_predictor = "seqgraph_parser"

