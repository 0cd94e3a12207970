"""
Property tests of `seqgraph_allennlp.structs.tree` against independent pure-Python references.

Conventions (see the module): V = N + 1 nodes, node 0 is the root, matrices are `[head, dependent]`, the
flattened edge index is `head * V + dependent`, `node_mask` is True on the root and the words.
"""
import itertools
import math
from typing import Dict, List, Optional, Sequence, Set, Tuple

import numpy
import pytest
import torch
from allennlp.nn.chu_liu_edmonds import decode_mst
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from seqgraph_allennlp.structs.tree import (
    TreeState,
    add_edge,
    edge_log_probs,
    greedy_valid_decode,
    heads_to_adjacency,
    is_tree,
    mst_decode,
    single_root_mst,
    pair_mask,
    state_gold_log_probs,
    transitive_closure,
    valid_mask,
)

MAX_WORDS = 40


pytestmark = pytest.mark.usefixtures("single_thread")


TAUS = [None, 0.0, 0.02, 0.1, 0.3, 0.9]

# ---------------------------------------------------------------------------------------------------------
# Independent pure-Python references (they use no function of the module under test).
# ---------------------------------------------------------------------------------------------------------


def py_is_tree(heads: Sequence[int], num_words: int, single_root: bool) -> bool:
    """
    `heads[d]` for d in 1..num_words (entry 0 ignored): each head a real node other than the word itself,
    every word reaches the root by following heads without revisiting a node; with `single_root` exactly one
    word hangs from the root.
    """
    for dependent in range(1, num_words + 1):
        head = heads[dependent]
        if not 0 <= head <= num_words or head == dependent:
            return False
    for dependent in range(1, num_words + 1):
        seen = {dependent}
        node = dependent
        while node != 0:
            node = heads[node]
            if node in seen:
                return False
            seen.add(node)
    if single_root and num_words > 0:
        return sum(1 for d in range(1, num_words + 1) if heads[d] == 0) == 1
    return True


def py_closure(edges: Set[Tuple[int, int]], num_nodes: int) -> List[List[bool]]:
    """`reach[a][b]`: a path of length >= 1 from a to b, by a depth-first search from each node."""
    children: Dict[int, List[int]] = {node: [] for node in range(num_nodes)}
    for head, dependent in edges:
        children[head].append(dependent)
    reach = [[False] * num_nodes for _ in range(num_nodes)]
    for start in range(num_nodes):
        stack = list(children[start])
        while stack:
            node = stack.pop()
            if reach[start][node]:
                continue
            reach[start][node] = True
            stack.extend(children[node])
    return reach


def py_has_cycle_single_heads(heads: Dict[int, int]) -> bool:
    """Cycle test for a graph where every node has at most one head (`heads[dependent] = head`)."""
    for start in heads:
        node, steps = start, 0
        while node in heads:
            node = heads[node]
            steps += 1
            if node == start or steps > len(heads):
                return True
    return False


def py_edge_keeps_tree(
    edges: Set[Tuple[int, int]], head: int, dependent: int, num_words: int, single_root: bool
) -> bool:
    """
    Brute force: the partial graph plus `head -> dependent` is still a forest hanging towards the root: both
    ends are real nodes, the root gets no head, no word gets a second head (nor a duplicate edge), no cycle
    (a self-loop is one: checked by walking up the heads of the new graph), and with `single_root` the root
    has at most one child.
    """
    num_nodes = num_words + 1
    if not (0 <= head < num_nodes and 0 <= dependent < num_nodes):
        return False
    if dependent == 0:
        return False
    heads = {d: h for h, d in edges}
    if dependent in heads:
        return False
    heads[dependent] = head
    if py_has_cycle_single_heads(heads):
        return False
    if single_root and sum(1 for h in heads.values() if h == 0) > 1:
        return False
    return True


def py_random_valid_edges(
    rng: torch.Generator, num_words: int, count: int, single_root: bool
) -> List[Tuple[int, int]]:
    """A sequence of `count` edges, each drawn uniformly among those that keep a valid partial tree."""
    edges: Set[Tuple[int, int]] = set()
    sequence = []
    for _ in range(count):
        candidates = [
            (h, d)
            for h in range(num_words + 1)
            for d in range(num_words + 1)
            if py_edge_keeps_tree(edges, h, d, num_words, single_root)
        ]
        if not candidates:
            break
        edge = candidates[int(torch.randint(len(candidates), (1,), generator=rng))]
        edges.add(edge)
        sequence.append(edge)
    return sequence


def make_node_mask(lengths: Sequence[int]) -> torch.BoolTensor:
    num_nodes = max(lengths) + 1
    mask = torch.zeros(len(lengths), num_nodes, dtype=torch.bool)
    for index, length in enumerate(lengths):
        mask[index, : length + 1] = True
    return mask


def generator(seed: int) -> torch.Generator:
    rng = torch.Generator()
    rng.manual_seed(seed)
    return rng


lengths_strategy = st.lists(st.integers(1, MAX_WORDS), min_size=1, max_size=4)
small_lengths_strategy = st.lists(st.integers(1, 6), min_size=1, max_size=3)
seed_strategy = st.integers(0, 2**31 - 1)


class StepScores:
    """
    A score function returning a different random `(B, V, V)` matrix at each call, recording the
    `last_edges` argument of every call.
    """

    def __init__(self, rng: torch.Generator, batch_size: int, num_nodes: int, num_steps: int, scale: float):
        self.scores = [
            torch.randn(batch_size, num_nodes, num_nodes, generator=rng) * scale for _ in range(num_steps)
        ]
        self.received: List[Optional[torch.BoolTensor]] = []

    def __call__(self, last_edges: Optional[torch.BoolTensor]) -> torch.Tensor:
        self.received.append(None if last_edges is None else last_edges.clone())
        return self.scores[len(self.received) - 1]


# ---------------------------------------------------------------------------------------------------------
# Sanity of the references themselves (so that a broken reference cannot make the properties vacuous).
# ---------------------------------------------------------------------------------------------------------


