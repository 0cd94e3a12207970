"""
The parser as an HTTP service (Starlette on uvicorn): one model loaded once, the requests that arrive
together parsed in one batch.

    python -m seqgraph_allennlp.serve out/model.tar.gz --host 127.0.0.1 --port 8000

* `POST /parse` takes what the `seqgraph_parser` predictor takes: a JSON record (`{"text": ...}`,
  `{"words": [...]}` or `{"sentence": ...}`, with optional `"pos"`), a JSON list of records, raw text
  (`Content-Type: text/plain`, read as one `text` record) or CoNLL-U (`Content-Type: text/x-conllu`). It
  answers with the predictor's outputs: for one record its output (a `text` record's is
  `{"sentences": [...]}`), for a list or CoNLL-U a list, one per record or sentence; or CoNLL-U, as
  `allennlp predict` writes it, with `?format=conllu` or `Accept: text/x-conllu`. The sentences of `text`
  are numbered from 1 in each request (`sent_id`), as in one `Parser` call.
* `POST /view` takes the same input and answers `{"sentences": [...]}`, each with its `words` and `html`:
  the sentence's step view, the page that `python -m seqgraph_allennlp.plot --html` writes.
* `GET /` is a page with a text box whose sentences it shows in that view; `GET /health` says
  `{"status": "ok", ...}` with counters (`requests`, `sentences`, `batches`: the model's batched calls).

Requests are batched: a worker takes the first request waiting, waits up to `max_wait_ms` after each for
another (`BATCH_WAIT_LIMIT` times that at most in all, or until they hold `batch_size` records or
sentences), prepares each (the predictor's `prepare_batch_json`, with a predictor of its own, so that its
`text` sentences are numbered from 1) and runs the model once on all their sentences (`predict_prepared`),
in one thread, one batch at a time. `from_archive` loads the model in that same thread: run in a thread
other than the one that loaded it, the model parsed at about 0.6 of its speed on two cores
(`benchmarks/model_thread.py`; likely torch's OpenMP, which keeps a team of threads per calling thread).

Errors are JSON, `{"error": "..."}`: 400 for a body that is not JSON (or not UTF-8), 422 for input that is
JSON but not records the predictor can read (a wrong type, no words, not an object; CoNLL-U that does not
parse) or an unknown `format`, 413 for a body over `max_body_bytes`, 404 and 405 for other paths and
methods, 500 for an error of the service itself, which goes on serving. A sentence too long for the model
is not an error of the request: its output is `{"error": ...}` (`# error = ...` in CoNLL-U) and the other
sentences are parsed. On SIGINT or SIGTERM the service stops taking connections, answers the requests it
has, then exits.
"""
import argparse
import asyncio
import contextlib
import html
import json
import logging
import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, NamedTuple, Optional

# The web stack is imported here only: the package (`import seqgraph_allennlp`, which `python -m
# seqgraph_allennlp.serve` runs first anyway, registering the model and reader) does not import this module.
import uvicorn
from allennlp.models.archival import load_archive
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route
from uvicorn.logging import DefaultFormatter

from seqgraph_allennlp.common.conllu import parse_string
from seqgraph_allennlp.common.errors import SeqGraphError
from seqgraph_allennlp.html_view import render_html
from seqgraph_allennlp.plot import PlotError, parse_sentence
from seqgraph_allennlp.predictors.batching import PreparedBatch
from seqgraph_allennlp.predictors.seqgraph_parser import SeqGraphParserPredictor

# named, not __name__: `python -m` runs this module as __main__
logger = logging.getLogger("seqgraph_allennlp.serve")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_MAX_BODY_BYTES = 1 << 20
DEFAULT_BATCH_SIZE = 64
DEFAULT_MAX_WAIT_MS = 5.0
# a batch waits at most this many max_wait_ms in all
BATCH_WAIT_LIMIT = 4
EXIT_ERROR = 2

