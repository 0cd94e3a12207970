"""
`root` is the relation of the root's dependents and of no other word (UD): the label decoders of the sequential
parser (basic and enhanced labels) and of the biaffine baseline respect it whatever the label scores
(`structs.tree.root_label_support`); one masking of softmaxes (`structs.tree.support_log_softmax`) leaves a
masked entry no mass, in the head-selection loss as in the policies.
"""
from pathlib import Path

import pytest
import torch
from allennlp.common import Params
from allennlp.data import Batch, DatasetReader, Vocabulary
from allennlp.models import Model
from allennlp.nn.util import masked_log_softmax

import seqgraph_allennlp  # noqa: F401
from seqgraph_allennlp.structs.tree import is_root_relation, root_label_support, support_log_softmax

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "fixtures" / "configs"
DATA = ROOT / "fixtures" / "conllu" / "en_small.conllu"
ENHANCED_DATA = ROOT / "fixtures" / "conllu" / "enhanced.conllu"


def test_is_root_relation():
    assert is_root_relation("root") and is_root_relation("root:x") and is_root_relation("root>conj")
    assert not is_root_relation("nsubj") and not is_root_relation("conj>root") and not is_root_relation("@@UNKNOWN@@")


def test_root_label_support_by_hand():
    is_root = torch.tensor([False, True, False])
    heads = torch.tensor([[0, 2, 0, 1]])
    support = root_label_support(heads, is_root)
    assert support.tolist() == [[[False, True, False], [True, False, True], [False, True, False], [True, False, True]]]
    # without a root label in the vocabulary every label stays possible
    assert root_label_support(heads, torch.zeros(3, dtype=torch.bool)).all()


def test_support_log_softmax_leaves_masked_entries_no_mass():
    scores = torch.tensor([[0.0, 0.0, 100.0], [1.0, 2.0, 3.0]])
    support = torch.tensor([[True, True, False], [True, True, True]])
    log_probs = support_log_softmax(scores, support)
    assert log_probs[0, :2].exp().tolist() == pytest.approx([0.5, 0.5])
    assert log_probs[0, 2].exp() == 0
    assert log_probs[1].tolist() == pytest.approx(torch.log_softmax(scores[1], dim=-1).tolist())
    # what the head-selection loss used before: AllenNLP's log(1e-13) offset, which a high score outweighs
    assert masked_log_softmax(scores, support)[0, 2].exp() > 0.99


def model_and_batch(config: str, data: Path, overrides: str = ""):
    params = Params.from_file(str(CONFIGS / f"{config}.jsonnet"), overrides)
    reader = DatasetReader.from_params(params.pop("dataset_reader"))
    instances = list(reader.read(str(data)))
    vocab = Vocabulary.from_instances(instances)
    torch.manual_seed(0)
    model = Model.from_params(vocab=vocab, params=params.pop("model"))
    model.eval()
    batch = Batch(instances)
    batch.index_instances(vocab)
    return model, vocab, batch.as_tensor_dict()


def labels_by_head(output, vocab, namespace="head_tags"):
    """(head, label) of every word of every sentence, from the model's tensors."""
    pairs = []
    mask = output["mask"]
    for sentence in range(mask.size(0)):
        for word in range(1, int(mask[sentence].sum())):
            head = int(output["heads"][sentence, word])
            label = vocab.get_token_from_index(int(output["head_tags"][sentence, word]), namespace)
            pairs.append((head, label))
    return pairs


def favour(bias: torch.Tensor, vocab, namespace: str, label: str) -> None:
    """Make `label` win every edge's label by far."""
    with torch.no_grad():
        bias.zero_()
        bias[vocab.get_token_index(label, namespace)] = 1e4


@pytest.mark.parametrize("config", ["coach_valid", "biaffine_mst"])
def test_root_label_exactly_on_the_edges_from_the_root(config):
    model, vocab, tensors = model_and_batch(config, DATA)
    for favoured in ("aux", "root"):
        favour(model.tag_bilinear.bias, vocab, "head_tags", favoured)
        with torch.no_grad():
            output = model(**tensors)
        pairs = labels_by_head(output, vocab)
        assert any(head == 0 for head, _ in pairs) and any(head != 0 for head, _ in pairs)
        # the favoured label everywhere it may go, root exactly on the edges from 0
        for head, label in pairs:
            assert (label == "root") == (head == 0), (favoured, head, label)
            if (favoured == "root") == (head == 0):
                assert label == favoured


