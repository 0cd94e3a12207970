import torch

from seqgraph_allennlp.oracles.oracle import Oracle, uniform_distribution


@Oracle.register("uniform")
class UniformOracle(Oracle):
    """
    `pi*_unif` (Section 3.2): every free edge equally likely, so every order of the gold edges is an equally
    good target.
    """

    def forward(self, free: torch.BoolTensor, policy_log_probs: torch.Tensor) -> torch.Tensor:
        return uniform_distribution(free)
