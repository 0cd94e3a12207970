"""
The learning-to-search loss is computed in two passes (a roll-in without gradients, then every state's
scores at once): it must equal the paper's algorithm run one state at a time, in value and gradient.
"""
import json
from pathlib import Path

import pytest
import torch
from allennlp.common import Params
from allennlp.models import Model

import seqgraph_allennlp  # noqa: F401
from seqgraph_allennlp.structs.losses import kl_divergence
from seqgraph_allennlp.oracles import free_edges
from seqgraph_allennlp.structs.tree import add_edge, edge_log_probs, heads_to_adjacency, valid_mask

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "fixtures" / "configs"


def compared_gradients(expected_gradients, batched_gradients) -> int:
    """
    Asserts that two lists of parameter gradients (`None` for an unused parameter) agree; returns how many
    non-zero gradients were compared.
    """
    compared = 0
    for expected_gradient, batched_gradient in zip(expected_gradients, batched_gradients):
        assert (expected_gradient is None) == (batched_gradient is None)
        if expected_gradient is not None:
            # float32 rounding grows with the gradient's size (entries up to ~10 here)
            scale = max(1.0, float(expected_gradient.abs().max()))
            torch.testing.assert_close(batched_gradient, expected_gradient, rtol=1e-4, atol=1e-6 * scale)
            compared += int(expected_gradient.abs().sum() > 0)
    return compared


def sequential_loss(model, initial_scores, encoded, final_state, node_mask, gold_heads):
    """Equation (6) as the paper states it: one state after the other, the tree threaded by hand."""
    batch_size, num_nodes = node_mask.shape
    gold_adjacency = heads_to_adjacency(gold_heads, node_mask)
    score_function = model.tree_phase.score_function(initial_scores, encoded, final_state)
    adjacency = torch.zeros_like(gold_adjacency)
    reachability = torch.zeros_like(gold_adjacency)
    generator = torch.Generator().manual_seed(0)
    last_edges = None
    total, count = 0.0, 0
    num_steps = num_nodes - 1 if model.recurrent else 1
    for step in range(num_steps):
        valid = valid_mask(adjacency, reachability, node_mask, model.tree_phase.single_root)
        policy_support = valid if model.tree_phase.policy_support == "valid" else None
        log_probs = edge_log_probs(score_function(last_edges), node_mask, policy_support)
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
    initial_scores, encoded, final_state, node_mask = model.encode(tensors["words"], None)
    batch_size = node_mask.size(0)
    gold_heads = torch.cat([tensors["head_indices"].new_zeros(batch_size, 1), tensors["head_indices"]], dim=1)

    expected = sequential_loss(model, initial_scores, encoded, final_state, node_mask, gold_heads)
    expected_gradients = torch.autograd.grad(expected, [p for p in model.parameters() if p.requires_grad], retain_graph=True,
                                             allow_unused=True)
    batched = model.tree_phase.loss(initial_scores, encoded, final_state, node_mask, gold_heads)
    batched_gradients = torch.autograd.grad(batched, [p for p in model.parameters() if p.requires_grad],
                                            allow_unused=True)
    assert batched.item() > 0.1
    assert batched.item() == pytest.approx(expected.item(), rel=1e-5)
    assert compared_gradients(expected_gradients, batched_gradients) > 5


def test_length_chunks_split_only_a_batch_of_very_different_lengths():
    from seqgraph_allennlp.models.seqgraph.tree_phase import CHUNK_STEP_COST, length_chunks

    similar = [20, 18, 22, 19, 21] * 6
    assert length_chunks(similar) == [sorted(range(30), key=lambda i: similar[i])]
    # EWT's longest batch: 30 sentences of 70-104 words and two of 135 and 159
    tail = list(range(70, 105, 1))[:30] + [159, 135]
    groups = length_chunks(tail)
    assert sorted(i for group in groups for i in group) == list(range(32))
    assert [len(group) for group in groups] == [30, 2]

    def cost(groups):
        return sum(len(g) * (max(tail[i] for i in g) + 1) ** 3 + CHUNK_STEP_COST * (max(tail[i] for i in g) + 1)
                   for g in groups)

    # against every split into two groups at a cut of the sorted order, and no split
    order = sorted(range(32), key=lambda i: tail[i])
    alternatives = [[order]] + [[order[:k], order[k:]] for k in range(1, 32)]
    assert cost(groups) <= min(cost(alternative) for alternative in alternatives)


