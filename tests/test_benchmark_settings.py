import json
from pathlib import Path

from seqgraph_experiments.benchmarks.settings import interleaved_seconds, per_second

environments = []


def test_interleaved_seconds_takes_turns():
    calls = []
    models = {"a": "model a", "b": "model b"}
    seconds = interleaved_seconds(models, calls.append, repeats=3)
    # one call per setting in each round, not all of one setting first
    assert calls == ["model a", "model b"] * 3
    assert set(seconds) == {"a", "b"}
    assert all(len(times) == 3 and all(time >= 0 for time in times) for times in seconds.values())


def test_per_second_uses_the_median():
    assert per_second(100, [1.0, 50.0, 2.0]) == 50.0


def fake_predict(monkeypatch, tmp_path, sentences: int):
    """
    `bench_speed` with `allennlp predict` replaced: each command is recorded and writes an output that names
    its archive. Returns the CoNLL-U file of `sentences` one-word sentences and the recorded commands (each
    command's environment in `environments`).
    """
    from seqgraph_experiments import bench_speed

    conllu = tmp_path / "file.conllu"
    conllu.write_text("".join(f"1\tw{index}\t_\t_\t_\t_\t0\troot\t_\t_\n\n" for index in range(sentences)),
                      encoding="utf-8")
    monkeypatch.setattr(bench_speed, "RUNS", tmp_path)
    commands = []

    def run(command, **kwargs):
        commands.append(command)
        environments.append(kwargs.get("env", {}))
        # the input's own trees, with a comment naming the archive
        parsed = f"# parsed by {command[2]}\n" + Path(command[3]).read_text(encoding="utf-8")
        Path(command[command.index("--output-file") + 1]).write_text(parsed, encoding="utf-8")

    monkeypatch.setattr(bench_speed.subprocess, "run", run)
    monkeypatch.setattr(bench_speed, "count_trees", lambda path: {"sentences": sentences, "trees": sentences})
    return conllu, commands


def test_cli_parse_speeds_runs_the_settings_in_turns_each_with_its_own_output(monkeypatch, tmp_path):
    from seqgraph_experiments import bench_speed

    conllu, commands = fake_predict(monkeypatch, tmp_path, 2)
    results = bench_speed.cli_parse_speeds([("a.tar.gz", ""), ("b.tar.gz", '{"x": 1}')], str(conllu), 2, repeats=2)
    # which archive, which input, which output: the predict command's arguments
    calls = [(command[2], "one" if "one_sentence" in command[3] else "file",
              command[command.index("--output-file") + 1]) for command in commands]
    outputs = {"a.tar.gz": str(tmp_path / "speed_predict_0.conllu"), "b.tar.gz": str(tmp_path / "speed_predict_1.conllu")}
    # a warm-up of each, then rounds of (one sentence, whole file) for a, then for b
    expected = [("a.tar.gz", "one"), ("b.tar.gz", "one")] + [
        (archive, kind) for _ in range(2) for archive in ("a.tar.gz", "b.tar.gz") for kind in ("one", "file")
    ]
    assert [(archive, kind) for archive, kind, _ in calls] == expected
    assert all(output == outputs[archive] for archive, _, output in calls)
    assert [len(result["all_seconds"]) for result in results] == [2, 2]
    assert '"x": 1' in results[1]["command"] and "b.tar.gz" in results[1]["command"]
    assert "a.tar.gz" in results[0]["command"] and " -o " not in results[0]["command"]
    # each setting's output is fingerprinted: here the two archives wrote different files
    assert results[0]["output_sha256"] != results[1]["output_sha256"]
    assert [result["batch_size"] for result in results] == [64, 64]


def test_cli_parse_speeds_gives_each_setting_its_batch_size(monkeypatch, tmp_path):
    from seqgraph_experiments import bench_speed

    conllu, commands = fake_predict(monkeypatch, tmp_path, 1)
    settings = [bench_speed.Setting("a.tar.gz", "", 64), bench_speed.Setting("a.tar.gz", "", 1024)]
    results = bench_speed.cli_parse_speeds(settings, str(conllu), 1, repeats=1)
    # warm-ups, then one round of (one sentence, file) per setting
    assert [int(command[command.index("--batch-size") + 1]) for command in commands] == [64, 1024, 64, 64, 1024, 1024]
    assert [result["batch_size"] for result in results] == [64, 1024]
    assert "--batch-size 1024" in results[1]["command"]
    # each output scored against the file's own heads: the fake parsed them as they are
    assert results[0]["scores"] == {"UAS": 100.0, "LAS": 100.0, "CLAS": 100.0}


def test_cli_parse_speeds_gives_each_setting_its_cpu_path_and_predictor_arguments(monkeypatch, tmp_path):
    from seqgraph_experiments import bench_speed

    conllu, commands = fake_predict(monkeypatch, tmp_path, 1)
    environments.clear()
    settings = [bench_speed.Setting("a.tar.gz", "", 64, '{"features_precision": "as_trained"}', "avx2"),
                bench_speed.Setting("a.tar.gz", "", 64)]
    results = bench_speed.cli_parse_speeds(settings, str(conllu), 1, predictor_args='{"tau": 0.5}', repeats=1)
    # the forced path in the environment of the first setting's commands only
    forced = [environment.get("ONEDNN_MAX_CPU_ISA") == "AVX2" and environment.get("ATEN_CPU_CAPABILITY") == "avx2"
              for environment in environments]
    assert forced == [True, False, True, True, False, False]
    arguments = [json.loads(command[command.index("--predictor-args") + 1]) for command in commands]
    assert arguments[0] == {"output_format": "conllu", "tau": 0.5, "features_precision": "as_trained"}
    assert arguments[1] == {"output_format": "conllu", "tau": 0.5}
    assert [result["cpu_path"] for result in results] == ["avx2", "as_it_is"]
