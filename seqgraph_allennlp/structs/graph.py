"""
Graph generation after the tree: the second phase of the sequential graph parser, as small, pure, batched
tensor functions beside the tree ones (`structs.tree`).

A sentence's enhanced UD graph is generated one edge per step, as the paper generates a tree: first the
basic tree with the valid decoder (`structs.tree`: every word gets one head, no cycle), which makes the
graph rooted and connected, then *extra* edges with a `STOP` action. In the graph phase an action is any
edge between real nodes that is not yet in the graph, is not a self-loop and does not point at the root
(several heads per word and cycles are allowed, as in enhanced UD), or `STOP`, which ends the sentence's
graph. The policy of a graph state is a softmax over those actions: the `V x V` edge scores `S_t` and a
stop score.

Conventions are those of `structs.tree`: `V = N + 1` nodes with the root first, `[head, dependent]`
indexing, flattened edge index `head * V + dependent`; the flattened action space appends `STOP` as the
last entry, index `V * V`.
"""
from typing import Callable, NamedTuple, Optional, Tuple

import torch
from seqgraph_allennlp.structs.tree import pair_mask, support_log_softmax, transitive_closure, word_mask


def stop_index(num_nodes: int) -> int:
    """The flattened index of the `STOP` action in a sentence padded to `num_nodes` nodes."""
    return num_nodes * num_nodes


def graph_valid_mask(adjacency: torch.BoolTensor, node_mask: torch.BoolTensor) -> torch.BoolTensor:
    """
    The edges a graph state may add: between real nodes, not yet in the graph, no self-loop, nothing
    pointing at the root.

    # Parameters

    adjacency : `torch.BoolTensor`, `(batch_size, ..., V, V)`, the edges so far, `[head, dependent]`.
    node_mask : `torch.BoolTensor`, `(batch_size, V)`.

    # Returns

    `(batch_size, ..., V, V)`.
    """
    num_nodes = node_mask.size(1)
    pairs = pair_mask(node_mask).view(node_mask.size(0), *[1] * (adjacency.dim() - 3), num_nodes, num_nodes)
    not_self = ~torch.eye(num_nodes, dtype=torch.bool, device=adjacency.device)
    valid = pairs & not_self & ~adjacency
    valid[..., 0] = False
    return valid


def action_log_probs(
    scores: torch.Tensor, stop_scores: torch.Tensor, valid: torch.BoolTensor
) -> torch.Tensor:
    """
    The graph policy: a softmax over the valid edges and `STOP`.

    # Parameters

    scores : `torch.Tensor`, `(batch_size, ..., V, V)`, `S_t`.
    stop_scores : `torch.Tensor`, `(batch_size, ...)`, the score of `STOP`.
    valid : `torch.BoolTensor`, `(batch_size, ..., V, V)`, `graph_valid_mask`.

    # Returns

    `(batch_size, ..., V * V + 1)` log-probabilities, `STOP` last; invalid edges keep no mass
    (`structs.tree.support_log_softmax`).
    """
    flat_valid = valid.flatten(-2)
    actions = torch.cat([scores.flatten(-2), stop_scores.unsqueeze(-1).to(scores.dtype)], dim=-1)
    support = torch.cat([flat_valid, flat_valid.new_ones(flat_valid.shape[:-1] + (1,))], dim=-1)
    return support_log_softmax(actions, support)


def free_graph_edges(
    gold_graph: torch.BoolTensor, adjacency: torch.BoolTensor, node_mask: torch.BoolTensor
) -> torch.BoolTensor:
    """
    `E_free` of a graph state: the gold graph's edges that are valid actions (`graph_valid_mask`: not yet in
    the graph, no self-loop). Unlike the tree's free set (`oracles.free_edges`) nothing is ruled out by
    earlier choices: a gold edge missed in the tree phase (its dependent took a wrong head) can still be
    added as an extra edge. A gold self-loop (the empty-node collapse makes a few: `X -acl:relcl-> E
    -nsubj-> X` becomes `X -acl:relcl>nsubj-> X`, 3 in EWT train) is never free: the parser cannot add it.
    """
    return gold_graph & graph_valid_mask(adjacency, node_mask)


