"""The experiment runner's row syntax and its generated report (no training here)."""
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import run_experiments  # noqa: E402


def test_rows():
    assert run_experiments.parse_row("coach_valid") == ("coach_valid", "coach_valid", {}, {})
    assert run_experiments.parse_row('no_head=coach_valid@{"model.head_selection_weight": 0.0}') == (
        "no_head", "coach_valid", {"model.head_selection_weight": 0.0}, {}
    )
    assert run_experiments.parse_row('u_c=oracle_rollin[ORACLE=uniform,ROLL_IN=coaching]@{"trainer.num_epochs": 2}') == (
        "u_c", "oracle_rollin", {"trainer.num_epochs": 2}, {"ORACLE": "uniform", "ROLL_IN": "coaching"}
    )
    assert run_experiments.parse_row("oracle_rollin[ORACLE=uniform]")[:2] == ("oracle_rollin", "oracle_rollin")
    with pytest.raises(SystemExit, match="is not VAR=value"):
        run_experiments.parse_row("oracle_rollin[uniform]")
    with pytest.raises(SystemExit, match="not a JSON object"):
        run_experiments.parse_row("coach_valid@[1, 2]")
    with pytest.raises(SystemExit, match="nested dictionary"):
        run_experiments.parse_row('x=coach_valid@{"trainer": {"num_epochs": 1}}')
    with pytest.raises(SystemExit, match="no training_config/nonexistent.jsonnet"):
        run_experiments.parse_row("nonexistent")


def test_report_is_generated_from_the_results(tmp_path, monkeypatch):
    monkeypatch.setattr(run_experiments, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(run_experiments, "REPORT", tmp_path / "docs" / "RESULTS.md")
    result = {
        "row": "coach_valid", "config": "training_config/coach_valid.jsonnet", "overrides": {},
        "treebank": "welsh", "splits": {"train": {"path": "a.conllu", "sha256": "0" * 64}},
        "budget": {"epochs": 15}, "epochs_done": 15, "best_epoch": 12,
        "used": {"model": {"type": "seqgraph_parser", "policy_support": "valid", "head_selection_weight": 1.0}},
        "dev": {"UAS": 0.7875, "LAS": 0.7}, "test": {"UAS": 0.7916, "LAS": 0.71},
        "test_without_punctuation": {"UAS": 0.8123, "LAS": 0.73},
        "train_seconds_per_epoch": 190.0, "evaluate_sentences_per_second": 20.0,
        "machine": {"cpu_cores": 2, "threads": 1}, "date": "2026-11-23T03:00:00", "git_commit": "7455792588a0",
        "command": "scripts/run_experiments.py --treebank welsh --epochs 15 coach_valid",
    }
    (tmp_path / "results" / "welsh").mkdir(parents=True)
    (tmp_path / "results" / "welsh" / "coach_valid.json").write_text(json.dumps(result))
    run_experiments.write_report()
    report = (tmp_path / "docs" / "RESULTS.md").read_text()
    assert "| coach_valid | `coach_valid` |  | KL, valid edges + 1 x head selection + labels | 15 | 12 | 78.75 | 70.00 | 79.16 | 71.00 | 81.23 | 190 | 20 |" in report
    assert "| 7455792 | 2026-11-23 |" in report
    assert ".venv/bin/python scripts/run_experiments.py --treebank welsh --epochs 15 coach_valid\n" in report
    # a row run with another budget under --section gets its own table, which reproduces it
    table3 = {**result, "row": "linearized", "config": "training_config/linearized.jsonnet", "section": "welsh_table3",
              "budget": {"epochs": 5}, "epochs_done": 5, "best_epoch": 5}
    (tmp_path / "results" / "welsh_table3").mkdir()
    (tmp_path / "results" / "welsh_table3" / "linearized.json").write_text(json.dumps(table3))
    run_experiments.write_report()
    report = (tmp_path / "docs" / "RESULTS.md").read_text()
    welsh, table3_section = report.split("## welsh\n")[1].split("## welsh_table3 (welsh)\n")
    assert "Budget: 15 epochs." in welsh and "| linearized |" not in welsh
    assert "Budget: 5 epochs." in table3_section and "| coach_valid |" not in table3_section
    assert "--treebank welsh --epochs 5 --section welsh_table3 linearized\n" in table3_section


def test_table3_preset_covers_the_papers_nine_rows_and_reproduces_them():
    rows = [run_experiments.parse_row(spec) for spec in run_experiments.PRESETS["table3"]]
    assert len(rows) == 9 and len({name for name, *_ in rows}) == 9
    pairs = {(ext.get("ORACLE"), ext.get("ROLL_IN")) for _, _, _, ext in rows}
    assert {("uniform", "uniform"), ("coaching", "uniform"), ("annealed_coaching", "valid_policy")} <= pairs
    # what the report prints as the reproducing row parses back to the same row
    for spec, (name, config, overrides, ext_vars) in zip(run_experiments.PRESETS["table3"], rows):
        result = {"row": name, "config": f"training_config/{config}.jsonnet", "overrides": overrides,
                  "ext_vars": ext_vars}
        assert run_experiments.parse_row(run_experiments.row_spec(result)) == (name, config, overrides, ext_vars)


def test_table3_rows_build_the_oracle_and_roll_in_they_name():
    import seqgraph_allennlp  # noqa: F401  (registers the components; conftest.py sets the data paths)
    from allennlp.common import Params

    for spec in run_experiments.PRESETS["table3"]:
        name, config, overrides, ext_vars = run_experiments.parse_row(spec)
        model = Params.from_file(str(ROOT / "training_config" / f"{config}.jsonnet"), json.dumps(overrides),
                                 ext_vars).as_dict()["model"]
        if config == "linearized":
            assert model["oracle"]["type"] == model["roll_in"]["type"] == "linearized"
            continue
        assert (model["oracle"]["type"], model["roll_in"]["type"]) == (ext_vars["ORACLE"], ext_vars["ROLL_IN"]), name
        # the paper's table changes only the oracle and the roll-in
        assert model["policy_support"] == "valid" and model.get("head_selection_weight", 0) == 0, name
