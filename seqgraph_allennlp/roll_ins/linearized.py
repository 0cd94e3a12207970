from typing import Optional

import torch

from seqgraph_allennlp.oracles.linearized import first_free_edge
from seqgraph_allennlp.roll_ins.roll_in import RollIn


@RollIn.register("linearized")
class LinearizedRollIn(RollIn):
    """
    Roll-in along the linear order of the linearized oracle: the gold edges in increasing
    `(head, dependent)` order, the t-th at step t.
    """

    reads_policy = False

    def choose(
        self,
        free: torch.BoolTensor,
        valid: torch.BoolTensor,
        policy_log_probs: torch.Tensor,
        oracle_beta: Optional[float],
        generator: Optional[torch.Generator] = None,
    ) -> torch.LongTensor:
        return first_free_edge(free)
