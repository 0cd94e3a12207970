from typing import Optional

import torch
from allennlp.modules.matrix_attention import BilinearMatrixAttention
from allennlp.nn import Activation

from seqgraph_allennlp.modules.precision import Bfloat16Options


def outer_product_bilinear(
    first: torch.Tensor, second: torch.Tensor, weight: torch.Tensor, chunk: int = 512
) -> torch.Tensor:
    """
    `y_l = x1 W_l x2` for each row of `first` `(n, in1)` and `second` `(n, in2)` and each `W_l` of `weight`
    `(out, in1, in2)`: `(n, out)`, computed as `(x1 outer x2) W^T` with `W` viewed as one `(out, in1 * in2)`
    matrix. For many outputs (the enhanced labels, ~380 on EWT, against 100 x 100 inputs) the `(n, out, in2)`
    intermediate of the other way is several times the size of the `(n, in1 * in2)` outer products, and its
    per-row matrix-vector products are bound by memory, where this is one matrix product per chunk of rows
    (about 2x as fast on EWT's enhanced labels). The chunks bound the outer products' memory.
    """
    num_out, in1, in2 = weight.shape
    weight = weight.reshape(num_out, in1 * in2).t()
    outputs = [
        (first[start:start + chunk].unsqueeze(2) * second[start:start + chunk].unsqueeze(1)).reshape(-1, in1 * in2)
        @ weight
        for start in range(0, first.size(0), chunk)
    ]
    return torch.cat(outputs) if outputs else first.new_zeros(0, num_out)


class MatmulBilinear(torch.nn.Bilinear):
    """
    `torch.nn.Bilinear` (same parameters, same result) computed with two matrix products.

    `torch.bilinear` runs through `aten::_trilinear`, which on CPU multiplies broadcast copies of its inputs:
    in the label classifiers of the parsers (100 x 100 x ~50 relations) it took about half of a training
    batch on two cores. Here `y_l = x1 W_l x2 + b_l` is `(x1 W) x2` with `W` viewed as one
    `(in1, out * in2)` matrix.

    # Parameters

    in1_features, in2_features, out_features, bias : as `torch.nn.Bilinear`.
    bfloat16_training : `bool`, optional (default = `False`)
        In training, compute the products in bfloat16 where the CPU has it natively (`modules.precision`):
        the inputs, weight and products are rounded to bfloat16, the result is float32, and the weight's
        gradient comes back float32 through the cast.
    bfloat16_inference : `bool`, optional (default = `False`)
        The same outside training.
    """

    def __init__(
        self,
        in1_features: int,
        in2_features: int,
        out_features: int,
        bias: bool = True,
        bfloat16_training: bool = False,
        bfloat16_inference: bool = False,
    ) -> None:
        super().__init__(in1_features, in2_features, out_features, bias)
        self._bfloat16 = Bfloat16Options(training=bfloat16_training, inference=bfloat16_inference)

    def forward(self, input1: torch.Tensor, input2: torch.Tensor) -> torch.Tensor:
        leading = input1.shape[:-1]
        num_out, in1, in2 = self.weight.shape
        first, second = input1.reshape(-1, in1), input2.reshape(-1, in2)
        weight = self.weight
        if self._bfloat16.active(self.training, input1.device):
            first, second, weight = first.bfloat16(), second.bfloat16(), weight.bfloat16()
        if num_out > in1:
            output = outer_product_bilinear(first, second, weight)
        else:
            # shape (n, out, in2)
            left = (first @ weight.transpose(0, 1).reshape(in1, num_out * in2)).view(-1, num_out, in2)
            # shape (n, out)
            output = torch.bmm(left, second.unsqueeze(-1)).squeeze(-1)
        output = output.to(input1.dtype)
        if self.bias is not None:
            output = output + self.bias
        return output.view(*leading, num_out)


class MatmulBilinearMatrixAttention(BilinearMatrixAttention):
    """
    AllenNLP's `BilinearMatrixAttention` (same parameters, same result) with one weight matrix computed as
    plain matrix products.

    The original multiplies `(batch_size, 1, V, d)` by the weight broadcast to `(batch_size, d, d)`, so its
    backward pass builds one `d x d` weight gradient per sentence and sums them: for the arc scores
    (`d = 501`) that batched product was about 3 % of a training batch of the recurrent parser on two CPU
    cores (docs/BENCHMARKS.md). Here the left product is one `(batch_size * V, d) x (d, d)` matrix product,
    whose weight gradient is a single matrix product. A weight with several labels (`label_dim > 1`) takes
    the original's path.

    # Parameters

    matrix_1_dim, matrix_2_dim, activation, use_input_biases, label_dim : as `BilinearMatrixAttention`.
    add_bias : `bool`, optional (default = `True`)
        `False`: the scalar bias is never added, and stays zero (never trained; kept as a parameter so that
        archives load either way). A constant on every score cancels in any softmax over them; for the
        recurrent weight's score updates of all roll-in states, `(n, V, V)` each, adding it cost more than
        the two matrix products (a float32 pass over bfloat16 products under autocast).
    """

    def __init__(
        self,
        matrix_1_dim: int,
        matrix_2_dim: int,
        activation: Optional[Activation] = None,
        use_input_biases: bool = False,
        label_dim: int = 1,
        add_bias: bool = True,
    ) -> None:
        super().__init__(matrix_1_dim, matrix_2_dim, activation, use_input_biases, label_dim)
        self._add_bias = add_bias
        if not add_bias:
            self._bias.requires_grad_(False)

    def forward(self, matrix_1: torch.Tensor, matrix_2: torch.Tensor) -> torch.Tensor:
        weight = self._weight_matrix
        if weight.dim() != 2:
            return super().forward(matrix_1, matrix_2)
        if self._use_input_biases:
            matrix_1 = torch.cat([matrix_1, matrix_1.new_ones(matrix_1.shape[:-1] + (1,))], -1)
            matrix_2 = torch.cat([matrix_2, matrix_2.new_ones(matrix_2.shape[:-1] + (1,))], -1)
        # shape (batch_size, V_1, d_2): a matmul of a 3-d by a 2-d tensor folds into one matrix product
        intermediate = torch.matmul(matrix_1, weight)
        # shape (batch_size, V_1, V_2)
        final = torch.matmul(intermediate, matrix_2.transpose(-1, -2))
        return self._activation(final + self._bias if self._add_bias else final)
