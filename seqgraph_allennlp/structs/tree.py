"""
Tree-constrained decoding (Appendix A of Welleck & Cho, 2019) as small, pure, batched tensor functions.

Conventions used throughout the package:

* a sentence of `N` words has `V = N + 1` nodes, node 0 being the root;
* edge scores and adjacency matrices are indexed `[head, dependent]`;
* a flattened edge index is `head * V + dependent`, so increasing flattened index is the paper's
  "increasing edge-index order";
* `node_mask` is `(batch_size, V)` and is `True` for the root and every word, `False` on padding.

AllenNLP has no sequential, constraint-masked decoder (only `decode_mst` and greedy per-word argmax), so the
valid decoder lives here; MST decoding reuses `allennlp.nn.chu_liu_edmonds.decode_mst`.
"""
from typing import Callable, List, NamedTuple, Optional, Tuple

import numpy
import torch
from allennlp.nn.chu_liu_edmonds import decode_mst
from allennlp.nn.util import min_value_of_dtype

# What a policy is normalised over: all `V x V` edges (equation 5) or the edges valid in the state. The
# model's config key and the decoder's argument share the name `policy_support` and these values.
POLICY_SUPPORTS = ("all", "valid")


def pair_mask(node_mask: torch.BoolTensor) -> torch.BoolTensor:
    """
    `(batch_size, V, V)` mask of the edges between real nodes (root and words, not padding).
    """
    return node_mask.unsqueeze(2) & node_mask.unsqueeze(1)


def word_mask(node_mask: torch.BoolTensor) -> torch.BoolTensor:
    """
    `(batch_size, V)` mask of the words: `node_mask` without the root.
    """
    words = node_mask.clone()
    words[:, 0] = False
    return words


def support_log_softmax(scores: torch.Tensor, support: torch.BoolTensor, dim: int = -1) -> torch.Tensor:
    """
    `log_softmax` over the entries of `support` only: the others get the smallest float of the dtype, so
    no masked entry keeps any mass whatever its score, and a distribution does not depend on the padding
    beside it. AllenNLP's `masked_log_softmax` adds `log(1e-13)` (about -29.9) to the masked scores
    instead, which leaves mass to a masked entry whose score is high. The package's one masking of a
    softmax: policies, the head-selection loss and the MST energies all use it.

    # Parameters

    scores : `torch.Tensor`, any shape.
    support : `torch.BoolTensor`, broadcastable to `scores`.
    dim : `int`, optional (default = `-1`).
    """
    return torch.log_softmax(scores.masked_fill(~support, min_value_of_dtype(scores.dtype)), dim=dim)


def is_root_relation(label: str) -> bool:
    """Whether a relation (basic, or enhanced with `:` subtypes and `>` paths) is UD's `root`."""
    return label.split(">")[0].split(":")[0] == "root"


def root_label_support(heads: torch.LongTensor, is_root_label: torch.BoolTensor) -> torch.BoolTensor:
    """
    The labels each dependent may take given its head: a root label exactly for the dependents of the root
    (head 0), as UD requires (`root` is the relation of the root's dependents and of no other word). A
    label set without a root label (a treebank that never attaches to 0 with `root`) allows every label.

    # Parameters

    heads : `torch.LongTensor`, `(...)`, each dependent's head (0 the root; any other value a word).
    is_root_label : `torch.BoolTensor`, `(num_labels,)`.

    # Returns

    `(..., num_labels)`.
    """
    if not bool(is_root_label.any()):
        return is_root_label.new_ones(heads.shape + is_root_label.shape)
    return (heads == 0).unsqueeze(-1) == is_root_label


