"""
The graph phase of `SeqGraphParser` (`predict_enhanced`, beyond the paper): once a sentence's tree is
complete, the recurrent model goes on adding *extra* edges, one per step, among all edges not yet in the graph
(no self-loop, none into the root; several heads and cycles allowed) until it chooses `STOP`. The tree and
its labels make the graph rooted and connected. The graph algorithms themselves (the valid mask of a graph
state, the free gold edges, the decoder) are pure tensor functions in `structs.graph`; this part holds what
reads the model: the `STOP` score, the graph states of a roll-in and their KL, and decoding after the tree.
"""
from typing import Callable, List, NamedTuple, Optional, Tuple

import torch
from allennlp.training.metrics import Average

from seqgraph_allennlp.modules.recurrent_weight import RecurrentWeight
from seqgraph_allennlp.oracles import Oracle, gold_edge_index
from seqgraph_allennlp.roll_ins import RollIn
from seqgraph_allennlp.roll_ins.coaching import CoachingRollIn
from seqgraph_allennlp.roll_ins.roll_in import choose_from_policy
from seqgraph_allennlp.structs.graph import (
    GraphDecoding,
    action_log_probs,
    edges_to_adjacency,
    free_graph_edges,
    graph_edge_index,
    graph_valid_mask,
    greedy_graph_decode,
    sample_uniform,
    stop_index,
)
from seqgraph_allennlp.structs.losses import kl_divergence
from seqgraph_allennlp.structs.tree import TreeState, ValidDecoding, heads_to_adjacency, policy_mask, running_sum_log_probs

# S_t and the stop scores `(batch_size,)` given the edges added at step t - 1
GraphScoreFunction = Callable[[Optional[torch.BoolTensor]], Tuple[torch.Tensor, torch.Tensor]]


class GraphPhaseModules(NamedTuple):
    """
    The modules the graph phase reads. The parser registers them, under the names its archives' weights have
    (`stop_scorer`, `recurrent_weight`); kept in a tuple, they are not the graph phase's own parameters.
    """

    stop_scorer: torch.nn.Linear
    recurrent_weight: RecurrentWeight