CONLLU_TYPE = "text/x-conllu"
JSON_FORMAT, CONLLU_FORMAT = "json", "conllu"
# what the input is: JSON records, or CoNLL-U text
RECORDS, CONLLU = "records", "conllu"


class ServiceError(SeqGraphError):
    """A request the service answers with `status` and `{"error": message}`."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = " ".join(message.split())


class ParseInput(NamedTuple):
    """
    A request's input: `kind` `RECORDS` (`payload` a list of JSON records) or `CONLLU` (`payload` the
    text); `single` when the body was one record (answered with one output rather than a list).
    """

    kind: str
    payload: Any
    single: bool = False

    @property
    def size(self) -> int:
        """Its records, or its CoNLL-U sentences (blank-line separated blocks): what a batch counts."""
        if self.kind == RECORDS:
            return len(self.payload)
        return max(1, sum(1 for block in re.split(r"\n[ \t\r]*\n", self.payload) if block.strip()))


class _Job(NamedTuple):
    parse_input: ParseInput
    future: "asyncio.Future[List[Any]]"


# tells the worker to stop, once what is queued before it is parsed
_STOP = object()


class ParserService:
    """
    The service around a loaded model: the batching worker, the counters and the Starlette app (`app`).

    # Parameters

    model : `Model`
        A `seqgraph_parser` model (or another that the `seqgraph_parser` predictor reads).
    dataset_reader : `DatasetReader`
        The archive's reader (its `validation_dataset_reader`, as `Parser` uses).
    name : `str`, optional (default = `"model"`)
        What `/health` and the page call the model (the archive's file name).
    batch_size : `int`, optional (default = `64`)
        A batch is closed once its requests hold this many records or CoNLL-U sentences (a larger request
        is a batch alone), and the model parses at most this many sentences at a time.
    max_wait_ms : `float`, optional (default = `5.0`)
        How long the worker waits for another request after each of a batch (after the first, at most four
        times this in all).
    max_body_bytes : `int`, optional (default = `1048576`)
        A larger body is refused with 413.
    model_thread : `ThreadPoolExecutor`, optional (default = `None`)
        The one-thread executor that runs the model (`model_thread_executor()`), best the one that loaded it
        (`from_archive` does so); a new one by default. The service shuts it down when it stops.
    """

    def __init__(
        self,
        model,
        dataset_reader,
        name: str = "model",
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_wait_ms: float = DEFAULT_MAX_WAIT_MS,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        model_thread: Optional[ThreadPoolExecutor] = None,
    ) -> None:
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        if max_wait_ms < 0:
            raise ValueError(f"max_wait_ms must be at least 0, got {max_wait_ms!r}")
        if not isinstance(max_body_bytes, int) or max_body_bytes < 1:
            raise ValueError(f"max_body_bytes must be a positive integer, got {max_body_bytes!r}")
        self.model = model
        self.dataset_reader = dataset_reader
        self.name = name
        self.batch_size = batch_size
        self.max_wait = max_wait_ms / 1000.0
        self.max_body_bytes = max_body_bytes
        # runs the model on the prepared batches; CoNLL-U outputs always (dropped from JSON answers), so
        # that either format can be answered from one run
        self.predictor = self._new_predictor()
        self.requests = 0
        self.sentences = 0
        self.batches = 0
        # the model runs in this one thread, one batch (or one /view request) at a time: the event loop
        # stays free to take requests meanwhile
        self._executor: Optional[ThreadPoolExecutor] = model_thread
        self._queue: Optional["asyncio.Queue[Any]"] = None
        self._worker: Optional["asyncio.Task[None]"] = None
        self.app = self._build_app()

    @classmethod
    def from_archive(cls, archive_path: str, cuda_device: int = -1, **kwargs) -> "ParserService":
        """
        Loads `model.tar.gz` once, onto `cuda_device` (`-1`: the CPU), in the thread that will run it;
        `kwargs` as `ParserService`'s.
        """
        model_thread = model_thread_executor()
        try:
            archive = model_thread.submit(load_archive, str(archive_path), cuda_device=cuda_device).result()
        except BaseException:
            model_thread.shutdown(wait=False)
            raise
        kwargs.setdefault("name", os.path.basename(str(archive_path)))
        return cls(archive.model, archive.validation_dataset_reader, model_thread=model_thread, **kwargs)

    def _new_predictor(self) -> SeqGraphParserPredictor:
        # cheap: the model and the tokeniser are shared; each request's own numbers its text sentences from 1
        return SeqGraphParserPredictor(self.model, self.dataset_reader, output_format="conllu")

    # The worker

    async def start(self) -> None:
        """Starts the worker (on the running event loop); the app's lifespan calls it."""
        if self._executor is None:
            self._executor = model_thread_executor()
        self._queue = asyncio.Queue()
        self._worker = asyncio.get_running_loop().create_task(self._work())

    async def stop(self) -> None:
        """Parses what is queued, then stops the worker and its thread."""
        if self._worker is not None and self._queue is not None:
            self._queue.put_nowait(_STOP)
            await self._worker
        if self._executor is not None:
            self._executor.shutdown(wait=True)
        self._worker = self._queue = self._executor = None

    async def parse(self, parse_input: ParseInput) -> List[Any]:
        """The predictor's outputs for one request, parsed in a batch with the requests around it."""
        if self._queue is None:
            raise RuntimeError("the service is not started (start(), or the app's lifespan)")
        future = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Job(parse_input, future))
        self.requests += 1
        return await future

    async def view(self, parse_input: ParseInput) -> List[Dict[str, Any]]:
        """Each sentence's step view (`/view`), in the model's thread."""
        if self._queue is None or self._executor is None:
            raise RuntimeError("the service is not started (start(), or the app's lifespan)")
        self.requests += 1
        return await asyncio.get_running_loop().run_in_executor(self._executor, self._views, parse_input)

    async def _work(self) -> None:
        assert self._queue is not None
        loop = asyncio.get_running_loop()
        stopping = False
        while not stopping:
            first = await self._queue.get()
            if first is _STOP:
                break
            jobs: List[_Job] = [first]
            size = first.parse_input.size
            # each request waits up to max_wait for the next, so that a burst of answers' follow-up requests
            # (a client's next one arrives as it reads its answer) is one batch, not a batch and a straggler
            # that costs a run of the model alone; the whole wait is bounded all the same
            closing = loop.time() + BATCH_WAIT_LIMIT * self.max_wait
            deadline = min(loop.time() + self.max_wait, closing)
            while size < self.batch_size:
                try:
                    job = self._queue.get_nowait()
                except asyncio.QueueEmpty:
                    timeout = deadline - loop.time()
                    if timeout <= 0:
                        break
                    try:
                        job = await asyncio.wait_for(self._queue.get(), timeout)
                    except asyncio.TimeoutError:
                        break
                if job is _STOP:
                    stopping = True
                    break
                jobs.append(job)
                size += job.parse_input.size
                deadline = min(loop.time() + self.max_wait, closing)
            await self._answer(jobs)
        # nothing should be left (the server stops the worker after its last request), but answer it anyway
        leftovers = []
        while not self._queue.empty():
            job = self._queue.get_nowait()
            if job is not _STOP:
                leftovers.append(job)
        if leftovers:
            await self._answer(leftovers)

    async def _answer(self, jobs: List[_Job]) -> None:
        """Parses the jobs' requests in one batch, in the model's thread, and answers each."""
        try:
            outcomes = await asyncio.get_running_loop().run_in_executor(
                self._executor, self._run_batch, [job.parse_input for job in jobs]
            )
        except Exception as error:  # `_run_batch` answers its own errors: the worker must not die of one
            logger.exception("a batch of %d requests failed", len(jobs))
            outcomes = [_internal_error(error)] * len(jobs)
        for job, outcome in zip(jobs, outcomes):
            if job.future.done():  # the request was cancelled
                continue
            if isinstance(outcome, BaseException):
                job.future.set_exception(outcome)
            else:
                job.future.set_result(outcome)

    # In the model's thread

    def _run_batch(self, inputs: List[ParseInput]) -> List[Any]:
        """The outputs of each request (or the exception to answer it with), from one run of the model."""
        outcomes: List[Any] = [None] * len(inputs)
        prepared = []
        for index, parse_input in enumerate(inputs):
            try:
                prepared.append((index, self._prepare(parse_input)))
            except ServiceError as error:
                outcomes[index] = error
            except Exception as error:
                logger.exception("preparing a request failed")
                outcomes[index] = _internal_error(error)
        if not prepared:
            return outcomes
        try:
            results = self.predictor.predict_prepared([batch for _, batch in prepared], self.batch_size)
            self.batches += 1
        except Exception as error:
            if len(prepared) == 1:
                logger.exception("parsing a request failed")
                outcomes[prepared[0][0]] = _internal_error(error)
                return outcomes
            # the sentences of one request may be the cause: each alone, so that only that one fails
            logger.exception("parsing a batch of %d requests failed: parsing each alone", len(prepared))
            results = []
            for index, batch in prepared:
                try:
                    results.append(self.predictor.predict_prepared([batch], self.batch_size)[0])
                    self.batches += 1
                except Exception as single_error:
                    logger.exception("parsing a request failed")
                    results.append(_internal_error(single_error))
        for (index, batch), result in zip(prepared, results):
            outcomes[index] = result
            if not isinstance(result, BaseException):
                self.sentences += len(batch.pending)
        return outcomes

    def _prepare(self, parse_input: ParseInput) -> PreparedBatch:
        """The request's `PreparedBatch`, or `ServiceError` 422 for input the predictor cannot read."""
        predictor = self._new_predictor()
        if parse_input.kind == CONLLU:
            try:
                sentences = parse_string(parse_input.payload, "<request>")
                if not sentences:
                    raise ServiceError(422, "no sentences: the CoNLL-U input is empty")
                instances = list(self.dataset_reader.sentences_to_instances(sentences))
            except ServiceError:
                raise
            except SeqGraphError as error:  # a malformed sentence: path:line and the problem
                raise ServiceError(422, str(error)) from None
            return predictor.prepare_batch_instance(instances)
        records = parse_input.payload
        batch = predictor.prepare_batch_json(records)
        if batch.input_errors:
            messages = [
                ("" if parse_input.single else f"record {position + 1}: ") + batch.results[position]["error"]
                for position in batch.input_errors
            ]
            raise ServiceError(422, "; ".join(messages))
        return batch

    def _views(self, parse_input: ParseInput) -> List[Dict[str, Any]]:
        batch = self._prepare(parse_input)
        results = [_without_conllu(result) for result in batch.results]
        for position, slot, instance, extras in batch.pending:
            words = [token.text for token in instance["words"]]  # type: ignore[attr-defined]
            entry: Dict[str, Any] = {"words": words}
            if extras is not None:
                entry.update((key, extras[key]) for key in ("sent_id", "text") if key in extras)
            try:
                entry["html"] = render_html(parse_sentence(self.model, self.dataset_reader, words))
            except PlotError as error:  # a model without steps to show (an MST decoder, ...)
                entry["error"] = str(error)
            if slot is None:
                results[position] = entry
            else:
                results[position]["sentences"][slot] = entry
            self.sentences += 1
        return [sentence for result in results for sentence in result.get("sentences", [result])]

    # HTTP

    def _build_app(self) -> Starlette:
        @contextlib.asynccontextmanager
        async def lifespan(app):
            await self.start()
            logger.info("parser service ready: %s", self.name)
            try:
                yield
            finally:
                await self.stop()
                logger.info("parser service stopped")

        async def http_error(request, error: HTTPException):
            return _json_error(error.status_code, error.detail, error.headers)

        async def internal_error(request, error: Exception):
            return _json_error(500, "internal error of the parser service (its log says more)")

        return Starlette(
            routes=[
                Route("/", self._page, methods=["GET"]),
                Route("/health", self._health, methods=["GET"]),
                Route("/parse", self._parse_endpoint, methods=["POST"]),
                Route("/view", self._view_endpoint, methods=["POST"]),
            ],
            lifespan=lifespan,
            exception_handlers={HTTPException: http_error, Exception: internal_error},
        )

    async def _page(self, request):
        return HTMLResponse(_PAGE.replace("{model}", html.escape(self.name)))

    async def _health(self, request):
        return JSONResponse(
            {
                "status": "ok",
                "model": self.name,
                "requests": self.requests,
                "sentences": self.sentences,
                "batches": self.batches,
                "queued": self._queue.qsize() if self._queue is not None else 0,
                "batch_size": self.batch_size,
                "max_wait_ms": self.max_wait * 1000.0,
            }
        )

    async def _parse_endpoint(self, request):
        try:
            output_format = _output_format(request)
            parse_input = _read_input(request, await self._body(request))
            outputs = await self.parse(parse_input)
        except ServiceError as error:
            return _json_error(error.status, error.message)
        except Exception as error:  # answered, logged, and the service goes on
            logger.exception("a /parse request failed")
            return _json_error(500, _internal_error(error).message)
        if output_format == CONLLU_FORMAT:
            text = "".join(self.predictor.dump_line(output) for output in outputs)
            return Response(text, media_type=CONLLU_TYPE + "; charset=utf-8")
        answers = [_without_conllu(output) for output in outputs]
        return JSONResponse(answers[0] if parse_input.single else answers)

    async def _view_endpoint(self, request):
        try:
            sentences = await self.view(_read_input(request, await self._body(request)))
        except ServiceError as error:
            return _json_error(error.status, error.message)
        except Exception as error:
            logger.exception("a /view request failed")
            return _json_error(500, _internal_error(error).message)
        return JSONResponse({"sentences": sentences})

    async def _body(self, request) -> bytes:
        """The request's body, or 413 once it is over `max_body_bytes` (without reading the rest)."""
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_body_bytes:
            raise ServiceError(413, f"the body is {declared} bytes, over this service's {self.max_body_bytes}")
        chunks = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > self.max_body_bytes:
                raise ServiceError(413, f"the body is over this service's {self.max_body_bytes} bytes")
            chunks.append(chunk)
        return b"".join(chunks)


