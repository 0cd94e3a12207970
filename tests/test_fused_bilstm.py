import pytest
import torch

from allennlp.modules.matrix_attention import BilinearMatrixAttention

from seqgraph_allennlp.modules.bilinear import MatmulBilinear, MatmulBilinearMatrixAttention
from seqgraph_allennlp.modules.fused_bilstm import FusedBiLstm, reverse_within_lengths
from seqgraph_allennlp.modules.recurrent_weight import RecurrentWeight


def test_reverse_within_lengths_by_hand():
    inputs = torch.tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 0.0, 0.0]]).unsqueeze(-1)
    reversed_ = reverse_within_lengths(inputs, torch.tensor([4, 2]))
    assert reversed_.squeeze(-1).tolist() == [[4.0, 3.0, 2.0, 1.0], [6.0, 5.0, 0.0, 0.0]]
    assert torch.equal(reverse_within_lengths(reversed_, torch.tensor([4, 2])), inputs)


def reference_bilstm_layer(lstm_forward, lstm_backward, inputs):
    """One sentence, no padding: the forward LSTM on the words, the backward one on the words reversed."""
    forward, _ = lstm_forward(inputs.unsqueeze(0))
    backward, _ = lstm_backward(inputs.flip(0).unsqueeze(0))
    return torch.cat([forward[0], backward[0].flip(0)], dim=-1)


@pytest.mark.parametrize("use_highway", [True, False])
def test_sentence_alone_equals_sentence_in_a_padded_batch(use_highway):
    torch.manual_seed(0)
    encoder = FusedBiLstm(6, 5, num_layers=3, layer_dropout=0.5, recurrent_dropout=0.3, use_highway=use_highway)
    encoder.eval()
    lengths = [7, 1, 4, 7, 2]
    inputs = torch.randn(len(lengths), 7, 6)
    mask = torch.arange(7).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)
    # padding holds garbage: it must not leak into any sentence
    inputs = inputs.masked_fill(~mask.unsqueeze(-1), 1e3) * 1.0
    batched = encoder(inputs, mask)
    assert batched.shape == (5, 7, 10)
    assert (batched[~mask] == 0).all()
    for index, length in enumerate(lengths):
        alone = encoder(inputs[index: index + 1, :length], mask[index: index + 1, :length])
        torch.testing.assert_close(batched[index, :length], alone[0], rtol=0, atol=1e-5)


def float32_and_bfloat16_twins(**bfloat16_option):
    """Two encoders with the same weights, the second with a bfloat16 option; a padded batch for them."""
    torch.manual_seed(0)
    plain = FusedBiLstm(16, 32, num_layers=2, layer_dropout=0.0)
    fast = FusedBiLstm(16, 32, num_layers=2, layer_dropout=0.0, **bfloat16_option)
    fast.load_state_dict(plain.state_dict())
    inputs = torch.randn(3, 9, 16)
    mask = torch.arange(9).unsqueeze(0) < torch.tensor([9, 4, 6]).unsqueeze(1)
    return plain, fast, inputs, mask


def test_bfloat16_inference_is_close_to_float32_and_leaves_training_alone():
    from seqgraph_allennlp.modules.fused_bilstm import native_bfloat16

    plain, fast, inputs, mask = float32_and_bfloat16_twins(bfloat16_inference=True)
    # training: float32 whatever the option
    assert torch.equal(fast(inputs, mask), plain(inputs, mask))
    plain.eval()
    fast.eval()
    expected, actual = plain(inputs, mask), fast(inputs, mask)
    assert actual.dtype == torch.float32 and (actual[~mask] == 0).all()
    torch.testing.assert_close(actual, expected, rtol=0, atol=0.05)
    # where bfloat16 is native the layers really ran in it (float32 otherwise)
    assert torch.equal(actual, expected) != native_bfloat16(inputs.device)


def test_bfloat16_inference_runs_the_highway_in_bfloat16_when_parsing_only():
    from seqgraph_allennlp.modules.fused_bilstm import native_bfloat16

    _, fast, inputs, mask = float32_and_bfloat16_twins(bfloat16_inference=True)
    dtypes = []
    for gate in fast.highway_gates:
        gate.register_forward_hook(lambda module, args, output: dtypes.append(output.dtype))
    fast(inputs, mask)
    assert dtypes == [torch.float32, torch.float32]
    fast.eval()
    dtypes.clear()
    fast(inputs, mask)
    expected = torch.bfloat16 if native_bfloat16(inputs.device) else torch.float32
    assert dtypes == [expected, expected]


