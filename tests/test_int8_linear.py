"""
seqgraph_allennlp.modules.int8_linear: a frozen Linear in int8 (per-token inputs, 7-bit per-channel weights), on
this CPU and on the CPU paths forced in a new process (`ONEDNN_MAX_CPU_ISA`, `ATEN_CPU_CAPABILITY`).
"""
import json
import os
import subprocess
import sys

import pytest
import torch

from seqgraph_allennlp.modules.int8_linear import WEIGHT_LEVELS, Int8Linear, int8_copy, quantize_rows

# a CPU without VNNI (AVX2; AVX512 without VNNI) and this one as it is
FORCED_PATHS = {
    "avx2": {"ONEDNN_MAX_CPU_ISA": "AVX2", "ATEN_CPU_CAPABILITY": "avx2"},
    "avx512_without_vnni": {"ONEDNN_MAX_CPU_ISA": "AVX512_CORE"},
    "as_it_is": {},
}

# in the forced process: whether torch._int_mm is exact with 7-bit and with 8-bit weights, and the CPU path
EXACTNESS = """
import json, torch
torch.manual_seed(0)
inputs = torch.randint(-127, 128, (64, 768), dtype=torch.int8)
exact = {}
for bits, levels in ((7, 63), (8, 127)):
    weight = torch.randint(-levels, levels + 1, (256, 768), dtype=torch.int8)
    product = torch._int_mm(inputs, weight.t())
    exact[bits] = bool(torch.equal(product, (inputs.long() @ weight.t().long()).int()))
print(json.dumps({"exact": exact, "capability": torch.backends.cpu.get_cpu_capability(),
                  "bf16": torch.ops.mkldnn._is_mkldnn_bf16_supported()}))
"""


def relative_error(output: torch.Tensor, reference: torch.Tensor) -> float:
    return float((output - reference).detach().norm() / reference.detach().norm())


def test_quantize_rows_gives_each_row_its_own_scale():
    matrix = torch.tensor([[0.5, -1.0, 0.25], [100.0, 50.0, -25.0], [0.0, 0.0, 0.0]])
    quantized, scale = quantize_rows(matrix, 127)
    assert quantized.dtype == torch.int8 and scale.shape == (3, 1)
    assert quantized.tolist() == [[64, -127, 32], [127, 64, -32], [0, 0, 0]]
    assert torch.allclose(quantized.float() * scale, matrix, atol=float(scale.max()) / 2)
    assert scale[2].item() == 1.0  # zeros: any scale


def test_int8_linear_is_close_to_float32_and_a_wrong_weight_is_not():
    torch.manual_seed(0)
    linear = torch.nn.Linear(96, 48)
    with torch.no_grad():
        linear.bias.normal_(0, 3)  # as large as the products, so that leaving it out shows
    # a transformer-like input: a few channels and tokens far larger than the rest
    inputs = torch.randn(3, 20, 96)
    inputs[..., 7] *= 40
    inputs[1, 3] *= 25
    with torch.no_grad():
        reference = linear(inputs)
    output = Int8Linear(linear)(inputs)
    assert output.shape == reference.shape and output.dtype == torch.float32
    # the large channel sets each token's scale: a few per cent
    assert relative_error(output, reference) < 0.05
    # a weight that is one row off, or a bias left out, is far outside that
    shifted = torch.nn.Linear(96, 48)
    with torch.no_grad():
        shifted.weight.copy_(torch.roll(linear.weight, 1, dims=0))
        shifted.bias.copy_(linear.bias)
    assert relative_error(Int8Linear(shifted)(inputs), reference) > 0.5
    no_bias = torch.nn.Linear(96, 48, bias=False)
    with torch.no_grad():
        no_bias.weight.copy_(linear.weight)
    assert relative_error(Int8Linear(no_bias)(inputs), reference) > 0.2


def test_a_token_gets_the_same_output_whatever_else_is_in_its_batch():
    # one scale per token: padding or a large token beside it changes nothing
    torch.manual_seed(1)
    linear = torch.nn.Linear(64, 32)
    layer = Int8Linear(linear)
    tokens = torch.randn(5, 64)
    alone = layer(tokens)
    with_others = layer(torch.cat([tokens, 1000 * torch.randn(3, 64), torch.zeros(4, 64)]))[:5]
    assert torch.equal(alone, with_others)


def test_the_weights_are_on_seven_bits_per_output_channel():
    linear = torch.nn.Linear(16, 4)
    with torch.no_grad():
        linear.weight.mul_(torch.tensor([[1.0], [10.0], [100.0], [0.001]]))
    layer = Int8Linear(linear)
    assert layer.weight.dtype == torch.int8 and layer.weight.shape == (4, 16)
    # each row reaches the largest level once, whatever its scale
    assert layer.weight.abs().amax(dim=1).tolist() == [WEIGHT_LEVELS] * 4
    assert torch.allclose(layer.weight.float() * layer.weight_scale[:, None], linear.weight, rtol=0,
                          atol=float(layer.weight_scale.max()) / 2)


def test_int8_copy_replaces_every_linear_and_shares_the_rest():
    torch.manual_seed(2)
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.LayerNorm(8),
                                torch.nn.Sequential(torch.nn.Linear(8, 4)))
    copied = int8_copy(model)
    assert [type(module).__name__ for module in copied.modules() if not isinstance(module, torch.nn.Sequential)] \
        == ["Int8Linear", "LayerNorm", "Int8Linear"]
    # the original keeps its float layers; the layer norm is the same tensor in both
    assert isinstance(model[0], torch.nn.Linear) and isinstance(model[2][0], torch.nn.Linear)
    assert copied[1].weight is model[1].weight
    inputs = torch.randn(6, 8)
    assert relative_error(copied(inputs), model(inputs)) < 0.03


@pytest.mark.parametrize("path", list(FORCED_PATHS))
def test_int_mm_is_exact_with_seven_bit_weights_on_each_cpu_path(path):
    completed = subprocess.run([sys.executable, "-c", EXACTNESS], capture_output=True, text=True,
                               env={**os.environ, **FORCED_PATHS[path]}, timeout=120)
    assert completed.returncode == 0, completed.stderr[-2000:]
    result = json.loads(completed.stdout.strip().splitlines()[-1])
    assert result["exact"]["7"], result
    if path == "avx2":
        # the forcing took: AVX2 kernels, no native bfloat16, and 8-bit weights saturate there
        assert result["capability"] == "AVX2" and not result["bf16"]
        assert not result["exact"]["8"], result
