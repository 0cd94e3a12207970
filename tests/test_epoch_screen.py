"""`scripts/epoch_screen.py`: a change against its baseline, epoch by epoch, and the settings that differ."""
import json

import pytest

from seqgraph_experiments.epoch_screen import main


def write_run(path, config, elas):
    path.mkdir()
    (path / "config.json").write_text(json.dumps(config))
    for epoch, value in enumerate(elas):
        (path / f"metrics_epoch_{epoch}.json").write_text(json.dumps({"validation_ELAS": value, "validation_UAS": 0.9}))


def test_differences_per_epoch_and_the_one_setting_changed(tmp_path):
    base = {"model": {"type": "seqgraph_parser", "dropout": 0.33}, "trainer": {"num_epochs": 40}}
    changed = {"model": {"type": "seqgraph_parser", "dropout": 0.33, "separate_graph_scores": True},
               "trainer": {"num_epochs": 5}}
    write_run(tmp_path / "base", base, [0.80, 0.85, 0.86])
    write_run(tmp_path / "change", changed, [0.81, 0.84, 0.87])
    out = tmp_path / "screen.json"
    main(["--baseline", str(tmp_path / "base"), "--change", str(tmp_path / "change"), "--epochs", "2",
          "--metrics", "ELAS", "UAS", "--out", str(out)])
    result = json.loads(out.read_text())
    assert result["config_differences"] == {"model.separate_graph_scores": [None, True]}
    assert [round(row["ELAS"], 6) for row in result["change_minus_baseline"]] == [1.0, -1.0]
    assert result["mean_change_minus_baseline"]["ELAS"] == pytest.approx(0.0)
    assert result["change_dev"][0]["UAS"] == pytest.approx(90.0)


def test_a_run_with_too_few_epochs_is_a_clear_error(tmp_path):
    write_run(tmp_path / "base", {}, [0.8])
    write_run(tmp_path / "change", {}, [0.8, 0.9])
    with pytest.raises(SystemExit, match="fewer than 2 epochs"):
        main(["--baseline", str(tmp_path / "base"), "--change", str(tmp_path / "change"), "--epochs", "2",
              "--metrics", "ELAS", "--out", str(tmp_path / "out.json")])


def test_a_results_row_as_the_baseline(tmp_path):
    # a row's JSON: its curve counts epochs from 1, its used_config is the run's config.json
    row = {"curve": [{"epoch": 1, "dev_ELAS": 0.80, "dev_UAS": 0.9}, {"epoch": 2, "dev_ELAS": 0.85, "dev_UAS": 0.9},
                     {"epoch": 3, "dev_ELAS": 0.86, "dev_UAS": 0.9}],
           "used_config": {"model": {"encoder": {"num_layers": 3}}}}
    (tmp_path / "row.json").write_text(json.dumps(row))
    write_run(tmp_path / "change", {"model": {"encoder": {"num_layers": 2}}}, [0.82, 0.84])
    out = tmp_path / "screen.json"
    main(["--baseline", str(tmp_path / "row.json"), "--change", str(tmp_path / "change"), "--epochs", "2",
          "--metrics", "ELAS", "--out", str(out)])
    result = json.loads(out.read_text())
    assert result["config_differences"] == {"model.encoder.num_layers": [3, 2]}
    assert [round(entry["ELAS"], 6) for entry in result["change_minus_baseline"]] == [2.0, -1.0]
    with pytest.raises(SystemExit, match="curve of 3 epochs, fewer than 4"):
        main(["--baseline", str(tmp_path / "row.json"), "--change", str(tmp_path / "change"), "--epochs", "4",
              "--metrics", "ELAS", "--out", str(out)])
