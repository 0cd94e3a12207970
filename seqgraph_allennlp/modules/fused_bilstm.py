from typing import Dict

import torch
from allennlp.modules import InputVariationalDropout
from allennlp.modules.seq2seq_encoders import Seq2SeqEncoder
from allennlp.nn.initializers import block_orthogonal

from seqgraph_allennlp.modules.int8_linear import int8_lstm
# re-exported: where they lived before the precision policy had its own module
from seqgraph_allennlp.modules.precision import Bfloat16Options, in_bfloat16, native_bfloat16  # noqa: F401


def reverse_within_lengths(inputs: torch.Tensor, lengths: torch.LongTensor) -> torch.Tensor:
    """
    Reverses each sequence of a padded batch within its own length, padding left in place:
    `[a, b, c, pad]` becomes `[c, b, a, pad]`. Its own inverse.

    # Parameters

    inputs : `torch.Tensor`, `(batch_size, T, dim)`.
    lengths : `torch.LongTensor`, `(batch_size,)`.
    """
    positions = torch.arange(inputs.size(1), device=inputs.device).unsqueeze(0)
    lengths = lengths.unsqueeze(1)
    # shape (batch_size, T)
    source = torch.where(positions < lengths, lengths - 1 - positions, positions)
    return inputs.gather(1, source.unsqueeze(-1).expand_as(inputs))


def _forget_int8_layers(module: "FusedBiLstm", incompatible_keys) -> None:
    # a load_state_dict post-hook: the int8 copies are made again from the weights loaded
    module._int8_layers = None


