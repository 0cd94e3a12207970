import math
from typing import Optional

import torch
from allennlp.common import Registrable
from allennlp.common.checks import ConfigurationError


def sample_free_edge(free: torch.BoolTensor, generator: Optional[torch.Generator] = None) -> torch.LongTensor:
    """
    `(batch_size,)`: a free gold edge drawn uniformly from each `(batch_size, V * V)` row of `free`, as the
    flattened index `head * V + dependent` (0 where none is free).

    Free edges are gold edges, so a dependent has at most one: drawing its dependent uniformly among those
    with a free edge draws the edge uniformly, with `V` random keys a sentence instead of `V x V` (the keys
    and an argmax keep it batched).
    """
    batch_size = free.size(0)
    num_nodes = math.isqrt(free.size(-1))
    free = free.view(batch_size, num_nodes, num_nodes)
    # shape (batch_size, V)
    has_free = free.any(dim=1)
    keys = torch.rand(has_free.shape, device=free.device, generator=generator)
    dependent = torch.where(has_free, keys, -1.0).argmax(dim=-1)
    column = free.gather(2, dependent.view(batch_size, 1, 1).expand(-1, num_nodes, 1)).squeeze(-1)
    head = column.byte().argmax(dim=-1)
    return head * num_nodes + dependent


def choose_from_policy(
    policy_log_probs: torch.Tensor,
    mask: torch.BoolTensor,
    greedy: bool,
    generator: Optional[torch.Generator] = None,
) -> torch.LongTensor:
    """
    `(batch_size,)`: the policy's best edge among the `True` entries of `mask` (`greedy`), or one sampled
    from the policy renormalised over them (Gumbel-max, exact). 0 for an all-`False` row.
    """
    scores = policy_log_probs.detach()
    if not greedy:
        uniform = torch.rand(scores.shape, device=scores.device, generator=generator)
        uniform = uniform.clamp(1e-10, 1.0 - 1e-7)
        scores = scores - torch.log(-torch.log(uniform))
    return torch.where(mask, scores, float("-inf")).argmax(dim=-1)


class RollIn(Registrable):
    """
    A roll-in policy pi^in (Section 3.3): chooses the edge added at each training step, and so the states
    the policy is trained on. Every roll-in returns only edges that keep the graph a valid tree; where no
    gold edge is free any more (the roll-in left the gold path), it takes the policy's best valid edge,
    as the decoder would at test time.
    """

    default_implementation = "uniform"
    # Whether the roll-in's choice on the gold path reads the policy. One that does not (uniform,
    # linearized) never leaves the gold tree, so every state it reaches before the tree is complete has a
    # free edge: the model's roll-in then skips the step-by-step scores, which only the fallback reads.
    reads_policy = True

    def __call__(
        self,
        free: torch.BoolTensor,
        valid: torch.BoolTensor,
        policy_log_probs: torch.Tensor,
        oracle_beta: Optional[float] = None,
        generator: Optional[torch.Generator] = None,
    ) -> torch.LongTensor:
        """
        # Parameters

        free : `torch.BoolTensor`, `(batch_size, V, V)`, the free gold edges (`oracles.free_edges`).
        valid : `torch.BoolTensor`, `(batch_size, V, V)`, the valid edges (`structs.tree.valid_mask`).
        policy_log_probs : `torch.Tensor`, `(batch_size, V * V)`, the policy at this state (not
            differentiated through): its log-probabilities or its scores, equal up to a constant per
            sentence, which no roll-in's choice (an argmax or a Gumbel-max within a mask) depends on.
        oracle_beta : `float`, optional
            The oracle's current `beta`, for roll-ins configured to follow it.
        generator : `torch.Generator`, optional
            Source of randomness; torch's global one by default (the model passes a fixed-seed one
            outside training, so that validation losses are reproducible).

        # Returns

        `(batch_size,)` flattened index `head * V + dependent` of the chosen edge; meaningless for a
        sentence with no valid edge left (already complete).
        """
        batch_size = free.size(0)
        free = free.reshape(batch_size, -1)
        valid = valid.reshape(batch_size, -1)
        choice = self.choose(free, valid, policy_log_probs, oracle_beta, generator)
        has_free = free.any(dim=-1)
        if bool(has_free.all()):
            return choice
        # off the gold path nothing is free: continue as the valid decoder would
        fallback = choose_from_policy(policy_log_probs, valid, greedy=True)
        return torch.where(has_free, choice, fallback)

    def choose(
        self,
        free: torch.BoolTensor,
        valid: torch.BoolTensor,
        policy_log_probs: torch.Tensor,
        oracle_beta: Optional[float],
        generator: Optional[torch.Generator],
    ) -> torch.LongTensor:
        """
        The roll-in's own choice, with `free` and `valid` flattened to `(batch_size, V * V)`; only used for
        sentences with at least one free edge.
        """
        raise NotImplementedError


class MixedRollIn(RollIn):
    """
    A roll-in that follows the uniform oracle with probability `beta` and a policy-based choice otherwise
    (the paper's mixtures with a uniform oracle, Section 4.2). The coin is tossed per sentence and step;
    with sampling this is exactly sampling from `beta * pi*_unif + (1 - beta) * pi^in`, and with `greedy`
    it keeps `beta` meaningful (an argmax of the mixture would almost always be the policy's argmax).

    # Parameters

    beta : `float`, optional (default = `0.5`)
        Probability of a uniform free edge.
    greedy : `bool`, optional (default = `True`)
        Take the policy's argmax rather than a sample.
    follow_oracle_beta : `bool`, optional (default = `False`)
        Use the oracle's current `beta` instead (annealed coaching anneals both, Table 3).
    """

    def __init__(self, beta: float = 0.5, greedy: bool = True, follow_oracle_beta: bool = False) -> None:
        if not 0.0 <= beta <= 1.0:
            raise ConfigurationError(f"roll-in: beta must be in [0, 1], got {beta}")
        self.beta = beta
        self.greedy = greedy
        self.follow_oracle_beta = follow_oracle_beta

    def choose(self, free, valid, policy_log_probs, oracle_beta, generator):
        beta = self.beta
        if self.follow_oracle_beta:
            if oracle_beta is None:
                raise ConfigurationError(
                    "roll-in has follow_oracle_beta: true but the oracle has no beta "
                    "(use a coaching or annealed_coaching oracle)"
                )
            beta = oracle_beta
        policy_choice = self.policy_choice(free, valid, policy_log_probs, generator)
        use_uniform = torch.rand(free.size(0), device=free.device, generator=generator) < beta
        return torch.where(use_uniform, sample_free_edge(free, generator), policy_choice)

    def policy_choice(
        self,
        free: torch.BoolTensor,
        valid: torch.BoolTensor,
        policy_log_probs: torch.Tensor,
        generator: Optional[torch.Generator],
    ) -> torch.LongTensor:
        raise NotImplementedError
