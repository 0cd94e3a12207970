"""
Times two parts of a training step in their current form against the form they replaced, interleaved in
one process (forward and backward each, a mean over repetitions), and writes
results/benchmarks/step_parts.json:

- the arc scores: `MatmulBilinearMatrixAttention` against AllenNLP's `BilinearMatrixAttention` (501 x 501
  weight with the input biases, batches of 32 sentences);
- the unroll of the recurrent weight model: `RecurrentWeight.unroll` with its LSTM cell as one fused
  `torch.lstm` sequence (`run_cell`) against a Python loop over steps of `torch.nn.LSTMCell` (the shipped
  sizes: encoder 800, hidden 256, edges 128, positions 64, weight 64).

    .venv/bin/python benchmarks/step_parts.py [--repetitions 30]

Run nothing else on the machine meanwhile: the numbers are wall-clock times.
"""
import argparse
import time
from typing import Callable, Dict, List

import torch
from allennlp.modules.matrix_attention import BilinearMatrixAttention

from seqgraph_allennlp.modules.bilinear import MatmulBilinearMatrixAttention
from seqgraph_allennlp.modules.recurrent_weight import RecurrentWeight
from seqgraph_experiments.provenance import machine, stamp
from seqgraph_experiments.results import BENCHMARKS, write_json

RESULT = BENCHMARKS / "step_parts.json"
# (sentences, nodes): EWT's typical and long training batches
SHAPES = [(32, 21), (32, 41)]


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repetitions", type=int, default=30)
    args = parser.parse_args()
    rows = [part(batch_size, num_nodes, args.repetitions)
            for part in (arc_scores, unroll) for batch_size, num_nodes in SHAPES]
    for row in rows:
        print(f"{row['part']}, {row['sentences']} x {row['nodes']} nodes: {row['before']} {row['before_ms']:.1f} ms, "
              f"{row['after']} {row['after_ms']:.1f} ms (forward and backward)")
    result = {
        "rows": rows,
        "settings": f"mean of {args.repetitions} interleaved repetitions of forward and backward, after one warm-up",
        **stamp("benchmarks/step_parts.py"),
        "machine": {**machine(), "torch": torch.__version__, "torch_threads": torch.get_num_threads()},
    }
    print(f"wrote {write_json(RESULT, result)}")


if __name__ == "__main__":
    main()