@pytest.mark.parametrize("name", ["linearized", "coach_valid"])
def test_chunked_states_give_the_loss_of_the_whole_batch(name, batch_and_vocab, monkeypatch):
    """Rolling in groups of sentences apart (each padded to its own length) changes neither loss nor gradient."""
    from seqgraph_allennlp.models.seqgraph import tree_phase

    tensors, vocab = batch_and_vocab
    torch.manual_seed(0)
    model = Model.from_params(vocab=vocab, params=Params.from_file(str(CONFIGS / f"{name}.jsonnet"))["model"])
    model.eval()
    if name == "coach_valid":
        # no coin: the greedy valid policy alone is deterministic
        model.roll_in.beta = 0.0
    with torch.no_grad():
        model.recurrent_weight.attention._weight_matrix.normal_(0.0, 1.0)
    initial_scores, encoded, final_state, node_mask = model.encode(tensors["words"], None)
    gold_heads = torch.cat([tensors["head_indices"].new_zeros(node_mask.size(0), 1), tensors["head_indices"]], dim=1)
    parameters = [p for p in model.parameters() if p.requires_grad]

    def loss_and_gradients(step_cost):
        monkeypatch.setattr(tree_phase, "CHUNK_STEP_COST", step_cost)
        loss = model.tree_phase.loss(initial_scores, encoded, final_state, node_mask, gold_heads)
        return loss, torch.autograd.grad(loss, parameters, retain_graph=True, allow_unused=True)

    lengths = (node_mask.sum(dim=-1) - 1).tolist()
    assert len(tree_phase.length_chunks(lengths, 0)) > 2
    assert len(tree_phase.length_chunks(lengths, 10**12)) == 1
    whole, whole_gradients = loss_and_gradients(10**12)
    chunked, chunked_gradients = loss_and_gradients(0)
    assert whole.item() > 0.1
    assert chunked.item() == pytest.approx(whole.item(), rel=1e-5)
    for expected, actual in zip(whole_gradients, chunked_gradients):
        assert (expected is None) == (actual is None)
        if expected is not None:
            scale = max(1.0, float(expected.abs().max()))
            torch.testing.assert_close(actual, expected, rtol=1e-4, atol=1e-6 * scale)


@pytest.mark.parametrize("name", ["uniform", "linearized"])
def test_a_roll_in_that_reads_no_policy_skips_the_scores_and_takes_the_same_states(name, batch_and_vocab, monkeypatch):
    """
    Uniform and linearized roll-ins stay on the gold path, so the roll-in computes no step scores; its
    states and edges are those of the same roll-in given the scores (its fallback unused), in train mode
    with the global generator seeded alike.
    """
    from seqgraph_allennlp.modules.recurrent_weight import RecurrentWeight

    tensors, vocab = batch_and_vocab
    torch.manual_seed(0)
    model = Model.from_params(vocab=vocab, params=Params.from_file(str(CONFIGS / f"{name}.jsonnet"))["model"])
    assert model.roll_in.reads_policy is False
    model.train()
    with torch.no_grad():
        model.recurrent_weight.attention._weight_matrix.normal_(0.0, 1.0)
        initial_scores, encoded, final_state, node_mask = model.encode(tensors["words"], None)
    gold_heads = torch.cat([tensors["head_indices"].new_zeros(node_mask.size(0), 1), tensors["head_indices"]], dim=1)
    inputs = (initial_scores, encoded, final_state, node_mask, heads_to_adjacency(gold_heads, node_mask))

    # with the policy read at every step (the fallback computed, as every roll-in did before)
    model.roll_in.reads_policy = True
    torch.manual_seed(3)
    with torch.no_grad():
        expected = model.tree_phase.run_roll_in(*inputs)
    del model.roll_in.reads_policy

    def no_scores(*args, **kwargs):
        raise AssertionError("a roll-in that reads no policy computed the step scores")

    monkeypatch.setattr(RecurrentWeight, "scores_by_step", no_scores)
    torch.manual_seed(3)
    with torch.no_grad():
        actual = model.tree_phase.run_roll_in(*inputs)
    # several steps, and sentences that finish before the batch does (inactive steps)
    assert expected[1].size(1) > 3 and not bool(expected[3].all())
    for expected_part, actual_part in zip(expected, actual):
        # the graph phase's parts are None without a gold graph
        assert (expected_part is None and actual_part is None) or torch.equal(expected_part, actual_part)
    assert expected.adjacency is None and expected.graph_state is None
    # every edge the roll-in added is a gold edge
    dependents, heads, added = actual[2], actual[1], actual[3]
    assert torch.equal(gold_heads.gather(1, dependents)[added], heads[added])