def model_thread_executor() -> ThreadPoolExecutor:
    """The one thread that loads and runs a service's model."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="seqgraph-model")


def _internal_error(error: BaseException) -> ServiceError:
    return ServiceError(500, f"internal error of the parser service: {type(error).__name__} (its log says more)")


def _json_error(status: int, message: str, headers: Optional[Dict[str, str]] = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def _without_conllu(output: Any) -> Any:
    """An output as `allennlp predict` writes JSON: without the CoNLL-U that the service also made."""
    if not isinstance(output, dict):
        return output
    answer = {key: value for key, value in output.items() if key != "conllu"}
    if "sentences" in answer:
        answer["sentences"] = [_without_conllu(sentence) for sentence in answer["sentences"]]
    return answer


def _media_type(value: str) -> str:
    return value.split(";", 1)[0].strip().lower()


def _output_format(request) -> str:
    """`?format=json|conllu`, else CoNLL-U when `Accept` asks for it, else JSON."""
    requested = request.query_params.get("format")
    if requested is not None:
        if requested not in (JSON_FORMAT, CONLLU_FORMAT):
            raise ServiceError(422, f'format must be "json" or "conllu", got {requested!r}')
        return requested
    accepted = [_media_type(part) for part in request.headers.get("accept", "").split(",")]
    return CONLLU_FORMAT if CONLLU_TYPE in accepted and "application/json" not in accepted else JSON_FORMAT


def _read_input(request, body: bytes) -> ParseInput:
    """The body as the predictor's input, by its `Content-Type`: CoNLL-U, raw text, else JSON."""
    media_type = _media_type(request.headers.get("content-type", ""))
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ServiceError(400, f"the body is not UTF-8 ({error.reason} at byte {error.start})") from None
    if media_type == CONLLU_TYPE:
        return ParseInput(CONLLU, text)
    if media_type == "text/plain":
        return ParseInput(RECORDS, [{"text": text}], single=True)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise ServiceError(400, f"the body is not valid JSON: {error}") from None
    if isinstance(value, dict):
        return ParseInput(RECORDS, [value], single=True)
    if isinstance(value, list):
        if not value:
            raise ServiceError(422, "an empty list: no records to parse")
        return ParseInput(RECORDS, value)
    kind = {str: "a string", bool: "a boolean", int: "a number", float: "a number"}.get(type(value), "null")
    raise ServiceError(
        422, f'expected a record ({{"text": ...}}, {{"words": [...]}} or {{"sentence": ...}}) or a list, got {kind}'
    )