def test_first_layer_without_highway_is_a_bidirectional_lstm():
    torch.manual_seed(1)
    encoder = FusedBiLstm(4, 3, num_layers=1, layer_dropout=0.0, use_highway=False)
    words = torch.randn(5, 4)
    expected = reference_bilstm_layer(encoder.forward_layers[0], encoder.backward_layers[0], words)
    # a torch bidirectional LSTM with the same weights agrees on an unpadded sentence
    reference = torch.nn.LSTM(4, 3, bidirectional=True, batch_first=True)
    with torch.no_grad():
        for name in ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"):
            getattr(reference, name).copy_(getattr(encoder.forward_layers[0], name))
            getattr(reference, name + "_reverse").copy_(getattr(encoder.backward_layers[0], name))
    torch_output, _ = reference(words.unsqueeze(0))
    output = encoder(words.unsqueeze(0), torch.ones(1, 5, dtype=torch.bool))[0]
    torch.testing.assert_close(output, expected)
    torch.testing.assert_close(output, torch_output[0])


def test_layer_dropout_drops_each_layers_input_per_sentence_and_feature_and_only_in_training():
    # what each LSTM reads, caught by hooks: the encoder's own dropout, not AllenNLP's module alone
    torch.manual_seed(2)
    encoder = FusedBiLstm(4, 3, num_layers=2, layer_dropout=0.5, use_highway=False)
    read = {}
    for name, layers in (("forward", encoder.forward_layers), ("backward", encoder.backward_layers)):
        for index, lstm in enumerate(layers):
            lstm.register_forward_pre_hook(lambda module, args, key=(name, index): read.__setitem__(key, args[0]))
            lstm.register_forward_hook(
                lambda module, args, output, key=(name, index): read.__setitem__(key + ("output",), output[0])
            )
    inputs = torch.randn(16, 6, 4)
    mask = torch.ones(16, 6, dtype=torch.bool)

    encoder.eval()
    expected = encoder(inputs, mask)
    assert torch.equal(read["forward", 0], inputs)
    assert torch.equal(encoder(inputs, mask), expected)

    encoder.train()
    encoder(inputs, mask)
    # layer 1 reads inputs, layer 2 the first layer's output (forward and backward halves), each dropped
    layer_outputs = [inputs, torch.cat([read["forward", 0, "output"], read["backward", 0, "output"].flip(1)], -1)]
    for index, undropped in enumerate(layer_outputs):
        dropped = read["forward", index]
        # both directions read the same dropped input (the backward one reversed)
        assert torch.equal(read["backward", index], dropped.flip(1))
        # each feature of a sentence kept (times 1 / (1 - p) = 2) or dropped, the same at every time step
        # (a feature is kept where it is non-zero at some step: an LSTM output can be 0 where its input was)
        kept = (dropped != 0).any(dim=1)
        torch.testing.assert_close(dropped, undropped * 2.0 * kept.unsqueeze(1))
        # about half dropped, and not the same features in every sentence
        assert 0.25 < float(kept.float().mean()) < 0.75
        assert not (kept == kept[:1]).all()


def test_initialisation_opens_the_forget_gate():
    encoder = FusedBiLstm(4, 3, num_layers=2)
    for lstm in list(encoder.forward_layers) + list(encoder.backward_layers):
        assert lstm.bias_ih_l0[3:6].tolist() == [1.0, 1.0, 1.0]
        assert lstm.bias_ih_l0[:3].abs().sum() == 0
        # block-orthogonal recurrent weights: each gate's 3 x 3 block is orthogonal
        for gate in range(4):
            block = lstm.weight_hh_l0[3 * gate: 3 * gate + 3]
            torch.testing.assert_close(block @ block.t(), torch.eye(3), rtol=0, atol=1e-5)