@pytest.mark.parametrize("policy_support", ["valid", "all"])
def test_loss_by_hand_on_a_two_word_sentence(policy_support, batch_and_vocab):
    """
    Root, w1, w2; gold w2 <- root, w1 <- w2. With the untrained recurrent update (zero) every S_t is S_0.
    The linearized oracle and roll-in take the gold edges in (head, dependent) order: (0, 2), then (2, 1).
    """
    import math

    _, vocab = batch_and_vocab
    model = Model.from_params(vocab=vocab, params=Params.from_file(str(CONFIGS / "linearized.jsonnet"))["model"])
    model.eval()
    model.tree_phase.policy_support = policy_support
    scores = [[0.3, 1.0, 2.0], [0.7, -0.4, 0.5], [-1.0, 1.5, 0.2]]  # [head][dependent]
    initial_scores = torch.tensor([scores])
    encoded = torch.randn(1, 3, model.recurrent_weight.edge_projection.in_features)
    final_state = torch.randn(1, encoded.size(-1))
    node_mask = torch.ones(1, 3, dtype=torch.bool)
    gold_heads = torch.tensor([[0, 2, 0]])

    def kl(target, support):
        # -log p(target) with p a softmax over the supported (head, dependent) pairs
        return -(scores[target[0]][target[1]] - math.log(sum(math.exp(scores[h][d]) for h, d in support)))

    every_pair = [(h, d) for h in range(3) for d in range(3)]
    if policy_support == "valid":
        # state 1: no head anywhere; no edge into the root, no self-loop
        first = [(0, 1), (0, 2), (1, 2), (2, 1)]
        # state 2: w2 has its head and the root its one child: only 2 -> 1 is left
        second = [(2, 1)]
    else:
        first = second = every_pair
    expected = (kl((0, 2), first) + kl((2, 1), second)) / 2
    loss = model.tree_phase.loss(initial_scores, encoded, final_state, node_mask, gold_heads)
    assert loss.item() == pytest.approx(expected, rel=1e-5)


ORACLE_ROLL_IN_PAIRS = [(oracle, roll_in) for oracle in ("uniform", "coaching", "annealed_coaching")
                        for roll_in in ("uniform", "coaching", "valid_policy")]


def eval_kl_and_sequential_kl(model, tensors):
    """The batched loss and `sequential_loss` on the fixture batch in eval mode (the coins seeded alike)."""
    model.eval()
    with torch.no_grad():
        initial_scores, encoded, final_state, node_mask = model.encode(tensors["words"], None)
        gold_heads = torch.cat([tensors["head_indices"].new_zeros(node_mask.size(0), 1), tensors["head_indices"]], dim=1)
        inputs = (initial_scores, encoded, final_state, node_mask, gold_heads)
        return model.tree_phase.loss(*inputs).item(), sequential_loss(model, *inputs).item()


@pytest.mark.parametrize("oracle,roll_in", ORACLE_ROLL_IN_PAIRS + [("linearized", "linearized")])
def test_every_oracle_and_roll_in_pair_computes_the_loss_and_training_lowers_it(oracle, roll_in, batch_and_vocab):
    # each pair's loss is the state-by-state algorithm's, and 15 Adam steps on the fixture batch lower it
    # by a fifth or more (about a third to a half in practice): a loss of the wrong sign or target does not
    tensors, vocab = batch_and_vocab
    if oracle == "linearized":
        params = Params.from_file(str(CONFIGS / "linearized.jsonnet"))
    else:
        params = Params.from_file(str(CONFIGS / "oracle_rollin.jsonnet"), ext_vars={"ORACLE": oracle, "ROLL_IN": roll_in})
    torch.manual_seed(0)
    model = Model.from_params(vocab=vocab, params=params["model"])
    assert type(model.oracle).__name__.lower().startswith(oracle.replace("_", ""))
    assert type(model.roll_in).__name__.lower().startswith(roll_in.replace("_", ""))
    if getattr(model.oracle, "follows_run_length", False):
        model.oracle.set_total_updates(30)
    before, expected = eval_kl_and_sequential_kl(model, tensors)
    assert before == pytest.approx(expected, rel=1e-5)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(15):
        model.train()
        optimizer.zero_grad()
        model(**tensors)["loss"].backward()
        optimizer.step()
    # trained, the recurrent update is no longer zero: the steps' scores differ, and the loss is still
    # the sequential algorithm's
    assert model.recurrent_weight.attention._weight_matrix.abs().sum() > 0
    after, expected = eval_kl_and_sequential_kl(model, tensors)
    assert after == pytest.approx(expected, rel=1e-5)
    assert after < 0.8 * before


