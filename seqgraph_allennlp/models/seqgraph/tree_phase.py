"""
The tree phase of `SeqGraphParser` (Sections 2-3, Appendix A): the policy's scores `S_t` step by step, the
valid decoder that builds the tree one edge (or, with `tau`, several) per step, and the learning-to-search
loss that trains it: a roll-in without gradients, the oracle's targets over each state's free edges, and
`KL(oracle || policy)` averaged over the states (equation 6). The tree algorithms (the valid mask,
reachability, the decoders) are pure tensor functions in `structs.tree`; the oracles and roll-ins are
registered components of their own (`oracles`, `roll_ins`).
"""
from typing import Callable, List, NamedTuple, Optional, Tuple

import torch
from allennlp.training.metrics import Average

from seqgraph_allennlp.models.seqgraph.decoding import DecodingOptions
from seqgraph_allennlp.models.seqgraph.graph_phase import GraphPhase, GraphRollIn
from seqgraph_allennlp.modules.recurrent_weight import RecurrentWeight
from seqgraph_allennlp.oracles import Oracle, free_edges, gold_edge_index
from seqgraph_allennlp.roll_ins import RollIn
from seqgraph_allennlp.structs.losses import head_selection_loss, kl_divergence
from seqgraph_allennlp.structs.tree import (
    TreeState,
    ValidDecoding,
    greedy_valid_decode,
    heads_to_adjacency,
    mst_decode,
    state_gold_log_probs,
)

# S_t given the edges added at step t - 1 (`None` before the first)
ScoreFunction = Callable[[Optional[torch.BoolTensor]], torch.Tensor]

# The cost of one extra chunk of states, in units of `V^3` (one sentence's states of one node): a chunk
# repeats the roll-in's and the unroll's step loops, whose per-step cost is nearly independent of `V`.
CHUNK_STEP_COST = 200_000


def length_chunks(lengths: List[int], step_cost: int = CHUNK_STEP_COST) -> List[List[int]]:
    """
    Splits a batch's sentences into groups whose learning-to-search states are computed separately, each
    padded only to its own longest sentence. A sentence of `V` nodes has `V - 1` states of `V x V` scores,
    so a batch padded to its longest sentence costs about `batch_size * V^3`: the one batch of EWT's
    longest sentences (70 to 159 words) padded to 160 nodes is 3.5 times the work of its sentences alone.
    Returns the positions of `lengths`, sorted by length, cut where the sum of `n * V^3 + step_cost * V`
    over the groups is least (dynamic programming over the sorted lengths); a batch of similar lengths stays
    one group.
    """
    order = sorted(range(len(lengths)), key=lambda position: lengths[position])
    nodes = [lengths[position] + 1 for position in order]
    # best[j]: least cost of the first j sentences; cut[j]: where the last group of that split starts
    best = [0] + [0] * len(nodes)
    cut = [0] * (len(nodes) + 1)
    for end in range(1, len(nodes) + 1):
        cube = nodes[end - 1] ** 3
        best[end], cut[end] = min(
            (best[start] + (end - start) * cube + step_cost * nodes[end - 1], start) for start in range(end)
        )
    groups: List[List[int]] = []
    end = len(nodes)
    while end > 0:
        groups.append(order[cut[end]:end])
        end = cut[end]
    return groups[::-1]


class RollInStates(NamedTuple):
    """
    What the recurrent model's roll-in (`TreePhase.run_roll_in`) returns, without gradients.

    valid : `(batch_size, T, V, V)`, the valid edges of each state (the tree's, or in a graph state the
        graph's).
    heads, dependents : `(batch_size, T - 1)`, the edge added after each state but the last.
    added : `(batch_size, T - 1)`, whether the sentence added that edge (not after `STOP` or the end).
    adjacency : `(batch_size, T, V, V)`, each state's graph (with a gold graph only, else `None`).
    tree_state, graph_state : `(batch_size, T)`, which states are in the tree phase, and which are in the
        graph phase and not after `STOP` (with a gold graph only, else `None`).
    """

    valid: torch.BoolTensor
    heads: torch.LongTensor
    dependents: torch.LongTensor
    added: torch.BoolTensor
    adjacency: Optional[torch.BoolTensor] = None
    tree_state: Optional[torch.BoolTensor] = None
    graph_state: Optional[torch.BoolTensor] = None


