from typing import Optional

import torch

from seqgraph_allennlp.roll_ins.roll_in import RollIn, sample_free_edge


@RollIn.register("uniform")
class UniformRollIn(RollIn):
    """
    Roll-in with the uniform oracle (Section 3.3, 1): a free gold edge drawn uniformly, so the states are
    those of a uniformly random order of the gold tree.
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
        return sample_free_edge(free, generator)
