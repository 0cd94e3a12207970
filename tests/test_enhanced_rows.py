"""scripts/enhanced_rows.sh, the queue of the enhanced rows, with stand-ins for `allennlp` and Python that log their calls."""
import json
import os
import subprocess

import pytest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_queue(tmp_path, rows, **settings):
    calls = tmp_path / "calls.log"
    for name in ("allennlp", "python"):
        stub = tmp_path / name
        stub.write_text(f'#!/usr/bin/env bash\necho "{name} $*" >> {calls}\n')
        stub.chmod(0o755)
    # the queue's own settings come from `settings` only, not from the shell that runs the tests
    env = {key: value for key, value in os.environ.items() if key not in ("EPOCHS", "EXTEND")}
    env.update({"ALLENNLP": str(tmp_path / "allennlp"), "PYTHON": str(tmp_path / "python"),
                "RUNS": str(tmp_path / "runs"), "RESULTS_DIR": str(tmp_path / "results"), "ROWS": rows, **settings})
    result = subprocess.run(["bash", str(ROOT / "scripts" / "enhanced_rows.sh")], env=env, capture_output=True,
                            text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    logged = calls.read_text().splitlines() if calls.exists() else []
    # the check of each row's directory against the row's config (check_run, tested below) apart
    checks = [call for call in logged if call.startswith("python -c ")]
    return result.stdout, [call for call in logged if call not in checks], checks


def overrides_of(call):
    return json.loads(call.split(" -o ", 1)[1].split("}", 1)[0] + "}")


def test_new_rows_train_with_the_budget_features_and_seed_then_are_evaluated(tmp_path):
    _, calls, checks = run_queue(tmp_path, "coach_valid_mpnet_enhanced:2 graph_parser_enhanced:0")
    assert len(calls) == 4
    # before training: the directory against the config, with the overrides it trains with
    assert len(checks) == 2
    assert checks[0].endswith(f"{tmp_path}/runs/coach_valid_mpnet_enhanced.seed2 "
                              f"training_config/coach_valid_mpnet_enhanced.jsonnet {calls[0].split(' -o ', 1)[1].split('}', 1)[0]}}}")
    train, evaluate = calls[0], calls[1]
    assert train.startswith("allennlp train training_config/coach_valid_mpnet_enhanced.jsonnet -s ")
    assert f"{tmp_path}/runs/coach_valid_mpnet_enhanced.seed2 " in train and "--recover" not in train
    assert overrides_of(train) == {
        "trainer.num_epochs": 40, "trainer.patience": 5,
        "model.text_field_embedder.token_embedders.mpnet.cache_directory": "experiments/features",
        "random_seed": 13372, "numpy_seed": 1339, "pytorch_seed": 135}
    assert evaluate.split() == ["python", "scripts/enhanced_eval.py", "--serialization-dir",
                                f"{tmp_path}/runs/coach_valid_mpnet_enhanced.seed2", "--row",
                                "coach_valid_mpnet_enhanced", "--seed", "2", "--out-dir", f"{tmp_path}/results"]
    # without pretrained features: no feature cache; seed 0: AllenNLP's default seeds
    assert overrides_of(calls[2]) == {"trainer.num_epochs": 40, "trainer.patience": 5}


def test_epochs_sets_the_budget_of_a_row_that_cannot_converge_in_a_session(tmp_path):
    _, calls, _ = run_queue(tmp_path, "coach_valid_enhanced:0", EPOCHS="24")
    assert overrides_of(calls[0]) == {"trainer.num_epochs": 24, "trainer.patience": 5}


def test_a_started_row_recovers_a_trained_one_is_only_evaluated_and_a_done_one_is_skipped(tmp_path):
    (tmp_path / "runs" / "coach_valid_enhanced").mkdir(parents=True)
    (tmp_path / "runs" / "graph_parser_enhanced").mkdir(parents=True)
    (tmp_path / "runs" / "graph_parser_enhanced" / "model.tar.gz").write_text("")
    (tmp_path / "runs" / "graph_parser_enhanced" / "metrics.json").write_text("{}")
    # interrupted: an archive of its best epoch so far, no metrics.json
    (tmp_path / "runs" / "coach_valid_enhanced" / "model.tar.gz").write_text("")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "coach_valid_mpnet_enhanced.json").write_text("{}")
    output, calls, checks = run_queue(tmp_path, "coach_valid_mpnet_enhanced:0 coach_valid_enhanced:0 graph_parser_enhanced:0")
    # the skipped row is not checked
    assert len(checks) == 2
    assert "coach_valid_mpnet_enhanced: " in output and "skipped" in output
    assert [call.split()[:2] for call in calls] == [["allennlp", "train"], ["python", "scripts/enhanced_eval.py"],
                                                    ["python", "scripts/enhanced_eval.py"]]
    assert calls[0].endswith("--recover")


