"""
Roll-in policies (Section 3.3) on the 4-word example of test_oracles.py, plus a property test on random
states.

V = 5 nodes (0 = root), flattened edge index = head * 5 + dependent.
Gold tree: heads [_, 2, 0, 2, 3]: 0 -> 2 (index 2), 2 -> 1 (11), 2 -> 3 (13), 3 -> 4 (19).
"""
import math
from typing import Dict, Iterable, List, Tuple

import pytest
import torch
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError
from hypothesis import given, settings
from hypothesis import strategies as st

from seqgraph_allennlp.oracles import free_edges
from seqgraph_allennlp.roll_ins import RollIn
from seqgraph_allennlp.roll_ins.coaching import CoachingRollIn
from seqgraph_allennlp.roll_ins.linearized import LinearizedRollIn
from seqgraph_allennlp.roll_ins.uniform import UniformRollIn
from seqgraph_allennlp.roll_ins.valid_policy import ValidPolicyRollIn
from seqgraph_allennlp.structs.tree import add_edge, edge_log_probs, transitive_closure, valid_mask

V = 5
GOLD_EDGES = [(0, 2), (2, 1), (2, 3), (3, 4)]
DRAWS = 2000


pytestmark = pytest.mark.usefixtures("single_thread")


# The policy (probabilities over the 25 flattened edges):
#   index  1 (0 -> 1): 0.300    index  9 (1 -> 4): 0.200    index 13 (2 -> 3): 0.150
#   index 23 (4 -> 3): 0.100    index 19 (3 -> 4): 0.090    index  2 (0 -> 2): 0.064
#   index 11 (2 -> 1): 0.060    the other 18 edges: 0.002 each           (total 1.000)
NAMED_PROBABILITIES = {1: 0.300, 9: 0.200, 13: 0.150, 23: 0.100, 19: 0.090, 2: 0.064, 11: 0.060}
OTHER_PROBABILITY = 0.002


def policy_log_probs(batch_size: int = 1) -> torch.Tensor:
    probabilities = torch.full((V * V,), OTHER_PROBABILITY, dtype=torch.float64)
    for flat, probability in NAMED_PROBABILITIES.items():
        probabilities[flat] = probability
    assert float(probabilities.sum()) == pytest.approx(1.0, abs=1e-12)
    return probabilities.log().float().unsqueeze(0).expand(batch_size, -1).clone()


def state(
    edges_so_far: Iterable[Tuple[int, int]], batch_size: int = 1
) -> Tuple[torch.BoolTensor, torch.BoolTensor]:
    """(free, valid), each `(batch_size, V, V)`: `batch_size` copies of the state after `edges_so_far`."""
    adjacency = torch.zeros(batch_size, V, V, dtype=torch.bool)
    gold = torch.zeros(batch_size, V, V, dtype=torch.bool)
    for head, dependent in edges_so_far:
        adjacency[:, head, dependent] = True
    for head, dependent in GOLD_EDGES:
        gold[:, head, dependent] = True
    valid = valid_mask(adjacency, transitive_closure(adjacency), torch.ones(batch_size, V, dtype=torch.bool))
    return free_edges(gold, valid), valid


def draw(roll_in: RollIn, edges_so_far, batch_size: int = DRAWS, seed: int = 0, **kwargs) -> torch.LongTensor:
    free, valid = state(edges_so_far, batch_size)
    generator = torch.Generator().manual_seed(seed)
    choice = roll_in(free, valid, policy_log_probs(batch_size), generator=generator, **kwargs)
    assert choice.shape == (batch_size,) and choice.dtype == torch.long
    return choice


def assert_frequencies(choices: torch.LongTensor, expected: Dict[int, float]):
    """
    Every index with expected probability 0 never drawn; the others within 5 standard deviations of the
    binomial count (plus 1 for the discreteness).
    """
    assert sum(expected.values()) == pytest.approx(1.0, abs=1e-6)
    draws = choices.numel()
    counts = torch.bincount(choices, minlength=V * V).tolist()
    for flat in range(V * V):
        probability = expected.get(flat, 0.0)
        if probability == 0.0:
            assert counts[flat] == 0, (flat, counts)
        else:
            mean = draws * probability
            sigma = math.sqrt(draws * probability * (1 - probability))
            assert abs(counts[flat] - mean) <= 5 * sigma + 1, (flat, counts[flat], mean, sigma)