def policy_mask(
    node_mask: torch.BoolTensor, policy_support: Optional[torch.BoolTensor] = None
) -> torch.BoolTensor:
    """
    The flattened edges a policy is normalised over: the edges between real nodes, or with
    `policy_support` those of them in the support. A sentence (or state) whose support is empty (its tree
    is complete) falls back to all its edges, so that its softmax is never NaN.

    # Parameters

    node_mask : `torch.BoolTensor`, `(batch_size, V)`.
    policy_support : `torch.BoolTensor`, optional, `(batch_size, ..., V, V)`.

    # Returns

    `(batch_size, ..., V * V)`, the leading dimensions of `policy_support` (without it, `(batch_size, V * V)`).
    """
    flat_pairs = pair_mask(node_mask).flatten(1)
    if policy_support is None:
        return flat_pairs
    # shape (batch_size, 1, ..., 1, V * V), to broadcast over the support's leading dimensions
    flat_pairs = flat_pairs.view(flat_pairs.size(0), *[1] * (policy_support.dim() - 3), -1)
    flat_support = policy_support.flatten(-2) & flat_pairs
    return torch.where(flat_support.any(dim=-1, keepdim=True), flat_support, flat_pairs)


def edge_log_probs(
    scores: torch.Tensor, node_mask: torch.BoolTensor, policy_support: Optional[torch.BoolTensor] = None
) -> torch.Tensor:
    """
    The policy of equation (5): a softmax over all flattened `V x V` edge scores, padding masked; with
    `policy_support`, a softmax over those edges only (the valid edges of the state, the model's
    `policy_support: "valid"`).

    Masked edges keep no mass (`support_log_softmax`), so a sentence's policy does not depend on its
    batch. The edges are those of `policy_mask`.

    # Parameters

    scores : `torch.Tensor`, `(batch_size, V, V)`, indexed `[head, dependent]`.
    node_mask : `torch.BoolTensor`, `(batch_size, V)`.
    policy_support : `torch.BoolTensor`, optional, `(batch_size, V, V)`.

    # Returns

    `(batch_size, V * V)` log-probabilities.
    """
    batch_size = scores.size(0)
    return support_log_softmax(scores.reshape(batch_size, -1), policy_mask(node_mask, policy_support))


class _StateGoldLogProbs(torch.autograd.Function):
    """
    `state_gold_log_probs` with its gradient written out. Autograd's version of the same expression
    (`cumsum`, `masked_fill`, `logsumexp`, `gather`) keeps the masked scores and makes the softmax again
    in its backward pass, with several more passes over the `(batch_size, T, V, V)` states (the masks'
    and the cumulative sum's); this one keeps the softmax of the forward pass, and its backward pass is
    one product, a scatter of the `K` gold entries and a reverse running sum in place. Forward and
    backward together: 1.5 times as fast on 32 sentences of 20 words, 3.2 times on 8 of 150
    (results/benchmarks/fused_loss.json).

    A gold entry outside the state's policy support gets `edge_log_probs`'s value there (the smallest
    float less `log Z`: no mass) and no gradient: the smallest float stands for minus infinity, a
    constant, while `S[gold] - log Z` would pull on a score the policy never reads (and autograd through
    `edge_log_probs` would pass `-policy` through the `log Z` that rounds away).
    """

    @staticmethod
    def forward(ctx, updates, mask, gold_index):  # type: ignore[override]
        batch_size, num_states = updates.shape[:2]
        # shape (batch_size, T, V * V): S_t, summed in place (torch's cumsum over a middle dimension is
        # slower on CPU)
        scores = updates.clone(memory_format=torch.contiguous_format).view(batch_size, num_states, -1)
        for state in range(1, num_states):
            scores[:, state] += scores[:, state - 1]
        scores.masked_fill_(~mask, min_value_of_dtype(scores.dtype))
        # read after masking: a gold entry outside the support reads the smallest float (`edge_log_probs`)
        gold_scores = scores.gather(2, gold_index)
        gold_supported = mask.expand(batch_size, num_states, -1).gather(2, gold_index)
        top = scores.amax(dim=-1, keepdim=True)
        # the policy, in place of the scores: a masked edge gets exp(min - top) = 0
        probs = scores.sub_(top).exp_()
        partition = probs.sum(dim=-1, keepdim=True)
        probs.div_(partition)
        ctx.save_for_backward(probs, gold_index, gold_supported)
        ctx.update_shape = updates.shape
        return gold_scores - (top + partition.log())

    @staticmethod
    def backward(ctx, grad_output):  # type: ignore[override]
        probs, gold_index, gold_supported = ctx.saved_tensors
        # an entry outside the support is a constant (minus infinity): no gradient
        grad_output = grad_output.masked_fill(~gold_supported, 0.0)
        # d(S_t[gold] - log Z_t) / dS_t = onehot(gold) - policy_t
        grad = probs.mul(grad_output.sum(dim=-1, keepdim=True).neg_())
        grad.scatter_add_(2, gold_index, grad_output)
        # S_t sums the updates of steps 1 .. t: the gradient of update t sums that of S_t .. S_T
        for state in range(grad.size(1) - 2, -1, -1):
            grad[:, state] += grad[:, state + 1]
        return grad.view(ctx.update_shape), None, None


