import torch

from seqgraph_allennlp.oracles.oracle import Oracle


def first_free_edge(free: torch.BoolTensor) -> torch.LongTensor:
    """
    `(batch_size,)` flattened index of the smallest free edge in increasing `(head, dependent)` order
    (0 where no edge is free).
    """
    flat = free.reshape(free.size(0), -1)
    # argmax returns the first maximal entry
    return flat.long().argmax(dim=-1)


@Oracle.register("linearized")
class LinearizedOracle(Oracle):
    """
    The linearized oracle (Section 3.2): the gold edges sorted in increasing `(head, dependent)` order, with
    probability 1 on the t-th at step t. On the linearized roll-in the t-th edge is the first free one; off
    that path the target is the first still-free edge in the same order, so the oracle stays defined.
    """

    def forward(self, free: torch.BoolTensor, policy_log_probs: torch.Tensor) -> torch.Tensor:
        flat = free.reshape(free.size(0), -1)
        target = torch.nn.functional.one_hot(first_free_edge(free), flat.size(-1)).float()
        return target * flat.any(dim=-1, keepdim=True)