def test_enhanced_root_label_exactly_on_the_edges_from_the_root():
    model, vocab, tensors = model_and_batch("coach_valid_enhanced", ENHANCED_DATA)
    for favoured in ("nsubj", "root"):
        favour(model.enhanced_tag_bilinear.bias, vocab, "enhanced_tags", favoured)
        with torch.no_grad():
            output = model(**tensors)
        edges, tags = output["enhanced_edges"], output["enhanced_tags"]
        real = edges[..., 0] >= 0
        heads = edges[..., 0][real].tolist()
        labels = [vocab.get_token_from_index(index, "enhanced_tags") for index in tags[real].tolist()]
        assert 0 in heads and any(head != 0 for head in heads)
        for head, label in zip(heads, labels):
            assert (label == "root") == (head == 0), (favoured, head, label)


def test_head_selection_loss_leaves_self_loops_and_padding_no_mass():
    model, _, tensors = model_and_batch("coach_valid", DATA)
    with torch.no_grad():
        _, _, _, node_mask = model.encode(tensors["words"], None)
    batch_size, num_nodes = node_mask.shape
    # uniform scores over the real heads, a very high score on every self-loop and on the padding
    scores = torch.zeros(batch_size, num_nodes, num_nodes)
    scores[:, torch.arange(num_nodes), torch.arange(num_nodes)] = 100.0
    scores.masked_fill_(~node_mask.unsqueeze(2), 100.0)
    gold_heads = torch.cat([torch.zeros(batch_size, 1, dtype=torch.long), tensors["head_indices"]], dim=1)
    loss = model.tree_phase.head_selection_loss(scores, node_mask, gold_heads)
    # each word chooses among the other real nodes, uniformly: the loss is the mean of log(length - 1)
    lengths = node_mask.sum(dim=1)
    expected = (lengths - 1) * torch.log((lengths - 1).float())
    assert float(loss) == pytest.approx(float(expected.sum() / (lengths - 1).sum()), rel=1e-5)


def test_enhanced_labels_are_scored_on_the_real_edges_as_one_edge_at_a_time():
    # the loss and the decoder score only the real edges (no padding rows): the same values as torch's
    # bilinear of each edge alone (in float32: the shipped config parses the labels in bfloat16 where native)
    model, vocab, tensors = model_and_batch(
        "coach_valid_enhanced", ENHANCED_DATA, '{"model.label_bfloat16_inference": false}'
    )
    torch.manual_seed(1)
    with torch.no_grad():
        model.enhanced_tag_bilinear.weight.normal_()
        model.enhanced_tag_bilinear.bias.normal_()
    batch_size, num_nodes, dim = 2, 5, model.enhanced_tag_bilinear.in1_features
    heads_repr, dependents_repr = torch.randn(batch_size, num_nodes, dim), torch.randn(batch_size, num_nodes, dim)
    num_labels = model.enhanced_tag_bilinear.out_features
    tags = torch.full((batch_size, num_nodes, num_nodes), -1)
    gold = [(0, 0, 2, 3), (0, 2, 1, 1), (0, 1, 2, 4), (1, 4, 3, 0)]
    for sentence, head, dependent, label in gold:
        tags[sentence, head, dependent] = label

    def edge_logits(sentence, head, dependent):
        return torch.nn.functional.bilinear(heads_repr[sentence, head], dependents_repr[sentence, dependent],
                                            model.enhanced_tag_bilinear.weight, model.enhanced_tag_bilinear.bias)

    expected = torch.stack([-torch.log_softmax(edge_logits(s, h, d), dim=-1)[label] for s, h, d, label in gold])
    loss = model.enhanced_label_classifier.loss((heads_repr, dependents_repr), tags)
    assert float(loss) == pytest.approx(float(expected.mean()), rel=1e-5)
    assert float(model.enhanced_label_classifier.loss((heads_repr, dependents_repr), torch.full_like(tags, -1))) == 0.0

    # decoding: padded edges stay -1; a real one gets the best label it may take (root only from the root)
    edges = torch.tensor([[[0, 2], [2, 1], [-1, -1]], [[4, 3], [-1, -1], [-1, -1]]])
    classifier = model.enhanced_label_classifier
    labels = classifier.decode((heads_repr, dependents_repr), edges)
    assert labels[0, 2] == -1 and labels[1, 1] == -1 and labels[1, 2] == -1
    for sentence, position in ((0, 0), (0, 1), (1, 0)):
        head, dependent = edges[sentence, position].tolist()
        allowed = ~classifier.unpredictable & root_label_support(torch.tensor(head), classifier.is_root)
        best = edge_logits(sentence, head, dependent).masked_fill(~allowed, float("-inf")).argmax()
        assert labels[sentence, position] == best
    assert num_labels == vocab.get_vocab_size("enhanced_tags")
