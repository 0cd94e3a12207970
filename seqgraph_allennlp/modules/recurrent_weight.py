from typing import Callable, Optional, Tuple, Union

import torch
from allennlp.common import FromParams

from seqgraph_allennlp.modules.bilinear import MatmulBilinearMatrixAttention
from seqgraph_allennlp.modules.precision import Bfloat16Options

# (h, c) of the LSTM cell
RecurrentState = Tuple[torch.Tensor, torch.Tensor]
# `emb(0..N) W_t` as a linear map of h_t: (V * d_H, hidden_dim) and (V, d_H)
PositionMap = Tuple[torch.Tensor, torch.Tensor]


class RecurrentWeight(torch.nn.Module, FromParams):
    """
    The recurrent weight update of Section 2.2: after every predicted edge an LSTM cell reads the edge's
    embedding and emits a weight matrix `W_t` (`d_emb x d_H`) that turns position embeddings into head and
    dependent representations, whose biaffine score is added to the previous scores:

        W_t, h_t = LSTM(f_emb(E_{t-1}), h_{t-1})
        H_head = emb_h(0..N) W_t,   H_dep = emb_d(0..N) W_t
        S_t = S_{t-1} + BiAffine(H_head, H_dep)

    with `f_emb(i -> j) = [W_e H_enc[i] - W_e H_enc[j]; emb_h(i); emb_d(j)]`, a learned start vector before
    the first edge, and `h_0` a linear map of the encoder's final state. When a step adds several edges
    (multi-edge decoding), `f_emb` is their mean, a permutation-invariant choice the paper's draft names.

    The update's bilinear weight starts at zero, so `S_t^Delta = 0` and the untrained recurrent model is
    the one-step model `S_0` (the paper's "adjustment" of `S_0`). A random start adds a score update with
    a standard deviation of about 3 per step (N(0, 1) position embeddings times the generated `W_t`)
    against `S_0`'s 0.2: after a few steps the initial policy is noise. Gradients still reach every
    parameter from the first update on, through the bilinear weight.

    # Parameters

    encoder_dim : `int`
        Dimension of the encoder's output `H_enc` (and of its final state).
    hidden_dim : `int`, optional (default = `256`)
        LSTM cell size.
    edge_dim : `int`, optional (default = `128`)
        `d_e`, the size of `W_e H_enc`.
    position_dim : `int`, optional (default = `64`)
        `d_emb`, the size of the position embeddings `emb_h` and `emb_d`.
    weight_dim : `int`, optional (default = `64`)
        `d_H`, the width of the generated `W_t`.
    max_sentence_length : `int`, optional (default = `512`)
        Number of word positions the embeddings cover (the root takes one more).
    bfloat16_training : `bool`, optional (default = `False`)
        In training (the roll-in's steps and the unroll, forward and backward), compute the score updates
        `BiAffine(emb_h W_t, emb_d W_t)` under `torch.autocast` in bfloat16 where the CPU computes it
        natively (elsewhere they stay float32). The parameters, their gradients, the LSTM cell and the
        running scores `S_t` stay float32: each update is rounded once, not their sum. The update alone is
        about 2.6x faster; with a 64-unit cell, an EWT training pass 8-11 % shorter than with 128 units
        in float32, at the same accuracy (CHANGELOG.md, 2026-11-26; docs/BENCHMARKS.md, epoch time). On in `coach_valid`.
    bfloat16_inference : `bool`, optional (default = `False`)
        The same outside training (the valid decoder's steps). On in the shipped recurrent configs: on EWT
        dev UAS was 87.46 with and without it (the encoder in bfloat16 as shipped; all float32 87.48), 13 of
        25,147 heads differed from float32, parsing 1.05x faster (results/benchmarks/bf16_inference.json).
    """

    def __init__(
        self,
        encoder_dim: int,
        hidden_dim: int = 256,
        edge_dim: int = 128,
        position_dim: int = 64,
        weight_dim: int = 64,
        max_sentence_length: int = 512,
        bfloat16_training: bool = False,
        bfloat16_inference: bool = False,
    ) -> None:
        super().__init__()
        self.max_sentence_length = max_sentence_length
        self._bfloat16 = Bfloat16Options(training=bfloat16_training, inference=bfloat16_inference)
        self._position_dim = position_dim
        self._weight_dim = weight_dim
        self.edge_projection = torch.nn.Linear(encoder_dim, edge_dim, bias=False)
        self.head_positions = torch.nn.Embedding(max_sentence_length + 1, position_dim)
        self.dependent_positions = torch.nn.Embedding(max_sentence_length + 1, position_dim)
        input_dim = edge_dim + 2 * position_dim
        self.start_edge = torch.nn.Parameter(torch.randn(input_dim) * 0.01)
        self.initial_hidden = torch.nn.Linear(encoder_dim, hidden_dim)
        self.cell = torch.nn.LSTMCell(input_dim, hidden_dim)
        self.weight_generator = torch.nn.Linear(hidden_dim, position_dim * weight_dim)
        # a constant added to every edge score cancels in the softmax over all edges: never added
        self.attention = MatmulBilinearMatrixAttention(weight_dim, weight_dim, use_input_biases=True, add_bias=False)
        with torch.no_grad():
            self.attention._weight_matrix.zero_()

    def initial_state(self, final_encoder_state: torch.Tensor) -> RecurrentState:
        """
        `h_0` from the encoder's final state `(batch_size, encoder_dim)`; `c_0` is zero.
        """
        hidden = self.initial_hidden(final_encoder_state)
        return hidden, torch.zeros_like(hidden)

    def project_nodes(self, encoded: torch.Tensor) -> torch.Tensor:
        """
        `W_e H_enc`, `(batch_size, V, d_e)`: the same at every step of a sentence, so a decoding loop
        computes it once and passes it to `forward` (it is the largest matrix product of a step).
        """
        return self.edge_projection(encoded)

    def embed_edges(
        self,
        encoded: torch.Tensor,
        edges: Optional[torch.BoolTensor],
        projected: Optional[torch.Tensor] = None,
    ) -> torch.Tensor:
        """
        `f_emb` of the edges added at the last step, `(batch_size, d_e + 2 d_emb)`; the start vector where
        there are none (`edges` is `None` at the first step).

        # Parameters

        encoded : `torch.Tensor`, `(batch_size, V, encoder_dim)`, `H_enc` with the root first.
        edges : `torch.BoolTensor`, `(batch_size, V, V)`, `[head, dependent]`.
        projected : `torch.Tensor`, optional, `project_nodes(encoded)` if already computed.
        """
        batch_size, num_nodes, _ = encoded.shape
        start = self.start_edge.unsqueeze(0).expand(batch_size, -1)
        if edges is None:
            return start
        edges = edges.to(encoded.dtype)
        # shape (batch_size, V): how often each node is a head / a dependent of the last step's edges
        head_counts = edges.sum(dim=2)
        dependent_counts = edges.sum(dim=1)
        num_edges = head_counts.sum(dim=-1, keepdim=True)
        if projected is None:
            projected = self.project_nodes(encoded)
        edge_part = torch.bmm((head_counts - dependent_counts).unsqueeze(1), projected).squeeze(1)
        # the embeddings of positions 0..N are the first rows of the tables (no lookup at every step)
        head_part = head_counts @ self.head_positions.weight[:num_nodes]
        dependent_part = dependent_counts @ self.dependent_positions.weight[:num_nodes]
        embedding = torch.cat([edge_part, head_part, dependent_part], dim=-1) / num_edges.clamp(min=1.0)
        return torch.where(num_edges > 0, embedding, start)

    def position_maps(self, num_nodes: int, device: torch.device) -> Tuple[PositionMap, PositionMap]:
        """
        `emb_h(0..N) W_t` and `emb_d(0..N) W_t` as linear maps of the LSTM output `h_t`, for `V` nodes: each a
        pair `(G, c)` with `G` `(V * d_H, hidden_dim)` and `c` `(V, d_H)`, so that `emb(0..N) W_t` is
        `linear(h_t, G).view(V, d_H) + c` (see `score_update`). The same for every sentence and step of a batch.
        """
        positions = torch.arange(num_nodes, device=device)
        hidden_dim = self.weight_generator.in_features
        # the generator's weight, (d_emb, d_H * hidden_dim), and bias, (d_emb, d_H): W_t = weight h_t + bias
        weight = self.weight_generator.weight.view(self._position_dim, -1)
        bias = self.weight_generator.bias.view(self._position_dim, self._weight_dim)
        maps = []
        for embedding in (self.head_positions, self.dependent_positions):
            # shape (V, d_emb)
            emb = embedding(positions)
            # one product, already in the layout `linear` reads (an einsum to `(hidden_dim, V * d_H)`
            # permuted its operands on every call, about 2 ms of a batch on two cores)
            linear = (emb @ weight).view(num_nodes * self._weight_dim, hidden_dim)
            maps.append((linear, emb @ bias))
        return maps[0], maps[1]

    def score_update(
        self,
        hidden: torch.Tensor,
        head_positions: PositionMap,
        dependent_positions: PositionMap,
    ) -> torch.Tensor:
        """
        `BiAffine(emb_h W_t, emb_d W_t)` for LSTM outputs `hidden` `(..., hidden_dim)`: `(..., V, V)`,
        `[head, dependent]`, for any number of leading dimensions (one step, or every step of a roll-in).
        `head_positions` and `dependent_positions` come from `position_maps`.

        `W_t = generator(h_t)` is linear in `h_t`, so `emb W_t` is `h_t` times the product of the position
        embeddings with the generator's weight, computed once per batch (`position_maps`): the `d_emb x d_H`
        matrix `W_t` itself is never built, which is the largest product of a step (the same value,
        fewer operations and far less memory traffic).
        """
        with self._bfloat16.autocast(self.training, hidden.device):
            scores = self._score_update(hidden, head_positions, dependent_positions)
        # S_t sums the updates in float32 (the hidden state's type)
        return scores.to(hidden.dtype)

    def _score_update(
        self,
        hidden: torch.Tensor,
        head_positions: PositionMap,
        dependent_positions: PositionMap,
    ) -> torch.Tensor:
        leading = hidden.shape[:-1]
        flat = hidden.reshape(-1, hidden.size(-1))
        representations = []
        for linear, bias in (head_positions, dependent_positions):
            num_nodes = bias.size(0)
            # shape (n, V, d_H): emb W_t (under autocast the product is bfloat16: so is the bias added to it,
            # rather than promoting the sum back to float32)
            projected = torch.nn.functional.linear(flat, linear).view(-1, num_nodes, self._weight_dim)
            representations.append(projected + bias.to(projected.dtype))
        scores = self.attention(*representations)
        return scores.reshape(*leading, num_nodes, num_nodes)

    def forward(
        self,
        state: RecurrentState,
        encoded: torch.Tensor,
        last_edges: Optional[torch.BoolTensor],
        projected: Optional[torch.Tensor] = None,
        positions: Optional[Tuple[PositionMap, PositionMap]] = None,
    ) -> Tuple[torch.Tensor, RecurrentState]:
        """
        One step: returns the score update `S_t - S_{t-1}`, `(batch_size, V, V)` `[head, dependent]`, and
        the new state. `projected` is `project_nodes(encoded)` and `positions` is `position_maps(V)`,
        computed once per sentence by the caller.
        """
        if positions is None:
            positions = self.position_maps(encoded.size(1), encoded.device)
        return self.step(state, self.embed_edges(encoded, last_edges, projected), positions)

    def step(
        self, state: RecurrentState, edge_input: torch.Tensor, positions: Tuple[PositionMap, PositionMap]
    ) -> Tuple[torch.Tensor, RecurrentState]:
        """
        `forward` from the last step's `f_emb`, `(batch_size, d_e + 2 d_emb)` (`embed_edges` or
        `embed_edge_indices`): the score update `(batch_size, V, V)` and the new state.
        """
        hidden, cell = self.cell(edge_input, state)
        return self.score_update(hidden, *positions), (hidden, cell)

    def scores_by_step(
        self, initial_scores: torch.Tensor, encoded: torch.Tensor, final_encoder_state: torch.Tensor
    ) -> Tuple[Callable[..., Tuple[torch.Tensor, torch.Tensor]], torch.Tensor]:
        """
        The scores `S_t` of a sentence's steps one after the other, from `S_0` `(batch_size, V, V)`: a closure
        `step(edge_input, active=None)` that returns `S_t` and the LSTM output `h_t` given `f_emb` of the
        edges added at step `t - 1` (`embed_edges` of several edges a step, `embed_edge_indices` of one) and
        optionally which sentences step (`(batch_size,)`; the others keep their state and scores), and
        `project_nodes(encoded)` `(batch_size, V, d_e)` that both embeddings read.
        """
        state = self.initial_state(final_encoder_state)
        scores = initial_scores
        projected = self.project_nodes(encoded)
        positions = self.position_maps(encoded.size(1), encoded.device)

        def step(edge_input: torch.Tensor, active: Optional[torch.BoolTensor] = None) -> Tuple[torch.Tensor, torch.Tensor]:
            nonlocal state, scores
            delta, new_state = self.step(state, edge_input, positions)
            if active is None:
                state, scores = new_state, scores + delta
            else:
                keep = active.unsqueeze(-1)
                state = (torch.where(keep, new_state[0], state[0]), torch.where(keep, new_state[1], state[1]))
                scores = torch.where(keep.unsqueeze(-1), scores + delta, scores)
            return scores, state[0]

        return step, projected

    def embed_edge_indices(
        self,
        projected: torch.Tensor,
        heads: torch.LongTensor,
        dependents: torch.LongTensor,
        added: torch.BoolTensor,
    ) -> torch.Tensor:
        """
        `f_emb` of one edge per sentence and step given by its nodes, the start vector where a sentence
        added none: `(batch_size, ..., d_e + 2 d_emb)`. The same as `embed_edges` of a one-edge matrix, in a
        few indexing operations instead of sums over `V x V` (the roll-in and `unroll` add one edge a step).

        # Parameters

        projected : `torch.Tensor`, `(batch_size, V, d_e)`, `project_nodes(encoded)`.
        heads, dependents : `torch.LongTensor`, `(batch_size, ...)`.
        added : `torch.BoolTensor`, `(batch_size, ...)`.
        """
        batch_size = projected.size(0)
        batch_index = torch.arange(batch_size, device=projected.device).view(-1, *([1] * (heads.dim() - 1)))
        edge_inputs = torch.cat(
            [
                projected[batch_index, heads] - projected[batch_index, dependents],
                self.head_positions(heads),
                self.dependent_positions(dependents),
            ],
            dim=-1,
        )
        return torch.where(added.unsqueeze(-1), edge_inputs, self.start_edge)

    def unroll(
        self,
        final_encoder_state: torch.Tensor,
        projected: torch.Tensor,
        heads: torch.LongTensor,
        dependents: torch.LongTensor,
        added: torch.BoolTensor,
        return_hidden: bool = False,
    ) -> Union[torch.Tensor, Tuple[torch.Tensor, torch.Tensor]]:
        """
        The score updates of every step of a roll-in whose edges are already known, in one batched pass:
        step `t` reads the edge added at step `t - 1` (the start vector at step 0, and where a sentence
        added none). Equal to calling `forward` once per step; the LSTM cell is the only sequential part,
        run as one fused sequence (`run_cell`).

        # Parameters

        final_encoder_state : `torch.Tensor`, `(batch_size, encoder_dim)`.
        projected : `torch.Tensor`, `(batch_size, V, d_e)`, `project_nodes(encoded)`.
        heads, dependents : `torch.LongTensor`, `(batch_size, T - 1)`, the edge added at each step but
            the last.
        added : `torch.BoolTensor`, `(batch_size, T - 1)`, whether the sentence added that edge.
        return_hidden : `bool`, optional (default = `False`)
            Also return the LSTM outputs `h_1 .. h_T`, `(batch_size, T, hidden_dim)` (the graph phase's
            stop scores read them).

        # Returns

        `(batch_size, T, V, V)`: `S_t - S_{t-1}` for `t = 1 .. T`, and with `return_hidden` the outputs.
        """
        batch_size, num_nodes, _ = projected.shape
        # shape (batch_size, T - 1, d_e + 2 d_emb): f_emb of each step's edge
        edge_inputs = self.embed_edge_indices(projected, heads, dependents, added)
        start = self.start_edge.view(1, 1, -1).expand(batch_size, 1, -1)
        inputs = torch.cat([start, edge_inputs], dim=1)
        hidden = self.run_cell(inputs, self.initial_state(final_encoder_state))
        # shape (batch_size, T, V, V)
        updates = self.score_update(hidden, *self.position_maps(num_nodes, projected.device))
        return (updates, hidden) if return_hidden else updates

    def run_cell(self, inputs: torch.Tensor, state: RecurrentState) -> torch.Tensor:
        """
        The LSTM cell over a whole sequence of known inputs `(batch_size, T, input_dim)` from `state`: its
        outputs `h_1 .. h_T`, `(batch_size, T, hidden_dim)`, the same as calling `self.cell` once per step.

        The cell's own parameters go through `torch.lstm`, PyTorch's fused sequence kernel (oneDNN on CPU):
        a step-by-step loop is about ten autograd nodes and two small weight-gradient products per step,
        which on two CPU cores made the cell a visible part of a training batch's backward pass.
        """
        cell = self.cell
        hidden, cell_state = state
        output, _, _ = torch.lstm(
            inputs,
            (hidden.unsqueeze(0), cell_state.unsqueeze(0)),
            [cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh],
            True,  # has_biases
            1,  # num_layers
            0.0,  # dropout
            self.training,
            False,  # bidirectional
            True,  # batch_first
        )
        return output
