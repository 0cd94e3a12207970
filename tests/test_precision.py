"""
The one precision policy (`seqgraph_allennlp.modules.precision`): its truth table, and that both modules with
bfloat16 options (the encoder and the recurrent weight model) follow it and nothing else.
"""
import pytest
import torch

from seqgraph_allennlp.modules import precision
from seqgraph_allennlp.modules.fused_bilstm import FusedBiLstm
from seqgraph_allennlp.modules.precision import Bfloat16Options


@pytest.fixture
def native(monkeypatch):
    """Sets whether the CPU has bfloat16 natively, for the policy only."""

    def set_native(value: bool) -> None:
        monkeypatch.setattr(precision, "native_bfloat16", lambda device: value and device.type == "cpu")

    return set_native


@pytest.mark.parametrize("training_option, inference_option", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("has_native", [True, False])
def test_the_mode_option_on_a_native_cpu_decides(training_option, inference_option, has_native, native):
    native(has_native)
    options = Bfloat16Options(training=training_option, inference=inference_option)
    cpu = torch.device("cpu")
    assert options.active(True, cpu) == (training_option and has_native)
    assert options.active(False, cpu) == (inference_option and has_native)
    # a GPU runs float32 whatever it supports
    assert not options.active(True, torch.device("cuda", 0)) and not options.active(False, torch.device("cuda", 0))
    # inside: autocast where active, nothing otherwise
    product = None
    with options.autocast(True, cpu):
        product = torch.ones(2, 2) @ torch.ones(2, 2)
    assert product.dtype == (torch.bfloat16 if options.active(True, cpu) else torch.float32)


def test_both_modules_follow_the_policy(native):
    from seqgraph_allennlp.modules.recurrent_weight import RecurrentWeight

    torch.manual_seed(0)
    encoder = FusedBiLstm(4, 3, num_layers=1, bfloat16_training=True, bfloat16_inference=True).eval()
    inputs = torch.randn(2, 5, 4)
    mask = torch.ones(2, 5, dtype=torch.bool)
    weight = RecurrentWeight(encoder_dim=6, hidden_dim=8, edge_dim=6, position_dim=5, weight_dim=4,
                             max_sentence_length=16, bfloat16_inference=True).eval()
    outputs = {}
    for has_native in (False, True):
        native(has_native)
        with torch.no_grad():
            outputs[has_native] = encoder(inputs, mask)
    # float32 exactly without native bfloat16; bfloat16's rounding with it (the output stays float32)
    assert outputs[True].dtype == outputs[False].dtype == torch.float32
    assert not torch.equal(outputs[True], outputs[False])
    assert torch.allclose(outputs[True], outputs[False], atol=5e-2)
    assert weight._bfloat16 == Bfloat16Options(training=False, inference=True)
    assert encoder._bfloat16 == Bfloat16Options(training=True, inference=True)