class GraphPhase(torch.nn.Module):
    """
    The graph phase: the `STOP` score, a linear map of the recurrent state `h_t`; the roll-in's action in a
    graph state (`roll_in_choice`; a roll-in's graph states are kept by `GraphRollIn`) and their share of the
    learning-to-search loss (`roll_in_kl`); decoding the extra edges after the tree (`score_function`,
    `decode`). Trained like the tree: the roll-in goes on into the graph phase and every graph state adds
    `KL(oracle || policy)` over the still-free gold graph edges and `STOP`, which the oracle takes once no
    gold edge is free.

    # Parameters

    stop_scorer : `torch.nn.Linear`
        `h_t` to the `STOP` score, `(hidden_dim, 1)`.
    recurrent_weight : `RecurrentWeight`
        The tree's recurrent model, whose state the graph phase goes on from.
    max_extra_edges : `int`, optional (default = `None`)
        The most extra edges a sentence gets; `None`: its number of words.
    """

    def __init__(
        self,
        stop_scorer: torch.nn.Linear,
        recurrent_weight: RecurrentWeight,
        max_extra_edges: Optional[int] = None,
    ) -> None:
        super().__init__()
        self.shared = GraphPhaseModules(stop_scorer, recurrent_weight)
        self.max_extra_edges = max_extra_edges
        # the mean KL of the graph states of each roll-in (the tree states' and graph states' together are the
        # parser's `kl`)
        self.graph_kl = Average()

    def stop_scores(self, hidden: torch.Tensor) -> torch.Tensor:
        """The `STOP` score `(...)` of each LSTM output `h_t` `(..., hidden_dim)`."""
        return self.shared.stop_scorer(hidden).squeeze(-1)

    def score_function(
        self, initial_scores: torch.Tensor, encoded: torch.Tensor, final_state: torch.Tensor
    ) -> GraphScoreFunction:
        """
        A closure that returns `S_t` and the stop scores `(batch_size,)` given the edges added at step
        `t - 1`, for the tree's steps and then the graph's. A sentence whose matrix is empty (after the first
        step) keeps its state: each sentence's steps are its own, whatever the other sentences of its batch
        do, as in training, where a sentence's graph phase follows its tree directly.
        """
        recurrent_weight = self.shared.recurrent_weight
        step, projected = recurrent_weight.scores_by_step(initial_scores, encoded, final_state)

        def score(last_edges: Optional[torch.BoolTensor]) -> Tuple[torch.Tensor, torch.Tensor]:
            active = None if last_edges is None else last_edges.flatten(1).any(dim=-1)
            scores, hidden = step(recurrent_weight.embed_edges(encoded, last_edges, projected), active)
            return scores, self.stop_scores(hidden)

        return score

    def decode(
        self,
        score_function: GraphScoreFunction,
        tree: ValidDecoding,
        node_mask: torch.BoolTensor,
        graph_scores: Optional[torch.Tensor],
        stop_bias: float,
    ) -> GraphDecoding:
        """
        The extra edges after the `tree` that the valid decoder built from the same `score_function`
        (`greedy_graph_decode`): one recurrent state per sentence throughout.

        # Parameters

        graph_scores : `(batch_size, V, V)`, `G_0` (`separate_graph_scores`), added to `S_t` in the graph
            states; `None` reads `S_t` alone.
        stop_bias : added to the `STOP` score (`DecodingOptions.stop_bias`).
        """

        def graph_score_function(last_edges: Optional[torch.BoolTensor]) -> Tuple[torch.Tensor, torch.Tensor]:
            scores, stop_scores = score_function(last_edges)
            if graph_scores is not None:
                scores = scores + graph_scores
            return scores, stop_scores + stop_bias

        num_nodes = node_mask.size(1)
        # the tree decoder calls the scores once per step; a sentence whose tree was complete before its
        # last step has read its last edges already (and kept its state since): the others read them now
        edge_steps = tree.edge_steps
        last_step = edge_steps.max(dim=1, keepdim=True).values
        unread = (last_step == last_step.max()) & (edge_steps == last_step)
        last_edges = edges_to_adjacency(tree.edges.masked_fill(~unread.unsqueeze(-1), -1), num_nodes)
        return greedy_graph_decode(
            graph_score_function,
            heads_to_adjacency(tree.heads, node_mask),
            last_edges,
            node_mask,
            self.max_extra_edges,
        )

    def roll_in_choice(
        self,
        policy_scores: Optional[torch.Tensor],
        hidden: Optional[torch.Tensor],
        adjacency: torch.BoolTensor,
        gold_graph: torch.BoolTensor,
        node_mask: torch.BoolTensor,
        may_add: torch.BoolTensor,
        roll_in: RollIn,
        oracle: Oracle,
        generator: Optional[torch.Generator],
    ) -> torch.LongTensor:
        """
        The roll-in's action in a graph state, `(batch_size,)` flattened, `stop_index(V)` for `STOP`: with
        the roll-in's `beta` (or the oracle's, with `follow_oracle_beta`; always, for a roll-in that does not
        read the policy) the uniform oracle's (a free gold edge, `STOP` once none is free), else the policy's
        best (or sampled) action among the valid ones (`valid_policy`) or the oracle's candidates
        (`coaching`). `STOP` where `may_add` is false (the sentence has its most extra edges).
        """
        free = free_graph_edges(gold_graph, adjacency, node_mask).flatten(1) & may_add.unsqueeze(1)
        oracle_support = torch.cat([free, ~free.any(dim=-1, keepdim=True)], dim=-1)
        choice = sample_uniform(oracle_support, generator)
        if policy_scores is not None:
            valid = graph_valid_mask(adjacency, node_mask)
            log_probs = action_log_probs(policy_scores, self.stop_scores(hidden), valid)
            if isinstance(roll_in, CoachingRollIn):
                support = oracle_support
            else:
                support = torch.cat([valid.flatten(1) & may_add.unsqueeze(1), torch.ones_like(may_add).unsqueeze(1)], dim=-1)
            policy_choice = choose_from_policy(log_probs, support, getattr(roll_in, "greedy", True), generator)
            beta = oracle.beta if getattr(roll_in, "follow_oracle_beta", False) else roll_in.beta
            use_oracle = torch.rand(choice.shape, device=choice.device, generator=generator) < beta
            choice = torch.where(use_oracle, choice, policy_choice)
        return choice

    def roll_in_kl(
        self,
        updates: torch.Tensor,
        hidden: torch.Tensor,
        node_mask: torch.BoolTensor,
        gold_heads: torch.LongTensor,
        gold_graph: torch.BoolTensor,
        valid: torch.BoolTensor,
        tree_state: torch.BoolTensor,
        graph_state: torch.BoolTensor,
        graph_scores: Optional[torch.Tensor],
        oracle: Oracle,
        policy_support: str,
    ) -> Tuple[torch.Tensor, int]:
        """
        The sum of `KL(oracle || policy)` over the tree and graph states of a roll-in that went on into the
        graph phase, those with a target, and their number. `STOP` joins the `V x V` edges as one more
        action, whose running sum is the stop score (`structs.graph`), so that every state's policy comes
        from one fused pass over the states (`running_sum_log_probs`), as the tree's does. A tree state's
        candidates are the gold tree's edges, free while valid (`oracles.free_edges`); a graph state's are
        the gold graph's edges, free while valid (`structs.graph.free_graph_edges`), and `STOP`, free once no
        edge is; the `oracle` weights the free ones in either phase. The policy of a tree state is over its
        valid edges (or all, with `policy_support: "all"`), that of a graph state over its valid edges and
        `STOP` (`structs.graph.action_log_probs`; `graph_state_candidates` is its reference).

        # Parameters

        updates : `(batch_size, T, V, V)`, `S_0` in the first; hidden : `(batch_size, T, hidden_dim)`.
        valid, tree_state, graph_state : the roll-in's (`RollInStates`).
        graph_scores : `(batch_size, V, V)`, `G_0` (`separate_graph_scores`), added to the running sum at each
            sentence's first graph state, so that its graph states read `S_t + G_0` and its tree states `S_t`.
        """
        batch_size, num_states, num_nodes, _ = updates.shape
        if graph_scores is not None:
            # shape (batch_size, T): the state where each sentence's graph phase begins
            first_graph = graph_state & ~torch.cat([torch.zeros_like(graph_state[:, :1]), graph_state[:, :-1]], dim=1)
            updates = updates + first_graph[:, :, None, None] * graph_scores.unsqueeze(1)
        # shape (batch_size, T): the stop score of each state as a running sum, like the edges'
        stop_scores = self.stop_scores(hidden)
        stop_updates = torch.cat([stop_scores[:, :1], stop_scores[:, 1:] - stop_scores[:, :-1]], dim=1)
        # shape (batch_size, T, V * V + 1)
        actions = torch.cat([updates.flatten(2), stop_updates.unsqueeze(-1)], dim=-1)
        flat_valid = valid.flatten(2)
        tree_support = policy_mask(node_mask, valid if policy_support == "valid" else None)
        if tree_support.dim() == 2:
            tree_support = tree_support.unsqueeze(1)
        edge_mask = torch.where(tree_state.unsqueeze(-1), tree_support, flat_valid)
        mask = torch.cat([edge_mask, ~tree_state.unsqueeze(-1)], dim=-1)
        # the candidates of every state: the gold tree's edges, the gold graph's, STOP; shape (batch_size, K)
        tree_index, is_tree_gold = gold_edge_index(gold_heads, node_mask)
        graph_index, is_graph_gold = graph_edge_index(gold_graph)
        stop = graph_index.new_full((batch_size, 1), stop_index(num_nodes))
        index = torch.cat([tree_index, graph_index, stop], dim=-1).unsqueeze(1).expand(-1, num_states, -1)
        tree_free = flat_valid.gather(2, tree_index.unsqueeze(1).expand(-1, num_states, -1))
        tree_free = tree_free & is_tree_gold.unsqueeze(1) & tree_state.unsqueeze(-1)
        graph_free = flat_valid.gather(2, graph_index.unsqueeze(1).expand(-1, num_states, -1))
        graph_free = graph_free & is_graph_gold.unsqueeze(1) & graph_state.unsqueeze(-1)
        stop_free = graph_state & ~graph_free.any(dim=-1)
        free = torch.cat([tree_free, graph_free, stop_free.unsqueeze(-1)], dim=-1)
        log_probs = running_sum_log_probs(actions, mask, index)
        # every state becomes a row: shape (batch_size * T, K)
        free = free.reshape(batch_size * num_states, -1)
        log_probs = log_probs.reshape(batch_size * num_states, -1)
        has_target = free.any(dim=-1)
        kl = kl_divergence(oracle(free, log_probs), log_probs) * has_target
        in_graph = graph_state.reshape(-1) & has_target
        self.graph_kl(float(kl[in_graph].detach().sum()) / max(int(in_graph.sum()), 1))
        return kl.sum(), int(has_target.sum())


