from typing import Optional, Tuple

import torch
from allennlp.common import Registrable


def free_edges(gold_adjacency: torch.BoolTensor, valid: torch.BoolTensor) -> torch.BoolTensor:
    """
    The free edge set E_free^t of Section 3.2: the gold edges that may still be added.

    On the gold path (every edge so far is gold) this is the paper's `E minus the predicted edges`. Off the
    gold path the paper leaves it open; here it is the gold edges whose dependent still has no head **and**
    that keep the partial graph a valid tree, which is exactly `gold & valid_mask(...)`: a gold edge into a
    word that received a wrong head, or one that would now close a cycle, or a second root edge, is no
    longer free. A step whose free set is empty has no oracle target and adds no loss.

    # Parameters

    gold_adjacency : `torch.BoolTensor`, `(batch_size, V, V)`, gold edges `[head, dependent]`.
    valid : `torch.BoolTensor`, `(batch_size, V, V)`, from `structs.tree.valid_mask` on the current state.

    # Returns

    `(batch_size, V, V)` boolean mask of free edges.
    """
    return gold_adjacency & valid


def gold_edge_index(gold_heads: torch.LongTensor, node_mask: torch.BoolTensor) -> Tuple[torch.LongTensor, torch.BoolTensor]:
    """
    The gold edges of each sentence as flattened indices `head * V + dependent`, in increasing order, and
    which of them are real: `(batch_size, V)` each, one slot per node (the root's and padding slots come
    last and are not real). A free edge is always gold, so an oracle's target and the KL need only these
    `V` entries of a state instead of all `V x V` (the last dimension of `free` and `policy_log_probs`
    passed to an `Oracle` keeps the increasing edge order, which the linearized oracle relies on).

    # Parameters

    gold_heads : `torch.LongTensor`, `(batch_size, V)`, the gold head of each node (the root's is ignored).
    node_mask : `torch.BoolTensor`, `(batch_size, V)`.
    """
    num_nodes = node_mask.size(1)
    dependents = torch.arange(num_nodes, device=node_mask.device).unsqueeze(0)
    is_word = node_mask.clone()
    is_word[:, 0] = False
    index = gold_heads * num_nodes + dependents
    # non-words sort after every real edge
    keys = torch.where(is_word, index, num_nodes * num_nodes + dependents)
    order = keys.argsort(dim=-1)
    is_gold = is_word.gather(1, order)
    return index.gather(1, order).masked_fill(~is_gold, 0), is_gold


def uniform_distribution(free: torch.BoolTensor) -> torch.Tensor:
    """
    `pi*_unif`: `(batch_size, V * V)`, `1 / |E_free|` on every free edge; rows with no free edge are zero.
    """
    flat = free.reshape(free.size(0), -1).float()
    return flat / flat.sum(dim=-1, keepdim=True).clamp(min=1.0)


def coaching_distribution(free: torch.BoolTensor, policy_log_probs: torch.Tensor) -> torch.Tensor:
    """
    `pi*_coaching`: the policy restricted to the free edges and renormalised,
    `pi_unif * pi_theta / sum(pi_unif * pi_theta)`; rows with no free edge are zero.
    The policy is detached: the oracle is a target, not a path for gradients.
    """
    flat = free.reshape(free.size(0), -1)
    # work in log space: a policy that puts ~0 mass on every free edge must still give a distribution
    masked = policy_log_probs.detach().masked_fill(~flat, float("-inf"))
    has_free = flat.any(dim=-1, keepdim=True)
    return torch.where(has_free, torch.softmax(masked.masked_fill(~has_free, 0.0), dim=-1), 0.0)


class Oracle(torch.nn.Module, Registrable):
    """
    An oracle policy pi* (Section 3.2): a target distribution over the `V x V` edges that puts mass only on
    the free edges of the current state. The training loss is `KL(pi* || pi_theta)` at every roll-in state.

    An `Oracle` is a `torch.nn.Module` so that a schedule it keeps (annealed coaching) is saved with the
    model and a resumed run continues it.
    """

    default_implementation = "uniform"

    def forward(self, free: torch.BoolTensor, policy_log_probs: torch.Tensor) -> torch.Tensor:
        """
        # Parameters

        free : `torch.BoolTensor`, `(batch_size, V, V)`, see `free_edges`, or `(batch_size, K)`: the same
            mask on `K` candidate edges that include every free one, in increasing `(head, dependent)`
            order (`gold_edge_index`; the training loss passes only the gold edges).
        policy_log_probs : `torch.Tensor`, `(batch_size, V * V)` or `(batch_size, K)`, the policy's
            log-probabilities of the same edges at this state.

        # Returns

        `(batch_size, V * V)` (or `(batch_size, K)`) target probabilities; a row is all zero where the free
        set is empty.
        """
        raise NotImplementedError

    @property
    def beta(self) -> Optional[float]:
        """
        The current mixing weight of the uniform oracle, for roll-ins that follow it; `None` if the oracle
        has none.
        """
        return None

    def update(self) -> None:
        """
        Called once per training batch; schedules advance here.
        """
        pass