# The page at `/`: nothing loaded from outside. Each sentence's step view is the page that `plot --html`
# writes, in an <iframe srcdoc> of its own (its script and ids do not meet the others'); the words reach
# it only inside that page, which escapes them itself, and the messages are set with textContent.
_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>seqgraph parser</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif;
  margin: 16px 20px; color: #222; background: #fff; }
h1 { font-size: 19px; font-weight: 600; margin: 0 0 4px; }
.meta { color: #666; font-size: 13px; margin-bottom: 10px; }
textarea { width: 100%; max-width: 900px; box-sizing: border-box; font: inherit; font-size: 15px; padding: 6px; }
.controls { margin: 6px 0 14px; display: flex; gap: 10px; align-items: center; }
button { font-size: 15px; padding: 4px 16px; }
#status { color: #666; font-size: 13px; }
#status.error, .sentence-error { color: #b00020; }
iframe.view { display: block; width: 100%; border: 0; border-top: 1px solid #ddd; min-height: 120px; }
</style>
</head>
<body>
<h1>Sequential graph parser</h1>
<div class="meta">Model <code>{model}</code>. Each sentence is parsed and shown step by step, as
<code>python -m seqgraph_allennlp.plot --html</code> shows it; <code>POST /parse</code> answers JSON or
CoNLL-U.</div>
<form id="form">
<textarea id="text" name="text" rows="5" aria-label="text to parse"
 placeholder="Type or paste text: one sentence or several.">The cat sat on the mat. It didn't move.</textarea>
<div class="controls"><button id="parse" type="submit">Parse</button><span id="status"></span></div>
</form>
<div id="results"></div>
<script>
(function () {
  "use strict";
  var form = document.getElementById("form");
  var text = document.getElementById("text");
  var button = document.getElementById("parse");
  var status = document.getElementById("status");
  var results = document.getElementById("results");

  function say(message, isError) {
    status.textContent = message;
    status.className = isError ? "error" : "";
  }

  function fit(frame) {
    var page = frame.contentDocument;
    if (page && page.documentElement) frame.style.height = (page.documentElement.scrollHeight + 4) + "px";
  }

  function show(sentences) {
    results.textContent = "";
    sentences.forEach(function (sentence, index) {
      var section = document.createElement("section");
      section.className = "sentence";
      if (sentence.html === undefined) {
        var message = document.createElement("p");
        message.className = "sentence-error";
        message.textContent = "Sentence " + (index + 1) + " not parsed: " + sentence.error;
        section.appendChild(message);
      } else {
        var frame = document.createElement("iframe");
        frame.className = "view";
        frame.title = "sentence " + (index + 1);
        frame.addEventListener("load", function () { fit(frame); });
        frame.srcdoc = sentence.html;
        section.appendChild(frame);
      }
      results.appendChild(section);
    });
    say(sentences.length + (sentences.length === 1 ? " sentence" : " sentences"), false);
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (!text.value.trim()) { say("Type some text first.", true); return; }
    button.disabled = true;
    say("Parsing\\u2026", false);
    fetch("view", {method: "POST", headers: {"Content-Type": "application/json"},
                   body: JSON.stringify({text: text.value})})
      .then(function (response) {
        return response.json().then(function (body) {
          if (!response.ok) throw new Error(body.error || response.statusText);
          show(body.sentences);
        });
      })
      .catch(function (error) { say("Error: " + error.message, true); })
      .then(function () { button.disabled = false; });
  });
  text.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) form.requestSubmit();
  });
})();
</script>
</body>
</html>
"""


# The command line


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be in 0..65535 (0: any free port), got {value}")
    return value


def _milliseconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of milliseconds, got {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {text}")
    return value


def _parse_arguments(arguments: Optional[List[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m seqgraph_allennlp.serve",
        description="Serve a trained parser over HTTP: POST /parse (JSON records, raw text or CoNLL-U in; "
        "JSON or CoNLL-U out), POST /view (each sentence's step view), GET / (a page to try it), GET /health.",
    )
    parser.add_argument("model", help="a trained model archive (model.tar.gz)")
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default: {DEFAULT_HOST})")
    parser.add_argument(
        "--port", type=_port, default=DEFAULT_PORT, help=f"port (default: {DEFAULT_PORT}; 0: any free port)"
    )
    parser.add_argument(
        "--max-body-bytes",
        type=_positive_int,
        default=DEFAULT_MAX_BODY_BYTES,
        help=f"refuse larger request bodies with 413 (default: {DEFAULT_MAX_BODY_BYTES})",
    )
    parser.add_argument(
        "--batch-size",
        type=_positive_int,
        default=DEFAULT_BATCH_SIZE,
        help="records or sentences per batch of requests and per run of the model "
        f"(default: {DEFAULT_BATCH_SIZE})",
    )
    parser.add_argument(
        "--max-wait-ms",
        type=_milliseconds,
        default=DEFAULT_MAX_WAIT_MS,
        help="how long a batch waits for another request after each of its requests, "
        f"{BATCH_WAIT_LIMIT} times that at most in all (default: {DEFAULT_MAX_WAIT_MS:g})",
    )
    parser.add_argument("--cuda-device", type=int, default=-1, help="GPU to use, -1 for the CPU (default)")
    return parser.parse_args(arguments)


def main(arguments: Optional[List[str]] = None) -> int:
    options = _parse_arguments(arguments)
    if not os.path.isfile(options.model):
        print(f"error: model file not found: {options.model}", file=sys.stderr)
        return EXIT_ERROR
    # the service's own lines as uvicorn writes its own
    handler = logging.StreamHandler()
    handler.setFormatter(DefaultFormatter("%(levelprefix)s %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    # allennlp says a great deal while loading an archive; and a client's bad record is answered (422, or
    # the error in its output), not an error of the service: uvicorn's access log has the status
    logging.getLogger("allennlp").setLevel(logging.WARNING)
    logging.getLogger("seqgraph_allennlp.predictors.seqgraph_parser").setLevel(logging.CRITICAL)

    try:
        service = ParserService.from_archive(
            options.model,
            cuda_device=options.cuda_device,
            batch_size=options.batch_size,
            max_wait_ms=options.max_wait_ms,
            max_body_bytes=options.max_body_bytes,
        )
    except Exception as error:  # a corrupt or foreign archive, a missing GPU, ...
        message = " ".join(str(error).split()) or type(error).__name__
        print(f"error: could not load the model archive {options.model}: {message}", file=sys.stderr)
        return EXIT_ERROR
    server = uvicorn.Server(uvicorn.Config(service.app, host=options.host, port=options.port))
    try:
        # uvicorn's graceful shutdown on SIGINT and SIGTERM: no new connections, the requests in flight
        # answered, then the app's lifespan ends (the worker parses what is queued)
        server.run()
    except KeyboardInterrupt:  # uvicorn raises the SIGINT again once it has shut down
        pass
    return 0 if server.started else 1


if __name__ == "__main__":
    sys.exit(main())
