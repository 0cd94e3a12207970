"""
`enhanced_graph_parser`, allennlp-models' `graph_parser` on the enhanced UD graph (the one-step baseline of the
sequential graph parser): it trains, saves and loads; its decoding keeps the edges above the threshold and adds
the tree's (rooted, connected, no edge into the root, no self-loop, `root` exactly from 0); its fixture twin
writes DEPS that pass UD validation, and `allennlp evaluate`'s ELAS equals the official scorer's.
"""
import json
from pathlib import Path

import pytest
import torch
from allennlp.common import Params
from allennlp.common.testing import ModelTestCase
from allennlp.data import Batch, DatasetReader, Vocabulary
from allennlp.models import Model

import seqgraph_allennlp  # noqa: F401
from seqgraph_allennlp.common.enhanced import enhanced_graph
from seqgraph_allennlp.common.scoring import enhanced_scores
from seqgraph_allennlp.structs.tree import is_tree, transitive_closure

from tests.conftest import fixture_twin_run

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "fixtures" / "configs"
DATA = ROOT / "fixtures" / "conllu" / "en_small.conllu"
ENHANCED = ROOT / "fixtures" / "conllu" / "enhanced.conllu"


class TestEnhancedGraphParser(ModelTestCase):
    def test_train_save_load_and_batch_consistency(self):
        self.set_up_model(CONFIGS / "graph_parser_enhanced.jsonnet", DATA, seed=13)
        # the label attention's one bias is added to every label's score, and a softmax over the labels does not
        # see it: its gradient is zero in exact arithmetic (and comes out 0.0 or ~1e-9 by the machine's rounding)
        self.ensure_model_can_train_save_and_load(CONFIGS / "graph_parser_enhanced.jsonnet", seed=13,
                                                  gradients_to_ignore={"tag_bilinear._bias"})
        self.ensure_batch_predictions_are_consistent()


def model_and_tensors(**model_overrides):
    params = Params.from_file(str(CONFIGS / "graph_parser_enhanced.jsonnet"), json.dumps(model_overrides))
    reader = DatasetReader.from_params(params.pop("dataset_reader"))
    instances = list(reader.read(str(ENHANCED)))
    vocab = Vocabulary.from_instances(instances, non_padded_namespaces=["*labels", "head_index_tags"])
    torch.manual_seed(1)
    model = Model.from_params(vocab=vocab, params=params.pop("model"))
    model.eval()
    batch = Batch(instances)
    batch.index_instances(vocab)
    return model, vocab, batch.as_tensor_dict()


@pytest.mark.parametrize("connect", [True, False])
def test_decoding_keeps_the_threshold_edges_and_adds_the_tree(connect):
    model, vocab, tensors = model_and_tensors(**{"model.connect": connect})
    with torch.no_grad():
        output = model(**tensors)
    node_mask = output["mask"]
    num_nodes = node_mask.size(1)
    edges = output["enhanced_adjacency"] >= 0
    probs = output["edge_probs"]
    heads = output["heads"]
    assert is_tree(heads, node_mask).all()
    real = node_mask.unsqueeze(2) & node_mask.unsqueeze(1)
    # no edge into the root, none from or to padding, no self-loop
    assert not edges[:, :, 0].any() and not (edges & ~real).any()
    assert not edges[:, torch.arange(num_nodes), torch.arange(num_nodes)].any()
    # graph_parser's threshold: every edge above it is kept
    above = probs > model.edge_prediction_threshold
    assert (edges | ~above).all()
    words = node_mask.clone()
    words[:, 0] = False
    # every word has a head
    assert (edges.any(dim=1) | ~words).all()
    extra = edges & ~above
    tree = torch.zeros_like(edges).scatter_(1, heads.unsqueeze(1), True) & real
    tree[:, 0, 0] = False
    if connect:
        # the tree's edges are in: every word is reached from the root
        assert (edges | ~tree).all()
        assert (transitive_closure(edges)[:, 0] | ~words).all()
        assert (extra <= tree).all()
    else:
        # below the threshold only the best head of a word that has none above it
        best = probs.argmax(dim=1)
        for sentence, head, dependent in extra.nonzero().tolist():
            assert head == best[sentence, dependent] and not above[sentence, :, dependent].any()
    labels = output["enhanced_adjacency"]
    for sentence, head, dependent in edges.nonzero().tolist():
        label = vocab.get_token_from_index(int(labels[sentence, head, dependent]), "enhanced_tags")
        assert (label == "root") == (head == 0)
    # the tree's relations are basic ones, `root` exactly from 0
    for sentence, word in words.nonzero().tolist():
        relation = vocab.get_token_from_index(int(output["head_tags"][sentence, word]), "head_tags")
        assert relation not in ("@@PADDING@@", "@@UNKNOWN@@")
        assert (relation == "root") == (int(heads[sentence, word]) == 0)