def test_references_on_hand_examples():
    # heads [_, 2, 0, 2, 3]: 0 -> 2 -> {1, 3}, 3 -> 4
    assert py_is_tree([0, 2, 0, 2, 3], 4, single_root=True)
    assert not py_is_tree([0, 2, 1, 2, 3], 4, single_root=False)  # 1 <-> 2 cycle
    assert not py_is_tree([0, 0, 0, 2, 3], 4, single_root=True)  # two root children
    assert py_is_tree([0, 0, 0, 2, 3], 4, single_root=False)
    assert not py_is_tree([0, 1, 0], 2, single_root=False)  # self-loop
    assert not py_is_tree([0, 5, 0, 2, 3], 4, single_root=False)  # head out of range
    reach = py_closure({(0, 2), (2, 1), (2, 3), (3, 4)}, 5)
    assert [b for b in range(5) if reach[0][b]] == [1, 2, 3, 4]
    assert [b for b in range(5) if reach[2][b]] == [1, 3, 4]
    assert not any(reach[4])
    # state {0 -> 2}: 1 -> 2 is a second head, 0 -> 1 a second root child, 2 -> 2 a self-loop
    assert py_edge_keeps_tree({(0, 2)}, 2, 1, 4, True)
    assert not py_edge_keeps_tree({(0, 2)}, 1, 2, 4, True)
    assert not py_edge_keeps_tree({(0, 2)}, 0, 1, 4, True)
    assert py_edge_keeps_tree({(0, 2)}, 0, 1, 4, False)
    assert not py_edge_keeps_tree({(0, 2)}, 2, 2, 4, True)
    assert not py_edge_keeps_tree({(0, 2), (2, 3)}, 3, 2, 4, False)
    assert not py_edge_keeps_tree({(2, 3), (3, 4)}, 4, 2, 4, False)  # closes 2 -> 3 -> 4 -> 2


# ---------------------------------------------------------------------------------------------------------
# pair_mask, edge_log_probs, heads_to_adjacency
# ---------------------------------------------------------------------------------------------------------


def test_pair_mask_and_heads_to_adjacency_by_hand():
    node_mask = make_node_mask([2, 4])  # V = 5
    mask = pair_mask(node_mask)
    assert mask.shape == (2, 5, 5)
    assert mask[0, :3, :3].all() and not mask[0, 3:, :].any() and not mask[0, :, 3:].any()
    assert mask[1].all()
    heads = torch.tensor([[0, 2, 0, 4, 1], [0, 2, 0, 2, 3]])  # row 0 has garbage on its padding
    adjacency = heads_to_adjacency(heads, node_mask)
    assert sorted(map(tuple, adjacency[0].nonzero().tolist())) == [(0, 2), (2, 1)]
    assert sorted(map(tuple, adjacency[1].nonzero().tolist())) == [(0, 2), (2, 1), (2, 3), (3, 4)]


@settings(max_examples=25, deadline=None)
@given(lengths=lengths_strategy, seed=seed_strategy)
def test_edge_log_probs_normalised_and_independent_of_padding(lengths, seed):
    rng = generator(seed)
    node_mask = make_node_mask(lengths)
    batch_size, num_nodes = node_mask.shape
    scores = torch.randn(batch_size, num_nodes, num_nodes, generator=rng) * 3
    # padding scores are whatever a model puts there; make them huge so any leak shows
    scores = scores.masked_fill(~pair_mask(node_mask), 1e4)
    log_probs = edge_log_probs(scores, node_mask)
    assert log_probs.shape == (batch_size, num_nodes * num_nodes)
    probs = log_probs.exp().reshape(batch_size, num_nodes, num_nodes)
    assert torch.allclose(probs.sum(dim=(1, 2)), torch.ones(batch_size), atol=1e-5)
    assert (probs[~pair_mask(node_mask)] == 0).all()
    for index, length in enumerate(lengths):
        alone = torch.log_softmax(scores[index, : length + 1, : length + 1].reshape(-1), dim=-1)
        batched = log_probs[index].reshape(num_nodes, num_nodes)[: length + 1, : length + 1].reshape(-1)
        assert torch.allclose(alone, batched, atol=1e-4)


def test_edge_log_probs_with_empty_policy_support_is_finite():
    scores = torch.randn(2, 3, 3)
    node_mask = torch.ones(2, 3, dtype=torch.bool)
    policy_support = torch.zeros(2, 3, 3, dtype=torch.bool)
    policy_support[0, 0, 1] = True
    log_probs = edge_log_probs(scores, node_mask, policy_support)
    assert torch.isfinite(log_probs).all()
    assert log_probs[0, 1] == pytest.approx(0.0)
    # the second sentence has no supported edge (a complete tree): it falls back to all its edges
    assert torch.allclose(log_probs[1], edge_log_probs(scores, node_mask)[1])


def py_supported_entries(
    node_mask: torch.BoolTensor, gold_index: torch.LongTensor, support: Optional[torch.BoolTensor]
) -> torch.BoolTensor:
    """
    `(batch_size, T, K)`: whether each requested edge is in its state's policy support, by loops: an edge
    between real nodes, and with `support` one of the state's supported edges, or any edge between real
    nodes where the state supports none of them.
    """
    batch_size, num_states, num_gold = gold_index.shape
    num_nodes = node_mask.size(1)
    supported = torch.zeros(batch_size, num_states, num_gold, dtype=torch.bool)
    for sentence, state in itertools.product(range(batch_size), range(num_states)):
        nodes = [node for node in range(num_nodes) if node_mask[sentence, node]]
        edges = set(itertools.product(nodes, repeat=2))
        if support is not None:
            supported_edges = {tuple(edge) for edge in support[sentence, state].nonzero().tolist()} & edges
            edges = supported_edges or edges
        for entry in range(num_gold):
            supported[sentence, state, entry] = divmod(int(gold_index[sentence, state, entry]), num_nodes) in edges
    return supported