def test_head_selection_loss_is_the_per_word_cross_entropy(batch_and_vocab):
    tensors, vocab = batch_and_vocab
    params = Params.from_file(str(ROOT / "fixtures" / "configs" / "coach_valid.jsonnet"))
    torch.manual_seed(0)
    model = Model.from_params(vocab=vocab, params=params["model"])
    model.eval()
    assert model.head_selection_weight == 1.0
    with torch.no_grad():
        output = model(**tensors)
        initial_scores, _, _, node_mask = model.encode(tensors["words"], None)
    gold = torch.cat([tensors["head_indices"].new_zeros(node_mask.size(0), 1), tensors["head_indices"]], dim=1)
    # reference: a Python loop over sentences and words, softmax over the other real nodes
    total, count = 0.0, 0
    for sentence in range(node_mask.size(0)):
        length = int(node_mask[sentence].sum())
        for dependent in range(1, length):
            candidates = [head for head in range(length) if head != dependent]
            column = initial_scores[sentence, candidates, dependent]
            log_probs = torch.log_softmax(column, dim=0)
            total -= float(log_probs[candidates.index(int(gold[sentence, dependent]))])
            count += 1
    assert float(output["head_selection_loss"]) == pytest.approx(total / count, rel=1e-4)
    assert "head_nll" in model.get_metrics()
    # the weight scales that term alone: the loss grows by weight x the hand-computed value (eval mode: the
    # roll-in's coins come from a fixed seed, so the other terms repeat exactly)
    losses = {}
    for weight in (0.0, 2.5):
        model.head_selection_weight = weight
        with torch.no_grad():
            losses[weight] = float(model(**tensors)["loss"])
    assert losses[2.5] - losses[0.0] == pytest.approx(2.5 * total / count, rel=1e-4)


@pytest.mark.parametrize("name", ["coach_valid", "linearized"])
def test_two_pass_loss_with_dropout_equals_the_sequential_algorithm_on_the_same_dropped_network(
    name, batch_and_vocab, monkeypatch
):
    """
    The fixtures set every dropout to 0. With dropout in training, the roll-in (first pass) and the
    scores of its states (second pass) must read the same dropped network: the loss of a training
    forward pass is that of the state-by-state algorithm on the encoding the pass drew, in value and
    gradient. A pass that drew new masks would roll in on one network and score another.
    """
    from seqgraph_allennlp.models.seqgraph.tree_phase import TreePhase
    from seqgraph_allennlp.models.seqgraph_parser import SeqGraphParser

    tensors, vocab = batch_and_vocab
    dropouts = {"model.dropout": 0.33, "model.input_dropout": 0.33, "model.encoder.layer_dropout": 0.33,
                "model.encoder.recurrent_dropout": 0.25}
    torch.manual_seed(0)
    params = Params.from_file(str(CONFIGS / f"{name}.jsonnet"), json.dumps(dropouts))
    model = Model.from_params(vocab=vocab, params=params["model"])
    if name == "coach_valid":
        # no coin: the greedy valid policy alone is deterministic, in training as in the sequential version
        model.roll_in.beta = 0.0
    with torch.no_grad():
        model.recurrent_weight.attention._weight_matrix.normal_(0.0, 1.0)
    # what the training pass encoded (with its dropout masks) and the loss it computed from that
    captured = {}
    encode, loss_of = SeqGraphParser.encode, TreePhase.loss

    def spy_encode(self, *args):
        captured["encoded"] = encode(self, *args)
        return captured["encoded"]

    def spy_loss(self, *args):
        captured["loss"] = loss_of(self, *args)
        return captured["loss"]

    monkeypatch.setattr(SeqGraphParser, "encode", spy_encode)
    monkeypatch.setattr(TreePhase, "loss", spy_loss)
    model.train()
    model(**tensors)
    batched = captured["loss"]
    initial_scores, encoded, final_state, node_mask = captured["encoded"]
    gold_heads = torch.cat([tensors["head_indices"].new_zeros(node_mask.size(0), 1), tensors["head_indices"]], dim=1)
    expected = sequential_loss(model, initial_scores, encoded, final_state, node_mask, gold_heads)
    assert batched.item() == pytest.approx(expected.item(), rel=1e-5)
    parameters = [p for p in model.parameters() if p.requires_grad]
    batched_gradients = torch.autograd.grad(batched, parameters, retain_graph=True, allow_unused=True)
    expected_gradients = torch.autograd.grad(expected, parameters, allow_unused=True)
    assert compared_gradients(expected_gradients, batched_gradients) > 5
    # the dropout is real: another training pass draws other masks, and so another loss
    model(**tensors)
    assert captured["loss"].item() != pytest.approx(batched.item(), rel=1e-3)