@pytest.mark.parametrize("num_out, rows", [(3, 4), (12, 4), (12, 700)])
def test_matmul_bilinear_equals_torch_bilinear(num_out, rows):
    # 3 outputs: the (x1 W) x2 path; 12 > 7 inputs: the outer products' path, 700 rows: over several chunks
    torch.manual_seed(3)
    reference = torch.nn.Bilinear(7, 5, num_out)
    fast = MatmulBilinear(7, 5, num_out)
    fast.load_state_dict(reference.state_dict())
    left, right = torch.randn(2, rows, 7, requires_grad=True), torch.randn(2, rows, 5, requires_grad=True)
    torch.testing.assert_close(fast(left, right), reference(left, right))
    gradients = torch.autograd.grad((fast(left, right) ** 2).sum(), [left, right, fast.weight, fast.bias])
    expected = torch.autograd.grad((reference(left, right) ** 2).sum(), [left, right, reference.weight, reference.bias])
    for gradient, reference_gradient in zip(gradients, expected):
        # the weight's gradient sums 1,400 rows: float32 sums in another order differ by ~1e-5 relative
        torch.testing.assert_close(gradient, reference_gradient, rtol=2e-5, atol=1e-5)


@pytest.mark.parametrize("num_out", [3, 12])
def test_matmul_bilinear_bfloat16_inference_is_close_to_float32_and_leaves_training_alone(num_out):
    from seqgraph_allennlp.modules.precision import native_bfloat16

    torch.manual_seed(4)
    plain = MatmulBilinear(7, 5, num_out)
    fast = MatmulBilinear(7, 5, num_out, bfloat16_inference=True)
    fast.load_state_dict(plain.state_dict())
    left, right = torch.randn(2, 9, 7), torch.randn(2, 9, 5)
    # training: float32 whatever the option
    assert torch.equal(fast(left, right), plain(left, right))
    plain.eval()
    fast.eval()
    expected, actual = plain(left, right), fast(left, right)
    assert actual.dtype == torch.float32 and actual.shape == (2, 9, num_out)
    # bfloat16 keeps 8 bits of mantissa: about 0.4 % of each of the 35 products, summed
    torch.testing.assert_close(actual, expected, rtol=0, atol=0.1)
    # where bfloat16 is native the products really ran in it (float32 otherwise)
    assert torch.equal(actual, expected) != native_bfloat16(left.device)


@pytest.mark.parametrize("num_out", [3, 12])
def test_matmul_bilinear_bfloat16_training_is_close_to_float32_with_float32_gradients(num_out):
    from seqgraph_allennlp.modules.precision import native_bfloat16

    torch.manual_seed(7)
    plain = MatmulBilinear(7, 5, num_out)
    fast = MatmulBilinear(7, 5, num_out, bfloat16_training=True)
    fast.load_state_dict(plain.state_dict())
    left, right = torch.randn(2, 9, 7, requires_grad=True), torch.randn(2, 9, 5, requires_grad=True)
    expected, actual = plain(left, right), fast(left, right)
    assert actual.dtype == torch.float32 and actual.shape == (2, 9, num_out)
    torch.testing.assert_close(actual, expected, rtol=0, atol=0.1)
    assert torch.equal(actual, expected) != native_bfloat16(left.device)
    upstream = torch.randn(2, 9, num_out)
    gradients = torch.autograd.grad((actual * upstream).sum(), [left, right, fast.weight, fast.bias])
    reference = torch.autograd.grad((expected * upstream).sum(), [left, right, plain.weight, plain.bias])
    for gradient, reference_gradient in zip(gradients, reference):
        # the parameters' gradients are float32 (the optimiser's state stays float32)
        assert gradient.dtype == torch.float32
        # a gradient of 18 rows' bfloat16 products: a few per cent of its scale
        torch.testing.assert_close(gradient, reference_gradient, rtol=0, atol=0.05 * reference_gradient.abs().max())
    # outside training: float32 (the inference option is off)
    plain.eval()
    fast.eval()
    assert torch.equal(fast(left, right), plain(left, right))

