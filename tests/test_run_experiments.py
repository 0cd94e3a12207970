"""The experiment runner's row syntax, its generated report and what it reads from trainer logs (no training here)."""
import json
import subprocess
from pathlib import Path

import pytest

from allennlp.common import Params

from seqgraph_experiments import ROOT
from seqgraph_experiments.report import write_report
from seqgraph_experiments.report.common import machine_text
from seqgraph_experiments.report.enhanced import enhanced_machine_text
from seqgraph_experiments.report.runs import encoder_text
from seqgraph_experiments.runner import encoder_settings, record_encoder, record_tagger
from seqgraph_experiments.rows import PRESETS, parse_row, row_spec
from seqgraph_experiments.trainer_log import epoch_durations, epoch_seconds, training_pass_seconds

ROOT = Path(__file__).resolve().parents[1]


def test_rows():
    assert parse_row("coach_valid") == ("coach_valid", "coach_valid", {}, {})
    assert parse_row('no_head=coach_valid@{"model.head_selection_weight": 0.0}') == (
        "no_head", "coach_valid", {"model.head_selection_weight": 0.0}, {}
    )
    assert parse_row('u_c=oracle_rollin[ORACLE=uniform,ROLL_IN=coaching]@{"trainer.num_epochs": 2}') == (
        "u_c", "oracle_rollin", {"trainer.num_epochs": 2}, {"ORACLE": "uniform", "ROLL_IN": "coaching"}
    )
    assert parse_row("oracle_rollin[ORACLE=uniform]")[:2] == ("oracle_rollin", "oracle_rollin")
    with pytest.raises(SystemExit, match="is not VAR=value"):
        parse_row("oracle_rollin[uniform]")
    with pytest.raises(SystemExit, match="not a JSON object"):
        parse_row("coach_valid@[1, 2]")
    with pytest.raises(SystemExit, match="nested dictionary"):
        parse_row('x=coach_valid@{"trainer": {"num_epochs": 1}}')
    with pytest.raises(SystemExit, match="no training_config/nonexistent.jsonnet"):
        parse_row("nonexistent")


