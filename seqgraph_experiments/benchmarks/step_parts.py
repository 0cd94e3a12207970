"""
Times parts of a training step in their current form against the form they replaced, interleaved in
one process (forward and backward each, a mean over repetitions), and writes
results/benchmarks/step_parts.json (or `--output`):

- the arc scores: `MatmulBilinearMatrixAttention` against AllenNLP's `BilinearMatrixAttention` (501 x 501
  weight with the input biases, batches of 32 sentences);
- the unroll of the recurrent weight model: `RecurrentWeight.unroll` with its LSTM cell as one fused
  `torch.lstm` sequence (`run_cell`) against a Python loop over steps of `torch.nn.LSTMCell` (the shipped
  sizes: encoder 800, hidden 256, edges 128, positions 64, weight 64);
- the loss's pass over all states (`--parts loss`): the policy's log-probability of the gold edges in
  every state, `structs.tree.state_gold_log_probs` (its gradient written out) against autograd of the
  expression it replaced (`cumsum`, masked `logsumexp`, `gather`), with the valid edges as the policy's
  support, from EWT's typical batches to its longest sentences.

    .venv/bin/python benchmarks/step_parts.py [--repetitions 30]
    .venv/bin/python benchmarks/step_parts.py --parts loss --output results/benchmarks/fused_loss.json

Run nothing else on the machine meanwhile: the numbers are wall-clock times.
"""
import argparse
import time
from pathlib import Path
from typing import Callable, Dict, List

import torch
from allennlp.modules.matrix_attention import BilinearMatrixAttention
from allennlp.nn.util import min_value_of_dtype

from seqgraph_allennlp.modules.bilinear import MatmulBilinearMatrixAttention
from seqgraph_allennlp.modules.recurrent_weight import RecurrentWeight
from seqgraph_allennlp.structs.tree import policy_mask, state_gold_log_probs
from seqgraph_experiments.provenance import machine, stamp
from seqgraph_experiments.results import BENCHMARKS, write_json

RESULT = BENCHMARKS / "step_parts.json"
# (sentences, nodes): EWT's typical and long training batches
SHAPES = [(32, 21), (32, 41)]
# the loss's cost grows as V^3 a sentence: EWT's longest batches matter most
LOSS_SHAPES = [(32, 21), (32, 41), (16, 81), (8, 151)]


def mean_seconds(functions: List[Callable[[], torch.Tensor]], repetitions: int) -> List[float]:
    """The mean time of `f().sum().backward()` for each function, the functions interleaved."""
    totals = [0.0] * len(functions)
    for function in functions:  # warm-up
        function().sum().backward()
    for _ in range(repetitions):
        for index, function in enumerate(functions):
            start = time.perf_counter()
            function().sum().backward()
            totals[index] += time.perf_counter() - start
    return [total / repetitions for total in totals]


def arc_scores(batch_size: int, num_nodes: int, repetitions: int) -> Dict:
    torch.manual_seed(0)
    allennlp = BilinearMatrixAttention(500, 500, use_input_biases=True)
    matmul = MatmulBilinearMatrixAttention(500, 500, use_input_biases=True)
    matmul.load_state_dict(allennlp.state_dict())
    heads = torch.randn(batch_size, num_nodes, 500, requires_grad=True)
    dependents = torch.randn(batch_size, num_nodes, 500, requires_grad=True)
    before, after = mean_seconds([lambda: allennlp(heads, dependents), lambda: matmul(heads, dependents)], repetitions)
    return {"part": "arc scores", "before": "BilinearMatrixAttention", "after": "MatmulBilinearMatrixAttention",
            "sentences": batch_size, "nodes": num_nodes, "before_ms": 1e3 * before, "after_ms": 1e3 * after}


