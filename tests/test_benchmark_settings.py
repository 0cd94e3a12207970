from seqgraph_experiments.benchmarks.settings import interleaved_seconds, per_second


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