@settings(max_examples=25, deadline=None)
@given(lengths=lengths_strategy, seed=seed_strategy, use_support=st.booleans())
def test_state_gold_log_probs_and_gradient_equal_autograd_of_edge_log_probs(lengths, seed, use_support):
    # the loss's fused pass against the plain path: S_t summed step by step, the policy of each state from
    # `edge_log_probs`, autograd's gradient; on every entry: in the support the same value and gradient,
    # outside it `edge_log_probs`'s value (the smallest float) and no gradient (the reference detaches it)
    rng = generator(seed)
    node_mask = make_node_mask(lengths)
    batch_size, num_nodes = node_mask.shape
    num_states = 4
    updates = torch.randn(batch_size, num_states, num_nodes, num_nodes, generator=rng, dtype=torch.float64)
    updates.requires_grad_(True)
    gold_index = torch.randint(0, num_nodes * num_nodes, (batch_size, num_states, num_nodes), generator=rng)
    support = None
    if use_support:
        support = torch.rand(batch_size, num_states, num_nodes, num_nodes, generator=rng) > 0.5
        support[0, 1] = False  # a complete tree's state: falls back to all edges
    weights = torch.randn(batch_size, num_states, num_nodes, generator=rng, dtype=torch.float64)

    fused = state_gold_log_probs(updates, node_mask, gold_index, support)

    scores = torch.zeros_like(updates[:, 0])
    plain = []
    for state in range(num_states):
        scores = scores + updates[:, state]
        state_support = None if support is None else support[:, state]
        log_probs = edge_log_probs(scores, node_mask, state_support)
        plain.append(log_probs.gather(1, gold_index[:, state]))
    plain = torch.stack(plain, dim=1)
    supported = py_supported_entries(node_mask, gold_index, support)
    expected = torch.where(supported, plain, plain.detach())
    (expected_grad,) = torch.autograd.grad((expected * weights).sum(), updates)
    (fused_grad,) = torch.autograd.grad((fused * weights).sum(), updates)

    assert torch.allclose(fused[supported], plain[supported], atol=1e-10)
    assert torch.equal(fused[~supported], plain[~supported])
    assert (fused[~supported] == torch.finfo(torch.float64).min).all()
    assert torch.allclose(fused_grad, expected_grad, atol=1e-10)


def test_state_gold_log_probs_outside_the_support_by_hand():
    # two words, one state; the support is the edge 0 -> 1 alone: its log-probability is 0 whatever the
    # scores, and 2 -> 1 (gold, but outside the support) has none and must not pull on its score
    node_mask = torch.ones(1, 3, dtype=torch.bool)
    updates = torch.randn(1, 1, 3, 3, generator=generator(0)).requires_grad_(True)
    support = torch.zeros(1, 1, 3, 3, dtype=torch.bool)
    support[0, 0, 0, 1] = True
    gold_index = torch.tensor([[[0 * 3 + 1, 2 * 3 + 1]]])

    log_probs = state_gold_log_probs(updates, node_mask, gold_index, support)
    log_probs.sum().backward()

    assert log_probs[0, 0, 0].item() == pytest.approx(0.0, abs=1e-6)
    assert log_probs[0, 0, 1].item() == torch.finfo(torch.float32).min
    assert log_probs[0, 0, 1].item() == edge_log_probs(updates[:, 0], node_mask, support[:, 0])[0, 7].item()
    # log p(0 -> 1) = 0 is a constant, and the unsupported entry adds nothing
    assert torch.equal(updates.grad, torch.zeros_like(updates))


# ---------------------------------------------------------------------------------------------------------
# transitive_closure and add_edge
# ---------------------------------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(num_nodes=st.integers(1, 12), density=st.floats(0.0, 0.5), seed=seed_strategy)
def test_transitive_closure_equals_dfs_on_arbitrary_graphs(num_nodes, density, seed):
    rng = generator(seed)
    adjacency = torch.rand(1, num_nodes, num_nodes, generator=rng) < density  # cycles and self-loops allowed
    edges = {tuple(edge) for edge in adjacency[0].nonzero().tolist()}
    expected = torch.tensor(py_closure(edges, num_nodes), dtype=torch.bool)
    assert torch.equal(transitive_closure(adjacency)[0], expected)


def test_transitive_closure_long_chain_by_hand():
    # 0 -> 1 -> ... -> 9 -> 0: a path of length 10 = V back to every node
    adjacency = torch.zeros(1, 10, 10, dtype=torch.bool)
    for node in range(10):
        adjacency[0, node, (node + 1) % 10] = True
    assert transitive_closure(adjacency).all()
    adjacency[0, 9, 0] = False
    closure = transitive_closure(adjacency)[0]
    assert torch.equal(closure, torch.ones(10, 10, dtype=torch.bool).triu(diagonal=1))


@settings(max_examples=40, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 15), min_size=1, max_size=4),
    seed=seed_strategy,
    single_root=st.booleans(),
)
def test_add_edge_reachability_equals_closure(lengths, seed, single_root):
    rng = generator(seed)
    node_mask = make_node_mask(lengths)
    batch_size, num_nodes = node_mask.shape
    sequences = [py_random_valid_edges(rng, length, length, single_root) for length in lengths]
    adjacency = torch.zeros(batch_size, num_nodes, num_nodes, dtype=torch.bool)
    reachability = torch.zeros_like(adjacency)
    added: List[Set[Tuple[int, int]]] = [set() for _ in lengths]
    cursor = [0] * batch_size
    while any(cursor[b] < len(sequences[b]) for b in range(batch_size)):
        # some sentences sit a step out (random `active`, or finished); they must not change
        active = torch.tensor(
            [
                cursor[b] < len(sequences[b]) and bool(torch.rand(1, generator=rng) < 0.7)
                for b in range(batch_size)
            ]
        )
        head = torch.zeros(batch_size, dtype=torch.long)
        dependent = torch.zeros(batch_size, dtype=torch.long)
        for b in range(batch_size):
            if cursor[b] < len(sequences[b]):
                # inactive sentences get their next edge too: add_edge must ignore it
                head[b], dependent[b] = sequences[b][cursor[b]]
            else:
                head[b], dependent[b] = 1, 0  # garbage for a finished sentence
        old_adjacency, old_reachability = adjacency.clone(), reachability.clone()
        adjacency, reachability = add_edge(old_adjacency, old_reachability, head, dependent, active)
        for b in range(batch_size):
            if active[b]:
                added[b].add(sequences[b][cursor[b]])
                cursor[b] += 1
            else:
                assert torch.equal(adjacency[b], old_adjacency[b])
                assert torch.equal(reachability[b], old_reachability[b])
        assert torch.equal(reachability, transitive_closure(adjacency))
        for b in range(batch_size):
            expected_adjacency = torch.zeros(num_nodes, num_nodes, dtype=torch.bool)
            for h, d in added[b]:
                expected_adjacency[h, d] = True
            assert torch.equal(adjacency[b], expected_adjacency)
            expected_reach = torch.zeros(num_nodes, num_nodes, dtype=torch.bool)
            expected_reach[: lengths[b] + 1, : lengths[b] + 1] = torch.tensor(
                py_closure(added[b], lengths[b] + 1), dtype=torch.bool
            )
            assert torch.equal(reachability[b], expected_reach)
    # a complete sequence is a tree: the root reaches every word
    for b, length in enumerate(lengths):
        if len(sequences[b]) == length:
            assert reachability[b, 0, 1 : length + 1].all()


