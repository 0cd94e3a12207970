"""
Oracles (Section 3.2) against hand-computed targets on one 4-word sentence.

V = 5 nodes (0 = root), flattened edge index = head * 5 + dependent.
Gold tree: heads [_, 2, 0, 2, 3], i.e. the edges
    0 -> 2  (index  2)      2 -> 1  (index 11)      2 -> 3  (index 13)      3 -> 4  (index 19)
"""
import json
import math
from pathlib import Path
from typing import Iterable, List, Tuple

import pytest
import torch
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError

from seqgraph_allennlp.oracles import Oracle, free_edges
from seqgraph_allennlp.oracles.annealed_coaching import AnnealedCoachingOracle
from seqgraph_allennlp.oracles.coaching import CoachingOracle
from seqgraph_allennlp.oracles.linearized import LinearizedOracle
from seqgraph_allennlp.oracles.uniform import UniformOracle
from seqgraph_allennlp.structs.tree import transitive_closure, valid_mask

ROOT = Path(__file__).resolve().parents[1]
V = 5
GOLD_EDGES = [(0, 2), (2, 1), (2, 3), (3, 4)]  # indices 2, 11, 13, 19


def index(head: int, dependent: int) -> int:
    return head * V + dependent


# The policy pi_theta at the state, written out (probabilities over the 25 flattened edges):
#   index  1 (0 -> 1): 0.300    index  9 (1 -> 4): 0.200    index 13 (2 -> 3): 0.150
#   index 23 (4 -> 3): 0.100    index 19 (3 -> 4): 0.090    index  2 (0 -> 2): 0.064
#   index 11 (2 -> 1): 0.060    the other 18 edges: 0.002 each (0.036 together)
# total: 0.300 + 0.200 + 0.150 + 0.100 + 0.090 + 0.064 + 0.060 + 0.036 = 1.000
NAMED_PROBABILITIES = {1: 0.300, 9: 0.200, 13: 0.150, 23: 0.100, 19: 0.090, 2: 0.064, 11: 0.060}
OTHER_PROBABILITY = 0.002


def policy_probabilities() -> torch.Tensor:
    probabilities = torch.full((V * V,), OTHER_PROBABILITY, dtype=torch.float64)
    for flat, probability in NAMED_PROBABILITIES.items():
        probabilities[flat] = probability
    return probabilities


def policy_log_probs(batch_size: int = 1) -> torch.Tensor:
    return policy_probabilities().log().float().unsqueeze(0).expand(batch_size, -1).clone()


def test_policy_is_a_distribution():
    assert float(policy_probabilities().sum()) == pytest.approx(1.0, abs=1e-12)


def gold_adjacency(batch_size: int = 1) -> torch.BoolTensor:
    adjacency = torch.zeros(batch_size, V, V, dtype=torch.bool)
    for head, dependent in GOLD_EDGES:
        adjacency[:, head, dependent] = True
    return adjacency


def state(edges_so_far: Iterable[Tuple[int, int]]) -> Tuple[torch.BoolTensor, torch.BoolTensor]:
    """(free, valid) for one sentence after `edges_so_far`, each `(1, V, V)`."""
    adjacency = torch.zeros(1, V, V, dtype=torch.bool)
    for head, dependent in edges_so_far:
        adjacency[0, head, dependent] = True
    valid = valid_mask(adjacency, transitive_closure(adjacency), torch.ones(1, V, dtype=torch.bool))
    return free_edges(gold_adjacency(), valid), valid


def flat_set(mask: torch.BoolTensor) -> List[int]:
    return mask.reshape(-1).nonzero().reshape(-1).tolist()


def target(values: dict) -> torch.Tensor:
    row = torch.zeros(V * V)
    for flat, value in values.items():
        row[flat] = value
    return row


# The states used below (all edges so far listed):
EMPTY = []  # on gold, nothing added yet
STATE_A = [(0, 2)]  # on gold, after 0 -> 2
STATE_B = [(0, 2), (4, 3)]  # off gold: word 3 got the wrong head 4
STATE_C = [(1, 2)]  # off gold: word 2 got the wrong head 1, so gold 2 -> 1 would close a cycle
STATE_D = [(0, 1)]  # off gold: the root's single child is word 1 instead of word 2
STATE_F = [(0, 1), (1, 2), (4, 3)]  # off gold, no gold edge is free any more