def test_report_is_generated_from_the_results(tmp_path):
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
    write_report(tmp_path / "results", tmp_path / "docs" / "RESULTS.md")
    report = (tmp_path / "docs" / "RESULTS.md").read_text()
    # a result without the encoder (a run made before the runner recorded it) says so
    assert "| coach_valid | `coach_valid` |  | not recorded | KL, valid edges + 1 x head selection + labels | 15 | 12 | 78.75 | 70.00 | 79.16 | 71.00 | 81.23 | 190 | 20 | 2 CPU cores, 1 thread(s) |" in report
    assert "| 7455792 | 2026-11-23 |" in report
    assert ".venv/bin/python scripts/run_experiments.py --treebank welsh --epochs 15 coach_valid\n" in report
    # a row run with another budget under --section gets its own table, which reproduces it
    table3 = {**result, "row": "linearized", "config": "training_config/linearized.jsonnet", "section": "welsh_table3",
              "budget": {"epochs": 5}, "epochs_done": 5, "best_epoch": 5}
    (tmp_path / "results" / "welsh_table3").mkdir()
    (tmp_path / "results" / "welsh_table3" / "linearized.json").write_text(json.dumps(table3))
    write_report(tmp_path / "results", tmp_path / "docs" / "RESULTS.md")
    report = (tmp_path / "docs" / "RESULTS.md").read_text()
    welsh, table3_section = report.split("## welsh\n")[1].split("## welsh_table3 (welsh)\n")
    assert "Budget: 15 epochs." in welsh and "| linearized |" not in welsh
    assert "Budget: 5 epochs." in table3_section and "| coach_valid |" not in table3_section
    assert "--treebank welsh --epochs 5 --section welsh_table3 linearized\n" in table3_section
    assert "minus biaffine_mst" not in report  # no baseline in either section

    # beside a baseline that ran once, each row's margin over it, said to be of one seed
    baseline = {**result, "row": "biaffine_mst", "config": "training_config/biaffine_mst.jsonnet",
                "test": {"UAS": 0.7891, "LAS": 0.70}}
    (tmp_path / "results" / "welsh" / "biaffine_mst.json").write_text(json.dumps(baseline))
    write_report(tmp_path / "results", tmp_path / "docs" / "RESULTS.md")
    welsh = (tmp_path / "docs" / "RESULTS.md").read_text().split("## welsh\n")[1].split("## welsh_table3")[0]
    assert "Test UAS minus biaffine_mst's: coach_valid +0.25. These rows ran once each" in welsh
    assert "UPOS accuracy" not in welsh

    # a row over other features is also measured against the baseline over the same features
    for row, uas in (("biaffine_mst_mpnet", 0.9000), ("coach_valid_mpnet", 0.9046)):
        (tmp_path / "results" / "welsh" / f"{row}.json").write_text(json.dumps(
            {**result, "row": row, "config": f"training_config/{row}.jsonnet", "test": {"UAS": uas, "LAS": 0.8}}))
    write_report(tmp_path / "results", tmp_path / "docs" / "RESULTS.md")
    welsh = (tmp_path / "docs" / "RESULTS.md").read_text().split("## welsh\n")[1].split("## welsh_table3")[0]
    assert ("Test UAS minus biaffine_mst's: coach_valid +0.25, biaffine_mst_mpnet +11.09, coach_valid_mpnet +11.55. "
            "Against the baseline over the same features: coach_valid_mpnet − biaffine_mst_mpnet +0.46. "
            "These rows ran once each") in welsh
    for row in ("biaffine_mst_mpnet", "coach_valid_mpnet"):
        (tmp_path / "results" / "welsh" / f"{row}.json").unlink()

    # a row whose model tags gets its test UPOS accuracy
    tagger = {**result, "row": "coach_valid_upos", "config": "training_config/coach_valid_upos.jsonnet",
              "test": {"UAS": 0.80, "LAS": 0.70, "UPOS": 0.9041}}
    (tmp_path / "results" / "welsh" / "coach_valid_upos.json").write_text(json.dumps(tagger))
    write_report(tmp_path / "results", tmp_path / "docs" / "RESULTS.md")
    welsh = (tmp_path / "docs" / "RESULTS.md").read_text().split("## welsh\n")[1].split("## welsh_table3")[0]
    assert "against the gold column): coach_valid_upos 90.41.\n" in welsh
    # its objective says it tags: from the recorded predict_upos, else (older results) from its test UPOS
    assert "| coach_valid_upos | `coach_valid_upos` |  | not recorded | KL, valid edges + 1 x head selection + labels + UPOS |" in welsh
    tagger["used"] = {"model": {**result["used"]["model"], "predict_upos": False}}
    (tmp_path / "results" / "welsh" / "coach_valid_upos.json").write_text(json.dumps(tagger))
    write_report(tmp_path / "results", tmp_path / "docs" / "RESULTS.md")
    assert "head selection + labels | " in (tmp_path / "docs" / "RESULTS.md").read_text().split("| coach_valid_upos |")[1].split("\n")[0]


def test_table3_preset_covers_the_papers_nine_rows_and_reproduces_them():
    rows = [parse_row(spec) for spec in PRESETS["table3"]]
    assert len(rows) == 9 and len({name for name, *_ in rows}) == 9
    pairs = {(ext.get("ORACLE"), ext.get("ROLL_IN")) for _, _, _, ext in rows}
    assert {("uniform", "uniform"), ("coaching", "uniform"), ("annealed_coaching", "valid_policy")} <= pairs
    # what the report prints as the reproducing row parses back to the same row
    for spec, (name, config, overrides, ext_vars) in zip(PRESETS["table3"], rows):
        result = {"row": name, "config": f"training_config/{config}.jsonnet", "overrides": overrides,
                  "ext_vars": ext_vars}
        assert parse_row(row_spec(result)) == (name, config, overrides, ext_vars)