@pytest.mark.parametrize("use_input_biases", [True, False])
def test_matmul_bilinear_matrix_attention_equals_allennlps(use_input_biases):
    torch.manual_seed(5)
    reference = BilinearMatrixAttention(7, 5, use_input_biases=use_input_biases)
    fast = MatmulBilinearMatrixAttention(7, 5, use_input_biases=use_input_biases)
    with torch.no_grad():
        reference._bias.fill_(0.5)
    fast.load_state_dict(reference.state_dict())
    left, right = torch.randn(3, 4, 7, requires_grad=True), torch.randn(3, 6, 5, requires_grad=True)
    scores = fast(left, right)
    assert scores.shape == (3, 4, 6)
    torch.testing.assert_close(scores, reference(left, right))
    upstream = torch.randn(3, 4, 6)
    gradients = torch.autograd.grad((scores * upstream).sum(), [left, right, fast._weight_matrix])
    expected = torch.autograd.grad(
        (reference(left, right) * upstream).sum(), [left, right, reference._weight_matrix]
    )
    for gradient, expected_gradient in zip(gradients, expected):
        torch.testing.assert_close(gradient, expected_gradient)


def test_matmul_bilinear_matrix_attention_without_bias_equals_allennlps_with_its_zero_bias():
    torch.manual_seed(8)
    reference = BilinearMatrixAttention(7, 5, use_input_biases=True)
    fast = MatmulBilinearMatrixAttention(7, 5, use_input_biases=True, add_bias=False)
    # an archive's state dict loads either way; the bias starts at zero and is never trained
    fast.load_state_dict(reference.state_dict())
    assert fast._bias.item() == 0.0 and not fast._bias.requires_grad
    left, right = torch.randn(3, 4, 7, requires_grad=True), torch.randn(3, 6, 5, requires_grad=True)
    scores = fast(left, right)
    torch.testing.assert_close(scores, reference(left, right))
    gradients = torch.autograd.grad(scores.pow(2).sum(), [left, right, fast._weight_matrix])
    expected = torch.autograd.grad(reference(left, right).pow(2).sum(), [left, right, reference._weight_matrix])
    for gradient, expected_gradient in zip(gradients, expected):
        torch.testing.assert_close(gradient, expected_gradient)
    # a bias that were set is not added: the scores are those of a zero bias
    with torch.no_grad():
        fast._bias.fill_(3.0)
    torch.testing.assert_close(fast(left, right), scores)


def test_matmul_bilinear_matrix_attention_with_labels_takes_allennlps_path():
    torch.manual_seed(6)
    reference = BilinearMatrixAttention(4, 4, label_dim=3)
    fast = MatmulBilinearMatrixAttention(4, 4, label_dim=3)
    fast.load_state_dict(reference.state_dict())
    left, right = torch.randn(2, 5, 4), torch.randn(2, 5, 4)
    torch.testing.assert_close(fast(left, right), reference(left, right))