# ---------------------------------------------------------------------------------------------------------
# free_edges
# ---------------------------------------------------------------------------------------------------------


def test_free_edges_on_gold_path():
    free, _ = state(EMPTY)
    assert flat_set(free) == [2, 11, 13, 19]  # all four gold edges
    free, _ = state(STATE_A)
    assert flat_set(free) == [11, 13, 19]  # the gold edges not yet added


def test_free_edges_off_gold_wrong_head():
    # 4 -> 3 took word 3: gold 2 -> 3 (word 3 has a head) and gold 3 -> 4 (4 reaches 3: cycle 3 -> 4 -> 3)
    # are no longer free; 2 -> 1 still is
    free, valid = state(STATE_B)
    assert flat_set(free) == [11]
    assert not valid[0, 2, 3] and not valid[0, 3, 4]


def test_free_edges_off_gold_cycle():
    # 1 -> 2 was added: gold 0 -> 2 is gone (2 has a head) and gold 2 -> 1 would close 1 -> 2 -> 1
    free, valid = state(STATE_C)
    assert flat_set(free) == [13, 19]
    assert not valid[0, 2, 1] and not valid[0, 0, 2]
    assert valid[0, 0, 1]  # the root is still free to take a child


def test_free_edges_off_gold_second_root_child():
    # 0 -> 1 was added: gold 0 -> 2 would be a second root child, gold 2 -> 1 a second head for word 1
    free, _ = state(STATE_D)
    assert flat_set(free) == [13, 19]


def test_free_edges_empty_off_gold():
    free, valid = state(STATE_F)
    assert flat_set(free) == []
    # valid edges remain: word 4 can take head 1 or 2 (not 0: root taken; not 3: 4 reaches 3)
    assert flat_set(valid) == [9, 14]


# ---------------------------------------------------------------------------------------------------------
# hand-computed targets
# ---------------------------------------------------------------------------------------------------------

# State A, free = {11, 13, 19}, policy on them: 0.060, 0.150, 0.090 (sum 0.300)
#   uniform:            1/3 each
#   pi*_coaching:       0.060 / 0.3 = 0.2,   0.150 / 0.3 = 0.5,   0.090 / 0.3 = 0.3
#   coaching beta=0.5:  0.5/3 + 0.5 * [0.2, 0.5, 0.3] = 0.166667 + [0.10, 0.25, 0.15]
#                       = [0.266667, 0.416667, 0.316667]          (sum 1)
#   coaching beta=0.25: 0.25/3 + 0.75 * [0.2, 0.5, 0.3] = 0.083333 + [0.15, 0.375, 0.225]
#                       = [0.233333, 0.458333, 0.308333]          (sum 1)
#   coaching beta=0:    [0.2, 0.5, 0.3];   beta=1: uniform
#   linearized:         1 on index 11, the smallest free index
STATE_A_TARGETS = {
    "uniform": {11: 1 / 3, 13: 1 / 3, 19: 1 / 3},
    "coaching_0.5": {11: 0.266667, 13: 0.416667, 19: 0.316667},
    "coaching_0.25": {11: 0.233333, 13: 0.458333, 19: 0.308333},
    "coaching_0": {11: 0.2, 13: 0.5, 19: 0.3},
    "linearized": {11: 1.0},
}


def test_uniform_oracle_state_a():
    free, _ = state(STATE_A)
    got = UniformOracle()(free, policy_log_probs())
    assert got.shape == (1, V * V)
    assert torch.allclose(got[0], target(STATE_A_TARGETS["uniform"]), atol=1e-6)


@pytest.mark.parametrize(
    "beta, key", [(0.5, "coaching_0.5"), (0.25, "coaching_0.25"), (0.0, "coaching_0"), (1.0, "uniform")]
)
def test_coaching_oracle_state_a(beta, key):
    free, _ = state(STATE_A)
    got = CoachingOracle(beta=beta)(free, policy_log_probs())
    assert torch.allclose(got[0], target(STATE_A_TARGETS[key]), atol=1e-5)
    assert float(got.sum()) == pytest.approx(1.0, abs=1e-5)


def test_linearized_oracle_state_a():
    free, _ = state(STATE_A)
    got = LinearizedOracle()(free, policy_log_probs())
    assert torch.equal(got[0], target(STATE_A_TARGETS["linearized"]))


