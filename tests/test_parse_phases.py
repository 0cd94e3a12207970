"""benchmarks/parse_phases.py: the timers and the exclusive phases they give."""
import pytest

from seqgraph_experiments.benchmarks.parse_phases import PHASES, derived, timed


def test_a_timer_adds_each_call_and_keeps_the_result_and_the_error():
    totals = {}
    double = timed(lambda x: 2 * x, totals, "double")
    assert double(3) == 6 and double(4) == 8
    assert totals["double"] > 0

    def fail():
        raise ValueError("no")

    with pytest.raises(ValueError):
        timed(fail, totals, "fail")()
    assert "fail" in totals


def test_the_exclusive_phases_add_up_to_the_prediction_and_the_reading():
    # nested timers: embedding holds the transformer; encode holds embedding and encoder; forward holds encode
    # and the decoders; ...
    seconds = {"embedding": 1.5, "transformer": 0.5, "encoder": 5.0, "encode": 7.5, "graph_initial_scores": 1.0,
               "tree_decoder": 3.5, "graph_decoder": 1.0, "label_representations": 0.5, "basic_labels": 0.25,
               "enhanced_labels": 1.0, "upos": 0.25, "forward": 15.5, "human_readable": 0.5,
               "forward_on_instances": 16.5, "predict": 17.0}
    assert set(seconds) == set(PHASES)
    parts = derived(seconds, reading=0.5)
    assert parts["tree_initial_scores"] == 1.0 and parts["labels"] == 1.75
    assert parts["embedding"] == 1.0 and parts["transformer"] == 0.5
    assert parts["rest_of_forward"] == 0.5 and parts["batching"] == 0.5 and parts["predictor"] == 0.5
    assert all(value >= 0 for value in parts.values())
    assert sum(parts.values()) == pytest.approx(seconds["predict"] + 0.5)


def test_a_phase_never_called_counts_zero():
    # a model of the tree alone: no graph phase, no enhanced labels, no transformer
    seconds = {"embedding": 1.0, "encoder": 5.0, "encode": 7.0, "tree_decoder": 3.5, "label_representations": 0.5,
               "basic_labels": 0.25, "upos": 0.25, "forward": 12.0, "human_readable": 0.5,
               "forward_on_instances": 13.0, "predict": 13.5}
    parts = derived(seconds, reading=0.5)
    assert parts["graph_decoder"] == parts["graph_initial_scores"] == parts["transformer"] == 0.0
    assert parts["rest_of_forward"] == 0.5
    assert sum(parts.values()) == pytest.approx(seconds["predict"] + 0.5)