class GraphRollIn:
    """
    The graph phase's side of a roll-in (`TreePhase.run_roll_in`), step by step: each sentence goes on,
    right after its tree, into the graph phase until it chooses `STOP` (`GraphPhase.roll_in_choice`), so
    every tree is completed. It keeps each sentence's extra edges, how many it may still add and whether it
    has stopped, and each state's graph and phase (`states`).
    """

    def __init__(
        self,
        phase: GraphPhase,
        tree: TreeState,
        gold_graph: torch.BoolTensor,
        gold_adjacency: torch.BoolTensor,
        node_mask: torch.BoolTensor,
        graph_scores: Optional[torch.Tensor],
        roll_in: RollIn,
        oracle: Oracle,
        generator: Optional[torch.Generator],
    ) -> None:
        self._phase = phase
        self._gold_graph = gold_graph
        self._node_mask = node_mask
        self._graph_scores = graph_scores
        self._roll_in = roll_in
        self._oracle = oracle
        self._generator = generator
        batch_size = node_mask.size(0)
        # shape (batch_size, V, V): the extra edges so far
        self._extra = torch.zeros_like(tree.adjacency)
        # shape (batch_size,): whether the sentence has chosen STOP
        self._done = node_mask.new_zeros(batch_size)
        num_words = node_mask.sum(dim=-1) - 1
        limit = num_words if phase.max_extra_edges is None else num_words.clamp(max=phase.max_extra_edges)
        # early in training the trees are wrong and most gold tree edges are free again in the graph
        # phase: a roll-in that repaired them all would double a sentence's states; it adds at most
        # two more extra edges than the gold graph has
        gold_extra = (gold_graph & ~gold_adjacency).flatten(1).sum(dim=-1)
        self._limit = torch.minimum(limit, gold_extra + 2)
        self._num_extra = torch.zeros_like(num_words)
        # the steps after the tree's: the extra edges and STOP
        self.max_steps = int(self._limit.max()) + 1
        self._adjacencies: List[torch.BoolTensor] = []
        self._tree_states: List[torch.BoolTensor] = []
        self._graph_states: List[torch.BoolTensor] = []
        # the current state's (`state_valid`): which sentences build their tree, which are in the graph
        # phase, and each sentence's graph
        self.in_tree: Optional[torch.BoolTensor] = None
        self._in_graph: Optional[torch.BoolTensor] = None
        self._any_graph = False
        self._adjacency: Optional[torch.BoolTensor] = None

    def stopped(self) -> bool:
        """Whether every sentence has chosen `STOP`."""
        return not bool((~self._done).any())

    def state_valid(self, tree: TreeState) -> torch.BoolTensor:
        """
        Begins a state: the valid actions' edges `(batch_size, V, V)`, the tree's while the sentence builds it
        (`in_tree`), else those of its graph (`graph_valid_mask`, in the graph phase until it stops).
        """
        valid = tree.valid
        self.in_tree = valid.flatten(1).any(dim=-1)
        self._in_graph = ~self.in_tree & ~self._done
        # while every sentence builds its tree (most steps) the graph phase costs nothing
        self._any_graph = bool(self._in_graph.any())
        self._adjacency = tree.adjacency | self._extra
        if self._any_graph:
            valid = torch.where(self.in_tree.view(-1, 1, 1), valid, graph_valid_mask(self._adjacency, self._node_mask))
        self._adjacencies.append(self._adjacency)
        self._tree_states.append(self.in_tree)
        self._graph_states.append(self._in_graph)
        return valid

    def step(
        self,
        policy_scores: Optional[torch.Tensor],
        hidden: Optional[torch.Tensor],
        head: torch.LongTensor,
        dependent: torch.LongTensor,
        added: torch.BoolTensor,
    ) -> Tuple[torch.LongTensor, torch.LongTensor, torch.BoolTensor]:
        """
        Ends a state begun by `state_valid`: in the graph states, the roll-in's action (`roll_in_choice`) in
        place of the tree roll-in's `head -> dependent` `(batch_size,)`. Returns each sentence's edge and
        whether it added one (an extra edge, not `STOP`; in a tree state, the tree's `added`).
        """
        if not self._any_graph:
            return head, dependent, added & self.in_tree
        num_nodes = self._node_mask.size(1)
        if policy_scores is not None and self._graph_scores is not None:
            policy_scores = policy_scores + self._graph_scores
        choice = self._phase.roll_in_choice(
            policy_scores, hidden, self._adjacency, self._gold_graph, self._node_mask, self._num_extra < self._limit,
            self._roll_in, self._oracle, self._generator,
        )
        in_graph = self._in_graph
        stops = choice == stop_index(num_nodes)
        extra_edge = in_graph & ~stops
        head = torch.where(in_graph, (choice // num_nodes).clamp(max=num_nodes - 1), head)
        dependent = torch.where(in_graph, choice % num_nodes, dependent)
        self._extra[torch.arange(head.size(0), device=head.device), head, dependent] |= extra_edge
        self._num_extra = self._num_extra + extra_edge.long()
        self._done = self._done | (in_graph & stops)
        return head, dependent, torch.where(self.in_tree, added, extra_edge)

    def states(self) -> Tuple[torch.BoolTensor, torch.BoolTensor, torch.BoolTensor]:
        """
        `(batch_size, T, V, V)` each state's graph, and `(batch_size, T)` which states are in the tree phase
        and which in the graph phase and not after `STOP`.
        """
        return (
            torch.stack(self._adjacencies, dim=1),
            torch.stack(self._tree_states, dim=1),
            torch.stack(self._graph_states, dim=1),
        )