class TreePhaseModules(NamedTuple):
    """
    The modules the tree phase reads. The parser registers them, under the names its archives' weights have
    (`oracle`, `recurrent_weight`), and its graph phase; kept in a tuple, they are not the tree phase's own.
    """

    oracle: Oracle
    recurrent_weight: Optional[RecurrentWeight]
    graph_phase: Optional[GraphPhase]


class TreePhase(torch.nn.Module):
    """
    The tree phase: how the tree is built (`score_function`, `decode`) and learnt (`loss`: roll-in, oracle
    targets, KL). With a graph phase, a roll-in goes on into it after each sentence's tree, and its graph
    states join the KL (`GraphPhase.roll_in_kl`).

    # Parameters

    oracle : `Oracle`
        The oracle's targets over the free edges of each state (Section 3.2).
    roll_in : `RollIn`
        The roll-in policy that chooses the states (Section 3.3).
    recurrent_weight : `RecurrentWeight`, optional (default = `None`)
        `None`: the paper's "One-Step" model, only `S_0`, trained with one uniform-oracle KL step over all
        gold edges and decoded from `S_0` at every step (or by Chu-Liu-Edmonds).
    graph_phase : `GraphPhase`, optional (default = `None`)
    policy_support : `str`, optional (default = `"all"`)
        `"all"`: the policy is a softmax over all `V x V` edges (equation 5); `"valid"`: over the edges
        valid in the current state (training and decoding).
    single_root : `bool`, optional (default = `True`)
        Trees whose root has exactly one child, as UD requires.
    """

    def __init__(
        self,
        oracle: Oracle,
        roll_in: RollIn,
        recurrent_weight: Optional[RecurrentWeight] = None,
        graph_phase: Optional[GraphPhase] = None,
        policy_support: str = "all",
        single_root: bool = True,
    ) -> None:
        super().__init__()
        self.shared = TreePhaseModules(oracle, recurrent_weight, graph_phase)
        self.roll_in = roll_in
        self.policy_support = policy_support
        self.single_root = single_root
        # the mean KL of each batch's states, and the head-selection cross-entropy
        self.kl = Average()
        self.head_nll = Average()

    def score_function(
        self, initial_scores: torch.Tensor, encoded: torch.Tensor, final_state: torch.Tensor
    ) -> ScoreFunction:
        """
        A closure that returns `S_t` given the edges added at step `t - 1`: `S_0` for the one-step model,
        `S_{t-1} + BiAffine(emb_h W_t, emb_d W_t)` for the recurrent one.
        """
        recurrent_weight = self.shared.recurrent_weight
        if recurrent_weight is None:
            return lambda last_edges: initial_scores
        step, projected = recurrent_weight.scores_by_step(initial_scores, encoded, final_state)
        return lambda last_edges: step(recurrent_weight.embed_edges(encoded, last_edges, projected))[0]

    def valid_decode(
        self,
        score_function: ScoreFunction,
        node_mask: torch.BoolTensor,
        tau: Optional[float],
        keep_steps: bool = False,
    ) -> ValidDecoding:
        """The greedy valid decoder (Appendix A) over the scores of `score_function`."""
        return greedy_valid_decode(
            score_function,
            node_mask,
            single_root=self.single_root,
            tau=tau,
            keep_steps=keep_steps,
            policy_support=self.policy_support,
        )

    def decode(
        self,
        initial_scores: torch.Tensor,
        encoded: torch.Tensor,
        final_state: torch.Tensor,
        node_mask: torch.BoolTensor,
        decoding: DecodingOptions,
    ) -> Tuple[torch.LongTensor, Optional[ValidDecoding]]:
        """
        The `(batch_size, V)` heads decoded as `decoding` says, and the valid decoder's output (`None` for
        MST).
        """
        if decoding.decoder == "mst":
            return mst_decode(initial_scores, node_mask), None
        score_function = self.score_function(initial_scores, encoded, final_state)
        valid_decoding = self.valid_decode(score_function, node_mask, decoding.tau)
        return valid_decoding.heads, valid_decoding

    def head_selection_loss(
        self, initial_scores: torch.Tensor, node_mask: torch.BoolTensor, gold_heads: torch.LongTensor
    ) -> torch.Tensor:
        """`structs.losses.head_selection_loss` on `S_0`, counted in `head_nll`."""
        loss = head_selection_loss(initial_scores, node_mask, gold_heads)
        self.head_nll(loss.item())
        return loss

    def loss(
        self,
        initial_scores: torch.Tensor,
        encoded: torch.Tensor,
        final_state: torch.Tensor,
        node_mask: torch.BoolTensor,
        gold_heads: torch.LongTensor,
        gold_graph: Optional[torch.BoolTensor] = None,
        graph_scorer: Optional[Callable[[torch.Tensor], Optional[torch.Tensor]]] = None,
    ) -> torch.Tensor:
        """
        Equation (6): roll in with `roll_in` and average `KL(oracle || policy)` over the states
        `s_1 .. s_N` of every sentence (states with no free edge left add nothing). The one-step model
        takes only the first state, with every gold edge free and a uniform target. With `gold_graph`
        `(batch_size, V, V)` (a graph phase), the roll-in goes on into the graph phase and its states
        count too (`GraphPhase.roll_in_kl`), reading `G_0` from `graph_scorer` (the encoded nodes to
        `(batch_size, V, V)`, or `None` without `separate_graph_scores`).

        Sentences of very different lengths are rolled in as separate groups (`length_chunks`), each padded
        to its own longest sentence; the average is over all states of the batch either way.
        """
        lengths = node_mask.sum(dim=-1) - 1
        recurrent = self.shared.recurrent_weight is not None
        groups = length_chunks(lengths.tolist(), CHUNK_STEP_COST) if recurrent else [None]
        total = initial_scores.new_zeros(())
        num_states = 0
        for group in groups:
            if group is None or len(groups) == 1:
                inputs = (initial_scores, encoded, final_state, node_mask, gold_heads, gold_graph)
            else:
                index = torch.tensor(group, device=node_mask.device)
                num_nodes = int(lengths[index].max()) + 1
                inputs = (
                    initial_scores[index, :num_nodes, :num_nodes],
                    encoded[index, :num_nodes],
                    final_state[index],
                    node_mask[index, :num_nodes],
                    gold_heads[index, :num_nodes],
                    None if gold_graph is None else gold_graph[index, :num_nodes, :num_nodes],
                )
            group_total, group_states = self._state_kl(*inputs, graph_scorer)
            total = total + group_total
            num_states += group_states
        loss = total / max(num_states, 1)
        self.kl(loss.item())
        return loss

    def _state_kl(
        self,
        initial_scores: torch.Tensor,
        encoded: torch.Tensor,
        final_state: torch.Tensor,
        node_mask: torch.BoolTensor,
        gold_heads: torch.LongTensor,
        gold_graph: Optional[torch.BoolTensor] = None,
        graph_scorer: Optional[Callable[[torch.Tensor], Optional[torch.Tensor]]] = None,
    ) -> Tuple[torch.Tensor, int]:
        """
        The sum of `KL(oracle || policy)` over the roll-in's states with a free edge, and their number.

        The roll-in's choices are never differentiated, so it runs first without gradients
        (`run_roll_in`); the scores of all its states are then computed again in one batched pass with
        gradients (`RecurrentWeight.unroll`), and the oracle and the KL of all states at once.
        """
        num_nodes = node_mask.size(1)
        recurrent_weight = self.shared.recurrent_weight
        if recurrent_weight is None:
            valid = TreeState(node_mask, self.single_root).valid.unsqueeze(1)
            updates = initial_scores.unsqueeze(1)
        else:
            graph_scores = graph_scorer(encoded) if gold_graph is not None and graph_scorer is not None else None
            with torch.no_grad():
                roll_in = self.run_roll_in(
                    initial_scores, encoded, final_state, node_mask, heads_to_adjacency(gold_heads, node_mask),
                    gold_graph, graph_scores,
                )
            valid, heads, dependents, added = roll_in.valid, roll_in.heads, roll_in.dependents, roll_in.added
            projected = recurrent_weight.project_nodes(encoded)
            # shape (batch_size, T, V, V): S_t = S_0 + the updates of steps 1 .. t
            updates, hidden = recurrent_weight.unroll(
                final_state, projected, heads, dependents, added, return_hidden=True
            )
            updates[:, 0] += initial_scores
            if gold_graph is not None:
                return self.shared.graph_phase.roll_in_kl(
                    updates, hidden, node_mask, gold_heads, gold_graph, roll_in.valid, roll_in.tree_state,
                    roll_in.graph_state, graph_scores, self.shared.oracle, self.policy_support,
                )
        num_states = valid.size(1)
        # A free edge is always gold, and the oracle puts mass on free edges only: the KL needs the
        # policy's log-probability of the gold edges alone, shape (batch_size, T, V) each
        gold_index, is_gold = gold_edge_index(gold_heads, node_mask)
        state_gold_index = gold_index.unsqueeze(1).expand(-1, num_states, -1)
        free = valid.flatten(2).gather(2, state_gold_index) & is_gold.unsqueeze(1)
        policy_support = valid if self.policy_support == "valid" else None
        gold_log_probs = state_gold_log_probs(updates, node_mask, state_gold_index, policy_support)
        # every state becomes a row: shape (batch_size * T, V)
        free = free.reshape(-1, num_nodes)
        gold_log_probs = gold_log_probs.reshape(-1, num_nodes)
        target = self.shared.oracle(free, gold_log_probs)
        has_target = free.any(dim=-1)
        return (kl_divergence(target, gold_log_probs) * has_target).sum(), int(has_target.sum())

    def run_roll_in(
        self,
        initial_scores: torch.Tensor,
        encoded: torch.Tensor,
        final_state: torch.Tensor,
        node_mask: torch.BoolTensor,
        gold_adjacency: torch.BoolTensor,
        gold_graph: Optional[torch.BoolTensor] = None,
        graph_scores: Optional[torch.Tensor] = None,
    ) -> RollInStates:
        """
        The recurrent model's roll-in states, without gradients (`RollInStates`). Without `gold_graph` it
        stops at the first state where no sentence of the batch has a free edge left: from there on no
        state has an oracle target. With `gold_graph` each sentence goes on, right after its tree, into
        the graph phase until it stops (`GraphRollIn`), so every tree is completed.
        """
        batch_size, num_nodes = node_mask.shape
        recurrent_weight, oracle = self.shared.recurrent_weight, self.shared.oracle
        reads_policy = self.roll_in.reads_policy
        if reads_policy:
            # one edge a step: the last one is read by its nodes, no V x V matrix of the last edges is built
            score_step, projected = recurrent_weight.scores_by_step(initial_scores, encoded, final_state)
            edge_input = recurrent_weight.embed_edges(encoded, None)
        state = TreeState(node_mask, self.single_root)
        # outside training the roll-in's coins come from a fixed seed: validation losses are reproducible
        generator = None
        if not self.training:
            generator = torch.Generator(device=initial_scores.device).manual_seed(0)
        max_steps = num_nodes - 1
        graph = None
        if gold_graph is not None:
            graph = GraphRollIn(
                self.shared.graph_phase, state, gold_graph, gold_adjacency, node_mask, graph_scores, self.roll_in,
                oracle, generator,
            )
            max_steps += graph.max_steps
        valids, heads, dependents, added = [], [], [], []
        for step in range(max_steps):
            valid = state.valid
            free = free_edges(gold_adjacency, valid)
            if graph is not None:
                if graph.stopped():
                    break
                valid = graph.state_valid(state)
            valids.append(valid)
            if graph is None and (step == num_nodes - 2 or not bool(free.any())):
                break
            if reads_policy:
                # the roll-in chooses among valid edges by argmax or Gumbel-max, which a constant per
                # sentence does not change: the scores stand in for the log-probabilities
                policy_scores, hidden = score_step(edge_input)
                tree_valid = state.valid
                choice = self.roll_in(free, tree_valid, policy_scores.flatten(1), oracle.beta, generator)
                active = tree_valid.flatten(1).any(dim=-1)
            else:
                # on the gold path a gold tree has a free edge until it is complete: the same choices as
                # with the policy's fallback, without the scores
                policy_scores = hidden = None
                active = free.flatten(1).any(dim=-1)
                choice = self.roll_in.choose(free.flatten(1), state.valid.flatten(1), None, oracle.beta, generator)
            head = choice // num_nodes
            dependent = choice % num_nodes
            if graph is None:
                state.add_edges(head, dependent, active)
            else:
                state.add_edges(head, dependent, active & graph.in_tree)
                head, dependent, active = graph.step(policy_scores, hidden, head, dependent, active)
            if reads_policy:
                edge_input = recurrent_weight.embed_edge_indices(projected, head, dependent, active)
            heads.append(head)
            dependents.append(dependent)
            added.append(active)
        num_states = len(valids)
        empty = node_mask.new_zeros(batch_size, 0, dtype=torch.long)

        def stacked(values: List[torch.Tensor], default: torch.Tensor) -> torch.Tensor:
            # a state's edge leads to the next state: the last state's (STOP, or none) is not read
            values = values[: num_states - 1]
            return torch.stack(values, dim=1) if values else default

        graph_states = graph.states() if graph is not None else (None, None, None)
        return RollInStates(
            torch.stack(valids, dim=1),
            stacked(heads, empty),
            stacked(dependents, empty),
            stacked(added, empty.bool()),
            *graph_states,
        )