def test_add_edge_by_hand_does_not_modify_inputs():
    # state 0 -> 2, 3 -> 4; adding 2 -> 3 makes 0 and 2 reach 3 and 4
    adjacency = torch.zeros(1, 5, 5, dtype=torch.bool)
    adjacency[0, 0, 2] = adjacency[0, 3, 4] = True
    reachability = transitive_closure(adjacency)
    before = (adjacency.clone(), reachability.clone())
    new_adjacency, new_reachability = add_edge(
        adjacency, reachability, torch.tensor([2]), torch.tensor([3]), torch.tensor([True])
    )
    assert torch.equal(adjacency, before[0]) and torch.equal(reachability, before[1])
    assert sorted(map(tuple, new_adjacency[0].nonzero().tolist())) == [(0, 2), (2, 3), (3, 4)]
    assert sorted(map(tuple, new_reachability[0].nonzero().tolist())) == [
        (0, 2), (0, 3), (0, 4), (2, 3), (2, 4), (3, 4)
    ]


# ---------------------------------------------------------------------------------------------------------
# valid_mask
# ---------------------------------------------------------------------------------------------------------


def test_valid_mask_by_hand():
    # gold-like state {0 -> 2} on 4 words: the valid edges are h -> d, h in {1..4}, d in {1, 3, 4}, h != d
    adjacency = torch.zeros(1, 5, 5, dtype=torch.bool)
    adjacency[0, 0, 2] = True
    node_mask = torch.ones(1, 5, dtype=torch.bool)
    valid = valid_mask(adjacency, transitive_closure(adjacency), node_mask, single_root=True)[0]
    expected = {(h, d) for h in range(1, 5) for d in (1, 3, 4) if h != d}
    assert {tuple(e) for e in valid.nonzero().tolist()} == expected
    valid = valid_mask(adjacency, transitive_closure(adjacency), node_mask, single_root=False)[0]
    assert {tuple(e) for e in valid.nonzero().tolist()} == expected | {(0, 1), (0, 3), (0, 4)}


@settings(max_examples=60, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 9), min_size=1, max_size=3),
    seed=seed_strategy,
    single_root=st.booleans(),
)
def test_valid_mask_equals_brute_force(lengths, seed, single_root):
    rng = generator(seed)
    node_mask = make_node_mask(lengths)
    batch_size, num_nodes = node_mask.shape
    states = []
    adjacency = torch.zeros(batch_size, num_nodes, num_nodes, dtype=torch.bool)
    reachability = torch.zeros_like(adjacency)
    for b, length in enumerate(lengths):
        count = int(torch.randint(length + 1, (1,), generator=rng))  # 0 .. N edges: empty to complete
        edges = set(py_random_valid_edges(rng, length, count, single_root))
        states.append(edges)
        for h, d in edges:
            adjacency[b, h, d] = True
        reach = torch.tensor(py_closure(edges, length + 1), dtype=torch.bool)
        reachability[b, : length + 1, : length + 1] = reach
    valid = valid_mask(adjacency, reachability, node_mask, single_root)
    assert valid.shape == (batch_size, num_nodes, num_nodes)
    for b, length in enumerate(lengths):
        for head in range(num_nodes):
            for dependent in range(num_nodes):
                expected = py_edge_keeps_tree(states[b], head, dependent, length, single_root)
                assert bool(valid[b, head, dependent]) == expected, (b, head, dependent, states[b])
        # never stuck: an incomplete partial tree always has a valid edge
        assert bool(valid[b].any()) == (len(states[b]) < length)


@settings(max_examples=40, deadline=None)
@given(lengths=st.lists(st.integers(1, 12), min_size=1, max_size=4), seed=seed_strategy, single_root=st.booleans())
def test_tree_state_valid_mask_equals_brute_force_as_edges_are_added(lengths, seed, single_root):
    # the incremental valid mask against the edge-by-edge reference on random valid edge sequences, some
    # sentences sitting steps out
    rng = generator(seed)
    node_mask = make_node_mask(lengths)
    batch_size, num_nodes = node_mask.shape
    sequences = [py_random_valid_edges(rng, length, length, single_root) for length in lengths]
    state = TreeState(node_mask, single_root)
    added: List[Set[Tuple[int, int]]] = [set() for _ in lengths]
    cursor = [0] * batch_size
    while True:
        valid = state.valid.tolist()
        for b, length in enumerate(lengths):
            for head in range(num_nodes):
                for dependent in range(num_nodes):
                    expected = head <= length and dependent <= length and py_edge_keeps_tree(
                        added[b], head, dependent, length, single_root
                    )
                    assert valid[b][head][dependent] == expected, (b, head, dependent, added[b])
        assert state.has_valid_edge().tolist() == [len(added[b]) < lengths[b] for b in range(batch_size)]
        if not any(cursor[b] < len(sequences[b]) for b in range(batch_size)):
            break
        active = torch.tensor(
            [cursor[b] < len(sequences[b]) and bool(torch.rand(1, generator=rng) < 0.7) for b in range(batch_size)]
        )
        head = torch.tensor([sequences[b][min(cursor[b], len(sequences[b]) - 1)][0] if sequences[b] else 0
                             for b in range(batch_size)])
        dependent = torch.tensor([sequences[b][min(cursor[b], len(sequences[b]) - 1)][1] if sequences[b] else 1
                                  for b in range(batch_size)])
        new_edges = state.add_edges(head, dependent, active)
        for b in range(batch_size):
            expected_new = set()
            if active[b]:
                expected_new = {sequences[b][cursor[b]]}
                added[b] |= expected_new
                cursor[b] += 1
            assert {tuple(edge) for edge in new_edges[b].nonzero().tolist()} == expected_new
    heads = state.heads().tolist()
    for b, length in enumerate(lengths):
        for h, d in added[b]:
            assert heads[b][d] == h


# ---------------------------------------------------------------------------------------------------------
# greedy_valid_decode
# ---------------------------------------------------------------------------------------------------------