def state_gold_log_probs(
    updates: torch.Tensor,
    node_mask: torch.BoolTensor,
    gold_index: torch.LongTensor,
    policy_support: Optional[torch.BoolTensor] = None,
) -> torch.Tensor:
    """
    The policy's log-probability (`edge_log_probs`) of given edges in each state of a roll-in whose scores
    are the running sum of `updates`, `S_t = updates_1 + ... + updates_t`: the training loss needs the
    gold edges' `K` entries of each state only, so the `V x V` log-probabilities are never built. An edge
    outside a state's support gets `edge_log_probs`'s value (the smallest float) and no gradient.

    # Parameters

    updates : `torch.Tensor`, `(batch_size, T, V, V)`, `S_0` included in the first.
    node_mask : `torch.BoolTensor`, `(batch_size, V)`.
    gold_index : `torch.LongTensor`, `(batch_size, T, K)`, flattened edge indices `head * V + dependent`.
    policy_support : `torch.BoolTensor`, optional, `(batch_size, T, V, V)`, as in `edge_log_probs`.

    # Returns

    `(batch_size, T, K)`.
    """
    # shape (batch_size, T or 1, V * V): the edges each state's policy is normalised over
    mask = policy_mask(node_mask, policy_support)
    if policy_support is None:
        mask = mask.unsqueeze(1)
    return running_sum_log_probs(updates, mask, gold_index)


def running_sum_log_probs(
    updates: torch.Tensor, mask: torch.BoolTensor, index: torch.LongTensor
) -> torch.Tensor:
    """
    `state_gold_log_probs` over any flattened action space: the log-probabilities of the entries `index`
    under a softmax over the `True` entries of `mask`, in each state of a roll-in whose scores are the
    running sum of `updates`. The graph phase appends its `STOP` action to the `V * V` edges
    (`structs.graph`).

    # Parameters

    updates : `torch.Tensor`, `(batch_size, T, A)` or `(batch_size, T, V, V)` (flattened).
    mask : `torch.BoolTensor`, `(batch_size, T or 1, A)`, never all `False` in a state.
    index : `torch.LongTensor`, `(batch_size, T, K)`.
    """
    return _StateGoldLogProbs.apply(updates, mask, index)