EMPTY = []  # on gold: free {2, 11, 13, 19}
STATE_A = [(0, 2)]  # on gold: free {11, 13, 19}; valid: h -> d, h in 1..4, d in {1, 3, 4}, h != d
STATE_B = [(0, 2), (4, 3)]  # off gold: free {11}; valid {9, 11, 14, 16, 21}
STATE_C = [(1, 2)]  # off gold: free {13, 19}; the root is not taken, so 0 -> 1 (index 1) is valid
STATE_F = [(0, 1), (1, 2), (4, 3)]  # off gold: free {}, valid {9 (1 -> 4), 14 (2 -> 4)}


def test_states_by_hand():
    free, valid = state(STATE_A)
    assert free.reshape(-1).nonzero().reshape(-1).tolist() == [11, 13, 19]
    assert valid.reshape(-1).nonzero().reshape(-1).tolist() == [8, 9, 11, 13, 14, 16, 19, 21, 23]
    free, valid = state(STATE_B)
    assert free.reshape(-1).nonzero().reshape(-1).tolist() == [11]
    assert valid.reshape(-1).nonzero().reshape(-1).tolist() == [9, 11, 14, 16, 21]
    free, valid = state(STATE_C)
    assert free.reshape(-1).nonzero().reshape(-1).tolist() == [13, 19]
    assert bool(valid[0, 0, 1])
    free, valid = state(STATE_F)
    assert not free.any()
    assert valid.reshape(-1).nonzero().reshape(-1).tolist() == [9, 14]


# ---------------------------------------------------------------------------------------------------------
# uniform
# ---------------------------------------------------------------------------------------------------------


def test_uniform_roll_in_frequencies():
    # each free edge with probability 1 / |free|, nothing else ever
    assert_frequencies(draw(UniformRollIn(), STATE_A), {11: 1 / 3, 13: 1 / 3, 19: 1 / 3})
    assert_frequencies(draw(UniformRollIn(), EMPTY, seed=1), {2: 0.25, 11: 0.25, 13: 0.25, 19: 0.25})
    assert (draw(UniformRollIn(), STATE_B, batch_size=50) == 11).all()


def test_sample_free_edge_draws_only_free_edges_and_0_where_none_is_free():
    from seqgraph_allennlp.roll_ins.roll_in import sample_free_edge

    free, _ = state(STATE_A, batch_size=3)
    free[1] = False
    choices = sample_free_edge(free.reshape(3, -1), torch.Generator().manual_seed(0)).tolist()
    assert choices[0] in (11, 13, 19) and choices[2] in (11, 13, 19)
    assert choices[1] == 0


def test_uniform_roll_in_is_reproducible_with_a_generator():
    first = draw(UniformRollIn(), EMPTY, batch_size=200, seed=5)
    second = draw(UniformRollIn(), EMPTY, batch_size=200, seed=5)
    third = draw(UniformRollIn(), EMPTY, batch_size=200, seed=6)
    assert torch.equal(first, second)
    assert not torch.equal(first, third)


# ---------------------------------------------------------------------------------------------------------
# coaching
# ---------------------------------------------------------------------------------------------------------


def test_coaching_greedy_beta_0_is_the_policy_argmax_over_free_edges():
    roll_in = CoachingRollIn(beta=0.0, greedy=True)
    # state A: free policy 11: 0.06, 13: 0.15, 19: 0.09 -> 13 (the overall best, 1 and 9, are not free)
    assert (draw(roll_in, STATE_A, batch_size=100) == 13).all()
    # empty: free 2: 0.064, 11: 0.06, 13: 0.15, 19: 0.09 -> 13
    assert (draw(roll_in, EMPTY, batch_size=100) == 13).all()
    # state B: only 11 is free, though 9 is the best valid edge
    assert (draw(roll_in, STATE_B, batch_size=100) == 11).all()


def test_coaching_beta_1_is_uniform():
    roll_in = CoachingRollIn(beta=1.0, greedy=True)
    assert_frequencies(draw(roll_in, STATE_A, seed=2), {11: 1 / 3, 13: 1 / 3, 19: 1 / 3})


def test_coaching_greedy_beta_half_mixes_uniform_and_argmax():
    # P(13) = 0.5 + 0.5 / 3 = 2/3, P(11) = P(19) = 0.5 / 3 = 1/6
    roll_in = CoachingRollIn(beta=0.5, greedy=True)
    assert_frequencies(draw(roll_in, STATE_A, seed=3), {11: 1 / 6, 13: 2 / 3, 19: 1 / 6})


