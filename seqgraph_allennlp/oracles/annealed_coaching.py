from typing import Optional

import torch
from allennlp.common.checks import ConfigurationError

from seqgraph_allennlp.oracles.coaching import mix
from seqgraph_allennlp.oracles.oracle import Oracle


@Oracle.register("annealed_coaching")
class AnnealedCoachingOracle(Oracle):
    """
    Annealed coaching (Section 3.2): the coaching mixture of equation (8) with `beta` starting at
    `initial_beta` (uniform oracle) and lowered by `step_size` every `steps_per_decrease` training updates,
    down to `final_beta`. The paper anneals by 0.02 every 2000 steps.

    The number of updates is a buffer, saved in the model's state dict, so a resumed run continues the
    schedule where it stopped.

    # Parameters

    initial_beta : `float`, optional (default = `1.0`)
    step_size : `float`, optional (default = `0.02`)
    steps_per_decrease : `int`, optional (default = `2000`)
    final_beta : `float`, optional (default = `0.0`)
    """

    def __init__(
        self,
        initial_beta: float = 1.0,
        step_size: float = 0.02,
        steps_per_decrease: int = 2000,
        final_beta: float = 0.0,
    ) -> None:
        super().__init__()
        if not 0.0 <= final_beta <= initial_beta <= 1.0:
            raise ConfigurationError(
                "annealed_coaching oracle: need 0 <= final_beta <= initial_beta <= 1, "
                f"got final_beta={final_beta}, initial_beta={initial_beta}"
            )
        if steps_per_decrease < 1 or step_size < 0:
            raise ConfigurationError(
                "annealed_coaching oracle: steps_per_decrease must be >= 1 and step_size >= 0"
            )
        self._initial_beta = initial_beta
        self._step_size = step_size
        self._steps_per_decrease = steps_per_decrease
        self._final_beta = final_beta
        self.register_buffer("num_updates", torch.zeros((), dtype=torch.long))

    @property
    def beta(self) -> Optional[float]:
        decreases = int(self.num_updates.item()) // self._steps_per_decrease
        return max(self._final_beta, self._initial_beta - self._step_size * decreases)

    def update(self) -> None:
        self.num_updates += 1

    def forward(self, free: torch.BoolTensor, policy_log_probs: torch.Tensor) -> torch.Tensor:
        return mix(self.beta, free, policy_log_probs)