def check_decoding(decoding, lengths, single_root, tau):
    node_mask = make_node_mask(lengths)
    batch_size, num_nodes = node_mask.shape
    max_words = max(lengths)
    heads, edges, edge_steps = decoding.heads, decoding.edges, decoding.edge_steps
    edge_probabilities = decoding.edge_probabilities
    assert heads.shape == (batch_size, num_nodes)
    assert edges.shape == (batch_size, max_words, 2)
    assert edge_steps.shape == (batch_size, max_words)
    assert edge_probabilities.shape == (batch_size, max_words)
    all_heads, all_edges, all_steps = heads.tolist(), edges.tolist(), edge_steps.tolist()
    all_probabilities = edge_probabilities.tolist()
    for b, length in enumerate(lengths):
        row = all_heads[b]
        assert py_is_tree(row[: length + 1], length, single_root), row
        assert row[0] == 0
        assert all(h == 0 for h in row[length + 1 :])
        assert all(e == [-1, -1] for e in all_edges[b][length:])
        assert all(s == -1 for s in all_steps[b][length:])
        pairs = [tuple(e) for e in all_edges[b][:length]]
        assert sorted(d for _, d in pairs) == list(range(1, length + 1))  # N edges, each dependent once
        assert all(row[d] == h for h, d in pairs)
        probabilities = all_probabilities[b][:length]
        assert all(0 < p <= 1 + 1e-6 for p in probabilities), probabilities
        steps = all_steps[b][:length]
        if tau is None:
            assert steps == list(range(length))
        else:
            # steps start at 0, never decrease, and every step adds at least one edge
            assert steps[0] == 0
            assert all(b2 - a2 in (0, 1) for a2, b2 in zip(steps, steps[1:]))
            # within a step, every edge after the first has probability >= tau
            for position in range(1, length):
                if steps[position] == steps[position - 1]:
                    assert probabilities[position] >= tau - 1e-6


@settings(max_examples=100, deadline=None)
@given(lengths=lengths_strategy, seed=seed_strategy, single_root=st.booleans(), tau=st.sampled_from(TAUS))
def test_greedy_decode_gives_valid_trees(lengths, seed, single_root, tau):
    rng = generator(seed)
    node_mask = make_node_mask(lengths)
    batch_size, num_nodes = node_mask.shape
    score_function = StepScores(rng, batch_size, num_nodes, max(lengths), scale=2.0)
    decoding = greedy_valid_decode(score_function, node_mask, single_root=single_root, tau=tau)
    check_decoding(decoding, lengths, single_root, tau)
    # one call per step, the first with None, then the edges of the previous step (no padding)
    num_steps = int(decoding.edge_steps.max()) + 1
    assert len(score_function.received) == num_steps
    assert score_function.received[0] is None
    all_edges, all_steps = decoding.edges.tolist(), decoding.edge_steps.tolist()
    for step in range(1, num_steps):
        last_edges = score_function.received[step]
        assert last_edges.shape == (batch_size, num_nodes, num_nodes)
        received = {(b, h, d) for b, h, d in last_edges.nonzero().tolist()}
        expected = {
            (b, *all_edges[b][position])
            for b, length in enumerate(lengths)
            for position in range(length)
            if all_steps[b][position] == step - 1
        }
        assert received == expected


@pytest.mark.parametrize("tau", TAUS)
@pytest.mark.parametrize("single_root", [True, False])
def test_greedy_decode_full_size_padded_batch(tau, single_root):
    # the largest sentences next to the smallest, so padding is exercised at full size
    lengths = [40, 1, 17, 40, 2]
    node_mask = make_node_mask(lengths)
    score_function = StepScores(generator(7), len(lengths), 41, 40, scale=2.0)
    decoding = greedy_valid_decode(score_function, node_mask, single_root=single_root, tau=tau)
    check_decoding(decoding, lengths, single_root, tau)
    if tau == 0.0:
        # every valid edge clears tau = 0: each tree is decoded in a single step
        assert len(score_function.received) == 1
        assert (decoding.edge_steps[node_mask[:, 1:]] == 0).all()


@settings(max_examples=20, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 10), min_size=1, max_size=3),
    seed=seed_strategy,
    tau=st.sampled_from(TAUS),
    single_root=st.booleans(),
)
def test_greedy_decode_keeps_each_steps_policy_and_valid_edges(lengths, seed, tau, single_root):
    rng = generator(seed)
    node_mask = make_node_mask(lengths)
    batch_size, num_nodes = node_mask.shape
    score_function = StepScores(rng, batch_size, num_nodes, max(lengths), scale=2.0)
    plain = greedy_valid_decode(score_function, node_mask, single_root=single_root, tau=tau)
    assert plain.policies is None and plain.valid_edges is None
    score_function.received.clear()
    decoding = greedy_valid_decode(score_function, node_mask, single_root=single_root, tau=tau, keep_steps=True)
    num_steps = len(score_function.received)
    assert decoding.policies.shape == (batch_size, num_steps, num_nodes, num_nodes)
    assert decoding.valid_edges.shape == (batch_size, num_steps, num_nodes, num_nodes)
    # keeping the steps changes nothing else
    assert torch.equal(decoding.edges, plain.edges) and torch.equal(decoding.edge_steps, plain.edge_steps)
    all_edges, all_steps = decoding.edges.tolist(), decoding.edge_steps.tolist()
    for b, length in enumerate(lengths):
        for step in range(num_steps):
            # the policy of equation (5): softmax over the sentence's (N+1)^2 edges, 0 on padding
            expected = torch.zeros(num_nodes, num_nodes)
            real = score_function.scores[step][b, : length + 1, : length + 1]
            expected[: length + 1, : length + 1] = torch.softmax(real.reshape(-1), dim=0).reshape(real.shape)
            assert torch.allclose(decoding.policies[b, step], expected, atol=1e-6)
            # the valid edges at the start of the step: those that keep the tree of the earlier steps a tree
            earlier = {tuple(all_edges[b][p]) for p in range(length) if all_steps[b][p] < step}
            valid = decoding.valid_edges[b, step].tolist()
            for head in range(num_nodes):
                for dependent in range(num_nodes):
                    expected_valid = head <= length and dependent <= length and py_edge_keeps_tree(
                        earlier, head, dependent, length, single_root
                    )
                    assert valid[head][dependent] == expected_valid, (b, step, head, dependent, earlier)
        for position in range(length):
            head, dependent = all_edges[b][position]
            step = all_steps[b][position]
            assert float(decoding.edge_probabilities[b, position]) == pytest.approx(
                float(decoding.policies[b, step, head, dependent]), rel=1e-5
            )
            if position == 0 or all_steps[b][position - 1] != step:
                # a step's first edge is one of its valid edges (the later ones of a step: see tau)
                assert decoding.valid_edges[b, step, head, dependent]