def valid_mask(
    adjacency: torch.BoolTensor,
    reachability: torch.BoolTensor,
    node_mask: torch.BoolTensor,
    single_root: bool = True,
) -> torch.BoolTensor:
    """
    The edges that keep a partial graph a dependency tree: constraints 1-5 of Appendix A.

    1. the root gets no head; 2. a word that has a head gets no other (this also rules out 3, duplicate
    edges); 4. no self-loop; 5. no edge `i -> j` when `j` already reaches `i` (it would close a cycle).
    With `single_root`, once the root has a child it gets no second one (UD trees have one root word).
    Greedy completion never gets stuck: a headless word can always attach to the root's child.

    # Parameters

    adjacency : `torch.BoolTensor`, `(batch_size, V, V)`, edges so far, `[head, dependent]`.
    reachability : `torch.BoolTensor`, `(batch_size, V, V)`, `R[a, b]` when a path `a -> ... -> b` exists.
    node_mask : `torch.BoolTensor`, `(batch_size, V)`.
    single_root : `bool`, optional (default = `True`).

    # Returns

    `(batch_size, V, V)` boolean mask, `True` where the edge `[head, dependent]` may be added.
    """
    num_nodes = adjacency.size(-1)
    # shape (batch_size, V): dependents that already have a head (constraints 2 and 3)
    has_head = adjacency.any(dim=1)
    valid = pair_mask(node_mask) & ~has_head.unsqueeze(1)
    # constraint 1: nothing points at the root
    valid[:, :, 0] = False
    # constraint 4: no self-loops
    valid = valid & ~torch.eye(num_nodes, dtype=torch.bool, device=adjacency.device)
    # constraint 5: i -> j is a cycle when j reaches i
    valid = valid & ~reachability.transpose(1, 2)
    if single_root:
        root_taken = adjacency[:, 0, :].any(dim=-1)
        valid[:, 0, :] = valid[:, 0, :] & ~root_taken.unsqueeze(-1)
    return valid


def add_edge(
    adjacency: torch.BoolTensor,
    reachability: torch.BoolTensor,
    head: torch.LongTensor,
    dependent: torch.LongTensor,
    active: torch.BoolTensor,
) -> Tuple[torch.BoolTensor, torch.BoolTensor]:
    """
    Adds edge `head -> dependent` to each active sentence and updates the reachability matrix incrementally.

    Every node that reaches `head` (and `head` itself) now reaches every node that `dependent` reaches (and
    `dependent` itself): one `O(V^2)` outer product per step instead of the paper's `sum_k A^k`.

    # Parameters

    adjacency, reachability : `torch.BoolTensor`, `(batch_size, V, V)`.
    head, dependent : `torch.LongTensor`, `(batch_size,)`.
    active : `torch.BoolTensor`, `(batch_size,)`, sentences that take an edge at this step.

    # Returns

    The new `(adjacency, reachability)`; the inputs are not modified.
    """
    head_one_hot, dependent_one_hot, reaches_head, reached_from_dependent = new_paths(
        reachability, head, dependent, active
    )
    new_adjacency = adjacency | (head_one_hot.unsqueeze(2) & dependent_one_hot.unsqueeze(1))
    new_reachability = reachability | (reaches_head.unsqueeze(2) & reached_from_dependent.unsqueeze(1))
    return new_adjacency, new_reachability


def new_paths(
    reachability: torch.BoolTensor,
    head: torch.LongTensor,
    dependent: torch.LongTensor,
    active: torch.BoolTensor,
) -> Tuple[torch.BoolTensor, torch.BoolTensor, torch.BoolTensor, torch.BoolTensor]:
    """
    What adding `head -> dependent` to each active sentence changes, as `(batch_size, V)` node masks (all
    `False` for an inactive sentence): the head, the dependent, the nodes that reach the head (the head
    included) and the nodes the dependent reaches (the dependent included). The new paths are the outer
    product of the last two.
    """
    batch_size, num_nodes, _ = reachability.shape
    batch_index = torch.arange(batch_size, device=reachability.device)
    nodes = torch.arange(num_nodes, device=reachability.device)
    active = active.unsqueeze(-1)
    # comparisons rather than `one_hot`, which checks its indices' range (a min and a max) at every call
    head_one_hot = (nodes == head.unsqueeze(-1)) & active
    dependent_one_hot = (nodes == dependent.unsqueeze(-1)) & active
    reaches_head = (reachability[batch_index, :, head] & active) | head_one_hot
    reached_from_dependent = (reachability[batch_index, dependent, :] & active) | dependent_one_hot
    return head_one_hot, dependent_one_hot, reaches_head, reached_from_dependent


