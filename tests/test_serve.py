"""
`python -m seqgraph_allennlp.serve`, the parser over HTTP, on the tiny model trained once per session
(`trained_model_archive` in conftest.py), over real HTTP on loopback: the answers equal `Parser`'s for the
same input (JSON and CoNLL-U), every bad input gets its JSON error and status and the service goes on,
requests that arrive together are parsed in one batch, shutdown answers the requests in flight, and the
page at `/` shows each sentence's step view in headless Chromium (skipped where none is installed).
"""
import base64
import fcntl
import http.client
import io
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from seqgraph_allennlp import Parser
from seqgraph_allennlp.serve import main
from seqgraph_allennlp.serving.app import ParserService

ROOT = Path(__file__).resolve().parents[1]
CONLLU_FILE = ROOT / "fixtures" / "conllu" / "en_small.conllu"
TEXTS = [
    "The cat sat on the mat. It didn't move!\n\nA second paragraph, with \"quotes\" (and brackets)",
    "Dogs bark.Cats don't.",
]
WORDS = [["Dogs", "bark", "."], ["Cats", "do", "n't", "sleep", "much", "."]]
MAX_BODY_BYTES = 64 * 1024
# the position embeddings of `trained_model_archive` (conftest.py)
TRAINED_MODEL_MAX_SENTENCE_LENGTH = 256
TOO_LONG = ["word"] * (TRAINED_MODEL_MAX_SENTENCE_LENGTH + 1)


def length_error(num_words: int = len(TOO_LONG)) -> str:
    return (
        f"sentence of {num_words} words is longer than this model's "
        f"max_sentence_length={TRAINED_MODEL_MAX_SENTENCE_LENGTH}"
    )


class Answer:
    def __init__(self, status: int, headers, body: bytes):
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")

    def json(self):
        return json.loads(self.body)


def call(base: str, path: str, body=None, content_type="application/json", headers=None, method=None) -> Answer:
    """One HTTP request; an error status is an answer too."""
    if body is not None and not isinstance(body, bytes):
        body = (body if isinstance(body, str) else json.dumps(body)).encode("utf-8")
    request = urllib.request.Request(base + path, data=body, method=method)
    if body is not None:
        request.add_header("Content-Type", content_type)
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return Answer(response.status, response.headers, response.read())
    except urllib.error.HTTPError as error:
        return Answer(error.code, error.headers, error.read())


