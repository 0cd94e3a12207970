from typing import Optional

import torch
from allennlp.common.checks import ConfigurationError

from seqgraph_allennlp.oracles.oracle import Oracle, coaching_distribution, uniform_distribution


def mix(beta: float, free: torch.BoolTensor, policy_log_probs: torch.Tensor) -> torch.Tensor:
    """
    Equation (8): `beta * pi*_unif + (1 - beta) * pi*_coaching`.
    """
    return beta * uniform_distribution(free) + (1.0 - beta) * coaching_distribution(free, policy_log_probs)


@Oracle.register("coaching")
class CoachingOracle(Oracle):
    """
    The coaching oracle mixed with the uniform one (Section 3.2, equation 8): free edges weighted by the
    (detached) policy, which reinforces the orders the policy already prefers, with `beta` of uniform mass
    so that every free edge keeps some.

    # Parameters

    beta : `float`, optional (default = `0.5`)
        Weight of the uniform oracle; the paper's best models use 0.5.
    """

    def __init__(self, beta: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= beta <= 1.0:
            raise ConfigurationError(f"coaching oracle: beta must be in [0, 1], got {beta}")
        self._beta = beta

    @property
    def beta(self) -> Optional[float]:
        return self._beta

    def forward(self, free: torch.BoolTensor, policy_log_probs: torch.Tensor) -> torch.Tensor:
        return mix(self._beta, free, policy_log_probs)