def transitive_closure(adjacency: torch.BoolTensor) -> torch.BoolTensor:
    """
    Reachability from scratch by repeated squaring (paths of length >= 1). A reference for `add_edge`.
    """
    reachability = adjacency.clone()
    num_nodes = adjacency.size(-1)
    length = 1
    while length < num_nodes:
        reachability = reachability | (
            torch.bmm(reachability.float(), reachability.float()) > 0
        )
        length *= 2
    return reachability


def heads_to_adjacency(heads: torch.LongTensor, node_mask: torch.BoolTensor) -> torch.BoolTensor:
    """
    `(batch_size, V)` head indices (entry 0, the root's, ignored) to a `(batch_size, V, V)` adjacency matrix.
    """
    num_nodes = heads.size(-1)
    # shape (batch_size, V, V): [b, dependent, head]
    dependent_to_head = torch.nn.functional.one_hot(heads.clamp(0, num_nodes - 1), num_nodes).bool()
    return (dependent_to_head & word_mask(node_mask).unsqueeze(-1)).transpose(1, 2)


def is_tree(heads: torch.LongTensor, node_mask: torch.BoolTensor, single_root: bool = True) -> torch.BoolTensor:
    """
    `(batch_size,)`: whether each head sequence is a dependency tree rooted at node 0 (every word reaches
    from the root, no cycle) and, with `single_root`, whether the root has exactly one child.
    """
    adjacency = heads_to_adjacency(heads, node_mask)
    reachability = transitive_closure(adjacency)
    words = word_mask(node_mask)
    in_range = ((heads >= 0) & (heads < node_mask.sum(-1, keepdim=True))) | ~words
    reached = (reachability[:, 0, :] | ~words).all(dim=-1)
    acyclic = ~(reachability.diagonal(dim1=1, dim2=2) & node_mask).any(dim=-1)
    tree = in_range.all(dim=-1) & reached & acyclic
    if single_root:
        tree = tree & ((adjacency[:, 0, :].sum(dim=-1) == 1) | ~words.any(dim=-1))
    return tree


class ValidDecoding(NamedTuple):
    """
    What the valid decoder returns.

    heads : `(batch_size, V)`, the head of every word; 0 at the root and on padding.
    edges : `(batch_size, N, 2)`, the `(head, dependent)` edges in the order they were added; -1 on padding.
    edge_steps : `(batch_size, N)`, the decoding step of each edge (equal to its position when one edge is
        added per step); -1 on padding.
    edge_probabilities : `(batch_size, N)`, each chosen edge's probability under the policy of its step.
    policies : `(batch_size, num_steps, V, V)`, each step's policy over `[head, dependent]` edges, when
        asked for (`keep_steps`), else `None`.
    valid_edges : `(batch_size, num_steps, V, V)`, the edges valid at the start of each step (those the
        step's first edge was chosen among), when asked for (`keep_steps`), else `None`. With `tau`, the
        later edges of a step are chosen among fewer: the step's own edges rule some out.
    """

    heads: torch.LongTensor
    edges: torch.LongTensor
    edge_steps: torch.LongTensor
    edge_probabilities: torch.Tensor
    policies: Optional[torch.Tensor] = None
    valid_edges: Optional[torch.BoolTensor] = None