def test_oracles_at_empty_state():
    # free = {2, 11, 13, 19}, policy on them 0.064, 0.060, 0.150, 0.090 (sum 0.364)
    #   uniform: 0.25 each; linearized: index 2 (0 -> 2)
    #   coaching beta=0.5: 0.125 + 0.5 * p / 0.364:
    #     2: 0.125 + 0.087912 = 0.212912    11: 0.125 + 0.082418 = 0.207418
    #    13: 0.125 + 0.206044 = 0.331044    19: 0.125 + 0.123626 = 0.248626
    free, _ = state(EMPTY)
    log_probs = policy_log_probs()
    expected = target({2: 0.25, 11: 0.25, 13: 0.25, 19: 0.25})
    assert torch.allclose(UniformOracle()(free, log_probs)[0], expected)
    assert torch.equal(LinearizedOracle()(free, log_probs)[0], target({2: 1.0}))
    expected = target({2: 0.212912, 11: 0.207418, 13: 0.331044, 19: 0.248626})
    assert torch.allclose(CoachingOracle(beta=0.5)(free, log_probs)[0], expected, atol=1e-5)


def test_oracles_off_gold_cycle_and_root_states():
    # states C and D: free = {13, 19}, policy on them 0.150, 0.090 (sum 0.240)
    #   uniform: 0.5 each; linearized: index 13
    #   coaching beta=0.5: 0.25 + 0.5 * [0.625, 0.375] = [0.5625, 0.4375]
    for edges in (STATE_C, STATE_D):
        free, _ = state(edges)
        log_probs = policy_log_probs()
        assert torch.allclose(UniformOracle()(free, log_probs)[0], target({13: 0.5, 19: 0.5}))
        assert torch.equal(LinearizedOracle()(free, log_probs)[0], target({13: 1.0}))
        got = CoachingOracle(beta=0.5)(free, log_probs)[0]
        assert torch.allclose(got, target({13: 0.5625, 19: 0.4375}), atol=1e-5)


def all_oracles():
    return [
        UniformOracle(),
        CoachingOracle(0.5),
        CoachingOracle(0.0),
        LinearizedOracle(),
        AnnealedCoachingOracle(),
    ]


def test_oracles_off_gold_single_free_edge():
    # state B: free = {11}; every oracle puts all its mass there, whatever the policy
    free, _ = state(STATE_B)
    for oracle in all_oracles():
        assert torch.allclose(oracle(free, policy_log_probs())[0], target({11: 1.0}), atol=1e-6)


def test_empty_free_set_gives_zero_row():
    free, _ = state(STATE_F)
    for oracle in all_oracles():
        got = oracle(free, policy_log_probs())
        assert got.shape == (1, V * V)
        assert torch.equal(got, torch.zeros(1, V * V)), type(oracle)


def test_batched_rows_are_independent():
    # the states stacked in one batch give the same rows as alone, including the empty-free row
    states = [EMPTY, STATE_A, STATE_B, STATE_C, STATE_F]
    free = torch.cat([state(edges)[0] for edges in states])
    log_probs = policy_log_probs(len(states))
    for oracle in (UniformOracle(), CoachingOracle(0.25), LinearizedOracle()):
        batched = oracle(free, log_probs)
        for row, edges in enumerate(states):
            alone = oracle(state(edges)[0], policy_log_probs())
            assert torch.allclose(batched[row], alone[0], atol=1e-6)
    assert torch.equal(batched[4], torch.zeros(V * V))


def test_coaching_oracle_survives_a_policy_with_negligible_mass_on_free_edges():
    # the free edges have log-probability -200 (e^-200 underflows in float32): coaching must still give
    # them a distribution, proportional to e^-200 and e^-201 -> 1 / (1 + e^-1) and e^-1 / (1 + e^-1)
    free, _ = state(STATE_C)  # free = {13, 19}
    log_probs = torch.full((1, V * V), -200.0)
    log_probs[0, 13] = -200.0
    log_probs[0, 19] = -201.0
    log_probs[0, 0] = 0.0
    got = CoachingOracle(beta=0.0)(free, log_probs)[0]
    expected = target({13: 1 / (1 + math.exp(-1)), 19: math.exp(-1) / (1 + math.exp(-1))})
    assert torch.allclose(got, expected, atol=1e-6)


def test_coaching_oracle_does_not_backpropagate_into_the_policy():
    free, _ = state(STATE_A)
    log_probs = policy_log_probs().requires_grad_(True)
    assert not CoachingOracle(0.5)(free, log_probs).requires_grad


