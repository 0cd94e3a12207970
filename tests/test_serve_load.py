"""
`benchmarks/serve_load.py`, the service's load benchmark, on the tiny model trained once per session
(`trained_model_archive` in conftest.py) and a few sentences: it runs `allennlp predict`, starts the service,
sends the sentences at two concurrency levels, compares every answer with predict's, stops the service and
writes its JSON; and its comparison does see an answer that differs (a reference with one head changed).
"""
import asyncio
import json
import sys
from pathlib import Path

import h11
import pytest

from seqgraph_experiments.benchmarks import serve_load

ROOT = Path(__file__).resolve().parents[1]
CONLLU_FILE = ROOT / "fixtures" / "conllu" / "en_small.conllu"  # 6 sentences, multiword tokens, an empty node
REQUESTS = 20
LEVELS = [1, 4]
# the position embeddings of `trained_model_archive` (conftest.py): a longer sentence is answered as an error
TRAINED_MODEL_MAX_SENTENCE_LENGTH = 256
# the file's 7 sentences, cycled: the 7th, too long for the model, is requests 6 and 13
TOO_LONG_REQUESTS = [6, 13]


def too_long_sentence() -> str:
    words = TRAINED_MODEL_MAX_SENTENCE_LENGTH + 1
    lines = ["# sent_id = too-long", "# text = " + " ".join(["word"] * words)]
    lines += [f"{i}\tword\tword\tNOUN\tNN\t_\t{0 if i == 1 else 1}\t{'root' if i == 1 else 'dep'}\t_\t_"
              for i in range(1, words + 1)]
    return "\n".join(lines) + "\n\n"


@pytest.fixture(scope="module")
def benchmark(trained_model_archive, tmp_path_factory):
    work = tmp_path_factory.mktemp("serve_load")
    conllu = work / "sentences.conllu"
    conllu.write_text(CONLLU_FILE.read_text(encoding="utf-8").rstrip("\n") + "\n\n" + too_long_sentence(),
                      encoding="utf-8")
    argv = ["--model", str(trained_model_archive), "--conllu", str(conllu), "--requests", str(REQUESTS),
            "--concurrency", *map(str, LEVELS), "--max-seconds", "120", "--threads", "1", "--warmup", "2",
            "--no-predict-warmup", "--work-dir", str(work / "work"), "--out", str(work / "serve_load.json")]
    args = serve_load.parse_arguments(argv)
    result, details = serve_load.run_benchmark(args)
    return argv, result, details


def test_every_answer_equals_predicts_and_the_json_has_its_fields(benchmark):
    argv, result, details = benchmark
    assert result["command"].startswith("benchmarks/serve_load.py --model ")
    for key in ("git_commit", "date", "machine", "model_sha256", "conllu_sha256", "settings", "predict",
                "service", "levels", "done_when"):
        assert key in result, key
    assert result["machine"]["threads"] == 1 and result["settings"]["threads"] == 1
    assert result["settings"]["sentences_in_file"] == 7 and result["settings"]["file_cycled"]

    predict = result["predict"]
    assert predict["sentences"] == REQUESTS and predict["seconds"] > 0 and predict["startup_seconds"] > 0
    assert "--use-dataset-reader" in predict["command"] and "--batch-size 64" in predict["command"]
    references = details["references"]
    assert len(references) == REQUESTS
    assert [index for index, reference in enumerate(references) if reference["error"]] == TOO_LONG_REQUESTS

    assert [level["concurrency"] for level in result["levels"]] == LEVELS
    for level in result["levels"]:
        assert level["requests_sent"] == level["answered_200"] == REQUESTS
        assert level["errors"] == 0 and level["error_examples"] == []
        assert level["mismatches"] == 0, level["mismatch_examples"]
        assert not level["stopped_early"]
        assert level["sentences_per_second"] > 0 and level["wall_seconds"] > 0
        latency = level["latency_seconds"]
        assert 0 < latency["p50"] <= latency["p90"] <= latency["p99"] <= latency["max"]
        assert level["model_calls"] >= 1 and level["sentences_per_model_call"] > 0
        assert "ratio_to_predict_after_startup" in level
    # one client: each model call parses its one request (none for a sentence too long, answered as an error)
    parsed = REQUESTS - len(TOO_LONG_REQUESTS)
    assert result["levels"][0]["sentences_per_model_call"] == pytest.approx(parsed / REQUESTS)
    # the error answers, which name the request rather than predict's file, are not mismatches
    for level in LEVELS:
        for index in TOO_LONG_REQUESTS:
            assert details["answers"][level][index].startswith(b"# error = ")

    stop = result["service"]["stop"]
    assert stop["graceful"] and stop["exited_by_itself"]
    checks = result["done_when"]
    assert checks["no_errors"] and checks["no_mismatches"] and checks["every_request_sent"]
    assert checks["service_stopped_by_itself"]
    # no level 8 or 32 in this run
    assert checks["ratio_at_concurrency_32_at_least_0.8"] is None and checks["met"] is False
    assert any(line.startswith("| 4 | 20 |") for line in serve_load.summary(result))
    json.dumps(result)  # plain JSON