def test_table3_rows_build_the_oracle_and_roll_in_they_name():
    import seqgraph_allennlp  # noqa: F401  (registers the components; conftest.py sets the data paths)
    from allennlp.common import Params

    for spec in PRESETS["table3"]:
        name, config, overrides, ext_vars = parse_row(spec)
        model = Params.from_file(str(ROOT / "training_config" / f"{config}.jsonnet"), json.dumps(overrides),
                                 ext_vars).as_dict()["model"]
        if config == "linearized":
            assert model["oracle"]["type"] == model["roll_in"]["type"] == "linearized"
            continue
        assert (model["oracle"]["type"], model["roll_in"]["type"]) == (ext_vars["ORACLE"], ext_vars["ROLL_IN"]), name
        # the paper's table changes only the oracle and the roll-in
        assert model["policy_support"] == "valid" and model.get("head_selection_weight", 0) == 0, name


def test_trainer_log_gives_epoch_durations_and_the_training_pass(tmp_path):
    # lines as `allennlp train` writes them to out.log (EWT, one epoch)
    log = (
        "2026-11-23 21:53:55,569 - INFO - allennlp.training.gradient_descent_trainer - Training\n"
        "2026-11-23 21:57:49,466 - INFO - allennlp.training.gradient_descent_trainer - Validating\n"
        "2026-11-23 21:58:04,569 - INFO - allennlp.training.gradient_descent_trainer - Epoch duration: 0:04:09.000221\n"
        "2026-11-23 21:58:04,570 - INFO - allennlp.training.gradient_descent_trainer - Epoch duration: 1:00:01.5\n"
    )
    assert epoch_durations(log) == [249.000221, 3601.5]
    assert training_pass_seconds(log) == pytest.approx(233.897)
    assert training_pass_seconds(log.split("\n", 1)[1]) is None
    (tmp_path / "out.log").write_text(log)
    assert epoch_seconds(tmp_path) == [249.000221, 3601.5]


def test_a_resumed_runs_training_time_counts_the_epochs_before_the_session_ended():
    from seqgraph_experiments.runner import training_time

    # three epochs before the session's end, two after `--recover`: the last `allennlp train` ran 250 s
    time = training_time([120.0, 130.0, 110.0, 100.0, 140.0], 250.0)
    assert time == {"train_seconds_per_epoch": 120.0, "train_seconds_total": 600.0, "train_seconds_last_run": 250.0}
    # a log without epoch durations leaves the wall time as the only measure
    assert training_time([], 42.0) == {"train_seconds_per_epoch": None, "train_seconds_total": 42.0,
                                       "train_seconds_last_run": 42.0}