def test_score_update_equals_the_biaffine_of_generated_representations():
    torch.manual_seed(4)
    module = RecurrentWeight(encoder_dim=6, hidden_dim=8, edge_dim=4, position_dim=5, weight_dim=3)
    with torch.no_grad():
        module.attention._weight_matrix.normal_()
        module.attention._bias.fill_(0.25)
    hidden = torch.randn(3, 2, 8)
    positions = torch.arange(6)
    head_positions, dependent_positions = module.head_positions(positions), module.dependent_positions(positions)
    weight = module.weight_generator(hidden).view(-1, 5, 3)
    # Section 2.2 literally: W_t from the LSTM output, H_head = emb_h W_t, H_dep = emb_d W_t, BiAffine
    expected = module.attention(head_positions @ weight, dependent_positions @ weight).view(3, 2, 6, 6)
    maps = module.position_maps(6, torch.device("cpu"))
    torch.testing.assert_close(module.score_update(hidden, *maps), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("option", ["bfloat16_training", "bfloat16_inference"])
def test_bfloat16_score_update_is_close_to_float32_and_keeps_float32_scores_and_gradients(option):
    from seqgraph_allennlp.modules.fused_bilstm import native_bfloat16

    torch.manual_seed(5)
    plain = RecurrentWeight(encoder_dim=6, hidden_dim=16, edge_dim=4, position_dim=8, weight_dim=8)
    with torch.no_grad():
        plain.attention._weight_matrix.normal_()
    fast = RecurrentWeight(encoder_dim=6, hidden_dim=16, edge_dim=4, position_dim=8, weight_dim=8, **{option: True})
    fast.load_state_dict(plain.state_dict())
    # the option applies in its own mode only
    training = option == "bfloat16_training"
    plain.train(training)
    fast.train(training)
    hidden = torch.randn(3, 4, 16)
    expected = plain.score_update(hidden, *plain.position_maps(7, hidden.device))
    actual = fast.score_update(hidden, *fast.position_maps(7, hidden.device))
    assert actual.dtype == torch.float32 and actual.shape == (3, 4, 7, 7)
    # bfloat16 keeps 8 bits of mantissa: about 1 % of the scores' scale
    torch.testing.assert_close(actual, expected, rtol=0, atol=0.02 * float(expected.abs().max()))
    # where bfloat16 is native the update really ran in it (float32 otherwise)
    assert torch.equal(actual, expected) != native_bfloat16(hidden.device)
    if training:
        target = torch.randn_like(expected)
        (expected * target).sum().backward()
        (actual * target).sum().backward()
        for (name, reference), parameter in zip(plain.named_parameters(), fast.parameters()):
            if reference.grad is None:
                continue
            assert parameter.grad.dtype == torch.float32, name
            cosine = torch.nn.functional.cosine_similarity(parameter.grad.flatten(), reference.grad.flatten(), dim=0)
            assert cosine > 0.99, (name, float(cosine))
    # in the other mode the option does nothing
    plain.train(not training)
    fast.train(not training)
    with torch.no_grad():
        maps = plain.position_maps(7, hidden.device)
        assert torch.equal(fast.score_update(hidden, *maps), plain.score_update(hidden, *maps))


@pytest.mark.parametrize("encoder,expected", [("fused", "fused_bilstm"), ("stacked", "stacked_bidirectional_lstm")])
@pytest.mark.parametrize("config", ["coach_valid", "biaffine_mst", "one_step"])
def test_shipped_configs_pick_their_encoder_from_the_environment(config, encoder, expected, monkeypatch):
    from pathlib import Path

    from allennlp.common import Params

    import seqgraph_allennlp  # noqa: F401  (registers the encoders; the defaults come from conftest.py)

    monkeypatch.setenv("ENCODER", encoder)
    path = Path(__file__).resolve().parents[1] / "training_config" / f"{config}.jsonnet"
    params = Params.from_file(str(path))
    assert params["model"]["encoder"]["type"] == expected
    assert params["model"]["encoder"]["hidden_size"] == 400


def test_unknown_encoder_is_a_clear_configuration_error(monkeypatch):
    from pathlib import Path

    from allennlp.common import Params

    monkeypatch.setenv("ENCODER", "gru")
    path = Path(__file__).resolve().parents[1] / "training_config" / "coach_valid.jsonnet"
    with pytest.raises(Exception, match='ENCODER must be "fused" or "stacked", got "gru"'):
        Params.from_file(str(path))


def test_bfloat16_training_is_close_to_float32_and_keeps_float32_weights_and_gradients():
    from seqgraph_allennlp.modules.fused_bilstm import native_bfloat16

    plain, fast, inputs, mask = float32_and_bfloat16_twins(bfloat16_training=True)
    expected, actual = plain(inputs, mask), fast(inputs, mask)
    assert actual.dtype == torch.float32 and (actual[~mask] == 0).all()
    torch.testing.assert_close(actual, expected, rtol=0, atol=0.05)
    # where bfloat16 is native the layers really ran in it (float32 otherwise)
    assert torch.equal(actual, expected) != native_bfloat16(inputs.device)
    target = torch.randn_like(expected)
    (expected * target).sum().backward()
    (actual * target).sum().backward()
    for (name, reference), parameter in zip(plain.named_parameters(), fast.parameters()):
        assert parameter.dtype == torch.float32 and parameter.grad.dtype == torch.float32, name
        # the same direction to within bfloat16's rounding
        cosine = torch.nn.functional.cosine_similarity(parameter.grad.flatten(), reference.grad.flatten(), dim=0)
        assert cosine > 0.99, (name, float(cosine))
    # outside training the option does nothing
    plain.eval()
    fast.eval()
    assert torch.equal(fast(inputs, mask), plain(inputs, mask))


@pytest.mark.parametrize("bfloat16_training", [False, True])
def test_weight_drop_drops_entries_of_the_recurrent_weights_once_per_batch(bfloat16_training):
    # the entries a training pass dropped get no gradient; an LSTM with exactly those entries of W_hh
    # zeroed (the rest scaled by 1 / (1 - p)) gives the encoder's output, the same for every sentence
    torch.manual_seed(0)
    probability = 0.3
    encoder = FusedBiLstm(
        8, 8, num_layers=1, layer_dropout=0.0, recurrent_dropout=probability, use_highway=False,
        bfloat16_training=bfloat16_training,
    )
    words = torch.randn(5, 8)
    # the same sentence four times: one mask per batch gives four equal outputs
    inputs = words.expand(4, 5, 8)
    mask = torch.ones(4, 5, dtype=torch.bool)
    output = encoder(inputs, mask)
    output.pow(2).sum().backward()

    references = []
    for lstm in (encoder.forward_layers[0], encoder.backward_layers[0]):
        weight = lstm.weight_hh_l0
        assert weight.grad.dtype == torch.float32
        kept = weight.grad != 0
        assert 0.15 < 1.0 - float(kept.float().mean()) < 0.45
        reference = torch.nn.LSTM(8, 8, batch_first=True)
        reference.load_state_dict(lstm.state_dict())
        with torch.no_grad():
            reference.weight_hh_l0.mul_(kept / (1.0 - probability))
        references.append(reference)
    expected = reference_bilstm_layer(*references, words)
    tolerance = 0.05 if bfloat16_training else 1e-5
    for sentence in range(4):
        torch.testing.assert_close(output[sentence], expected, rtol=0, atol=tolerance)
    # the first word's forward state reads no W_hh (h_0 = 0); the rest differ from the undropped encoder,
    # by far more than from the reference
    encoder.eval()
    plain = encoder(inputs, mask)
    torch.testing.assert_close(output[:, 0, :8], plain[:, 0, :8], rtol=0, atol=tolerance)
    difference = float((output[:, 1:, :8] - plain[:, 1:, :8]).abs().max())
    assert difference > 0.02 and difference > 10 * float((output - expected).abs().max())


def test_run_cell_equals_the_cell_step_by_step():
    torch.manual_seed(7)
    module = RecurrentWeight(encoder_dim=6, hidden_dim=8, edge_dim=4, position_dim=5, weight_dim=3)
    inputs = torch.randn(3, 5, 4 + 2 * 5, requires_grad=True)
    state = module.initial_state(torch.randn(3, 6))
    fused = module.run_cell(inputs, state)
    expected, step_state = [], state
    for step in range(inputs.size(1)):
        step_state = module.cell(inputs[:, step], step_state)
        expected.append(step_state[0])
    expected = torch.stack(expected, dim=1)
    torch.testing.assert_close(fused, expected)
    upstream = torch.randn_like(expected)
    parameters = [inputs, *module.cell.parameters()]
    for gradient, expected_gradient in zip(
        torch.autograd.grad((fused * upstream).sum(), parameters),
        torch.autograd.grad((expected * upstream).sum(), parameters),
    ):
        torch.testing.assert_close(gradient, expected_gradient)


def test_embed_edge_indices_equals_embed_edges_of_one_edge_matrices():
    torch.manual_seed(8)
    module = RecurrentWeight(encoder_dim=6, hidden_dim=8, edge_dim=4, position_dim=5, weight_dim=3)
    encoded = torch.randn(3, 5, 6)
    projected = module.project_nodes(encoded)
    heads, dependents = torch.tensor([0, 2, 4]), torch.tensor([3, 1, 2])
    added = torch.tensor([True, False, True])
    edges = torch.zeros(3, 5, 5, dtype=torch.bool)
    edges[torch.arange(3), heads, dependents] = added
    expected = module.embed_edges(encoded, edges, projected)
    torch.testing.assert_close(module.embed_edge_indices(projected, heads, dependents, added), expected)
    # the sentence that added no edge reads the start vector
    assert torch.equal(expected[1], module.start_edge)


@pytest.mark.parametrize("training", [True, False])
def test_bfloat16_options_run_float32_on_a_gpu_even_with_native_bfloat16(training, monkeypatch):
    # the bfloat16 paths were measured on CPUs only: a GPU that has bfloat16 must still run float32
    from seqgraph_allennlp.modules import fused_bilstm

    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *args, **kwargs: True)
    fused_bilstm.native_bfloat16.cache_clear()
    try:
        cuda = torch.device("cuda", 0)
        assert not fused_bilstm.native_bfloat16(cuda)
        assert not fused_bilstm.in_bfloat16(training, True, True, cuda)
        # the encoder asks the same function (as RecurrentWeight does)
        encoder = FusedBiLstm(4, 3, num_layers=1, bfloat16_training=True, bfloat16_inference=True)
        encoder.train(training)
        assert not encoder._bfloat16.active(encoder.training, cuda)
    finally:
        fused_bilstm.native_bfloat16.cache_clear()