def unroll(batch_size: int, num_nodes: int, repetitions: int) -> Dict:
    torch.manual_seed(0)
    module = RecurrentWeight(encoder_dim=800)
    with torch.no_grad():
        module.attention._weight_matrix.normal_()

    def loop_cell(inputs: torch.Tensor, state):
        hidden = []
        for step in range(inputs.size(1)):
            state = module.cell(inputs[:, step], state)
            hidden.append(state[0])
        return torch.stack(hidden, dim=1)

    steps = num_nodes - 1
    final_state = torch.randn(batch_size, 800, requires_grad=True)
    projected = torch.randn(batch_size, num_nodes, 128, requires_grad=True)
    heads = torch.randint(0, num_nodes, (batch_size, steps - 1))
    dependents = torch.randint(1, num_nodes, (batch_size, steps - 1))
    added = torch.rand(batch_size, steps - 1) < 0.9
    fused_cell = module.run_cell

    def with_cell(run_cell):
        def function():
            module.run_cell = run_cell
            return module.unroll(final_state, projected, heads, dependents, added)
        return function

    before, after = mean_seconds([with_cell(loop_cell), with_cell(fused_cell)], repetitions)
    module.run_cell = fused_cell
    return {"part": "unroll", "before": "LSTMCell step by step", "after": "run_cell (torch.lstm)",
            "sentences": batch_size, "nodes": num_nodes, "before_ms": 1e3 * before, "after_ms": 1e3 * after}


def plain_gold_log_probs(updates, node_mask, gold_index, policy_support):
    """The loss's expression before `state_gold_log_probs`, differentiated by autograd."""
    scores = updates.cumsum(dim=1)
    flat_scores = scores.flatten(2)
    mask = policy_mask(node_mask, policy_support)
    log_partition = flat_scores.masked_fill(~mask, min_value_of_dtype(scores.dtype)).logsumexp(dim=-1)
    return flat_scores.gather(2, gold_index) - log_partition.unsqueeze(-1)


def loss(batch_size: int, num_nodes: int, repetitions: int) -> Dict:
    torch.manual_seed(0)
    num_states = num_nodes - 1
    node_mask = torch.ones(batch_size, num_nodes, dtype=torch.bool)
    node_mask[0, num_nodes // 2:] = False
    policy_support = torch.rand(batch_size, num_states, num_nodes, num_nodes) > 0.3
    gold_index = torch.randint(0, num_nodes * num_nodes, (batch_size, 1, num_nodes)).expand(-1, num_states, -1)
    updates = torch.randn(batch_size, num_states, num_nodes, num_nodes, requires_grad=True)
    weights = torch.randn(batch_size, num_states, num_nodes)

    def with_function(function):
        return lambda: function(updates, node_mask, gold_index, policy_support) * weights

    # fewer repetitions for the long shapes: one of 151 nodes is about 400 times the work of 21
    repetitions = max(3, repetitions * 21 ** 3 // num_nodes ** 3)
    before, after = mean_seconds([with_function(plain_gold_log_probs), with_function(state_gold_log_probs)],
                                 repetitions)
    return {"part": "loss", "before": "autograd of cumsum, masked logsumexp, gather",
            "after": "state_gold_log_probs", "sentences": batch_size, "nodes": num_nodes,
            "repetitions": repetitions, "before_ms": 1e3 * before, "after_ms": 1e3 * after}


PARTS = {"arc_scores": (arc_scores, SHAPES), "unroll": (unroll, SHAPES), "loss": (loss, LOSS_SHAPES)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repetitions", type=int, default=30)
    parser.add_argument("--parts", nargs="+", choices=sorted(PARTS), default=["arc_scores", "unroll"])
    parser.add_argument("--output", default=str(RESULT), help="where the JSON goes (default: %(default)s)")
    args = parser.parse_args()
    rows = [PARTS[name][0](batch_size, num_nodes, args.repetitions)
            for name in args.parts for batch_size, num_nodes in PARTS[name][1]]
    for row in rows:
        print(f"{row['part']}, {row['sentences']} x {row['nodes']} nodes: {row['before']} {row['before_ms']:.1f} ms, "
              f"{row['after']} {row['after_ms']:.1f} ms (forward and backward)")
    result = {
        "rows": rows,
        "settings": f"mean of {args.repetitions} interleaved repetitions of forward and backward (fewer for the "
                    "loss's long shapes, see each row), after one warm-up",
        **stamp("benchmarks/step_parts.py"),
        "machine": {**machine(), "torch": torch.__version__, "torch_threads": torch.get_num_threads()},
    }
    print(f"wrote {write_json(Path(args.output), result)}")


if __name__ == "__main__":
    main()