def test_a_different_reference_is_counted_as_a_mismatch(benchmark):
    _, _, details = benchmark
    references, answers = details["references"], details["answers"]
    for level in LEVELS:
        assert serve_load.count_mismatches(answers[level], references) == (0, [])
        # one head of request 7's reference changed (the file's first sentence again)
        wrong = serve_load.mutate_reference(references, 7)
        assert wrong[7]["heads"] != references[7]["heads"] and wrong[1] == references[1]
        count, examples = serve_load.count_mismatches(answers[level], wrong)
        assert count == 1 and examples[0].startswith("request 7: heads: service ")
    # any compared column, and an answer that is an error where predict parsed the sentence
    body = answers[LEVELS[0]][0]
    for key, value in [("deprels", None), ("deps", None), ("forms", None), ("error", True)]:
        reference = dict(references[0])
        reference[key] = value if value is not None else ["X"] * len(reference[key])
        assert serve_load.compare_answer(body, reference).startswith(f"{key}: ")
    assert serve_load.compare_answer(b"not CoNLL-U", references[0]).startswith("unreadable answer")


def test_the_command_line_writes_the_json(benchmark, monkeypatch, capsys):
    # main() on the results of the run above: the JSON and the summary it prints
    argv, result, details = benchmark
    monkeypatch.setattr(serve_load, "run_benchmark", lambda args: (result, details))
    with pytest.raises(SystemExit) as exit_info:
        serve_load.main(argv)
    assert exit_info.value.code == 0
    out = Path(argv[argv.index("--out") + 1])
    assert json.loads(out.read_text()) == json.loads(json.dumps(result))
    printed = capsys.readouterr().out
    assert "allennlp predict: 20 sentences" in printed and f"wrote {out}" in printed


def test_help_and_bad_arguments(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["serve_load.py", "--help"])
    with pytest.raises(SystemExit) as exit_info:
        serve_load.main()
    assert exit_info.value.code == 0 and "usage:" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        serve_load.parse_arguments(["--model", str(tmp_path / "missing.tar.gz")])
    assert "no such file" in capsys.readouterr().err


def test_percentile_interpolates_as_numpy():
    numpy = pytest.importorskip("numpy")
    values = [0.3, 0.1, 0.7, 0.2, 0.9, 0.4, 1.5]
    for q in (0, 50, 90, 99, 100):
        assert serve_load.percentile(values, q) == pytest.approx(numpy.percentile(values, q))
    assert serve_load.percentile([], 50) is None


class FakeService:
    """An HTTP/1.1 server on loopback (asyncio, h11) that echoes each body after `delay` seconds: 500 for
    b"bad", and after 5 s for b"slow"; a stand-in for the service, to time out and stop levels cheaply."""

    def __init__(self, delay: float):
        self.delay = delay

    async def __aenter__(self):
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc):
        self.server.close()
        await self.server.wait_closed()

    async def handle(self, reader, writer):
        connection = h11.Connection(h11.SERVER)
        try:
            while True:
                body = b""
                while True:
                    event = connection.next_event()
                    if event is h11.NEED_DATA:
                        connection.receive_data(await reader.read(1 << 16))
                    elif isinstance(event, h11.Data):
                        body += bytes(event.data)
                    elif isinstance(event, h11.EndOfMessage):
                        break
                    elif isinstance(event, h11.ConnectionClosed):
                        return
                await asyncio.sleep(5 if body == b"slow" else self.delay)
                status = 500 if body == b"bad" else 200
                response = connection.send(h11.Response(status_code=status, headers=[("Content-Length", str(len(body)))]))
                writer.write(response + connection.send(h11.Data(data=body)) + connection.send(h11.EndOfMessage()))
                await writer.drain()
                connection.start_next_cycle()
        except (ConnectionError, h11.RemoteProtocolError):
            pass
        finally:
            writer.close()


def test_a_level_stops_sending_after_max_seconds_and_counts_failures():
    async def levels():
        async with FakeService(delay=0.02) as fake:
            stopped, answers = await serve_load.run_level(fake.port, [b"ok"] * 1000, 2, 0.3, 5.0)
            failing, _ = await serve_load.run_level(fake.port, [b"ok", b"bad", b"slow", b"ok", b"ok"], 2, 60.0, 1.0)
        return stopped, answers, failing

    stopped, answers, failing = asyncio.run(levels())
    # bounded in time: no request sent after 0.3 s, the ones in flight answered
    assert stopped["stopped_early"] and 2 <= stopped["requests_sent"] < 1000
    assert stopped["errors"] == 0 and stopped["answered_200"] == stopped["requests_sent"]
    assert stopped["wall_seconds"] < 1.0
    assert sum(answer is not None for answer in answers) == stopped["requests_sent"]
    # a 500 and a request past --request-timeout are errors; the client reconnects and goes on
    assert not failing["stopped_early"] and failing["requests_sent"] == 5
    assert failing["answered_200"] == 3 and failing["errors"] == 2
    assert sorted(example.split(":")[0] for example in failing["error_examples"]) == ["request 1", "request 2"]
    assert any("status 500" in example for example in failing["error_examples"])
    assert any("TimeoutError" in example for example in failing["error_examples"])
    assert failing["latency_seconds"]["max"] >= 1.0