def test_seeds_are_runs_of_one_row_and_the_report_gives_their_spread(tmp_path):
    from seqgraph_experiments.rows import run_name, seed_overrides

    # seed 0 is AllenNLP's own seeds (no override, the runs made before seeds); seed K shifts all three
    assert seed_overrides(0) == {} and run_name("coach_valid", 0) == "coach_valid"
    assert seed_overrides(2) == {"random_seed": 13372, "numpy_seed": 1339, "pytorch_seed": 135}
    assert run_name("coach_valid", 2) == "coach_valid.seed2"

    def result(row, seed, dev_uas, test_uas):
        return {
            "row": row, "seed": seed, "config": f"training_config/{row}.jsonnet", "overrides": {},
            "treebank": "welsh", "section": "welsh_fused", "splits": {"train": {"path": "a.conllu", "sha256": "0"}},
            "budget": {"epochs": 15, "patience": None}, "epochs_done": 15, "best_epoch": 15,
            "used": {"model": {"type": "seqgraph_parser"}},
            "dev": {"UAS": dev_uas, "LAS": dev_uas - 0.1}, "test": {"UAS": 0.0, "LAS": 0.0},
            "test_scorer": {"UAS": test_uas, "LAS": test_uas - 0.1},
            "train_seconds_per_epoch": 60.0, "evaluate_sentences_per_second": 20.0,
            "machine": {"cpu_cores": 2}, "date": "2026-11-24T03:00:00", "git_commit": "a5a400b0",
        }

    section = tmp_path / "results" / "welsh_fused"
    section.mkdir(parents=True)
    for seed, dev_uas, test_uas in [(0, 0.80, 0.80), (1, 0.81, 0.82), (2, 0.82, 0.84)]:
        (section / f"{run_name('coach_valid', seed)}.json").write_text(
            json.dumps(result("coach_valid", seed, dev_uas, test_uas)))
    for seed, test_uas in [(0, 0.78), (1, 0.79), (2, 0.77)]:
        (section / f"{run_name('biaffine_mst', seed)}.json").write_text(
            json.dumps(result("biaffine_mst", seed, 0.75, test_uas)))
    # a third row with one seed: in the main table, not in the spread table
    (section / "one_step.json").write_text(json.dumps(result("one_step", 0, 0.7, 0.7)))
    write_report(tmp_path / "results", tmp_path / "docs" / "RESULTS.md")
    report = (tmp_path / "docs" / "RESULTS.md").read_text()
    assert "| coach_valid (seed 2) | `coach_valid` |" in report and "| coach_valid | `coach_valid` |" in report
    # test UAS 80, 82, 84: mean 82, sample sd 2; 78, 79, 77: mean 78, sd 1; dev 80, 81, 82: 81 ± 1
    assert "| coach_valid | 3 | 0, 1, 2 | 81.00 ± 1.00 | 71.00 ± 1.00 | 82.00 ± 2.00 | 72.00 ± 2.00 |" in report
    assert "| biaffine_mst | 3 | 0, 1, 2 | 75.00 ± 0.00 | 65.00 ± 0.00 | 78.00 ± 1.00 | 68.00 ± 1.00 |" in report
    assert "| one_step | 1 |" not in report
    # a row that ran once is measured against the mean of the baseline's seeds and their range
    assert ("Test UAS minus the mean of biaffine_mst's 3 seeds (0, 1, 2; 77.00 to 79.00): one_step -8.00 "
            "(below every seed). These rows ran once each") in report
    assert "\n\n\n" not in report
    assert "- biaffine_mst − coach_valid: test UAS -4.00, exceeds the spread" in report
    # one command per set of seeds
    assert ("--treebank welsh --epochs 15 --section welsh_fused --seeds 0,1,2 biaffine_mst coach_valid\n"
            in report)
    assert "--treebank welsh --epochs 15 --section welsh_fused one_step\n" in report
    # overlapping seeds are within the spread
    (section / "coach_valid.seed2.json").write_text(json.dumps(result("coach_valid", 2, 0.82, 0.785)))
    write_report(tmp_path / "results", tmp_path / "docs" / "RESULTS.md")
    assert "test UAS -2.17, within the spread" in (tmp_path / "docs" / "RESULTS.md").read_text()
    # a seed that trained another setting (here the tagger) is not averaged with the others
    tagged = result("coach_valid", 2, 0.82, 0.785)
    tagged["used"]["model"].update(predict_upos=True, upos_loss_weight=1.0)
    (section / "coach_valid.seed2.json").write_text(json.dumps(tagged))
    write_report(tmp_path / "results", tmp_path / "docs" / "RESULTS.md")
    report = (tmp_path / "docs" / "RESULTS.md").read_text()
    assert "| coach_valid | 3 |" not in report and "- biaffine_mst − coach_valid" not in report
    assert "- coach_valid: not averaged, its runs (seeds 0, 1, 2) trained with different settings" in report
    assert "| biaffine_mst | 3 | 0, 1, 2 | 75.00 ± 0.00 |" in report
    # no tagger, recorded or not, is one setting: such runs are averaged
    untagged = result("coach_valid", 2, 0.82, 0.785)
    untagged["used"]["model"].update(predict_upos=False, upos_loss_weight=1.0)
    (section / "coach_valid.seed2.json").write_text(json.dumps(untagged))
    write_report(tmp_path / "results", tmp_path / "docs" / "RESULTS.md")
    assert "| coach_valid | 3 | 0, 1, 2 |" in (tmp_path / "docs" / "RESULTS.md").read_text()