def reference_greedy(
    step_scores: List[List[List[float]]], num_words: int, single_root: bool, tau: Optional[float],
    ties: bool = False,
) -> List[Tuple[int, int, int, float]]:
    """
    Brute force: at each step t, with that step's scores S_t (one sentence, V x V), enumerate every (h, d),
    keep those that keep a valid partial tree and take the highest score; with `tau`, keep adding the next
    best valid edge while its probability under softmax(S_t) over all V*V edges is >= tau.
    Returns (head, dependent, step, probability) in order. With `ties`, equal scores are expected and the
    edge of the lowest flattened index `h * V + d` among the best wins ("increasing edge-index order");
    without, near-ties are skipped.
    """
    num_nodes = num_words + 1
    edges: Set[Tuple[int, int]] = set()
    result = []
    step = 0
    while len(edges) < num_words:
        scores = step_scores[step]
        flat = [scores[h][d] for h in range(num_nodes) for d in range(num_nodes)]
        top = max(flat)
        normaliser = math.log(sum(math.exp(s - top) for s in flat)) + top
        first = True
        while len(edges) < num_words:
            candidates = sorted(
                (
                    (scores[h][d], h, d)
                    for h in range(num_nodes)
                    for d in range(num_nodes)
                    if py_edge_keeps_tree(edges, h, d, num_words, single_root)
                ),
                key=lambda candidate: (-candidate[0], candidate[1] * num_nodes + candidate[2]),
            )
            if not ties:
                # skip near-ties, where float32 rounding may legitimately pick the other edge
                assume(len(candidates) < 2 or candidates[0][0] - candidates[1][0] > 1e-4)
            score, head, dependent = candidates[0]
            probability = math.exp(score - normaliser)
            if not first:
                assume(abs(probability - tau) > 1e-5)
                if probability < tau:
                    break
            edges.add((head, dependent))
            result.append((head, dependent, step, probability))
            first = False
            if tau is None:
                break
        step += 1
    return result


def decoded_and_expected(score_function: StepScores, lengths: Sequence[int], single_root: bool,
                         tau: Optional[float], ties: bool = False):
    """
    `reference_greedy` of each sentence on the score function's step scores, and `greedy_valid_decode` of the
    batch: the decoding, the reference's `(head, dependent, step, probability)` lists and the decoder's
    `(head, dependent, step)` lists, one per sentence.
    """
    expected = [
        reference_greedy([s[b, : length + 1, : length + 1].tolist() for s in score_function.scores], length,
                         single_root, tau, ties)
        for b, length in enumerate(lengths)
    ]
    decoding = greedy_valid_decode(score_function, make_node_mask(lengths), single_root=single_root, tau=tau)
    got = [
        [(int(decoding.edges[b, p, 0]), int(decoding.edges[b, p, 1]), int(decoding.edge_steps[b, p]))
         for p in range(length)]
        for b, length in enumerate(lengths)
    ]
    return decoding, expected, got


@settings(max_examples=150, deadline=None)
@given(lengths=small_lengths_strategy, seed=seed_strategy, single_root=st.booleans(), tau=st.sampled_from(TAUS))
def test_greedy_decode_breaks_ties_by_the_lowest_edge_index(lengths, seed, single_root, tau):
    # scores of a few integer values: many valid edges tie at every step and within a step's tau rounds
    rng = generator(seed)
    batch_size, num_nodes = make_node_mask(lengths).shape
    score_function = StepScores(rng, batch_size, num_nodes, max(lengths), scale=1.0)
    score_function.scores = [torch.randint(0, 3, s.shape, generator=rng).float() for s in score_function.scores]
    _, expected, got = decoded_and_expected(score_function, lengths, single_root, tau, ties=True)
    for b in range(len(lengths)):
        assert got[b] == [edge[:3] for edge in expected[b]]


@settings(max_examples=150, deadline=None)
@given(
    lengths=small_lengths_strategy,
    seed=seed_strategy,
    single_root=st.booleans(),
    tau=st.sampled_from(TAUS),
    scale=st.sampled_from([1.0, 4.0]),
)
def test_greedy_decode_equals_brute_force_with_step_dependent_scores(lengths, seed, single_root, tau, scale):
    rng = generator(seed)
    batch_size, num_nodes = make_node_mask(lengths).shape
    score_function = StepScores(rng, batch_size, num_nodes, max(lengths), scale=scale)
    decoding, expected, got = decoded_and_expected(score_function, lengths, single_root, tau)
    for b, length in enumerate(lengths):
        assert got[b] == [e[:3] for e in expected[b]]
        assert decoding.edge_probabilities[b, :length].tolist() == pytest.approx(
            [e[3] for e in expected[b]], rel=1e-4, abs=1e-7
        )
        heads = [0] * num_nodes
        for h, d, _, _ in expected[b]:
            heads[d] = h
        assert decoding.heads[b].tolist() == heads


def test_greedy_decode_by_hand_step_dependence():
    # 2 words, V = 3. Step 0 prefers 0 -> 2; step 1 would prefer 0 -> 1, but the single root is taken, so
    # it takes its best valid edge 2 -> 1 (not 1 -> 2: 2 already has a head).
    step0 = torch.full((1, 3, 3), -5.0)
    step0[0, 0, 2] = 3.0
    step0[0, 0, 1] = 2.0
    step1 = torch.full((1, 3, 3), -5.0)
    step1[0, 0, 1] = 4.0
    step1[0, 1, 2] = 3.5
    step1[0, 2, 1] = 1.0
    calls = iter([step0, step1])
    decoding = greedy_valid_decode(lambda last: next(calls), torch.ones(1, 3, dtype=torch.bool))
    assert decoding.edges[0].tolist() == [[0, 2], [2, 1]]
    assert decoding.heads[0].tolist() == [0, 2, 0]
    assert decoding.edge_steps[0].tolist() == [0, 1]
    # p(0 -> 2 | step 0) = e^3 / (e^3 + e^2 + 7 e^-5); p(2 -> 1 | step 1) = e^1 / (e^4 + e^3.5 + e^1 + 6 e^-5)
    p0 = math.exp(3) / (math.exp(3) + math.exp(2) + 7 * math.exp(-5))
    p1 = math.exp(1) / (math.exp(4) + math.exp(3.5) + math.exp(1) + 6 * math.exp(-5))
    assert decoding.edge_probabilities[0].tolist() == pytest.approx([p0, p1], rel=1e-5)


