import torch
from allennlp.modules.matrix_attention import BilinearMatrixAttention


class MatmulBilinear(torch.nn.Bilinear):
    """
    `torch.nn.Bilinear` (same parameters, same result) computed with two matrix products.

    `torch.bilinear` runs through `aten::_trilinear`, which on CPU multiplies broadcast copies of its inputs:
    in the label classifiers of the parsers (100 x 100 x ~50 relations) it took about half of a training
    batch on two cores. Here `y_l = x1 W_l x2 + b_l` is `(x1 W) x2` with `W` viewed as one
    `(in1, out * in2)` matrix.
    """

    def forward(self, input1: torch.Tensor, input2: torch.Tensor) -> torch.Tensor:
        leading = input1.shape[:-1]
        num_out, in1, in2 = self.weight.shape
        # shape (n, out, in2)
        left = (input1.reshape(-1, in1) @ self.weight.transpose(0, 1).reshape(in1, num_out * in2)).view(
            -1, num_out, in2
        )
        # shape (n, out)
        output = torch.bmm(left, input2.reshape(-1, in2, 1)).squeeze(-1)
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
    """

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
        return self._activation(final + self._bias)