def write_run(directory: Path, config: dict) -> Path:
    directory.mkdir(parents=True)
    (directory / "config.json").write_text(json.dumps(config))
    return directory


def test_check_run_refuses_a_run_of_another_version_of_the_config(tmp_path):
    from allennlp.common import Params

    from seqgraph_allennlp.common.environment import default_environment
    from seqgraph_experiments.enhanced_eval import check_run, unexplained_differences

    config = ROOT / "fixtures" / "configs" / "coach_valid_enhanced.jsonnet"
    ext_vars = {name: value for name, value in default_environment().items() if name not in os.environ}
    current = Params.from_file(str(config), ext_vars=ext_vars).as_dict(quiet=True)
    overrides = {"trainer.num_epochs": 3}
    trained = json.loads(json.dumps(current))
    trained["trainer"]["num_epochs"] = 3
    same = write_run(tmp_path / "same", trained)
    assert unexplained_differences(same, config, overrides) == []
    check_run([str(same), str(config), json.dumps(overrides)])
    # an override the row does not give, and a key the run lacked
    older = json.loads(json.dumps(trained))
    del older["model"]["separate_graph_scores"]
    older["model"]["stop_bias"] = 1.0
    stale = write_run(tmp_path / "stale", older)
    assert unexplained_differences(stale, config, overrides) == ["model.separate_graph_scores", "model.stop_bias"]
    with pytest.raises(SystemExit, match="model.separate_graph_scores, model.stop_bias differ"):
        check_run([str(stale), str(config), json.dumps(overrides)])
    # a directory without a run yet
    assert unexplained_differences(tmp_path / "new", config, overrides) == []


def finished_run(directory: Path, epochs: int, done: int, best: int) -> Path:
    write_run(directory, {"trainer": {"num_epochs": epochs, "patience": 5, "validation_metric": "+ELAS"}})
    (directory / "metrics.json").write_text(json.dumps({"epoch": done - 1, "best_epoch": best - 1}))
    return directory


def test_extend_budget_reopens_a_run_that_ran_its_whole_smaller_budget_only(tmp_path):
    from seqgraph_experiments.enhanced_eval import budget_extensions, extend_budget

    result = tmp_path / "row.json"
    result.write_text("{}")
    run = finished_run(tmp_path / "cut", epochs=24, done=24, best=23)
    extension = extend_budget(run, 40, result)
    assert (extension["from_epochs"], extension["to_epochs"]) == (24, 40)
    assert json.loads((run / "config.json").read_text())["trainer"]["num_epochs"] == 40
    # no metrics.json: the queue resumes the training; the old result is gone, the old metrics kept
    assert not (run / "metrics.json").exists() and (run / "metrics.budget_24.json").exists()
    assert not result.exists()
    assert [entry["from_epochs"] for entry in budget_extensions(run)["budget_extensions"]] == [24]
    # resumed, not finished yet: nothing more to extend
    assert extend_budget(run, 40, result) is None
    # stopped by patience (converged), a budget as large already, a training still running: left alone
    converged = finished_run(tmp_path / "converged", epochs=40, done=27, best=22)
    assert extend_budget(converged, 60, result) is None and (converged / "metrics.json").exists()
    assert extend_budget(finished_run(tmp_path / "same", epochs=40, done=40, best=40), 40, result) is None
    assert extend_budget(write_run(tmp_path / "running", {"trainer": {"num_epochs": 24}}), 40, result) is None
    assert budget_extensions(converged) == {}


def test_extend_asks_the_row_to_extend_before_it_is_skipped_or_trained(tmp_path):
    (tmp_path / "runs" / "coach_valid_enhanced").mkdir(parents=True)
    _, _, checks = run_queue(tmp_path, "coach_valid_enhanced:0", EXTEND="1", EPOCHS="40")
    assert "extend_budget_cli" in checks[0]
    assert checks[0].endswith(f"{tmp_path}/runs/coach_valid_enhanced 40 {tmp_path}/results/coach_valid_enhanced.json")
    # without EXTEND, no such call
    other = tmp_path / "without"
    (other / "runs" / "coach_valid_enhanced").mkdir(parents=True)
    _, _, checks = run_queue(other, "coach_valid_enhanced:0", EPOCHS="40")
    assert checks
    assert not any("extend_budget_cli" in check for check in checks)
