"""
The model's side of the parser service: requests queued and parsed in batches, in the one thread that loaded
the model (`ParserWorker`).

A worker task takes the first request waiting, waits up to `max_wait_ms` after each for another
(`BATCH_WAIT_LIMIT` times that at most in all, or until they hold `batch_size` records or sentences),
prepares each (the predictor's `prepare_batch_json`, with a predictor of its own, so that its `text`
sentences are numbered from 1) and runs the model once on all their sentences (`predict_prepared`), in one
thread, one batch at a time. `from_archive` loads the model in that same thread: run in a thread other than
the one that loaded it, the model parsed at about 0.6 of its speed on two cores (`results/benchmarks/model_thread.json`;
likely torch's OpenMP, which keeps a team of threads per calling thread).
"""
import asyncio
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, NamedTuple, Optional

from allennlp.models.archival import load_archive

from seqgraph_allennlp.common.conllu import parse_string
from seqgraph_allennlp.common.errors import SeqGraphError
from seqgraph_allennlp.html_view import render_html
from seqgraph_allennlp.plot import PlotError, parse_sentence
from seqgraph_allennlp.predictors.batching import PreparedBatch
from seqgraph_allennlp.predictors.seqgraph_parser import SeqGraphParserPredictor
from seqgraph_allennlp.serving.messages import CONLLU, ParseInput, ServiceError, internal_error, without_conllu

# the service's one log, under the name of the command that runs it
logger = logging.getLogger("seqgraph_allennlp.serve")

DEFAULT_BATCH_SIZE = 64
DEFAULT_MAX_WAIT_MS = 5.0
# a batch waits at most this many max_wait_ms in all
BATCH_WAIT_LIMIT = 4


class _Job(NamedTuple):
    parse_input: ParseInput
    future: "asyncio.Future[List[Any]]"


# tells the worker to stop, once what is queued before it is parsed
_STOP = object()


def model_thread_executor() -> ThreadPoolExecutor:
    """The one thread that loads and runs a service's model."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="seqgraph-model")


class ParserWorker:
    """
    A loaded model behind a queue: `parse` answers a request's input with the predictor's outputs, parsed in a
    batch with the requests around it; `view` answers with each sentence's step view. The counters
    (`requests`, `sentences`, `batches`: the model's batched calls) are what `/health` reports.

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
    model_thread : `ThreadPoolExecutor`, optional (default = `None`)
        The one-thread executor that runs the model (`model_thread_executor()`), best the one that loaded it
        (`from_archive` does so); a new one by default. The worker shuts it down when it stops.
    """

    def __init__(
        self,
        model,
        dataset_reader,
        name: str = "model",
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_wait_ms: float = DEFAULT_MAX_WAIT_MS,
        model_thread: Optional[ThreadPoolExecutor] = None,
    ) -> None:
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        if max_wait_ms < 0:
            raise ValueError(f"max_wait_ms must be at least 0, got {max_wait_ms!r}")
        self.model = model
        self.dataset_reader = dataset_reader
        self.name = name
        self.batch_size = batch_size
        self.max_wait = max_wait_ms / 1000.0
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

    @classmethod
    def from_archive(cls, archive_path: str, cuda_device: int = -1, **kwargs) -> "ParserWorker":
        """
        Loads `model.tar.gz` once, onto `cuda_device` (`-1`: the CPU), in the thread that will run it;
        `kwargs` as the constructor's.
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

    # On the event loop

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
            outcomes = [internal_error(error)] * len(jobs)
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
                outcomes[index] = internal_error(error)
        if not prepared:
            return outcomes
        try:
            results = self.predictor.predict_prepared([batch for _, batch in prepared], self.batch_size)
            self.batches += 1
        except Exception as error:
            if len(prepared) == 1:
                logger.exception("parsing a request failed")
                outcomes[prepared[0][0]] = internal_error(error)
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
                    results.append(internal_error(single_error))
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
        results = [without_conllu(result) for result in batch.results]
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