def test_coaching_sampling_matches_renormalised_policy():
    # beta = 0: the policy renormalised over the free edges, 0.06 / 0.3, 0.15 / 0.3, 0.09 / 0.3
    roll_in = CoachingRollIn(beta=0.0, greedy=False)
    assert_frequencies(draw(roll_in, STATE_A, seed=4), {11: 0.2, 13: 0.5, 19: 0.3})
    # beta = 0.5: 0.5/3 + 0.5 * [0.2, 0.5, 0.3] = [0.266667, 0.416667, 0.316667], the coaching oracle's target
    roll_in = CoachingRollIn(beta=0.5, greedy=False)
    assert_frequencies(draw(roll_in, STATE_A, seed=5), {11: 0.8 / 3, 13: 1.25 / 3, 19: 0.95 / 3})


# ---------------------------------------------------------------------------------------------------------
# valid policy
# ---------------------------------------------------------------------------------------------------------


def test_valid_policy_greedy_beta_0_takes_the_best_valid_edge_even_if_not_gold():
    roll_in = ValidPolicyRollIn(beta=0.0, greedy=True)
    # state A: the best edge overall, 0 -> 1 (index 1, 0.3), is invalid (the root has its child); the best
    # valid one is 1 -> 4 (index 9, 0.2), which is not gold
    assert (draw(roll_in, STATE_A, batch_size=100) == 9).all()
    # state C: the root is still free, so 0 -> 1 (index 1), not gold, is valid and the best
    assert (draw(roll_in, STATE_C, batch_size=100) == 1).all()
    # state B: valid {9, 11, 14, 16, 21} -> 9
    assert (draw(roll_in, STATE_B, batch_size=100) == 9).all()


def test_valid_policy_sampling_matches_renormalised_policy():
    # state A, valid {8, 9, 11, 13, 14, 16, 19, 21, 23} with policy
    #   9: 0.2, 13: 0.15, 23: 0.1, 19: 0.09, 11: 0.06, 8 / 14 / 16 / 21: 0.002 each; total 0.608
    roll_in = ValidPolicyRollIn(beta=0.0, greedy=False)
    expected = {9: 0.2 / 0.608, 13: 0.15 / 0.608, 23: 0.1 / 0.608, 19: 0.09 / 0.608, 11: 0.06 / 0.608}
    expected.update({flat: 0.002 / 0.608 for flat in (8, 14, 16, 21)})
    assert_frequencies(draw(roll_in, STATE_A, batch_size=4000, seed=6), expected)


def test_valid_policy_greedy_beta_half():
    # with probability 1/2 a uniform FREE edge (11, 13, 19), else the best valid edge 9:
    #   P(9) = 0.5, P(11) = P(13) = P(19) = 1/6
    roll_in = ValidPolicyRollIn(beta=0.5, greedy=True)
    assert_frequencies(draw(roll_in, STATE_A, seed=7), {9: 0.5, 11: 1 / 6, 13: 1 / 6, 19: 1 / 6})


# ---------------------------------------------------------------------------------------------------------
# linearized
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "edges, expected", [(EMPTY, 2), (STATE_A, 11), (STATE_B, 11), (STATE_C, 13), (STATE_F, 9)]
)
def test_linearized_returns_smallest_free_index(edges, expected):
    # (state F has no free edge: the fallback, the best valid edge 9)
    assert (draw(LinearizedRollIn(), edges, batch_size=10) == expected).all()


def test_linearized_roll_in_follows_increasing_index_order():
    adjacency = torch.zeros(1, V, V, dtype=torch.bool)
    reachability = torch.zeros_like(adjacency)
    gold = torch.zeros(1, V, V, dtype=torch.bool)
    for head, dependent in GOLD_EDGES:
        gold[0, head, dependent] = True
    order = []
    for _ in range(4):
        valid = valid_mask(adjacency, reachability, torch.ones(1, V, dtype=torch.bool))
        choice = LinearizedRollIn()(free_edges(gold, valid), valid, policy_log_probs())
        order.append(int(choice))
        adjacency, reachability = add_edge(
            adjacency, reachability, choice // V, choice % V, torch.tensor([True])
        )
    assert order == [2, 11, 13, 19]


# ---------------------------------------------------------------------------------------------------------
# fallback and follow_oracle_beta
# ---------------------------------------------------------------------------------------------------------


ALL_ROLL_INS = [
    UniformRollIn(),
    CoachingRollIn(beta=0.0, greedy=True),
    CoachingRollIn(beta=1.0, greedy=False),
    CoachingRollIn(beta=0.5, greedy=False),
    ValidPolicyRollIn(beta=0.0, greedy=True),
    ValidPolicyRollIn(beta=0.5, greedy=False),
    LinearizedRollIn(),
]


