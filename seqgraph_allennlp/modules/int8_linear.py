"""
int8 matrix products for a frozen transformer on a CPU (`transformer_precision: "int8"` of
`cached_pretrained_transformer_mismatched`): each `torch.nn.Linear` becomes an `Int8Linear`, whose weights are
quantized once per output channel and whose input is quantized per token at every call, multiplied by
`torch._int_mm` (int8 x int8 -> int32) and scaled back to float32.

Two choices make it usable where PyTorch's `quantize_dynamic` is not (measured on all-mpnet-base-v2 and the
English model, docs/BENCHMARKS.md):

* one scale per token, not per batch: a transformer's activations have tokens and channels far larger than
  the rest (and a batch has padding), so one scale for the whole batch rounds most tokens to a few levels;
* weights on 7 bits (-63..63): without VNNI (AVX2, AVX512 without VNNI) oneDNN multiplies int8 by adding 128 to
  the input and summing pairs of products in 16 bits, which saturates with 8-bit weights and is exact with
  7-bit ones (`tests/test_int8_linear.py` checks it on the forced CPU paths).
"""
import copy
import warnings

import torch

# symmetric levels: the input on 8 bits, the weights on 7 (see above)
INPUT_LEVELS = 127
WEIGHT_LEVELS = 63


def quantize_rows(matrix: torch.Tensor, levels: int) -> "tuple[torch.Tensor, torch.Tensor]":
    """
    Each row of a float `matrix` `(rows, columns)` as int8 in `[-levels, levels]` and its scale `(rows, 1)`:
    `matrix ≈ quantized * scale`. A row of zeros gets scale 1 (any would do).
    """
    scale = matrix.abs().amax(dim=-1, keepdim=True).div_(levels)
    scale = torch.where(scale > 0, scale, torch.ones_like(scale))
    quantized = torch.div(matrix, scale).round_().clamp_(-levels, levels).to(torch.int8)
    return quantized, scale


class Int8Linear(torch.nn.Module):
    """
    A frozen `torch.nn.Linear` computed in int8: its weight quantized per output channel to 7 bits, its input
    per token (the last dimension's vector) to 8 bits at each call, the product in int32 by `torch._int_mm`,
    returned in float32. With the English model's mpnet features in int8 its EWT test UAS and LAS move by 0.03
    and 0.05 from float32 features (docs/BENCHMARKS.md). Inference only; the float weight is not kept.

    # Parameters

    linear : `torch.nn.Linear`
        The layer to stand in for; its weight and bias are read, not changed.
    """

    def __init__(self, linear: torch.nn.Linear) -> None:
        super().__init__()
        weight, scale = quantize_rows(linear.weight.detach().float(), WEIGHT_LEVELS)
        # shape (out_features, in_features), given to _int_mm transposed: a column-major right operand, faster
        # than a row-major one for a few tokens (40 of them: a third of the time, forced AVX2)
        self.register_buffer("weight", weight)
        # shape (out_features,)
        self.register_buffer("weight_scale", scale.squeeze(-1))
        bias = linear.bias.detach().float() if linear.bias is not None else None
        self.register_buffer("bias", bias)
        self.in_features, self.out_features = linear.in_features, linear.out_features

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        # shape (tokens, in_features)
        rows = inputs.reshape(-1, self.in_features).float()
        quantized, scale = quantize_rows(rows, INPUT_LEVELS)
        # shape (tokens, out_features)
        output = torch._int_mm(quantized, self.weight.t()).float().mul_(scale).mul_(self.weight_scale)
        if self.bias is not None:
            output.add_(self.bias)
        return output.reshape(*inputs.shape[:-1], self.out_features)


def int8_copy(transformer: torch.nn.Module) -> torch.nn.Module:
    """
    A copy of `transformer` whose `torch.nn.Linear` layers are `Int8Linear`s; its other parameters and
    buffers (embeddings, layer norms) are shared with `transformer`, not copied, and `transformer` keeps its
    float layers.
    """
    # the copy's modules hold the original's tensors (none copied); its Linear layers are then replaced
    shared = {id(tensor): tensor for tensor in list(transformer.parameters()) + list(transformer.buffers())}
    copied = copy.deepcopy(transformer, shared)
    for parent in list(copied.modules()):
        for name, child in list(parent.named_children()):
            if isinstance(child, torch.nn.Linear):
                setattr(parent, name, Int8Linear(child))
    return copied.eval()


def int8_lstm(lstm: torch.nn.LSTM) -> torch.nn.Module:
    """
    A copy of a frozen `torch.nn.LSTM` computed in int8 by PyTorch's dynamic quantization (int8 weights, the
    input of each product quantized per call; on x86 on 7 bits, so that CPUs without VNNI do not saturate).
    Unlike a transformer's, an LSTM's inputs are gated and bounded: the English model's EWT test UAS and LAS
    with its BiLSTM in int8 stay within 0.03 of float32 (docs/BENCHMARKS.md). `lstm` itself is unchanged.
    """
    with warnings.catch_warnings():
        # torch.ao.quantization is deprecated in favour of torchao, which the pinned torch does not need
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.filterwarnings("ignore", message=".*quantize_per_tensor.*")
        return torch.ao.quantization.quantize_dynamic(torch.nn.Sequential(lstm), {torch.nn.LSTM},
                                                      dtype=torch.qint8)[0].eval()
