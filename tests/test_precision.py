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


def _bfloat16_encoder() -> FusedBiLstm:
    torch.manual_seed(0)
    return FusedBiLstm(4, 3, num_layers=1, bfloat16_training=True, bfloat16_inference=True).eval()


def test_both_modules_follow_the_policy_without_native_bfloat16(native):
    from seqgraph_allennlp.modules.recurrent_weight import RecurrentWeight

    encoder = _bfloat16_encoder()
    weight = RecurrentWeight(encoder_dim=6, hidden_dim=8, edge_dim=6, position_dim=5, weight_dim=4,
                             max_sentence_length=16, bfloat16_inference=True).eval()
    float32_encoder = FusedBiLstm(4, 3, num_layers=1).eval()
    float32_encoder.load_state_dict(encoder.state_dict())
    inputs = torch.randn(2, 5, 4)
    mask = torch.ones(2, 5, dtype=torch.bool)
    native(False)
    with torch.no_grad():
        output = encoder(inputs, mask)
        expected = float32_encoder(inputs, mask)
    # both options on, but no native bfloat16: float32 exactly
    assert output.dtype == torch.float32 and torch.equal(output, expected)
    assert weight._bfloat16 == Bfloat16Options(training=False, inference=True)
    assert encoder._bfloat16 == Bfloat16Options(training=True, inference=True)


# oneDNN has no bfloat16 LSTM on a CPU without native bfloat16 (AVX2: "could not create a primitive descriptor
# for the LSTM forward propagation primitive"), so the policy's bfloat16 branch can only run where it would
@pytest.mark.skipif(not precision.native_bfloat16(torch.device("cpu")),
                    reason="this CPU has no native bfloat16, so oneDNN cannot run a bfloat16 LSTM here")
def test_the_encoder_rounds_to_bfloat16_with_native_bfloat16(native):
    encoder = _bfloat16_encoder()
    inputs = torch.randn(2, 5, 4)
    mask = torch.ones(2, 5, dtype=torch.bool)
    outputs = {}
    for has_native in (False, True):
        native(has_native)
        with torch.no_grad():
            outputs[has_native] = encoder(inputs, mask)
    # bfloat16's rounding with native bfloat16 (the output stays float32)
    assert outputs[True].dtype == outputs[False].dtype == torch.float32
    assert not torch.equal(outputs[True], outputs[False])
    assert torch.allclose(outputs[True], outputs[False], atol=5e-2)


@pytest.mark.parametrize("has_native", [True, False])
def test_the_parsers_initial_scores_follow_the_policy_when_parsing_only(has_native, native):
    # arc_bfloat16_inference: S_0 and G_0 (the arc MLPs and biaffines) in bfloat16 when parsing on a native
    # CPU, float32 out; in training, and without native bfloat16, exactly float32
    from tests.test_root_label import ENHANCED_DATA, model_and_batch

    native(has_native)
    # the shipped enhanced config (and so its fixture twin) has the option on
    fast, _, tensors = model_and_batch("coach_valid_enhanced", ENHANCED_DATA)
    plain, _, _ = model_and_batch("coach_valid_enhanced", ENHANCED_DATA, '{"model.arc_bfloat16_inference": false}')
    plain.load_state_dict(fast.state_dict())
    assert fast._arc_bfloat16 == Bfloat16Options(training=False, inference=True)
    assert plain._arc_bfloat16 == Bfloat16Options()
    for training in (True, False):
        scores = {}
        for name, model in (("plain", plain), ("fast", fast)):
            model.train(training)
            # no dropout in either mode: the two models' values compare
            model._dropout.p = model._input_dropout.p = 0.0
            model.encoder._layer_dropout.p = 0.0
            with torch.no_grad():
                initial_scores, encoded, _, _ = model.encode(tensors["words"], None)
                scores[name] = [initial_scores, model.graph_initial_scores(encoded)]
        for actual, expected in zip(scores["fast"], scores["plain"]):
            assert actual.dtype == torch.float32
            if training or not has_native:
                assert torch.equal(actual, expected)
            else:
                assert not torch.equal(actual, expected)
                # bfloat16's 8 bits of mantissa on the scores' scale
                torch.testing.assert_close(actual, expected, rtol=0, atol=0.02 * float(expected.abs().max()))