def test_int8_inference_is_close_to_float32_and_leaves_training_and_the_state_alone():
    torch.manual_seed(0)
    encoder = FusedBiLstm(input_size=24, hidden_size=16, num_layers=2, layer_dropout=0.0).eval()
    inputs = torch.randn(5, 9, 24)
    mask = torch.ones(5, 9, dtype=torch.bool)
    mask[2, 6:] = False
    with torch.no_grad():
        reference = encoder(inputs, mask)
        state = {name: value.clone() for name, value in encoder.state_dict().items()}
        encoder.use_int8_inference(True)
        int8 = encoder(inputs, mask)
        # a layer's own weights, quantized: close; the other direction's weights in its place: far
        error = float((int8 - reference).norm() / reference.norm())
        assert 0 < error < 0.03, error
        swapped = FusedBiLstm(input_size=24, hidden_size=16, num_layers=2, layer_dropout=0.0).eval()
        swapped.load_state_dict(state)
        swapped.forward_layers[1], swapped.backward_layers[1] = swapped.backward_layers[1], swapped.forward_layers[1]
        swapped.use_int8_inference(True)
        assert float((swapped(inputs, mask) - reference).norm() / reference.norm()) > 10 * error
        # zero on padding, and the state (what an archive saves) is the float32 one, without the int8 copies
        assert int8[2, 6:].abs().sum() == 0
        assert encoder.state_dict().keys() == state.keys()
        assert all(torch.equal(value, state[name]) for name, value in encoder.state_dict().items())
    # training never uses the copies (no dropout here: training computes what float32 parsing does)
    encoder.train()
    with torch.no_grad():
        assert torch.equal(encoder(inputs, mask), reference)
    encoder.eval()
    # other weights loaded: the copies are made again from them
    other = FusedBiLstm(input_size=24, hidden_size=16, num_layers=2, layer_dropout=0.0).eval()
    with torch.no_grad():
        other_reference = other(inputs, mask)
        encoder.load_state_dict(other.state_dict())
        assert encoder._int8_inference and encoder._int8_layers is None
        assert float((encoder(inputs, mask) - other_reference).norm() / other_reference.norm()) < 0.03


AUTOMATIC_ENCODER_CHOICE = """
import json, torch
from seqgraph_allennlp.modules.precision import native_bfloat16, parsing_encoder_int8
cpu = torch.device("cpu")
print(json.dumps({"auto": parsing_encoder_int8("auto", cpu), "as_trained": parsing_encoder_int8("as_trained", cpu),
                  "int8": parsing_encoder_int8("int8", cpu), "native": native_bfloat16(cpu)}))
"""


@pytest.mark.parametrize("forced", [True, False])
def test_the_automatic_encoder_choice_is_int8_where_bfloat16_is_not_native(forced):
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, **({"ONEDNN_MAX_CPU_ISA": "AVX2", "ATEN_CPU_CAPABILITY": "avx2"} if forced else {})}
    completed = subprocess.run([sys.executable, "-c", AUTOMATIC_ENCODER_CHOICE], capture_output=True, text=True,
                               env=env, timeout=300)
    assert completed.returncode == 0, completed.stderr[-2000:]
    choice = json.loads(completed.stdout.strip().splitlines()[-1])
    assert choice["auto"] == (not choice["native"]) and choice["int8"] and not choice["as_trained"]
    if forced:
        assert choice["auto"] and not choice["native"]