def graph_edge_index(gold_graph: torch.BoolTensor) -> Tuple[torch.LongTensor, torch.BoolTensor]:
    """
    The gold graph's edges as flattened indices in increasing order, `(batch_size, K)` with `K` the most
    edges of a sentence of the batch, and which of them are real (padding slots come last, index 0).
    The graph loss needs the policy only on these entries (and `STOP`), as `oracles.gold_edge_index` for
    trees.
    """
    batch_size = gold_graph.size(0)
    flat = gold_graph.reshape(batch_size, -1)
    num_edges = flat.sum(dim=-1)
    width = max(int(num_edges.max()), 1) if batch_size else 1
    positions = torch.arange(flat.size(1), device=flat.device)
    keys = torch.where(flat, positions, positions + flat.size(1))
    index = keys.argsort(dim=-1)[:, :width]
    is_gold = torch.arange(width, device=flat.device).unsqueeze(0) < num_edges.unsqueeze(1)
    return index.masked_fill(~is_gold, 0), is_gold


def graph_state_candidates(
    scores: torch.Tensor,
    stop_scores: torch.Tensor,
    adjacency: torch.BoolTensor,
    node_mask: torch.BoolTensor,
    gold_graph: torch.BoolTensor,
) -> Tuple[torch.BoolTensor, torch.Tensor]:
    """
    What the oracle and the KL of graph states need: for each state, which of its candidates are free and
    the policy's log-probability of each (`action_log_probs`). The candidates are the gold graph's edges
    (`graph_edge_index`, padded) and `STOP`, last; an edge is free while it is a valid action
    (`free_graph_edges`), `STOP` once no edge is.

    # Parameters

    scores : `torch.Tensor`, `(M, V, V)`, `S_t` of each state; stop_scores : `(M,)`.
    adjacency : `torch.BoolTensor`, `(M, V, V)`, each state's graph.
    node_mask : `torch.BoolTensor`, `(M, V)`; gold_graph : `(M, V, V)`.

    # Returns

    `free` and `log_probs`, `(M, K + 1)` each.
    """
    valid = graph_valid_mask(adjacency, node_mask)
    log_probs = action_log_probs(scores, stop_scores, valid)
    gold_index, is_gold = graph_edge_index(gold_graph)
    free = is_gold & valid.flatten(1).gather(1, gold_index)
    free = torch.cat([free, ~free.any(dim=-1, keepdim=True)], dim=-1)
    candidate_log_probs = torch.cat([log_probs.gather(1, gold_index), log_probs[:, -1:]], dim=-1)
    return free, candidate_log_probs


def sample_uniform(mask: torch.BoolTensor, generator: Optional[torch.Generator] = None) -> torch.LongTensor:
    """`(batch_size,)`: an index drawn uniformly among the `True` entries of each row (0 for an empty row)."""
    keys = torch.rand(mask.shape, device=mask.device, generator=generator)
    return torch.where(mask, keys, -1.0).argmax(dim=-1)


class GraphDecoding(NamedTuple):
    """
    What the graph phase of the decoder returns.

    extra_edges : `(batch_size, X, 2)`, the `(head, dependent)` extra edges in the order they were added; -1
        on padding.
    extra_probabilities : `(batch_size, X)`, each one's probability under the policy of its step.
    stop_probabilities : `(batch_size,)`, the probability of `STOP` when it was chosen (0 for a sentence
        cut by `max_extra_edges`).
    """

    extra_edges: torch.LongTensor
    extra_probabilities: torch.Tensor
    stop_probabilities: torch.Tensor