def test_greedy_decode_orders_edges_whose_probability_underflows():
    # 3 words, V = 4. 0 -> 1 takes all the mass (score 200): every other edge's probability is e^-150 or
    # less, 0 in float32. The decoder must still follow the scores among them: 1 -> 3 (50) before 1 -> 2
    # (40), then 3 -> 2 (45) over 1 -> 2 (40).
    scores = torch.zeros(1, 4, 4)
    scores[0, 0, 1] = 200.0
    scores[0, 1, 3] = 50.0
    scores[0, 1, 2] = 40.0
    scores[0, 3, 2] = 45.0
    decoding = greedy_valid_decode(lambda last: scores, torch.ones(1, 4, dtype=torch.bool))
    assert decoding.edges[0].tolist() == [[0, 1], [1, 3], [3, 2]]
    assert decoding.heads[0].tolist() == [0, 0, 3, 1]


def test_greedy_decode_tau_by_hand():
    # 3 words, V = 4, the same scores at every step: p(0 -> 1) = 0.5, p(1 -> 2) = 0.3, p(1 -> 3) = 0.15,
    # the 13 other edges share 0.05. With tau = 0.2: step 0 adds 0 -> 1 (first) and 1 -> 2 (0.3 >= 0.2),
    # then 1 -> 3 (0.15 < 0.2) waits for step 1.
    probabilities = torch.full((4, 4), 0.05 / 13)
    probabilities[0, 1], probabilities[1, 2], probabilities[1, 3] = 0.5, 0.3, 0.15
    scores = probabilities.log().unsqueeze(0)
    decoding = greedy_valid_decode(lambda last: scores, torch.ones(1, 4, dtype=torch.bool), tau=0.2)
    assert decoding.edges[0].tolist() == [[0, 1], [1, 2], [1, 3]]
    assert decoding.edge_steps[0].tolist() == [0, 0, 1]
    assert decoding.edge_probabilities[0].tolist() == pytest.approx([0.5, 0.3, 0.15], rel=1e-5)
    # tau = 0.1: all three in one step
    decoding = greedy_valid_decode(lambda last: scores, torch.ones(1, 4, dtype=torch.bool), tau=0.1)
    assert decoding.edge_steps[0].tolist() == [0, 0, 0]


@settings(max_examples=30, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 12), min_size=2, max_size=4),
    seed=seed_strategy,
    tau=st.sampled_from(TAUS),
)
def test_greedy_decode_batch_equals_sentences_alone(lengths, seed, tau):
    # padding scores are huge: a sentence's decoding must not depend on its batch
    rng = generator(seed)
    node_mask = make_node_mask(lengths)
    batch_size, num_nodes = node_mask.shape
    score_function = StepScores(rng, batch_size, num_nodes, max(lengths), scale=2.0)
    padding = ~pair_mask(node_mask)
    score_function.scores = [s.masked_fill(padding, 1e4) for s in score_function.scores]
    batched = greedy_valid_decode(score_function, node_mask, tau=tau)
    for b, length in enumerate(lengths):
        alone_scores = [s[b : b + 1, : length + 1, : length + 1] for s in score_function.scores]
        calls = iter(alone_scores)
        alone_mask = torch.ones(1, length + 1, dtype=torch.bool)
        alone = greedy_valid_decode(lambda last: next(calls), alone_mask, tau=tau)
        assert batched.heads[b, : length + 1].tolist() == alone.heads[0].tolist()
        assert batched.edges[b, :length].tolist() == alone.edges[0].tolist()
        assert batched.edge_steps[b, :length].tolist() == alone.edge_steps[0].tolist()
        assert torch.allclose(batched.edge_probabilities[b, :length], alone.edge_probabilities[0], rtol=1e-4)


def test_greedy_decode_valid_policy_support_changes_probabilities_not_choices():
    torch.manual_seed(3)
    node_mask = torch.tensor([[True] * 7, [True] * 5 + [False] * 2])
    step_scores = [torch.randn(2, 7, 7) * 3 for _ in range(7)]

    def make():
        steps = iter(step_scores)
        return lambda last: next(steps)

    plain = greedy_valid_decode(make(), node_mask)
    restricted = greedy_valid_decode(make(), node_mask, policy_support="valid")
    assert torch.equal(plain.heads, restricted.heads)
    assert torch.equal(plain.edges, restricted.edges)
    chosen = plain.edges[:, :, 0] >= 0
    # each chosen edge has at least its probability under the full softmax, strictly more where invalid
    # edges had mass
    assert (restricted.edge_probabilities[chosen] >= plain.edge_probabilities[chosen] - 1e-6).all()
    assert (restricted.edge_probabilities[chosen] > plain.edge_probabilities[chosen] + 1e-6).any()
    # the values of the model's config key, nothing else
    with pytest.raises(ValueError, match="policy_support"):
        greedy_valid_decode(make(), node_mask, policy_support="gold")


# ---------------------------------------------------------------------------------------------------------
# mst_decode
# ---------------------------------------------------------------------------------------------------------


def log_softmax_over_heads(scores: List[List[float]]) -> List[List[float]]:
    """`[head][dependent]` log-probabilities, normalised over the heads of each dependent."""
    num_nodes = len(scores)
    result = [[0.0] * num_nodes for _ in range(num_nodes)]
    for dependent in range(num_nodes):
        column = [scores[h][dependent] for h in range(num_nodes)]
        top = max(column)
        normaliser = top + math.log(sum(math.exp(s - top) for s in column))
        for head in range(num_nodes):
            result[head][dependent] = column[head] - normaliser
    return result


def tree_score(heads: Sequence[int], log_probs: List[List[float]]) -> float:
    return sum(log_probs[heads[d]][d] for d in range(1, len(log_probs)))