def test_learning_curves_keep_each_seed_apart(tmp_path, monkeypatch):
    from seqgraph_experiments import plot_curves

    section = tmp_path / "results" / "welsh_fused"
    section.mkdir(parents=True)
    for seed, uas in [(0, 0.7), (1, 0.8)]:
        name = "coach_valid" if seed == 0 else f"coach_valid.seed{seed}"
        (section / f"{name}.json").write_text(json.dumps(
            {"row": "coach_valid", "seed": seed, "curve": [{"epoch": 1, "dev_UAS": uas, "seconds": 60.0}]}))
    monkeypatch.setattr(plot_curves, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(plot_curves, "RUNS", tmp_path / "experiments")
    curves = plot_curves.read_curves("welsh_fused")
    assert {name: curve[0]["dev_UAS"] for name, curve in curves.items()} == {
        "coach_valid": 0.7, "coach_valid.seed1": 0.8}


def test_every_treebank_has_a_language_the_predictor_accepts():
    from seqgraph_allennlp.predictors.text_splitter import check_language
    from seqgraph_experiments.treebanks import LANGUAGES, TREEBANKS

    assert set(LANGUAGES) == set(TREEBANKS)
    for treebank, language in LANGUAGES.items():
        assert check_language(language) == language
        # UD names its files after the language: en_ewt-ud-train.conllu
        assert Path(TREEBANKS[treebank][0]).name.startswith(f"{language}_"), treebank


def test_a_run_gets_its_treebanks_language_and_its_seed(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from seqgraph_experiments import runner

    monkeypatch.setattr(runner, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(runner, "RUNS", tmp_path / "experiments")
    given = []

    class Stop(Exception):
        pass

    def train(name, config, args, overrides, out, env):
        given.append(overrides)
        raise Stop

    monkeypatch.setattr(runner, "train", train)
    args = SimpleNamespace(section="welsh", treebank="welsh", epochs=1, patience=None, force=False)
    files = {split: tmp_path / f"{split}.conllu" for split in ("train", "dev", "test")}
    with pytest.raises(Stop):
        runner.run_row("coach_valid", args, files, {}, seed=2)
    assert given[-1]["dataset_reader.language"] == "cy" and given[-1]["random_seed"] == 13372
    with pytest.raises(Stop):
        runner.run_row("coach_valid", args, files, {})
    assert given[-1]["dataset_reader.language"] == "cy" and "random_seed" not in given[-1]
    assert "trainer.cuda_device" not in given[-1]
    # --cuda-device trains on that GPU
    args.cuda_device = 0
    with pytest.raises(Stop):
        runner.run_row("coach_valid", args, files, {})
    assert given[-1]["trainer.cuda_device"] == 0


def test_a_copy_of_the_tree_without_git_names_its_commit_from_the_environment(tmp_path, monkeypatch):
    from seqgraph_experiments import provenance

    monkeypatch.setattr(provenance, "ROOT", tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    monkeypatch.delenv("SEQGRAPH_GIT_COMMIT", raising=False)
    assert provenance.git_commit() == ""
    monkeypatch.setenv("SEQGRAPH_GIT_COMMIT", "0123abc")
    assert provenance.git_commit() == "0123abc (a copy of the tree without .git)"


def test_scoring_a_runs_predictions_counts_the_test_sentences_once(tmp_path, monkeypatch):
    import gzip
    import shutil

    from seqgraph_experiments import runner

    gold = Path("fixtures/conllu/en_small.conllu")
    commands_run = []

    def predict(command, log_path, env, pid_file=None):
        # stands in for `allennlp predict`: the predictions are the gold file
        commands_run.append(command)
        shutil.copy(gold, out / "test_predictions.conllu")
        return 1.0, 1

    monkeypatch.setattr(runner, "run", predict)
    results = tmp_path / "results"
    monkeypatch.setattr(runner, "RESULTS", results)
    monkeypatch.setattr(runner, "ROOT", tmp_path)
    out = tmp_path / "section" / "row.seed2"
    out.mkdir(parents=True)
    scores = runner.score_predictions(tmp_path / "model.tar.gz", gold, out, {})
    assert len(commands_run) == 1
    assert scores["test_sentences"] == 6
    # the predictions are kept, gzipped, where results/<section>/<run>.json goes
    kept = results / "section" / "row.seed2.test.conllu.gz"
    assert scores["test_predictions"]["path"] == "results/section/row.seed2.test.conllu.gz"
    assert gzip.decompress(kept.read_bytes()) == gold.read_bytes()
    # every predicted sentence is a tree: the CoNLL 2018 evaluation gives the figures, and names itself
    assert scores["test_scorer"] == {"UAS": 1.0, "LAS": 1.0, "CLAS": 1.0, "invalid_trees": 0,
                                     "scorer": "udtools.udeval (CoNLL 2018 shared task evaluation)"}


def test_an_interrupted_run_resumes_with_the_parameters_it_started_with(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from seqgraph_experiments import runner

    commands_run = []

    def run(command, log_path, env, pid_file=None):
        commands_run.append(command)
        return 1.0, 1

    monkeypatch.setattr(runner, "run", run)
    monkeypatch.setattr(runner, "ROOT", tmp_path)
    args = SimpleNamespace(treebank="welsh", epochs=1, force=False)
    out = tmp_path / "coach_valid"
    out.mkdir()
    runner.train("coach_valid", "coach_valid", args, {"trainer.num_epochs": 1}, out, {})
    command = commands_run[-1]
    assert command[2] == "training_config/coach_valid.jsonnet" and "--recover" not in command
    assert json.loads(command[command.index("-o") + 1]) == {"trainer.num_epochs": 1}
    # interrupted: its own config.json, which AllenNLP compares with the parameters it is given, and no
    # overrides, even where the shipped config or the row's overrides have changed since
    (out / "model").mkdir()
    (out / "model" / "config.json").write_text(json.dumps({"model": {"type": "seqgraph_parser"}}))
    runner.train("coach_valid", "coach_valid", args, {"trainer.num_epochs": 2}, out, {})
    command = commands_run[-1]
    assert command[2] == str(out / "model" / "config.json") and "--recover" in command
    assert json.loads(command[command.index("-o") + 1]) == {}
    # so a run started before the runner set the reader's language resumes without one, whatever the
    # row's overrides say now
    (out / "model" / "config.json").write_text(json.dumps({"dataset_reader": {"type": "seqgraph_ud"}}))
    runner.train("coach_valid", "coach_valid", args, {"dataset_reader.language": "cy"}, out, {})
    command = commands_run[-1]
    assert command[2] == str(out / "model" / "config.json") and "--recover" in command
    assert json.loads(command[command.index("-o") + 1]) == {}


def test_the_table_gives_each_rows_encoder_and_the_cpu_it_ran_on():
    fused = {"type": "fused_bilstm", "bfloat16_training": True}
    avx512 = {"cpu_cores": 2, "threads": 2, "cpu_capability": "AVX512", "native_bfloat16": True}
    avx2 = {"cpu_cores": 2, "threads": None, "cpu_capability": "AVX2", "native_bfloat16": False}
    assert encoder_text({"used": {"encoder": fused}, "machine": avx512}) == "fused BiLSTM, bf16"
    # bfloat16 asked on a CPU without it trains in float32 (FusedBiLstm checks native_bfloat16)
    assert encoder_text({"used": {"encoder": fused}, "machine": avx2}) == (
        "fused BiLSTM, bf16 asked (float32 here: no native bf16)")
    # older machines recorded no capability: the config's request is all that is known
    assert encoder_text({"used": {"encoder": fused}, "machine": {"cpu_cores": 2}}) == "fused BiLSTM, bf16"
    assert encoder_text({"used": {"encoder": {**fused, "bfloat16_training": False}}, "machine": avx2}) == "fused BiLSTM"
    assert encoder_text({"used": {"encoder": {"type": "stacked_bidirectional_lstm"}}, "machine": avx2}) == "stacked BiLSTM"
    assert encoder_text({"used": {}, "machine": avx2}) == "not recorded"
    assert machine_text(avx512) == "2 CPU cores (AVX512), 2 thread(s)"
    assert machine_text(avx2) == "2 CPU cores (AVX2)"
    assert machine_text({**avx2, "gpu": "NVIDIA H100"}) == "NVIDIA H100"


def test_the_enhanced_table_gives_the_cpu_and_the_precision_the_encoder_ran_in():
    asked = {"used_config": {"model": {"encoder": {"type": "fused_bilstm", "bfloat16_training": True}}}}
    avx512 = {"cpu_cores": 2, "threads": 2, "cpu_capability": "AVX512", "native_bfloat16": True}
    avx2 = {"cpu_cores": 2, "threads": 2, "cpu_capability": "AVX2", "native_bfloat16": False}
    assert enhanced_machine_text({**asked, "machine": avx512}) == "2 CPU cores (AVX512), 2 thread(s), encoder bf16"
    assert enhanced_machine_text({**asked, "machine": avx2}) == (
        "2 CPU cores (AVX2), 2 thread(s), encoder float32 (no native bf16)")
    not_asked = {"used_config": {"model": {"encoder": {"type": "fused_bilstm"}}}}
    assert enhanced_machine_text({**not_asked, "machine": avx512}) == "2 CPU cores (AVX512), 2 thread(s), encoder float32"


def test_the_runner_records_the_encoder_a_run_trained():
    assert encoder_settings({"encoder": {"type": "fused_bilstm", "hidden_size": 400}}) == {
        "type": "fused_bilstm", "bfloat16_training": False}
    assert encoder_settings({"encoder": {"type": "stacked_bidirectional_lstm", "bfloat16_training": True}}) == {
        "type": "stacked_bidirectional_lstm"}
    assert encoder_settings({}) == {"type": None}


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs the repository's history (a git checkout)")
def test_an_older_result_gets_the_encoder_of_its_config_at_its_commit():
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()
    result = {"row": "coach_valid", "config": "training_config/coach_valid.jsonnet", "overrides": {},
              "git_commit": head}
    shipped = Params.from_file(str(ROOT / "training_config" / "coach_valid.jsonnet")).as_dict(quiet=True)
    recorded = record_encoder(result)
    assert recorded["type"] == shipped["model"]["encoder"]["type"] == "fused_bilstm"
    assert recorded["bfloat16_training"] == shipped["model"]["encoder"]["bfloat16_training"]
    assert recorded["source"] == f"backfilled from training_config/coach_valid.jsonnet at {head[:7]}"
    # the row's overrides and external variables count, as in its run
    float32 = record_encoder({**result, "overrides": {"model.encoder.bfloat16_training": False},
                              "git_commit": head + "+uncommitted"})
    assert float32["bfloat16_training"] is False and "uncommitted changes" in float32["source"]
    stacked = record_encoder({**result, "row": "x", "config": "training_config/oracle_rollin.jsonnet",
                              "ext_vars": {"ENCODER": "stacked", "ORACLE": "uniform", "ROLL_IN": "uniform"}})
    assert stacked["type"] == "stacked_bidirectional_lstm"


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs the repository's history (a git checkout)")
def test_an_older_tagging_result_gets_the_tagger_of_its_config_at_its_commit_and_pools_with_newer_seeds(
    tmp_path, monkeypatch
):
    from seqgraph_experiments import runner
    from seqgraph_experiments.report.runs import trained_settings

    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()
    shipped = Params.from_file(str(ROOT / "training_config" / "coach_valid_upos.jsonnet")).as_dict(quiet=True)
    assert shipped["model"]["predict_upos"] is True
    result = {"row": "coach_valid_upos", "config": "training_config/coach_valid_upos.jsonnet", "overrides": {},
              "git_commit": head}
    recorded = record_tagger(result)
    assert recorded == {"predict_upos": True, "upos_loss_weight": shipped["model"]["upos_loss_weight"],
                        "source": "predict_upos and upos_loss_weight backfilled from "
                                  f"training_config/coach_valid_upos.jsonnet at {head[:7]}"}
    # the row's overrides count, as in its run
    assert record_tagger({**result, "overrides": {"model.upos_loss_weight": 0.5}})["upos_loss_weight"] == 0.5

    monkeypatch.setattr(runner, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(runner, "RUNS", tmp_path / "experiments")
    (tmp_path / "results" / "ewt_converged").mkdir(parents=True)
    scored = {"test_without_punctuation": {"UAS": 0.5}, "test_scorer": {"scorer": "udeval"}}
    used = {"encoder": {"type": "fused_bilstm"}, "model": {"type": "seqgraph_parser", "recurrent": True}}
    older = {**result, "seed": 0, "used": used, "test": {"UAS": 0.88, "UPOS": 0.94}, **scored}
    untagged = {**older, "row": "coach_valid", "config": "training_config/coach_valid.jsonnet",
                "test": {"UAS": 0.87}}
    for name, content in (("coach_valid_upos", older), ("coach_valid", untagged)):
        (tmp_path / "results" / "ewt_converged" / f"{name}.json").write_text(json.dumps(content))
    runner.rescore("ewt_converged")
    backfilled = json.loads((tmp_path / "results" / "ewt_converged" / "coach_valid_upos.json").read_text())
    assert backfilled["used"]["model"] == {**used["model"], **recorded}
    # a run without a tagger (no test UPOS) is left as it was
    assert json.loads((tmp_path / "results" / "ewt_converged" / "coach_valid.json").read_text()) == untagged
    # a newer seed that recorded the same tagger trained the same settings; another weight did not
    newer = {**older, "seed": 1, "used": {**used, "model": {**used["model"], "predict_upos": True,
                                                             "upos_loss_weight": recorded["upos_loss_weight"]}}}
    assert trained_settings(backfilled) == trained_settings(newer)
    newer["used"]["model"]["upos_loss_weight"] = 0.5
    assert trained_settings(backfilled) != trained_settings(newer)


def test_rescore_scores_a_seeded_run_from_its_own_serialization_directory(tmp_path, monkeypatch):
    from seqgraph_experiments import runner

    monkeypatch.setattr(runner, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(runner, "RUNS", tmp_path / "experiments")
    scored = []

    def score_predictions(archive, test_file, out, env):
        scored.append(archive.relative_to(tmp_path))
        return {"test_without_punctuation": {"UAS": 0.5, "LAS": 0.25}}

    monkeypatch.setattr(runner, "score_predictions", score_predictions)
    for seed in (0, 2):
        name = runner.run_name("coach_valid", seed)
        (tmp_path / "experiments" / "welsh_seeds" / name / "model").mkdir(parents=True)
        (tmp_path / "experiments" / "welsh_seeds" / name / "model" / "model.tar.gz").write_bytes(b"")
        (tmp_path / "results" / "welsh_seeds").mkdir(parents=True, exist_ok=True)
        (tmp_path / "results" / "welsh_seeds" / f"{name}.json").write_text(json.dumps({
            "row": "coach_valid", "seed": seed, "treebank": "welsh", "section": "welsh_seeds",
            "used": {"encoder": {"type": "fused_bilstm"}}, "splits": {"test": {"path": str(tmp_path / "t.conllu")}},
        }))
    runner.rescore(None)
    assert sorted(scored) == [Path("experiments/welsh_seeds/coach_valid/model/model.tar.gz"),
                              Path("experiments/welsh_seeds/coach_valid.seed2/model/model.tar.gz")]
    seeded = json.loads((tmp_path / "results" / "welsh_seeds" / "coach_valid.seed2.json").read_text())
    assert seeded["test_without_punctuation"] == {"UAS": 0.5, "LAS": 0.25}
