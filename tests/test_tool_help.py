"""
Every experiment and benchmark tool answers `--help` with its usage and exit status 0, not with a
traceback from reading "--help" as a file name (epoch_time once did).
"""
import importlib
import sys

import pytest

TOOLS = [
    "seqgraph_experiments.bench_speed",
    "seqgraph_experiments.enhanced_rules",
    "seqgraph_experiments.english_model_record",
    "seqgraph_experiments.english_parse_speed",
    "seqgraph_experiments.plot_curves",
    "seqgraph_experiments.raw_text_eval",
    "seqgraph_experiments.run_experiments",
    "seqgraph_experiments.tokenisation_f1",
    "seqgraph_experiments.benchmarks.epoch_time",
    "seqgraph_experiments.benchmarks.profile_train",
    "seqgraph_experiments.benchmarks.serve_load",
]


@pytest.mark.parametrize("module_name", TOOLS)
def test_a_tool_answers_help_with_its_usage(module_name, monkeypatch, capsys):
    module = importlib.import_module(module_name)
    monkeypatch.setattr(sys, "argv", [module_name.rsplit(".", 1)[-1] + ".py", "--help"])
    with pytest.raises(SystemExit) as exit_info:
        module.main()
    assert exit_info.value.code == 0
    assert "usage:" in capsys.readouterr().out