class TreeState:
    """
    A batch of partial trees during decoding or a roll-in: the edges so far, their reachability matrix and
    the mask of valid next edges (`valid_mask`), kept up to date as edges are added. The training roll-in
    and the valid decoder both walk the tree through this one object.

    Every constraint of `valid_mask` only removes edges as the tree grows, so the valid mask is updated by
    removing what the new edges rule out, not rebuilt: the new dependents' columns, the edges that would
    close a cycle through the new reachability, and (with `single_root`) the root's row once it has a
    child.

    # Parameters

    node_mask : `torch.BoolTensor`, `(batch_size, V)`.
    single_root : `bool`, optional (default = `True`)
        See `valid_mask`.
    """

    def __init__(self, node_mask: torch.BoolTensor, single_root: bool = True) -> None:
        batch_size, num_nodes = node_mask.shape
        self.single_root = single_root
        # shape (batch_size, V, V), [head, dependent]
        self.adjacency = torch.zeros(batch_size, num_nodes, num_nodes, dtype=torch.bool, device=node_mask.device)
        self.reachability = torch.zeros_like(self.adjacency)
        self.valid = valid_mask(self.adjacency, self.reachability, node_mask, single_root)

    def has_valid_edge(self) -> torch.BoolTensor:
        """
        `(batch_size,)`: whether each tree can still grow (it is not complete).
        """
        return self.valid.flatten(1).any(dim=-1)

    def add_edges(
        self, head: torch.LongTensor, dependent: torch.LongTensor, active: torch.BoolTensor
    ) -> torch.BoolTensor:
        """
        Adds `head -> dependent` to every active sentence; returns the `(batch_size, V, V)` matrix of the
        edges added (empty for inactive sentences).

        # Parameters

        head, dependent : `torch.LongTensor`, `(batch_size,)`.
        active : `torch.BoolTensor`, `(batch_size,)`.
        """
        head_one_hot, dependent_one_hot, reaches_head, reached_from_dependent = new_paths(
            self.reachability, head, dependent, active
        )
        added = head_one_hot.unsqueeze(2) & dependent_one_hot.unsqueeze(1)
        self.adjacency = self.adjacency | added
        self.reachability = self.reachability | (reaches_head.unsqueeze(2) & reached_from_dependent.unsqueeze(1))
        # constraints 2-3: the new dependents have a head; 5: no edge back along a new path (the mask already
        # excludes the old ones), i.e. no `i -> j` with `i` reached from the dependent and `j` reaching the head
        ruled_out = (reached_from_dependent.unsqueeze(2) & reaches_head.unsqueeze(1)) | dependent_one_hot.unsqueeze(1)
        # a new tensor: callers may keep the mask of an earlier state
        valid = self.valid.masked_fill(ruled_out, False)
        if self.single_root:
            # the root's row is closed once it has a child (and stays so: masks only lose edges)
            valid[:, 0, :] &= ~(head_one_hot[:, 0].unsqueeze(-1))
        self.valid = valid
        return added

    def heads(self) -> torch.LongTensor:
        """
        `(batch_size, V)` head of every node (0 where there is none: the root, padding, a headless word).
        """
        return self.adjacency.long().argmax(dim=1)