def greedy_graph_decode(
    score_function: Callable[[Optional[torch.BoolTensor]], Tuple[torch.Tensor, torch.Tensor]],
    tree_adjacency: torch.BoolTensor,
    last_edges: torch.BoolTensor,
    node_mask: torch.BoolTensor,
    max_extra_edges: Optional[int] = None,
) -> GraphDecoding:
    """
    The graph phase of greedy decoding: from each sentence's complete tree, add the policy's best action
    per step until it chooses `STOP` (or has added `max_extra_edges`, by default `N`, extra edges).

    # Parameters

    score_function : `Callable`
        Called once per step with the `(batch_size, V, V)` edges added at the previous step (the tree's last
        step at first); returns `S_t` `(batch_size, V, V)` and the stop scores `(batch_size,)`. A sentence
        whose matrix is empty (it has stopped) keeps its state.
    tree_adjacency : `torch.BoolTensor`, `(batch_size, V, V)`, the decoded trees.
    last_edges : `torch.BoolTensor`, `(batch_size, V, V)`, the edges of each tree's last decoding step, not
        yet read by the recurrent model.
    node_mask : `torch.BoolTensor`, `(batch_size, V)`.
    max_extra_edges : `int`, optional
        The most extra edges a sentence gets; `None`: its number of words.
    """
    batch_size, num_nodes = node_mask.shape
    device = node_mask.device
    num_words = node_mask.sum(dim=-1) - 1
    limit = num_words if max_extra_edges is None else num_words.clamp(max=max_extra_edges)
    max_steps = int(limit.max()) + 1 if batch_size else 0
    adjacency = tree_adjacency.contiguous()
    running = limit >= 0
    added_count = torch.zeros_like(num_words)
    stop = stop_index(num_nodes)
    chosen, probabilities, actives = [], [], []
    stop_probabilities = torch.zeros(batch_size, device=device)
    edges = last_edges
    for _ in range(max_steps):
        if not bool(running.any()):
            break
        scores, stop_scores = score_function(edges)
        valid = graph_valid_mask(adjacency, node_mask)
        log_probs = action_log_probs(scores, stop_scores, valid)
        # STOP is always allowed; at the limit it is the only action
        allowed = torch.cat([valid.flatten(1) & (added_count < limit).unsqueeze(1), running.unsqueeze(1)], dim=1)
        best_log_prob, best = torch.where(allowed, log_probs, float("-inf")).max(dim=-1)
        stops = running & (best == stop)
        stop_probabilities = torch.where(stops, best_log_prob.exp(), stop_probabilities)
        active = running & ~stops
        head = (best // num_nodes).clamp(max=num_nodes - 1)
        dependent = best % num_nodes
        one_hot = torch.zeros(batch_size, stop, dtype=torch.bool, device=device)
        one_hot[torch.arange(batch_size, device=device), best.clamp(max=stop - 1)] = True
        edges = one_hot.view(batch_size, num_nodes, num_nodes) & active.view(-1, 1, 1)
        adjacency = adjacency | edges
        added_count = added_count + active.long()
        chosen.append(torch.stack([head, dependent], dim=-1))
        probabilities.append(best_log_prob.exp())
        actives.append(active)
        running = active
    width = max(int(added_count.max()), 0) if batch_size else 0
    extra_edges = torch.full((batch_size, width, 2), -1, dtype=torch.long, device=device)
    extra_probabilities = torch.zeros(batch_size, width, device=device)
    if chosen and width:
        # one edge per active step, and a sentence's active steps come first: position = step
        steps = torch.stack(chosen, dim=1)[:, :width]
        active = torch.stack(actives, dim=1)[:, :width]
        extra_edges = torch.where(active.unsqueeze(-1), steps, extra_edges)
        extra_probabilities = torch.where(active, torch.stack(probabilities, dim=1)[:, :width], 0.0)
    return GraphDecoding(extra_edges, extra_probabilities, stop_probabilities)


def edges_to_adjacency(edges: torch.LongTensor, num_nodes: int) -> torch.BoolTensor:
    """`(batch_size, E, 2)` `(head, dependent)` edges, -1 on padding, as a `(batch_size, V, V)` matrix."""
    batch_size = edges.size(0)
    adjacency = torch.zeros(batch_size, num_nodes * num_nodes + 1, dtype=torch.bool, device=edges.device)
    real = edges[..., 0] >= 0
    flat = torch.where(real, edges[..., 0] * num_nodes + edges[..., 1], num_nodes * num_nodes)
    adjacency.scatter_(1, flat, True)
    return adjacency[:, :-1].view(batch_size, num_nodes, num_nodes)


def is_rooted_graph(adjacency: torch.BoolTensor, node_mask: torch.BoolTensor) -> torch.BoolTensor:
    """
    `(batch_size,)`: whether every word is reachable from the root, nothing points at the root and there
    is no self-loop (what UD's level-2 validation asks of an enhanced graph).
    """
    reachability = transitive_closure(adjacency)
    words = word_mask(node_mask)
    reached = (reachability[:, 0, :] | ~words).all(dim=-1)
    no_root_head = ~adjacency[:, :, 0].any(dim=-1)
    no_self_loop = ~adjacency.diagonal(dim1=1, dim2=2).any(dim=-1)
    return reached & no_root_head & no_self_loop
