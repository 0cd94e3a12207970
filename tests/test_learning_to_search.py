"""
The learning-to-search loss is computed in two passes (a roll-in without gradients, then every state's
scores at once): it must equal the paper's algorithm run one state at a time, in value and gradient.
"""
from pathlib import Path

import pytest
import torch
from allennlp.common import Params
from allennlp.models import Model

import seqgraph_allennlp  # noqa: F401
from seqgraph_allennlp.models.seqgraph_parser import kl_divergence
from seqgraph_allennlp.oracles import free_edges
from seqgraph_allennlp.structs.tree import add_edge, edge_log_probs, heads_to_adjacency, valid_mask

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "fixtures" / "configs"


def sequential_loss(model, initial_scores, encoded, final_state, node_mask, gold_heads):
    """Equation (6) as the paper states it: one state after the other, the tree threaded by hand."""
    batch_size, num_nodes = node_mask.shape
    gold_adjacency = heads_to_adjacency(gold_heads, node_mask)
    score_function = model._score_function(initial_scores, encoded, final_state)
    adjacency = torch.zeros_like(gold_adjacency)
    reachability = torch.zeros_like(gold_adjacency)
    generator = torch.Generator().manual_seed(0)
    last_edges = None
    total, count = 0.0, 0
    num_steps = num_nodes - 1 if model.recurrent else 1
    for step in range(num_steps):
        valid = valid_mask(adjacency, reachability, node_mask, model.single_root)
        support = valid if model.policy_support == "valid" else None
        log_probs = edge_log_probs(score_function(last_edges), node_mask, support)
        free = free_edges(gold_adjacency, valid)
        has_target = free.reshape(batch_size, -1).any(dim=-1)
        total = total + (kl_divergence(model.oracle(free, log_probs), log_probs) * has_target).sum()
        count = count + int(has_target.sum())
        if step == num_steps - 1:
            break
        choice = model.roll_in(free, valid, log_probs.detach(), model.oracle.beta, generator)
        active = valid.reshape(batch_size, -1).any(dim=-1)
        new_adjacency, reachability = add_edge(
            adjacency, reachability, choice // num_nodes, choice % num_nodes, active
        )
        last_edges = new_adjacency & ~adjacency
        adjacency = new_adjacency
    return total / max(count, 1)


@pytest.mark.parametrize(
    "name", ["coach_valid", "coach_valid_paper", "uniform", "linearized", "annealed", "one_step"]
)
def test_batched_loss_equals_the_sequential_algorithm(name, batch_and_vocab):
    tensors, vocab = batch_and_vocab
    torch.manual_seed(0)
    model = Model.from_params(vocab=vocab, params=Params.from_file(str(CONFIGS / f"{name}.jsonnet"))["model"])
    # eval mode: no dropout, and the roll-in's coins come from the same fixed seed in both versions
    model.eval()
    if model.recurrent_weight is not None:
        # the update starts at zero (S_t = S_0); a random one makes every step's scores differ
        with torch.no_grad():
            model.recurrent_weight.attention._weight_matrix.normal_(0.0, 1.0)
    if hasattr(model.oracle, "set_total_updates"):
        model.oracle.set_total_updates(4)
        model.oracle.num_updates.fill_(2)
    initial_scores, encoded, final_state, node_mask = model._encode(tensors["words"], None)
    batch_size = node_mask.size(0)
    gold_heads = torch.cat([tensors["head_indices"].new_zeros(batch_size, 1), tensors["head_indices"]], dim=1)

    expected = sequential_loss(model, initial_scores, encoded, final_state, node_mask, gold_heads)
    expected_gradients = torch.autograd.grad(expected, [p for p in model.parameters() if p.requires_grad], retain_graph=True,
                                             allow_unused=True)
    batched = model._learning_to_search_loss(initial_scores, encoded, final_state, node_mask, gold_heads)
    batched_gradients = torch.autograd.grad(batched, [p for p in model.parameters() if p.requires_grad],
                                            allow_unused=True)
    assert batched.item() > 0.1
    assert batched.item() == pytest.approx(expected.item(), rel=1e-5)
    compared = 0
    for expected_gradient, batched_gradient in zip(expected_gradients, batched_gradients):
        assert (expected_gradient is None) == (batched_gradient is None)
        if expected_gradient is not None:
            torch.testing.assert_close(batched_gradient, expected_gradient, rtol=1e-4, atol=1e-6)
            compared += int(expected_gradient.abs().sum() > 0)
    assert compared > 5