@settings(max_examples=60, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 5), min_size=1, max_size=3),
    seed=seed_strategy,
    scale=st.sampled_from([1.0, 3.0]),
)
def test_mst_decode_is_the_best_single_rooted_tree_by_brute_force(lengths, seed, scale):
    rng = generator(seed)
    node_mask = make_node_mask(lengths)
    batch_size, num_nodes = node_mask.shape
    scores = torch.randn(batch_size, num_nodes, num_nodes, generator=rng) * scale
    # root edges of similar strength make unconstrained trees with several roots common
    scores[:, 0, :] += 2.0
    heads = mst_decode(scores, node_mask)
    assert heads.shape == (batch_size, num_nodes)
    for b, length in enumerate(lengths):
        log_probs = log_softmax_over_heads(scores[b, : length + 1, : length + 1].tolist())
        best = max(
            tree_score((0,) + assignment, log_probs)
            for assignment in itertools.product(range(length + 1), repeat=length)
            if py_is_tree((0,) + assignment, length, single_root=True)
        )
        row = heads[b].tolist()
        assert py_is_tree(row[: length + 1], length, single_root=True)
        assert all(h == 0 for h in row[length + 1 :]) and row[0] == 0
        assert tree_score(row[: length + 1], log_probs) == pytest.approx(best, abs=1e-4)


def test_single_root_mst_by_hand():
    # 2 words: the unconstrained tree attaches both to the root (0 -> 1: 5, 0 -> 2: 5); with one root
    # word the best is 0 -> 1 -> 2 (5 + 1 = 6) over 0 -> 2 -> 1 (5 + 0.5)
    energy = numpy.array([[0.0, 5.0, 5.0], [0.0, 0.0, 1.0], [0.0, 0.5, 0.0]])
    unconstrained, _ = decode_mst(energy, 3, has_labels=False)
    assert unconstrained[1:].tolist() == [0, 0]
    assert single_root_mst(energy, 3)[1:].tolist() == [0, 1]
    # a tree with one root already is left as it is
    energy[0, 2] = 0.0
    assert decode_mst(energy, 3, has_labels=False)[0][1:].tolist() == [0, 1]
    assert single_root_mst(energy, 3)[1:].tolist() == [0, 1]


def test_mst_decode_by_hand_maximises_likelihood_not_summed_probabilities():
    # 3 words, V = 4; each column is a word's head distribution, rows are heads 0..3:
    #   word 1: p(0) = 0.2, p(2) = 0.1, p(3) = 0.7
    #   word 2: p(0) = 0.2, p(1) = 0.0, p(3) = 0.8
    #   word 3: p(0) = 0.1, p(1) = 0.5, p(2) = 0.4
    # The per-word argmax 3 -> 1, 3 -> 2, 1 -> 3 has the cycle 1 -> 3 -> 1. The trees with non-zero mass:
    #   heads (1, 2, 3) = (0, 3, 1): 0.2 * 0.8 * 0.5 = 0.080 (log -2.526)  summed 0.2 + 0.8 + 0.5 = 1.5
    #                     (3, 3, 0): 0.7 * 0.8 * 0.1 = 0.056 (log -2.882)  summed 0.7 + 0.8 + 0.1 = 1.6
    #                     (3, 0, 2): 0.7 * 0.2 * 0.4 = 0.056               summed 1.3
    #                     (0, 0, 1): 0.020, (0, 0, 2): 0.016, (0, 3, 0): 0.016, (3, 0, 0): 0.014,
    #                     (2, 0, 1): 0.010, (2, 3, 0): 0.008
    # The most probable tree is (0, 3, 1); a sum of probabilities would pick (3, 3, 0) instead.
    probabilities = torch.tensor(
        [
            [0.0, 0.2, 0.2, 0.1],
            [0.0, 0.0, 0.0, 0.5],
            [0.0, 0.1, 0.0, 0.4],
            [0.0, 0.7, 0.8, 0.0],
        ]
    )
    scores = probabilities.clamp(min=1e-30).log().unsqueeze(0)
    heads = mst_decode(scores, torch.ones(1, 4, dtype=torch.bool))
    assert heads[0].tolist() == [0, 0, 3, 1]
    # the same sentence padded in a batch with a longer one decodes the same
    padded = torch.randn(2, 6, 6, generator=generator(0))
    padded[0, :4, :4] = scores[0]
    heads = mst_decode(padded, make_node_mask([3, 5]))
    assert heads[0].tolist() == [0, 0, 3, 1, 0, 0]


# ---------------------------------------------------------------------------------------------------------
# is_tree
# ---------------------------------------------------------------------------------------------------------


@st.composite
def head_batches(draw):
    lengths = draw(st.lists(st.integers(1, 12), min_size=1, max_size=4))
    num_nodes = max(lengths) + 1
    rows = []
    for length in lengths:
        kind = draw(st.sampled_from(["tree", "tree_mutated", "random"]))
        if kind == "random":
            heads = [draw(st.integers(-1, num_nodes)) for _ in range(length)]
        else:
            # random tree: words in a random order, each attached to the root or an earlier word
            order = draw(st.permutations(list(range(1, length + 1))))
            single = draw(st.booleans())
            head_of = {}
            for position, word in enumerate(order):
                if position == 0 or (not single and draw(st.booleans())):
                    head_of[word] = 0
                else:
                    head_of[word] = order[draw(st.integers(0, position - 1))]
            heads = [head_of[w] for w in range(1, length + 1)]
            if kind == "tree_mutated":
                heads[draw(st.integers(0, length - 1))] = draw(st.integers(-1, num_nodes))
        padding = [draw(st.integers(-1, num_nodes)) for _ in range(num_nodes - 1 - length)]
        rows.append([draw(st.integers(-1, num_nodes))] + heads + padding)  # garbage at the root too
    return lengths, rows


@settings(max_examples=150, deadline=None)
@given(batch=head_batches(), single_root=st.booleans())
def test_is_tree_agrees_with_reference(batch, single_root):
    lengths, rows = batch
    node_mask = make_node_mask(lengths)
    got = is_tree(torch.tensor(rows), node_mask, single_root=single_root).tolist()
    expected = [py_is_tree(row[: length + 1], length, single_root) for row, length in zip(rows, lengths)]
    assert got == expected


def test_is_tree_by_hand():
    node_mask = torch.ones(5, 5, dtype=torch.bool)
    heads = torch.tensor(
        [
            [0, 2, 0, 2, 3],  # tree, one root child
            [0, 0, 0, 2, 3],  # tree, two root children
            [0, 2, 1, 2, 3],  # cycle 1 <-> 2 (3 and 4 hang off it)
            [0, 2, 0, 3, 3],  # self-loop on 3
            [0, 2, 0, 2, 5],  # head out of range
        ]
    )
    assert is_tree(heads, node_mask, single_root=True).tolist() == [True, False, False, False, False]
    assert is_tree(heads, node_mask, single_root=False).tolist() == [True, True, False, False, False]