def test_labels_scored_on_the_edges_equal_graph_parsers_full_tensor():
    """
    The losses and the decoded labels from the edges' label scores alone (`_edge_label_logits`) against
    graph_parser's own `_construct_loss` and an argmax over its full `(batch_size, V, V, labels)` tensor.
    """
    from allennlp_models.structured_prediction.models.graph_parser import GraphParser

    from seqgraph_allennlp.structs.tree import mst_decode, root_label_support

    model, _, tensors = model_and_tensors()
    node_mask = torch.cat([torch.ones_like(tensors["words"]["tokens"]["tokens"][:, :1], dtype=torch.bool),
                           tensors["words"]["tokens"]["tokens"] != 0], dim=1)
    batch_size, num_nodes = node_mask.shape
    assert not node_mask.all(), "the fixture batch should have padding"
    generator = torch.Generator().manual_seed(3)
    dim = model.tag_bilinear._weight_matrix.size(-1)
    head_tag, child_tag = torch.randn(2, batch_size, num_nodes, dim, generator=generator)
    arc_scores = torch.randn(batch_size, num_nodes, num_nodes, generator=generator)
    arc_scores = arc_scores + (~node_mask * -1e30).unsqueeze(2) + (~node_mask * -1e30).unsqueeze(1)
    arc_tags = tensors["enhanced_tags"]
    with torch.no_grad():
        # shape (batch_size, V, V, labels), as graph_parser computes it
        full = model.tag_bilinear(head_tag, child_tag).permute(0, 2, 3, 1).contiguous()
        expected = GraphParser._construct_loss(model, arc_scores, full, arc_tags, node_mask)
        losses = model._edge_and_label_losses(arc_scores, head_tag, child_tag, arc_tags, node_mask)
        for loss, reference in zip(losses, expected):
            assert loss.item() == pytest.approx(reference.item(), rel=1e-5)
        heads = mst_decode(arc_scores, node_mask)
        _, labels = model._decode_graph(arc_scores, head_tag, child_tag, node_mask, heads)
    edges = labels >= 0
    assert edges.any()
    every_head = torch.arange(num_nodes).view(1, num_nodes, 1).expand(batch_size, num_nodes, num_nodes)
    unpredictable = model._unpredictable_enhanced | ~root_label_support(every_head, model._root_enhanced)
    reference = full.masked_fill(unpredictable, float("-inf")).argmax(dim=-1)
    assert torch.equal(labels[edges], reference[edges])


def test_an_untrained_model_that_predicts_no_edge_still_connects_every_word():
    model, _, tensors = model_and_tensors()
    with torch.no_grad():
        model.arc_attention._bias.fill_(-1e4)
        output = model(**tensors)
    edges = output["enhanced_adjacency"] >= 0
    words = output["mask"].clone()
    words[:, 0] = False
    assert (output["edge_probs"] < model.edge_prediction_threshold).all()
    assert (edges.sum(dim=1) == words.long()).all()
    assert (transitive_closure(edges)[:, 0] | ~words).all()


def test_fixture_twin_trains_and_predicts_valid_deps_scored_as_udeval_scores_them(tmp_path):
    predicted, sentences, validation, metrics = fixture_twin_run("graph_parser_enhanced.jsonnet", tmp_path)
    assert len(sentences) == 6 and all(enhanced_graph(sentence) for sentence in sentences)
    assert validation.returncode == 0, validation.stdout + validation.stderr
    official = enhanced_scores(str(DATA), str(predicted))
    for name in ("ELAS", "EULAS"):
        assert metrics[name] == pytest.approx(official[name], abs=1e-9), name
    assert 0.0 < official["ELAS"] < 1.0
