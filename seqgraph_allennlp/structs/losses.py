"""
The parser's objectives as pure batched tensor functions: the KL divergence of the learning-to-search loss
(Section 3, equation 6) and, beyond the paper, the head-selection cross-entropy on `S_0` (Dozat & Manning,
2017). The states they are summed over come from `models.seqgraph.tree_phase`.
"""
import torch

from seqgraph_allennlp.structs.tree import support_log_softmax, word_mask


def kl_divergence(target: torch.Tensor, log_probs: torch.Tensor) -> torch.Tensor:
    """
    `(batch_size,)` `KL(target || policy)` over flattened edges, `0 log 0 = 0`.

    # Parameters

    target : `torch.Tensor`, `(batch_size, K)`, the oracle's distribution over `K` candidates.
    log_probs : `torch.Tensor`, `(batch_size, K)`, the policy's log-probabilities of the same candidates.
    """
    positive = target > 0
    terms = target * (torch.log(target.clamp(min=1e-30)) - log_probs)
    return torch.where(positive, terms, torch.zeros_like(terms)).sum(dim=-1)


def head_selection_loss(
    initial_scores: torch.Tensor, node_mask: torch.BoolTensor, gold_heads: torch.LongTensor
) -> torch.Tensor:
    """
    The mean over words of `-log p(gold head | word)` with `p` a softmax over each dependent's column of
    `S_0` (Dozat & Manning's objective), over the real nodes other than the word itself; the others keep
    no mass (`support_log_softmax`, as the policies).

    # Parameters

    initial_scores : `torch.Tensor`, `(batch_size, V, V)`, `S_0[head, dependent]`.
    node_mask : `torch.BoolTensor`, `(batch_size, V)`.
    gold_heads : `torch.LongTensor`, `(batch_size, V)`, the root first.
    """
    num_nodes = node_mask.size(1)
    # shape (batch_size, V, V): [dependent, head]
    scores = initial_scores.transpose(1, 2)
    not_self = ~torch.eye(num_nodes, dtype=torch.bool, device=node_mask.device)
    head_mask = node_mask.unsqueeze(1) & not_self
    log_probs = support_log_softmax(scores, head_mask)
    # shape (batch_size, V)
    gold_log_probs = log_probs.gather(-1, gold_heads.unsqueeze(-1)).squeeze(-1)
    words = word_mask(node_mask)
    return -(gold_log_probs * words).sum() / words.sum().clamp(min=1)