def greedy_valid_decode(
    score_function: Callable[[Optional[torch.BoolTensor]], torch.Tensor],
    node_mask: torch.BoolTensor,
    single_root: bool = True,
    tau: Optional[float] = None,
    keep_steps: bool = False,
    policy_support: str = "all",
) -> ValidDecoding:
    """
    The valid decoder f_valid of Appendix A: at each step, the highest-scoring edge that keeps the partial
    graph a dependency tree.

    # Parameters

    score_function : `Callable`
        Called once per step with the `(batch_size, V, V)` boolean matrix of the edges added at the previous
        step (`None` at the first step); returns that step's scores `S_t`, `(batch_size, V, V)`.
    node_mask : `torch.BoolTensor`, `(batch_size, V)`.
    single_root : `bool`, optional (default = `True`)
        See `valid_mask`.
    tau : `float`, optional (default = `None`)
        `None` adds one edge per step. Otherwise the multi-edge decoder of Appendix A: within a step, after
        the best valid edge, keep adding the next best valid edge while its probability under the step's
        policy is at least `tau`.
    keep_steps : `bool`, optional (default = `False`)
        Also return every step's policy and valid edges (for plots and analyses of the generation order,
        which then need not rebuild the partial trees; memory grows with `N * V^2`).
    policy_support : `str`, optional (default = `"all"`)
        `"all"`: each step's policy is a softmax over all `V x V` edges (equation 5); `"valid"`: over the
        edges valid at the start of the step (a model trained with `policy_support: "valid"`). The chosen
        edges are the same; their probabilities, and so the `tau` threshold, refer to that policy.
    """
    if policy_support not in POLICY_SUPPORTS:
        raise ValueError(f'policy_support must be "all" or "valid", got {policy_support!r}')
    batch_size, num_nodes = node_mask.shape
    device = node_mask.device
    num_words = node_mask.sum(dim=-1) - 1
    max_words = max(int(num_words.max().item()), 0) if batch_size else 0

    state = TreeState(node_mask, single_root)
    # one entry per edge-adding round: the edge each sentence took (if active), its probability and step
    rounds: List[Tuple[torch.LongTensor, torch.Tensor, torch.BoolTensor, int]] = []

    last_edges: Optional[torch.BoolTensor] = None
    policies, valid_edges = [], []
    # a sentence of N words takes at most N steps: the loop needs no test of the device's tensors
    for step in range(max_words):
        # shape (batch_size, V * V); choose in log space: probabilities of unlikely edges underflow to 0 and
        # would tie, losing the score order among them
        log_probabilities = edge_log_probs(
            score_function(last_edges), node_mask, state.valid if policy_support == "valid" else None
        )
        if keep_steps:
            policies.append(log_probabilities.exp().reshape(batch_size, num_nodes, num_nodes))
            # the state replaces its mask as edges are added: this step's stays as it is
            valid_edges.append(state.valid)
        step_edges = None
        while True:
            flat_valid = state.valid.reshape(batch_size, -1)
            best_log_probability, best = torch.where(flat_valid, log_probabilities, float("-inf")).max(dim=-1)
            best_probability = best_log_probability.exp()
            # a valid edge's log-probability is finite: -inf means none is left
            active = best_log_probability > float("-inf")
            if step_edges is not None:
                active = active & (best_probability >= tau)
                if not bool(active.any()):
                    break
            added = state.add_edges(best // num_nodes, best % num_nodes, active)
            step_edges = added if step_edges is None else step_edges | added
            rounds.append((best, best_probability, active, step))
            if tau is None:
                break
        last_edges = step_edges
        if tau is not None and not bool(state.has_valid_edge().any()):
            break

    # the edges in the order they were added: each sentence's active rounds, packed to the front
    edges = torch.full((batch_size, max_words, 2), -1, dtype=torch.long, device=device)
    edge_steps = torch.full((batch_size, max_words), -1, dtype=torch.long, device=device)
    edge_probabilities = torch.zeros(batch_size, max_words, device=device)
    if rounds:
        # shape (batch_size, num_rounds)
        best = torch.stack([entry[0] for entry in rounds], dim=1)
        probabilities = torch.stack([entry[1] for entry in rounds], dim=1)
        active = torch.stack([entry[2] for entry in rounds], dim=1)
        steps = torch.tensor([entry[3] for entry in rounds], device=device).expand_as(best)
        rows, columns = active.nonzero(as_tuple=True)
        positions = (active.long().cumsum(dim=1) - 1)[rows, columns]
        edges[rows, positions] = torch.stack(
            [best[rows, columns] // num_nodes, best[rows, columns] % num_nodes], dim=-1
        )
        edge_steps[rows, positions] = steps[rows, columns]
        edge_probabilities[rows, positions] = probabilities[rows, columns]

    heads = state.heads()
    kept_policies = kept_valid_edges = None
    if keep_steps:
        kept_policies = (
            torch.stack(policies, dim=1)
            if policies
            else torch.zeros(batch_size, 0, num_nodes, num_nodes, device=device)
        )
        kept_valid_edges = (
            torch.stack(valid_edges, dim=1)
            if valid_edges
            else torch.zeros(batch_size, 0, num_nodes, num_nodes, dtype=torch.bool, device=device)
        )
    return ValidDecoding(heads, edges, edge_steps, edge_probabilities, kept_policies, kept_valid_edges)


def single_root_mst(energy: numpy.ndarray, length: int) -> numpy.ndarray:
    """
    AllenNLP's `decode_mst` (Chu-Liu-Edmonds) constrained to one root word, as UD trees and the CoNLL 2018
    evaluation require (Dozat & Manning's parser and Stanza also decode one root). Where the unconstrained
    tree attaches several words to the root, the best tree whose only root word is `r` is decoded for each
    candidate `r` (all other root edges removed) and the best of them kept. Candidates are tried by an upper
    bound on their tree (the root edge plus every other word's best non-root head) and the search stops
    when no bound beats the best tree found, so the result is the exact single-root optimum at a few extra
    decodings.

    # Parameters

    energy : `numpy.ndarray`, `(V, V)`, `[head, dependent]`, the root first; higher is better.
    length : `int`, the number of nodes of the sentence (root included).

    # Returns

    `(V,)` heads (node 0's entry is meaningless).
    """
    heads, _ = decode_mst(energy, length, has_labels=False)
    if sum(int(heads[word] == 0) for word in range(1, length)) <= 1:
        return heads
    words = numpy.arange(1, length)
    inner = energy[:length, :length].copy()
    inner[0, :] = -numpy.inf
    numpy.fill_diagonal(inner, -numpy.inf)
    # shape (length - 1,): each word's best non-root head
    best_inner = inner[:, 1:].max(axis=0)
    bounds = energy[0, 1:length] + best_inner.sum() - best_inner
    best_heads, best_score = heads, -numpy.inf
    for root in numpy.argsort(-bounds) + 1:
        if bounds[root - 1] <= best_score:
            break
        constrained = energy.copy()
        constrained[0, 1:length] = -1e9
        constrained[0, root] = energy[0, root]
        candidate, _ = decode_mst(constrained, length, has_labels=False)
        score = energy[candidate[1:length], words].sum()
        if score > best_score:
            best_heads, best_score = candidate, score
    return best_heads


def mst_decode(scores: torch.Tensor, node_mask: torch.BoolTensor) -> torch.LongTensor:
    """
    Chu-Liu-Edmonds maximum spanning tree over one-step scores with one root word (`single_root_mst`).

    `decode_mst` is numpy code for one sentence at a time, so this loops over the batch (as allennlp-models'
    biaffine parser does).

    # Parameters

    scores : `torch.Tensor`, `(batch_size, V, V)`, `[head, dependent]`.
    node_mask : `torch.BoolTensor`, `(batch_size, V)`.

    # Returns

    `(batch_size, V)` heads, 0 at the root and on padding.
    """
    lengths = node_mask.sum(dim=-1).tolist()
    # decode_mst maximises a sum of energies: use the log-probabilities of each word's head, so the tree is
    # the most probable one under the head-factored model (a sum of probabilities is not)
    energies = support_log_softmax(scores.detach().float(), pair_mask(node_mask), dim=1)
    energies = energies.cpu().numpy()
    heads = numpy.zeros(node_mask.shape, dtype=numpy.int64)
    for index, (energy, length) in enumerate(zip(energies, lengths)):
        energy = energy.copy()
        # no word may be the parent of the root (decode_mst never reads column 0; kept for clarity)
        energy[:, 0] = -1e9
        instance_heads = single_root_mst(energy, length)
        heads[index, :length] = instance_heads[:length]
    heads[:, 0] = 0
    return torch.from_numpy(heads).to(scores.device)