@pytest.mark.parametrize("roll_in", ALL_ROLL_INS, ids=lambda r: f"{type(r).__name__}-{vars(r)}")
def test_fallback_without_free_edges_is_the_best_valid_edge(roll_in):
    # state F: nothing free; valid {9 (0.2), 14 (0.002)}; the best edge overall (1, 0.3) is invalid
    assert (draw(roll_in, STATE_F, batch_size=200, seed=8) == 9).all()


def test_fallback_only_for_rows_without_free_edges():
    # a batch mixing state A (free) and state F (none): uniform draws in A, fallback 9 in F
    free_a, valid_a = state(STATE_A, 500)
    free_f, valid_f = state(STATE_F, 500)
    free = torch.cat([free_a, free_f])
    valid = torch.cat([valid_a, valid_f])
    choice = UniformRollIn()(free, valid, policy_log_probs(1000), generator=torch.Generator().manual_seed(9))
    assert (choice[500:] == 9).all()
    assert set(choice[:500].tolist()) == {11, 13, 19}


@pytest.mark.parametrize("cls", [CoachingRollIn, ValidPolicyRollIn])
def test_follow_oracle_beta(cls):
    # configured beta is ignored: oracle beta 1 -> uniform over free edges
    roll_in = cls(beta=0.0, greedy=True, follow_oracle_beta=True)
    assert_frequencies(draw(roll_in, STATE_A, seed=10, oracle_beta=1.0), {11: 1 / 3, 13: 1 / 3, 19: 1 / 3})
    # oracle beta 0 -> the policy's argmax (13 over free edges, 9 over valid edges); the configured beta = 1
    # is ignored
    roll_in = cls(beta=1.0, greedy=True, follow_oracle_beta=True)
    expected = 13 if cls is CoachingRollIn else 9
    assert (draw(roll_in, STATE_A, batch_size=200, oracle_beta=0.0) == expected).all()
    with pytest.raises(ConfigurationError):
        draw(roll_in, STATE_A, batch_size=2)
    with pytest.raises(ConfigurationError):
        draw(roll_in, STATE_A, batch_size=2, oracle_beta=None)


def test_oracle_beta_ignored_without_follow_oracle_beta():
    roll_in = CoachingRollIn(beta=0.0, greedy=True)
    assert (draw(roll_in, STATE_A, batch_size=200, oracle_beta=1.0) == 13).all()


# ---------------------------------------------------------------------------------------------------------
# random states: every roll-in returns a valid edge; a free one whenever one exists (except valid_policy)
# ---------------------------------------------------------------------------------------------------------


def random_tree_heads(generator: torch.Generator, num_words: int) -> List[int]:
    """A random single-rooted tree: words in random order, the first under the root, each later one under
    a random earlier word."""
    order = (torch.randperm(num_words, generator=generator) + 1).tolist()
    heads = [0] * (num_words + 1)
    for position, word in enumerate(order[1:], start=1):
        heads[word] = order[int(torch.randint(position, (1,), generator=generator))]
    return heads


def py_keeps_tree(heads: Dict[int, int], head: int, dependent: int, num_words: int) -> bool:
    """Independent check that head -> dependent keeps a single-rooted partial tree."""
    if not (0 <= head <= num_words and 1 <= dependent <= num_words) or dependent in heads:
        return False
    if head == 0 and 0 in heads.values():
        return False
    node = head
    while node in heads:  # walk up from the head: reaching the dependent closes a cycle
        if node == dependent:
            return False
        node = heads[node]
    return node != dependent


ROLL_IN_CONFIGS = [
    ("uniform", {}),
    ("coaching", {"beta": 0.0}),
    ("coaching", {"beta": 0.5, "greedy": False}),
    ("coaching", {"beta": 0.0, "greedy": False}),
    ("valid_policy", {"beta": 0.0}),
    ("valid_policy", {"beta": 0.3, "greedy": False}),
    ("linearized", {}),
]