class RunningServer:
    """A service on a free loopback port, served by uvicorn in a thread of the test process."""

    def __init__(self, service: ParserService):
        import uvicorn

        self.service = service
        self.server = uvicorn.Server(uvicorn.Config(service.app, host="127.0.0.1", port=0, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.base = f"http://127.0.0.1:{port}"

    def stop(self):
        self.server.should_exit = True
        self.thread.join(timeout=60)
        assert not self.thread.is_alive()


@pytest.fixture(scope="module")
def parser(trained_model_archive):
    return Parser.from_archive(trained_model_archive)


@pytest.fixture(scope="module")
def running(trained_model_archive):
    # a longer wait than the default 5 ms, so that the threads of the batching test surely meet
    service = ParserService.from_archive(trained_model_archive, max_wait_ms=30, max_body_bytes=MAX_BODY_BYTES)
    running = RunningServer(service)
    yield running
    running.stop()


@pytest.fixture
def base(running):
    return running.base


def parsed(sentence):
    """A parsed sentence of `Parser` as the JSON output's keys."""
    return {
        "words": [word.form for word in sentence.words],
        "predicted_heads": sentence.heads,
        "predicted_dependencies": sentence.deprels,
        "generation_order": [[edge.head, edge.dependent] for edge in sentence.generation_order],
        "edge_probabilities": pytest.approx([edge.probability for edge in sentence.generation_order], abs=1e-6),
    }


def answered(output):
    return {key: output[key] for key in ("words", "predicted_heads", "predicted_dependencies", "generation_order",
                                         "edge_probabilities")}


# --- answers ---------------------------------------------------------------------------------------------


def test_health_and_the_page(base):
    health = call(base, "/health")
    assert health.status == 200 and health.headers["Content-Type"] == "application/json"
    assert health.json()["status"] == "ok" and health.json()["model"] == "model.tar.gz"
    page = call(base, "/")
    assert page.status == 200 and page.headers["Content-Type"].startswith("text/html")
    assert '<textarea id="text"' in page.text and '<button id="parse"' in page.text
    # nothing from outside: no address of another host, no external script, style or font
    assert not re.search(r"https?://", page.text) and not re.search(r"<(link|img)\b|\bsrc=", page.text)


def test_json_answers_equal_the_parsers(base, parser):
    for text in TEXTS:
        answer = call(base, "/parse", {"text": text})
        assert answer.status == 200 and answer.headers["Content-Type"] == "application/json"
        sentences = answer.json()["sentences"]
        expected = parser.parse(text)
        assert [answered(output) for output in sentences] == [parsed(sentence) for sentence in expected]
        # numbered from 1 in each request, as in each `Parser` call
        assert [output["sent_id"] for output in sentences] == [sentence.sent_id for sentence in expected]
        assert [output["text"] for output in sentences] == [sentence.text for sentence in expected]
        assert [output["space_after"] for output in sentences] == [
            [word.space_after for word in sentence.words] for sentence in expected
        ]
        assert all("conllu" not in output and "record" not in output for output in sentences)
        # raw text as the body
        assert call(base, "/parse", text, "text/plain").json() == answer.json()

    # several records: a list of outputs, one per record
    records = [{"words": WORDS[0]}, {"sentence": " ".join(WORDS[1])}, {"text": TEXTS[1]}]
    answer = call(base, "/parse", records)
    assert answer.status == 200
    first, second, third = answer.json()
    expected = parser.parse(WORDS)
    assert answered(first) == parsed(expected[0]) and answered(second) == parsed(expected[1])
    assert [answered(output) for output in third["sentences"]] == [parsed(s) for s in parser.parse(TEXTS[1])]
    # one record: its output, not a list
    one = call(base, "/parse", {"words": WORDS[0]}).json()
    assert answered(one) == parsed(expected[0])


def test_conllu_answers_equal_the_parsers(base, parser):
    for text in TEXTS:
        expected = parser.parse(text).to_conllu()
        by_parameter = call(base, "/parse?format=conllu", {"text": text})
        assert by_parameter.status == 200 and by_parameter.headers["Content-Type"].startswith("text/x-conllu")
        assert by_parameter.text == expected
        assert call(base, "/parse", {"text": text}, headers={"Accept": "text/x-conllu"}).text == expected
        assert call(base, "/parse?format=conllu", text, "text/plain").text == expected
    words = call(base, "/parse?format=conllu", [{"words": words} for words in WORDS])
    assert words.text == parser.parse(WORDS).to_conllu()

    # CoNLL-U in: CoNLL-U out line for line as the Parser writes it, or JSON, one output per sentence
    conllu = CONLLU_FILE.read_text(encoding="utf-8")
    expected = parser.parse_conllu(conllu)
    answer = call(base, "/parse?format=conllu", conllu, "text/x-conllu")
    assert answer.status == 200 and answer.text == expected.to_conllu()
    outputs = call(base, "/parse", conllu, "text/x-conllu").json()
    assert [answered(output) for output in outputs] == [parsed(sentence) for sentence in expected]


def test_a_sentence_too_long_is_its_own_error_and_the_others_are_parsed(base, parser):
    answer = call(base, "/parse", [{"words": TOO_LONG}, {"words": WORDS[0]}])
    assert answer.status == 200
    too_long, fine = answer.json()
    assert too_long == {"error": length_error()}
    assert answered(fine) == parsed(parser.parse(WORDS[0])[0])
    # in CoNLL-U: its error comment
    conllu = call(base, "/parse?format=conllu", [{"words": TOO_LONG}, {"words": WORDS[0]}]).text
    assert conllu == f"# error = {length_error()}\n\n" + parser.parse(WORDS[0]).to_conllu()

    # the second sentence of a text (its words and the full stop): the Parser's answer, that sentence
    # unparsed with its error
    text = "Dogs bark. " + " ".join(TOO_LONG) + " . Cats sleep."
    expected = parser.parse(text)
    assert [sentence.error is None for sentence in expected] == [True, False, True]
    sentences = call(base, "/parse", {"text": text}).json()["sentences"]
    assert sentences[1]["error"] == f"sentence 2: {length_error(len(TOO_LONG) + 1)}" == expected[1].error
    assert answered(sentences[0]) == parsed(expected[0]) and answered(sentences[2]) == parsed(expected[2])
    assert call(base, "/parse?format=conllu", {"text": text}).text == expected.to_conllu()


# --- bad input -------------------------------------------------------------------------------------------


# (body, its Content-Type, path, status, the error: the part quoted, or a pattern from ^)
JSON, CONLLU = "application/json", "text/x-conllu"
BAD_INPUT = [
    (b'{"text": "no end', JSON, "/parse", 400, "the body is not valid JSON: "),
    (b'{"text": "caf\xe9"}', JSON, "/parse", 400, "the body is not UTF-8"),
    (b"", JSON, "/parse", 400, "the body is not valid JSON"),
    ({"words": "Dogs bark ."}, JSON, "/parse", 422, '"words" must be a list of strings, got a string'),
    ({"text": 3}, JSON, "/parse", 422, '"text" must be a string, got a number'),
    ({"words": ["Dogs", 3]}, JSON, "/parse", 422, "word 2 is a number"),
    ({"word": ["Dogs"]}, JSON, "/parse", 422, 'record has none of "text", "words" or "sentence"'),
    ({"text": " "}, JSON, "/parse", 422, 'empty text: "text" has no words'),
    (
        [{"words": ["Dogs"]}, {"words": 3}, 5],
        JSON,
        "/parse",
        422,
        '^record 2: "words" must be a list of strings, got a number; '
        "record 3: expected a JSON object, got a number$",
    ),
    (5, JSON, "/parse", 422, "or a list, got a number"),
    ([], JSON, "/parse", 422, "an empty list: no records to parse"),
    ({"text": "Dogs bark."}, JSON, "/parse?format=xml", 422, 'format must be "json" or "conllu"'),
    ("1\tDogs\t_\n\n", CONLLU, "/parse", 422, "^<request>:1: expected 10 tab-separated columns, found 3$"),
    ("", CONLLU, "/parse", 422, "no sentences"),
    ({"words": 3}, JSON, "/view", 422, '"words" must be a list of strings'),
    (b"{", JSON, "/view", 400, "not valid JSON"),
]


@pytest.mark.parametrize("body, content_type, path, status, message", BAD_INPUT)
def test_bad_input_gets_its_status_and_a_json_error(base, body, content_type, path, status, message):
    answer = call(base, path, body, content_type)
    assert answer.status == status
    assert answer.headers["Content-Type"] == "application/json"
    error = answer.json()["error"]
    assert re.search(message if message.startswith("^") else re.escape(message), error), error


def test_a_body_over_the_limit_is_413(base):
    big = json.dumps({"text": "Dogs bark. " * (MAX_BODY_BYTES // 10)}).encode()
    assert len(big) > MAX_BODY_BYTES
    answer = call(base, "/parse", big)
    assert answer.status == 413 and "over this service's 65536" in answer.json()["error"]
    # without a Content-Length (chunked): refused once the read part is over the limit
    host, port = base[len("http://"):].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    chunks = (big[start : start + 4096] for start in range(0, len(big), 4096))
    connection.request("POST", "/parse", body=chunks, headers={"Content-Type": JSON}, encode_chunked=True)
    response = connection.getresponse()
    assert response.status == 413 and "over this service's" in json.loads(response.read())["error"]
    connection.close()
    # just under the limit is parsed
    fits = json.dumps({"words": ["word"] * 200}).encode()
    assert call(base, "/parse", fits).status == 200


def test_other_paths_and_methods_are_json_errors(base):
    missing = call(base, "/nothing")
    assert missing.status == 404 and missing.json() == {"error": "Not Found"}
    wrong_method = call(base, "/parse")
    assert wrong_method.status == 405 and wrong_method.json() == {"error": "Method Not Allowed"}
    assert wrong_method.headers["Allow"] == "POST"


def test_an_internal_error_is_500_and_the_service_goes_on(running, base, parser, monkeypatch):
    predictor = running.service.predictor
    original = predictor._predict

    def fails_on_boom(instances):
        if any(token.text == "BOOM" for instance in instances for token in instance["words"]):
            raise RuntimeError("an internal failure")
        return original(instances)

    monkeypatch.setattr(predictor, "_predict", fails_on_boom)
    answer = call(base, "/parse", {"words": ["BOOM", "!"]})
    assert answer.status == 500
    assert answer.json() == {"error": "internal error of the parser service: RuntimeError (its log says more)"}
    # the next request is answered as usual, and so is the health check
    assert answered(call(base, "/parse", {"words": WORDS[0]}).json()) == parsed(parser.parse(WORDS[0])[0])
    assert call(base, "/health").json()["status"] == "ok"

    # in a batch with others, only the request that fails gets the 500
    answers = {}

    def ask(name, words):
        answers[name] = call(base, "/parse", {"words": words})

    threads = [threading.Thread(target=ask, args=(n, w)) for n, w in (("boom", ["BOOM"]), ("fine", WORDS[1]))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers["boom"].status == 500
    assert answered(answers["fine"].json()) == parsed(parser.parse(WORDS[1])[0])


# --- batching and shutdown -------------------------------------------------------------------------------


def test_concurrent_requests_are_parsed_together_with_the_same_answers(running, base, parser):
    conllu = CONLLU_FILE.read_text(encoding="utf-8")
    sentences = [[word.form for word in sentence.words] for sentence in parser.parse_conllu(conllu)]
    records = [{"words": sentences[index % len(sentences)]} for index in range(16)]
    records += [{"text": text} for text in TEXTS] * 2
    # alone, one at a time
    alone = [call(base, "/parse", record).json() for record in records]
    before = call(base, "/health").json()

    answers = [None] * len(records)
    start = threading.Barrier(len(records))

    def ask(index):
        start.wait()
        answers[index] = call(base, "/parse", records[index])

    threads = [threading.Thread(target=ask, args=(index,)) for index in range(len(records))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    after = call(base, "/health").json()
    assert all(answer.status == 200 for answer in answers)

    def comparable(output):
        if "sentences" in output:
            return {"sentences": [comparable(sentence) for sentence in output["sentences"]]}
        return {**output, "edge_probabilities": pytest.approx(output["edge_probabilities"], abs=1e-6)}

    assert [answer.json() for answer in answers] == [comparable(output) for output in alone]
    assert after["requests"] - before["requests"] == len(records)
    # 20 requests, far fewer runs of the model
    assert 1 <= after["batches"] - before["batches"] <= len(records) // 2, (before, after)


def test_a_burst_of_requests_is_one_batch_and_the_wait_is_bounded(running):
    # the worker alone, on an event loop of its own, its model replaced by a note of each batch's requests
    import asyncio

    from seqgraph_allennlp.serving.messages import RECORDS, ParseInput
    from seqgraph_allennlp.serving.worker import BATCH_WAIT_LIMIT

    service = ParserService(running.service.model, running.service.dataset_reader, max_wait_ms=100)
    batches = []
    service._run_batch = lambda inputs: batches.append(len(inputs)) or [[{}] for _ in inputs]

    async def requests(gaps):
        await service.start()
        try:
            pending = []
            for gap in gaps:
                await asyncio.sleep(gap)
                pending.append(asyncio.ensure_future(service.parse(ParseInput(RECORDS, [{"words": ["a"]}]))))
            await asyncio.gather(*pending)
        finally:
            await service.stop()

    # each 60 ms after the last, 180 ms from the first to the last: more than one wait, less than the limit
    asyncio.run(requests([0, 0.06, 0.06, 0.06]))
    assert batches == [4]
    # a request every 60 ms for longer than the limit (4 waits of 100 ms): the batch closes all the same
    batches.clear()
    asyncio.run(requests([0] + [0.06] * 9))
    assert BATCH_WAIT_LIMIT == 4 and len(batches) >= 2 and batches[0] <= 7 and sum(batches) == 10


def test_shutdown_answers_the_requests_in_flight(trained_model_archive, running, parser):
    # a service of its own (the same model), whose model takes a second: stopped while parsing
    service = ParserService(running.service.model, running.service.dataset_reader)
    original = service.predictor._predict
    started = threading.Event()

    def slow(instances):
        started.set()
        time.sleep(1.0)
        return original(instances)

    service.predictor._predict = slow
    server = RunningServer(service)
    answers = []
    asking = threading.Thread(target=lambda: answers.append(call(server.base, "/parse", {"words": WORDS[0]})))
    asking.start()
    assert started.wait(30)
    server.stop()  # uvicorn's graceful shutdown, as on SIGTERM
    asking.join(timeout=30)
    (answer,) = answers
    assert answer.status == 200 and answered(answer.json()) == parsed(parser.parse(WORDS[0])[0])
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(server.base + "/health", timeout=5)


def test_the_model_is_loaded_in_the_thread_that_runs_it(trained_model_archive, monkeypatch):
    # torch's OpenMP keeps a team of threads for each thread that runs parallel work: a model loaded in one
    # thread and run in another leaves two teams on the cores, and every batch ran about twice as slowly
    from seqgraph_allennlp.serving import worker

    loaded_in = []
    original_load = worker.load_archive

    def load(*args, **kwargs):
        loaded_in.append(threading.get_ident())
        return original_load(*args, **kwargs)

    monkeypatch.setattr(worker, "load_archive", load)
    service = ParserService.from_archive(trained_model_archive)
    ran_in = []
    original_run = service._run_batch
    service._run_batch = lambda inputs: ran_in.append(threading.get_ident()) or original_run(inputs)
    server = RunningServer(service)
    try:
        answer = call(server.base, "/parse", {"words": WORDS[0]})
    finally:
        server.stop()
    assert answer.status == 200
    assert loaded_in and ran_in and set(ran_in) == set(loaded_in) and loaded_in[0] != threading.get_ident()


# --- the step view ---------------------------------------------------------------------------------------


def test_the_view_is_the_page_that_plot_writes(base, parser):
    from seqgraph_allennlp.html_view import render_html
    from seqgraph_allennlp.plot import parse_sentence

    text = TEXTS[1] + " " + " ".join(TOO_LONG) + " ."
    answer = call(base, "/view", {"text": text})
    assert answer.status == 200
    views = answer.json()["sentences"]
    expected = parser.parse(text)
    assert len(views) == len(expected) == 3
    for view, sentence in zip(views[:2], expected):
        words = [word.form for word in sentence.words]
        assert view["words"] == words and view["sent_id"] == sentence.sent_id and view["text"] == sentence.text
        assert view["html"] == render_html(parse_sentence(parser._model, parser._dataset_reader, words))
    error = f"sentence 3: {length_error(len(TOO_LONG) + 1)}"
    assert views[2] == {"error": error, "sent_id": "3", "text": " ".join(TOO_LONG) + " ."}


# --- the command line ------------------------------------------------------------------------------------


def test_command_line_errors(tmp_path, capsys):
    assert main([str(tmp_path / "missing.tar.gz")]) == 2
    assert capsys.readouterr().err == f"error: model file not found: {tmp_path / 'missing.tar.gz'}\n"
    for arguments, message in [(["--port", "70000"], "0..65535"), (["--batch-size", "0"], "at least 1")]:
        with pytest.raises(SystemExit) as exit_info:
            main(["model.tar.gz", *arguments])
        assert exit_info.value.code == 2 and message in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0 and "usage: python -m seqgraph_allennlp.serve" in capsys.readouterr().out


def test_the_service_names_are_still_importable_from_serve():
    # the service is in parts (`seqgraph_allennlp.serving`); what `serve` offered before stays importable there
    from seqgraph_allennlp import serve
    from seqgraph_allennlp.serving import app, messages, worker

    old_names = {"BATCH_WAIT_LIMIT", "CONLLU", "CONLLU_FORMAT", "CONLLU_TYPE", "DEFAULT_BATCH_SIZE", "DEFAULT_HOST",
                 "DEFAULT_MAX_BODY_BYTES", "DEFAULT_MAX_WAIT_MS", "DEFAULT_PORT", "EXIT_ERROR", "JSON_FORMAT",
                 "RECORDS", "ParseInput", "ParserService", "ServiceError", "main", "model_thread_executor"}
    assert set(serve.__all__) == old_names and all(hasattr(serve, name) for name in old_names)
    assert serve.ParserService is app.ParserService and issubclass(app.ParserService, worker.ParserWorker)
    assert serve.ParseInput is messages.ParseInput and serve.model_thread_executor is worker.model_thread_executor


def test_the_command_line_serves_until_sigterm(trained_model_archive, parser):
    command = [sys.executable, "-m", "seqgraph_allennlp.serve", str(trained_model_archive), "--port", "0"]
    environment = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    process = subprocess.Popen(command, cwd=ROOT, env=environment, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        for line in process.stderr:
            lines.append(line)
            found = re.search(r"Uvicorn running on (http://127\.0\.0\.1:\d+)", line)
            if found:
                break
        assert found, "".join(lines)
        base = found.group(1)
        assert call(base, "/health").json()["status"] == "ok"
        assert call(base, "/parse?format=conllu", {"text": TEXTS[0]}).text == parser.parse(TEXTS[0]).to_conllu()
        # a bad record is answered, not logged as an error of the service
        assert call(base, "/parse", {"words": 3}).status == 422
        process.send_signal(signal.SIGTERM)
        rest = process.stderr.read()
        # uvicorn raises SIGTERM again once it has shut down, so that the exit status says so
        assert process.wait(timeout=60) == -signal.SIGTERM
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    log = "".join(lines) + rest
    assert "parser service ready: model.tar.gz" in log and "Finished server process" in log
    assert "parser service stopped" in log and "ERROR" not in log and "Traceback" not in log


def test_importing_the_package_leaves_the_web_stack_alone():
    # the service's modules are imported by the service only: `allennlp` commands do not pay for them
    code = (
        "import sys, seqgraph_allennlp\n"
        "print(sorted({name.split('.')[0] for name in sys.modules} & {'starlette', 'uvicorn', 'anyio', 'h11'}))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "[]"


# --- the page in a browser -------------------------------------------------------------------------------

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


def _chromium():
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


class DevTools:
    """
    Headless Chromium driven over `--remote-debugging-pipe`: DevTools protocol messages, JSON ended by NUL,
    that the browser reads on its file descriptor 3 and writes on 4 (no WebSocket client needed).
    """

    def __init__(self, browser: str, profile: Path):
        # pipe ends from 10 up, so that moving the browser's to 3 and 4 cannot overwrite one of them
        to_browser, self._write = (self._high(fd) for fd in os.pipe())
        self._read, from_browser = (self._high(fd) for fd in os.pipe())
        # a small Python moves them there and becomes the browser (dash's redirections take fds 0-9 only)
        launcher = (
            "import os, sys; os.dup2(int(sys.argv[1]), 3); os.dup2(int(sys.argv[2]), 4); "
            "os.execv(sys.argv[3], sys.argv[3:])"
        )
        command = [
            sys.executable, "-S", "-c", launcher, str(to_browser), str(from_browser), browser,
            "--headless=new", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
            "--force-device-scale-factor=1", "--remote-debugging-pipe", f"--user-data-dir={profile}",
        ]
        # Chromium's sandbox refuses to run as root (CI containers): there it must be turned off
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            command.append("--no-sandbox")
        self.process = subprocess.Popen(
            command, pass_fds=(to_browser, from_browser), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._id = 0
        self.events = []
        self.session = None

    @staticmethod
    def _high(fd: int) -> int:
        high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(fd)
        return high

    def send(self, method: str, timeout: float = 30, **params):
        self._id += 1
        message = {"id": self._id, "method": method, "params": params}
        if self.session is not None and not method.startswith(("Target.", "Browser.")):
            message["sessionId"] = self.session
        os.write(self._write, json.dumps(message).encode("utf-8") + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            answer = self._next(deadline)
            if answer.get("id") == self._id:
                assert "error" not in answer, (method, answer["error"])
                return answer["result"]
            self.events.append(answer)

    def _next(self, deadline: float):
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            assert remaining > 0, "no answer from the browser"
            if select.select([self._read], [], [], remaining)[0]:
                chunk = os.read(self._read, 1 << 16)
                assert chunk, "the browser closed its pipe"
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def evaluate(self, expression: str):
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 60):
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            assert time.monotonic() < deadline, f"timed out waiting for {expression}"
            time.sleep(0.1)

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except (AssertionError, OSError):
            pass
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._read)
        os.close(self._write)


# each sentence's frame: its arcs, those shown, its words (the root's aside) and the frame's height; null
# while the frame's page is still loading
FRAMES = """Array.prototype.map.call(document.querySelectorAll("#results iframe.view"), function (frame) {
  var page = frame.contentDocument;
  if (!page || page.readyState !== "complete" || !page.getElementById("tree")) return null;
  return [page.querySelectorAll("#tree .arc").length, page.querySelectorAll("#tree .arc:not(.future)").length,
          page.querySelectorAll("#tree .word:not(.root)").length, frame.getBoundingClientRect().height];
})"""


@pytest.mark.skipif(
    _chromium() is None, reason=f"no Chromium binary on PATH (looked for {', '.join(CHROMIUM_NAMES)})"
)
def test_the_page_shows_the_arcs_in_a_browser(base, parser, tmp_path):
    import numpy
    from PIL import Image

    from seqgraph_allennlp.html_view import ARC_COLOUR

    text = "The cat sat on the mat. Dogs bark."
    expected = parser.parse(text)
    browser = DevTools(_chromium(), tmp_path / "profile")
    try:
        target = browser.send("Target.createTarget", url="about:blank")["targetId"]
        browser.session = browser.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        browser.send("Runtime.enable")
        browser.send("Page.enable")
        browser.send("Emulation.setDeviceMetricsOverride", width=1100, height=1400, deviceScaleFactor=1,
                     mobile=False)
        browser.send("Page.navigate", url=base + "/")
        browser.wait_for("document.readyState === 'complete' && document.getElementById('parse') !== null")
        # type the text into the box and press the button, as a reader does
        browser.evaluate("var box = document.getElementById('text'); box.value = ''; box.focus(); true")
        browser.send("Input.insertText", text=text)
        assert browser.evaluate("document.getElementById('text').value") == text
        box = json.loads(
            browser.evaluate("JSON.stringify(document.getElementById('parse').getBoundingClientRect())")
        )
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        for kind in ("mousePressed", "mouseReleased"):
            browser.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)
        frames = browser.wait_for(f"(function () {{ var f = {FRAMES}; return f.length && f.every(Boolean) && f; }})()")
        # one frame per sentence, each with the final tree: one arc per word, all shown, the frame as tall as
        # its page
        assert [frame[:3] for frame in frames] == [[len(s.words)] * 3 for s in expected]
        assert all(frame[3] > 150 for frame in frames)
        assert browser.evaluate("document.getElementById('status').textContent") == "2 sentences"
        # the frames' pages are the view's: their data blob holds the parse
        blob = browser.evaluate(
            "document.querySelector('#results iframe').contentDocument.getElementById('seqgraph-data').textContent"
        )
        assert json.loads(blob)["heads"] == expected[0].heads
        # and the arcs are drawn: pixels of the arcs' colour in a screenshot of the page
        time.sleep(0.3)
        shot = base64.b64decode(browser.send("Page.captureScreenshot", format="png")["data"])
        pixels = numpy.asarray(Image.open(io.BytesIO(shot)).convert("RGB")).astype(int)
        colour = numpy.array([int(ARC_COLOUR[index : index + 2], 16) for index in (1, 3, 5)])
        assert (numpy.abs(pixels - colour) <= 40).all(axis=-1).sum() > 200
        thrown = [event for event in browser.events if event.get("method") == "Runtime.exceptionThrown"]
        assert thrown == []
    finally:
        browser.close()