# ---------------------------------------------------------------------------------------------------------
# annealed coaching
# ---------------------------------------------------------------------------------------------------------


def paper_staircase() -> AnnealedCoachingOracle:
    # the paper's fixed schedule: initial 1.0, down 0.02 every 2000 updates, final 0
    return AnnealedCoachingOracle(step_size=0.02, steps_per_decrease=2000)


def test_annealed_coaching_staircase_schedule():
    oracle = paper_staircase()
    assert oracle.beta == pytest.approx(1.0)
    for _ in range(1999):
        oracle.update()
    assert int(oracle.num_updates) == 1999
    assert oracle.beta == pytest.approx(1.0)
    oracle.update()  # 2000
    assert oracle.beta == pytest.approx(0.98)
    oracle.num_updates.fill_(3999)
    assert oracle.beta == pytest.approx(0.98)
    oracle.num_updates.fill_(4000)
    assert oracle.beta == pytest.approx(0.96)
    oracle.num_updates.fill_(99_999)  # 49 decreases
    assert oracle.beta == pytest.approx(0.02)
    oracle.num_updates.fill_(100_000)  # 50 decreases: 1 - 50 * 0.02 = 0
    assert oracle.beta == pytest.approx(0.0, abs=1e-9)
    oracle.num_updates.fill_(1_000_000)  # clamped at final_beta = 0, not negative
    assert oracle.beta == 0.0


def test_annealed_coaching_clamps_at_final_beta():
    oracle = AnnealedCoachingOracle(initial_beta=0.9, step_size=0.1, steps_per_decrease=10, final_beta=0.5)
    expected = {0: 0.9, 9: 0.9, 10: 0.8, 25: 0.7, 39: 0.6, 40: 0.5, 50: 0.5, 1000: 0.5}
    for updates, beta in expected.items():
        oracle.num_updates.fill_(updates)
        assert oracle.beta == pytest.approx(beta), updates


def test_annealed_coaching_linear_over_the_run():
    oracle = AnnealedCoachingOracle(initial_beta=1.0, final_beta=0.2)
    assert oracle.follows_run_length
    # before the run's length is known the schedule has not started, and training cannot start
    assert oracle.beta == 1.0
    with pytest.raises(ConfigurationError, match="seqgraph_run_length"):
        oracle.update()
    oracle.set_total_updates(40)  # e.g. 2 epochs of 20 batches
    expected = {0: 1.0, 10: 0.8, 20: 0.6, 30: 0.4, 39: 0.22, 40: 0.2, 41: 0.2, 1000: 0.2}
    for updates, beta in expected.items():
        oracle.num_updates.fill_(updates)
        assert oracle.beta == pytest.approx(beta), updates
    oracle.num_updates.fill_(0)
    for _ in range(40):
        oracle.update()
    assert oracle.beta == pytest.approx(0.2)


def test_annealed_coaching_fixed_total_ignores_the_run_length():
    oracle = AnnealedCoachingOracle(total_updates=100)
    assert not oracle.follows_run_length
    oracle.set_total_updates(10)
    oracle.num_updates.fill_(50)
    assert oracle.beta == pytest.approx(0.5)


def test_annealed_coaching_targets_follow_beta():
    # after 2000 updates beta = 0.98; state A: 0.98/3 + 0.02 * [0.2, 0.5, 0.3]
    #   = 0.326667 + [0.004, 0.010, 0.006] = [0.330667, 0.336667, 0.332667]
    oracle = paper_staircase()
    free, _ = state(STATE_A)
    assert torch.allclose(oracle(free, policy_log_probs())[0], target(STATE_A_TARGETS["uniform"]), atol=1e-6)
    oracle.num_updates.fill_(2000)
    expected = target({11: 0.330667, 13: 0.336667, 19: 0.332667})
    assert torch.allclose(oracle(free, policy_log_probs())[0], expected, atol=1e-5)
    # beta = 0 at the end: pure coaching
    oracle.num_updates.fill_(200_000)
    expected = target(STATE_A_TARGETS["coaching_0"])
    assert torch.allclose(oracle(free, policy_log_probs())[0], expected, atol=1e-5)