@settings(max_examples=80, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 15), min_size=1, max_size=4),
    seed=st.integers(0, 2**31 - 1),
    wrong_rate=st.sampled_from([0.0, 0.3, 1.0]),
    config=st.sampled_from(ROLL_IN_CONFIGS),
)
def test_roll_ins_return_valid_edges_on_random_trajectories(lengths, seed, wrong_rate, config):
    name, params = config
    roll_in = RollIn.from_params(Params({"type": name, **params}))
    generator = torch.Generator().manual_seed(seed)
    batch_size, num_nodes = len(lengths), max(lengths) + 1
    node_mask = torch.zeros(batch_size, num_nodes, dtype=torch.bool)
    gold = torch.zeros(batch_size, num_nodes, num_nodes, dtype=torch.bool)
    gold_heads = []
    for b, length in enumerate(lengths):
        node_mask[b, : length + 1] = True
        heads = random_tree_heads(generator, length)
        gold_heads.append(heads)
        for dependent in range(1, length + 1):
            gold[b, heads[dependent], dependent] = True
    adjacency = torch.zeros(batch_size, num_nodes, num_nodes, dtype=torch.bool)
    reachability = torch.zeros_like(adjacency)
    built: List[Dict[int, int]] = [{} for _ in lengths]
    for _ in range(max(lengths)):
        valid = valid_mask(adjacency, reachability, node_mask)
        free = free_edges(gold, valid)
        scores = torch.randn(batch_size, num_nodes, num_nodes, generator=generator) * 3
        log_probs = edge_log_probs(scores, node_mask)
        choice = roll_in(free, valid, log_probs, oracle_beta=None, generator=generator)
        # sometimes replace the roll-in's edge by a random valid one, to reach off-gold states
        detour = (torch.rand(batch_size, generator=generator) < wrong_rate).tolist()
        active = []
        for b, length in enumerate(lengths):
            if len(built[b]) == length:
                active.append(False)
                continue
            active.append(True)
            flat = int(choice[b])
            head, dependent = divmod(flat, num_nodes)
            assert py_keeps_tree(built[b], head, dependent, length), (b, head, dependent, built[b])
            assert bool(valid[b, head, dependent])
            if free[b].any():
                if name != "valid_policy":
                    assert bool(free[b, head, dependent])
            else:
                # fallback: the policy's best valid edge
                assert flat == int(log_probs[b].masked_fill(~valid[b].reshape(-1), float("-inf")).argmax())
            if name == "valid_policy" and params == {"beta": 0.0}:
                assert flat == int(log_probs[b].masked_fill(~valid[b].reshape(-1), float("-inf")).argmax())
            if detour[b]:
                options = valid[b].reshape(-1).nonzero().reshape(-1)
                flat = int(options[int(torch.randint(len(options), (1,), generator=generator))])
                head, dependent = divmod(flat, num_nodes)
            built[b][dependent] = head
            choice[b] = flat
        head_index, dependent_index = choice // num_nodes, choice % num_nodes
        adjacency, reachability = add_edge(
            adjacency, reachability, head_index, dependent_index, torch.tensor(active)
        )
    for b, length in enumerate(lengths):
        # the roll-in completed a tree; without detours, roll-ins that follow free edges rebuild the gold tree
        assert len(built[b]) == length
        if wrong_rate == 0.0 and name != "valid_policy":
            assert all(built[b][d] == gold_heads[b][d] for d in range(1, length + 1))


# ---------------------------------------------------------------------------------------------------------
# construction from params
# ---------------------------------------------------------------------------------------------------------


def test_roll_in_from_params():
    roll_in = RollIn.from_params(Params({"type": "uniform"}))
    assert type(roll_in) is UniformRollIn
    assert type(RollIn.from_params(Params({}))) is UniformRollIn  # default implementation
    roll_in = RollIn.from_params(Params({"type": "coaching"}))
    assert type(roll_in) is CoachingRollIn
    assert (roll_in.beta, roll_in.greedy, roll_in.follow_oracle_beta) == (0.5, True, False)
    roll_in = RollIn.from_params(
        Params({"type": "coaching", "beta": 0.3, "greedy": False, "follow_oracle_beta": True})
    )
    assert (roll_in.beta, roll_in.greedy, roll_in.follow_oracle_beta) == (0.3, False, True)
    roll_in = RollIn.from_params(Params({"type": "valid_policy", "beta": 0.0}))
    assert type(roll_in) is ValidPolicyRollIn
    assert (roll_in.beta, roll_in.greedy, roll_in.follow_oracle_beta) == (0.0, True, False)
    assert type(RollIn.from_params(Params({"type": "linearized"}))) is LinearizedRollIn
    assert set(RollIn.list_available()) >= {"uniform", "coaching", "valid_policy", "linearized"}


@pytest.mark.parametrize("name", ["coaching", "valid_policy"])
@pytest.mark.parametrize("beta", [-0.5, 1.5])
def test_roll_in_bad_beta(name, beta):
    with pytest.raises(ConfigurationError):
        RollIn.from_params(Params({"type": name, "beta": beta}))