@Seq2SeqEncoder.register("fused_bilstm")
class FusedBiLstm(Seq2SeqEncoder):
    """
    A stacked bidirectional LSTM built from `torch.nn.LSTM` layers on padded batches, so that each layer is
    one call into PyTorch's fused (oneDNN on CPU, cuDNN on GPU) kernel instead of AllenNLP's
    `stacked_bidirectional_lstm`, a Python loop over time steps (about 4x slower on two CPU cores).

    A padded bidirectional `nn.LSTM` would read a shorter sentence's padding before its last word in the
    backward direction; here each direction is a unidirectional LSTM and the backward one reads every
    sentence reversed within its own length, so a sentence's output never depends on its batch.

    What AllenNLP's stacked LSTM does inside its time loop is rebuilt around the fused kernel:

    * recurrent regularisation: variational dropout on the hidden state is impossible inside the fused
      kernel, so `layer_dropout` drops the same features of a sentence at every time step between layers
      (and on the first layer's input), and `recurrent_dropout` optionally drops entries of the recurrent
      weights `W_hh` (weight drop, one mask per batch, as in AWD-LSTM);
    * `use_highway`: each layer's output is `g * h + (1 - g) * x` with the gate `g = sigmoid(A x + b)` from
      the layer's input `x` (`x` projected linearly where its width differs, i.e. the first layer), as
      Stanza's `HighwayLSTM` gates from the input. AllenNLP's gate also reads the previous hidden state
      inside its time loop, which the fused kernel does not expose; an identity carry keeps the highway at a
      sixth of a layer's cost;
    * initialisation as AllenNLP's `AugmentedLstm`: block-orthogonal input and recurrent weights, forget-gate
      bias 1.

    # Parameters

    input_size : `int`
    hidden_size : `int`
        Per direction; the output is `2 * hidden_size` wide.
    num_layers : `int`, optional (default = `3`)
    layer_dropout : `float`, optional (default = `0.33`)
        Variational (per sentence, shared over time) dropout on each layer's input, the first included.
    recurrent_dropout : `float`, optional (default = `0.0`)
        Weight drop on the recurrent matrices.
    use_highway : `bool`, optional (default = `True`)
    bfloat16_inference : `bool`, optional (default = `False`)
        Outside training, run the LSTM layers and the highway connections' products in bfloat16
        (`torch.autocast`) where the CPU computes it natively (AVX512-BF16 or AMX; elsewhere they stay in
        float32). The LSTM layers made parsing about 1.2x faster on two such cores (on EWT dev 41 of 25,147
        heads changed, UAS the same to 0.01); the highway added about 1.09x more (docs/BENCHMARKS.md).
        Training is never affected (see `bfloat16_training`). A predictor may also run the LSTM layers in int8
        outside training (`use_int8_inference`), where bfloat16 is not native.
    bfloat16_training : `bool`, optional (default = `False`)
        In training, run the LSTM layers (forward and backward) under `torch.autocast` in bfloat16 where the
        CPU computes it natively; the weights, their gradients and everything outside the LSTM layers stay
        in float32. A layer's forward and backward pass is 1.2-1.6x faster on two Zen 4 cores
        (docs/BENCHMARKS.md). The shipped configs turn it on: on Welsh-CCG (three seeds, docs/RESULTS.md,
        `welsh_seeds`) the recurrent parser's test UAS went up 0.39 and the baseline's down 0.14, both
        within the seeds' spread.
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 3,
        layer_dropout: float = 0.33,
        recurrent_dropout: float = 0.0,
        use_highway: bool = True,
        bfloat16_inference: bool = False,
        bfloat16_training: bool = False,
    ) -> None:
        super().__init__(stateful=False)
        self._bfloat16 = Bfloat16Options(training=bfloat16_training, inference=bfloat16_inference)
        for name, value in (("layer_dropout", layer_dropout), ("recurrent_dropout", recurrent_dropout)):
            if not 0.0 <= value < 1.0:
                raise ValueError(f"fused_bilstm: {name} must be in [0, 1), got {value}")
        self._input_size = input_size
        self._hidden_size = hidden_size
        # int8 copies of the LSTM layers for parsing, made when first used (`use_int8_inference`)
        self._int8_inference = False
        self._int8_layers = None
        self.register_load_state_dict_post_hook(_forget_int8_layers)
        # the same features of a sentence dropped at every time step
        self._layer_dropout = InputVariationalDropout(layer_dropout)
        self._recurrent_dropout = recurrent_dropout
        self._use_highway = use_highway
        self.forward_layers = torch.nn.ModuleList()
        self.backward_layers = torch.nn.ModuleList()
        self.highway_gates = torch.nn.ModuleList()
        self.highway_carries = torch.nn.ModuleList()
        layer_input_size = input_size
        for _ in range(num_layers):
            for layers in (self.forward_layers, self.backward_layers):
                lstm = torch.nn.LSTM(layer_input_size, hidden_size, batch_first=True)
                self._initialise(lstm)
                layers.append(lstm)
            if use_highway:
                self.highway_gates.append(torch.nn.Linear(layer_input_size, 2 * hidden_size))
                carry = (
                    torch.nn.Identity()
                    if layer_input_size == 2 * hidden_size
                    else torch.nn.Linear(layer_input_size, 2 * hidden_size, bias=False)
                )
                self.highway_carries.append(carry)
            layer_input_size = 2 * hidden_size

    def use_int8_inference(self, int8: bool) -> None:
        """
        Outside training, run the LSTM layers in int8 (`int8_linear.int8_lstm`, copies made at the next call
        and again after `load_state_dict`) instead of float32 or bfloat16: how a predictor applies its
        `encoder_precision`. The weights (and an archive) stay float32; training never uses the copies. Asking
        for what it does already changes nothing (a `Parser` makes a predictor per call).
        """
        if int8 != self._int8_inference:
            self._int8_inference = int8
            self._int8_layers = None

    def _int8_layer(self, lstm: torch.nn.LSTM) -> torch.nn.Module:
        if self._int8_layers is None:
            # kept out of the module's state (set past torch.nn.Module.__setattr__)
            object.__setattr__(self, "_int8_layers", {id(layer): int8_lstm(layer)
                                                      for layer in [*self.forward_layers, *self.backward_layers]})
        return self._int8_layers[id(lstm)]

    def _initialise(self, lstm: torch.nn.LSTM) -> None:
        hidden = self._hidden_size
        with torch.no_grad():
            block_orthogonal(lstm.weight_ih_l0, [hidden, lstm.input_size])
            block_orthogonal(lstm.weight_hh_l0, [hidden, hidden])
            lstm.bias_ih_l0.zero_()
            lstm.bias_hh_l0.zero_()
            # gate order i, f, g, o: the forget gate starts open
            lstm.bias_ih_l0[hidden: 2 * hidden].fill_(1.0)

    def get_input_dim(self) -> int:
        return self._input_size

    def get_output_dim(self) -> int:
        return 2 * self._hidden_size

    def is_bidirectional(self) -> bool:
        return True

    def _run(self, lstm: torch.nn.LSTM, inputs: torch.Tensor) -> torch.Tensor:
        if self._int8_inference and not self.training and inputs.device.type == "cpu":
            output, _ = self._int8_layer(lstm)(inputs)
            return output
        with self._bfloat16.autocast(self.training, inputs.device):
            output = self._lstm(lstm, inputs)
        return output.to(inputs.dtype)

    def _highway(self, index: int, layer_input: torch.Tensor, output: torch.Tensor) -> torch.Tensor:
        gate_layer, carry_layer = self.highway_gates[index], self.highway_carries[index]
        # parsing only: bfloat16_training was measured with the highway in float32
        with self._bfloat16._replace(training=False).autocast(self.training, layer_input.device):
            gate, carry = gate_layer(layer_input), carry_layer(layer_input)
        gate, carry = gate.to(output.dtype), carry.to(output.dtype)
        gate = torch.sigmoid(gate)
        return gate * output + (1.0 - gate) * carry

    def _lstm(self, lstm: torch.nn.LSTM, inputs: torch.Tensor) -> torch.Tensor:
        if self.training and self._recurrent_dropout > 0:
            weights: Dict[str, torch.Tensor] = dict(lstm.named_parameters())
            weights["weight_hh_l0"] = torch.nn.functional.dropout(
                weights["weight_hh_l0"], self._recurrent_dropout, training=True
            )
            output, _ = torch.func.functional_call(lstm, weights, (inputs,))
        else:
            output, _ = lstm(inputs)
        return output

    def forward(self, inputs: torch.Tensor, mask: torch.BoolTensor) -> torch.Tensor:
        """
        # Parameters

        inputs : `torch.Tensor`, `(batch_size, T, input_size)`.
        mask : `torch.BoolTensor`, `(batch_size, T)`, `True` on the words; each sentence's words come first.

        # Returns

        `(batch_size, T, 2 * hidden_size)`, zero on padding.
        """
        lengths = mask.sum(dim=-1)
        float_mask = mask.unsqueeze(-1).to(inputs.dtype)
        layer_input = inputs
        for index, (forward_lstm, backward_lstm) in enumerate(zip(self.forward_layers, self.backward_layers)):
            layer_input = self._layer_dropout(layer_input)
            forward_output = self._run(forward_lstm, layer_input)
            backward_output = reverse_within_lengths(
                self._run(backward_lstm, reverse_within_lengths(layer_input, lengths)), lengths
            )
            # shape (batch_size, T, 2 * hidden_size)
            output = torch.cat([forward_output, backward_output], dim=-1)
            if self._use_highway:
                output = self._highway(index, layer_input, output)
            layer_input = output * float_mask
        return layer_input