def test_annealed_coaching_state_dict_round_trip():
    oracle = paper_staircase()
    for _ in range(2500):
        oracle.update()
    state_dict = oracle.state_dict()
    assert set(state_dict) == {"num_updates", "total_updates"}
    assert int(state_dict["num_updates"]) == 2500

    # a resumed model: a fresh oracle (inside a parent module, as in a model) loads the saved state
    class Holder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.oracle = paper_staircase()

    saved = Holder()
    saved.oracle.load_state_dict(state_dict)
    model_state = saved.state_dict()
    assert int(model_state["oracle.num_updates"]) == 2500

    resumed = Holder()
    assert resumed.oracle.beta == pytest.approx(1.0)
    resumed.load_state_dict(model_state)
    assert int(resumed.oracle.num_updates) == 2500
    assert resumed.oracle.beta == pytest.approx(0.98)
    for _ in range(1500):  # continues the schedule: 4000 updates
        resumed.oracle.update()
    assert int(resumed.oracle.num_updates) == 4000
    assert resumed.oracle.beta == pytest.approx(0.96)
    # the saved state is a copy: the original oracle did not move
    assert int(oracle.num_updates) == 2500


def test_annealed_beta_reaches_its_floor_by_the_end_of_a_run(tmp_path):
    from allennlp.commands.train import train_model_from_file
    from allennlp.models.archival import load_archive

    serialization_dir = tmp_path / "annealed"
    train_model_from_file(
        str(ROOT / "fixtures" / "configs" / "annealed.jsonnet"),
        str(serialization_dir),
        # no validation: the archived model is the last epoch's, whose schedule has run to its end
        overrides=json.dumps({"trainer.num_epochs": 3, "model.oracle.final_beta": 0.1, "validation_data_path": None}),
    )
    oracle = load_archive(str(serialization_dir / "model.tar.gz")).model.oracle
    # the fixture: 6 sentences in batches of 4 (2 batches), 3 epochs
    assert int(oracle.total_updates) == 6
    assert int(oracle.num_updates) == 6
    assert oracle.beta == pytest.approx(0.1)
    metrics = [json.loads((serialization_dir / f"metrics_epoch_{epoch}.json").read_text()) for epoch in range(3)]
    assert len(metrics) == 3


# ---------------------------------------------------------------------------------------------------------
# construction from params
# ---------------------------------------------------------------------------------------------------------


def test_oracle_from_params():
    oracle = Oracle.from_params(Params({"type": "uniform"}))
    assert type(oracle) is UniformOracle and oracle.beta is None
    oracle = Oracle.from_params(Params({}))  # default implementation
    assert type(oracle) is UniformOracle
    oracle = Oracle.from_params(Params({"type": "coaching"}))
    assert type(oracle) is CoachingOracle and oracle.beta == 0.5
    oracle = Oracle.from_params(Params({"type": "coaching", "beta": 0.25}))
    assert oracle.beta == 0.25
    oracle = Oracle.from_params(Params({"type": "linearized"}))
    assert type(oracle) is LinearizedOracle and oracle.beta is None
    oracle = Oracle.from_params(Params({"type": "annealed_coaching"}))
    assert type(oracle) is AnnealedCoachingOracle and oracle.beta == 1.0
    oracle = Oracle.from_params(
        Params(
            {
                "type": "annealed_coaching",
                "initial_beta": 0.8,
                "step_size": 0.1,
                "steps_per_decrease": 5,
                "final_beta": 0.2,
            }
        )
    )
    assert oracle.beta == pytest.approx(0.8)
    for _ in range(5):
        oracle.update()
    assert oracle.beta == pytest.approx(0.7)
    oracle.num_updates.fill_(100)
    assert oracle.beta == pytest.approx(0.2)
    assert set(Oracle.list_available()) >= {"uniform", "coaching", "annealed_coaching", "linearized"}


@pytest.mark.parametrize(
    "params",
    [
        {"type": "coaching", "beta": 1.5},
        {"type": "coaching", "beta": -0.1},
        {"type": "annealed_coaching", "initial_beta": 0.3, "final_beta": 0.5},
        {"type": "annealed_coaching", "steps_per_decrease": 0, "step_size": 0.1},
        {"type": "annealed_coaching", "step_size": -0.1, "steps_per_decrease": 10},
        {"type": "annealed_coaching", "step_size": 0.1},
        {"type": "annealed_coaching", "total_updates": 0},
        {"type": "annealed_coaching", "total_updates": 10, "step_size": 0.1, "steps_per_decrease": 10},
    ],
)
def test_oracle_bad_params(params):
    with pytest.raises(ConfigurationError):
        Oracle.from_params(Params(params))
