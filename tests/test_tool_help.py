"""
Every experiment and benchmark tool answers `--help` with its usage and exit status 0, not with a
traceback from reading "--help" as a file name (epoch_time and single_root_mst once did).
"""
import importlib
import sys

import pytest

TOOLS = [
    "seqgraph_experiments.bench_speed",
    "seqgraph_experiments.easy_first",
    "seqgraph_experiments.enhanced_errors",
    "seqgraph_experiments.enhanced_rescore",
    "seqgraph_experiments.enhanced_rules",
    "seqgraph_experiments.epoch_screen",
    "seqgraph_experiments.english_model_record",
    "seqgraph_experiments.english_parse_speed",
    "seqgraph_experiments.feature_speed",
    "seqgraph_experiments.features_accuracy",
    "seqgraph_experiments.layer_probe",
    "seqgraph_experiments.plot_curves",
    "seqgraph_experiments.raw_text_eval",
    "seqgraph_experiments.run_experiments",
    "seqgraph_experiments.stop_bias",
    "seqgraph_experiments.tau_sweep",
    "seqgraph_experiments.tokenisation_f1",
    "seqgraph_experiments.benchmarks.api_batch_size",
    "seqgraph_experiments.benchmarks.bf16_inference",
    "seqgraph_experiments.benchmarks.bf16_labels",
    "seqgraph_experiments.benchmarks.conllu_roundtrip",
    "seqgraph_experiments.benchmarks.epoch_time",
    "seqgraph_experiments.benchmarks.model_thread",
    "seqgraph_experiments.benchmarks.parse_phases",
    "seqgraph_experiments.benchmarks.profile_parse",
    "seqgraph_experiments.benchmarks.profile_train",
    "seqgraph_experiments.benchmarks.serve_load",
    "seqgraph_experiments.benchmarks.single_root_mst",
    "seqgraph_experiments.benchmarks.startup",
    "seqgraph_experiments.benchmarks.step_parts",
    "seqgraph_experiments.benchmarks.word_pieces",
]


@pytest.mark.parametrize("module_name", TOOLS)
def test_a_tool_answers_help_with_its_usage(module_name, monkeypatch, capsys):
    module = importlib.import_module(module_name)
    monkeypatch.setattr(sys, "argv", [module_name.rsplit(".", 1)[-1] + ".py", "--help"])
    with pytest.raises(SystemExit) as exit_info:
        module.main()
    assert exit_info.value.code == 0
    assert "usage:" in capsys.readouterr().out
