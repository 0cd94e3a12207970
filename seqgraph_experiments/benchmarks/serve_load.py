"""
A load benchmark of the parser service (`python -m seqgraph_allennlp.serve`) against `allennlp predict` on
the same sentences, on loopback only, bounded in requests and in time:

    .venv/bin/python benchmarks/serve_load.py --model MODEL.tar.gz \\
        [--conllu data/UD_English-EWT/en_ewt-ud-test.conllu] [--requests 5000] [--concurrency 1 8 32] \\
        [--max-seconds 600] [--threads 2]

The sentences are the first `--requests` sentences of the CoNLL-U file, in file order (the file cycled when
it has fewer). What it measures, in this order:

* `allennlp predict MODEL FILE --use-dataset-reader --predictor seqgraph_parser --batch-size 64`
  (`--batch-size`; CoNLL-U out, `seqgraph_experiments.commands.predict_conllu`) as a new process on a file
  of exactly those sentences, and the same command on a file of its first sentence: the one-sentence run
  is the start-up (Python, imports, model loading), and the sentences per second "after start-up" are the
  sentences over the full run's time less the start-up. A first one-sentence run, not kept, fills the file
  cache (`--no-predict-warmup` leaves it out); with `--predict-repeats R` both commands run R times,
  alternating, and the medians are kept.
* The service, started as its own process on 127.0.0.1 (a free port), its model's threads as predict's;
  after `--warmup` requests that are not counted, at each `--concurrency` level C, C clients (asyncio, one
  keep-alive HTTP/1.1 connection each, through h11) send the same sentences, one sentence per request:
  `POST /parse?format=conllu` with the sentence's CoNLL-U lines as the body (`Content-Type:
  text/x-conllu`), so that the service reads it with the model's reader as `allennlp predict
  --use-dataset-reader` reads the file: the same words, tokens and tags. Each client sends its next
  sentence once its answer is in. Once `--max-seconds` have passed in a level no further request is sent
  (the level is marked `stopped_early`); the ones in flight are answered. Per level: sentences per second
  (sentences answered with 200 over the level's wall time, from its first request to its last answer),
  the latency of each request (from writing it to reading the whole answer: p50, p90, p99, max), errors
  (an answer other than 200, or none within `--request-timeout`), and mismatches: answers whose FORM, UPOS,
  HEAD, DEPREL or DEPS columns, or whose being an error (`# error = ...`, a sentence too long for the
  model), differ from `allennlp predict`'s output for the same sentence; and the model's batched calls
  (`batches` of `/health`, which also counts a batch whose sentences were all too long), so the mean
  sentences per call.
* Then the service is stopped with SIGTERM, and it must exit by itself (uvicorn's graceful shutdown:
  the exit status is SIGTERM's, raised again) with "parser service stopped" and no traceback in its log.

The clients run in this process, on the same machine as the service: on few cores they take some of its CPU
(little: the bodies are prepared and the answers compared outside the timed levels). The service logs each
request (uvicorn's access log) to a file in the work folder, as it does by default.

Writes results/benchmarks/serve_load.json (`--out`): the settings, predict's speed, each level with its ratio
to predict's sentences per second after start-up, the issue's "done when" checks (concurrency 32 at least
0.8 of predict's speed, p99 latency at concurrency 8 under 1 s, no errors, no mismatches), and where it ran
(commit, machine, torch threads: `--threads`, for the service and predict alike). Run it on a quiet machine.
Exits with 1 when a request failed, an answer differed or the service did not stop by itself.
"""
import argparse
import asyncio
import copy
import json
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import h11

from seqgraph_allennlp.common.conllu import ConlluSentence, parse_string, read_sentences
from seqgraph_allennlp.serving.worker import DEFAULT_BATCH_SIZE, DEFAULT_MAX_WAIT_MS
from seqgraph_experiments import ROOT, commands, markdown
from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.benchmarks import RUNS
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_experiments.results import BENCHMARKS, write_json

RESULT = BENCHMARKS / "serve_load.json"
WORK = RUNS / "serve_load"
DEFAULT_CONLLU = "data/UD_English-EWT/en_ewt-ud-test.conllu"
HOST = "127.0.0.1"
PARSE_TARGET = "/parse?format=conllu"
CONLLU_TYPE = "text/x-conllu"
# the columns compared with allennlp predict's output, and whether the sentence is an error
COMPARED = ("forms", "upos", "heads", "deprels", "deps", "error")
# examples of errors and mismatches kept in the JSON (all are counted)
KEPT_EXAMPLES = 5
# the "done when"
MIN_RATIO_AT_32 = 0.8
MAX_P99_AT_8_SECONDS = 1.0


# The sentences and allennlp predict's answers


def sentence_block(sentence: ConlluSentence) -> str:
    """A sentence's CoNLL-U lines as read (comments, ranges, empty nodes), with its blank line."""
    return "\n".join(sentence.lines) + "\n\n"


def load_sentences(conllu: str, requests: int) -> Tuple[List[str], int]:
    """The CoNLL-U blocks of the first `requests` sentences of the file (cycled), and its sentence count."""
    blocks = [sentence_block(sentence) for sentence in read_sentences(conllu)]
    if not blocks:
        raise SystemExit(f"no sentences in {conllu}")
    return [blocks[index % len(blocks)] for index in range(requests)], len(blocks)


def fields(sentence: ConlluSentence) -> Dict[str, Any]:
    """What an answer is compared on: the columns of its words, and whether it is an error."""
    return {
        "forms": sentence.forms,
        "upos": sentence.upos,
        "heads": sentence.heads,
        "deprels": sentence.deprels,
        "deps": [word.deps for word in sentence.words],
        "error": "error" in sentence.metadata,
    }


def read_references(predicted: Path) -> List[Dict[str, Any]]:
    """allennlp predict's output, one `fields` per sentence."""
    return [fields(sentence) for sentence in read_sentences(str(predicted))]


def mutate_reference(references: List[Dict[str, Any]], index: int, word: int = 0) -> List[Dict[str, Any]]:
    """
    A copy of `references` with one HEAD of sentence `index` changed (its `word`): a reference that the
    service's answers cannot match, to check that a difference is counted.
    """
    changed = copy.deepcopy(references)
    heads = changed[index]["heads"]
    heads[word] = 1 if heads[word] is None else heads[word] + 1
    return changed


def compare_answer(body: bytes, reference: Dict[str, Any]) -> Optional[str]:
    """None when the CoNLL-U answer has `reference`'s fields, else what differs first."""
    try:
        sentences = parse_string(body.decode("utf-8"), "<answer>")
    except Exception as error:  # not UTF-8, not CoNLL-U
        return f"unreadable answer: {' '.join(str(error).split())}"
    if len(sentences) != 1:
        return f"{len(sentences)} sentences in the answer, not 1"
    answer = fields(sentences[0])
    for key in COMPARED:
        if answer[key] != reference[key]:
            return f"{key}: service {_short(answer[key])}, allennlp predict {_short(reference[key])}"
    return None


def _short(value: Any, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def count_mismatches(answers: Sequence[Optional[bytes]], references: Sequence[Dict[str, Any]]) -> Tuple[int, List[str]]:
    """
    The answered requests (`answers[i]` the body of request i's 200 answer, None for an error or a request
    not sent) whose answer differs from the reference of their sentence, and the first few differences.
    """
    count, examples = 0, []
    for index, body in enumerate(answers):
        if body is None:
            continue
        difference = compare_answer(body, references[index])
        if difference is not None:
            count += 1
            if len(examples) < KEPT_EXAMPLES:
                examples.append(f"request {index}: {difference}")
    return count, examples


def thread_environment(threads: int) -> Dict[str, str]:
    """This process's environment with the torch threads (OpenMP, MKL) set to `threads`."""
    return {**os.environ, "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}


def run_predict(model: str, blocks: Sequence[str], work: Path, batch_size: int, threads: int, repeats: int,
                warmup: bool, timeout: float) -> Tuple[Dict[str, Any], Path]:
    """
    `allennlp predict` of the sentences (a new process each time) and of the first alone; the output of the
    full run is returned for the comparison.
    """
    full_input, one_input = work / "sentences.conllu", work / "one_sentence.conllu"
    full_input.write_text("".join(blocks), encoding="utf-8")
    one_input.write_text(blocks[0], encoding="utf-8")
    full_output, one_output = work / "predicted.conllu", work / "one_sentence.predicted.conllu"
    environment = thread_environment(threads)

    def command(input_path: Path, output_path: Path) -> List[str]:
        return commands.predict_conllu(model, str(input_path), str(output_path), batch_size=batch_size)

    def timed(input_path: Path, output_path: Path) -> float:
        start = time.perf_counter()
        try:
            result = subprocess.run(command(input_path, output_path), cwd=ROOT, env=environment,
                                    capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise SystemExit(f"allennlp predict ran past --predict-timeout ({timeout:g} s) on {input_path}")
        if result.returncode != 0:
            raise SystemExit(f"allennlp predict failed on {input_path}:\n{result.stderr[-3000:]}")
        return time.perf_counter() - start

    if warmup:
        timed(one_input, one_output)  # fills the file cache; not kept
    startups, runs = [], []
    for _ in range(repeats):
        startups.append(timed(one_input, one_output))
        runs.append(timed(full_input, full_output))
    startup, seconds = statistics.median(startups), statistics.median(runs)
    parsing = seconds - startup
    sentences = len(blocks)
    return {
        "command": shlex.join(["allennlp", *command(full_input, full_output)[1:]]),
        "sentences": sentences,
        "seconds": seconds,
        "startup_seconds": startup,
        "sentences_per_second": sentences / seconds,
        # None where the run was not longer than the start-up (a handful of sentences)
        "sentences_per_second_after_startup": sentences / parsing if parsing > 0 else None,
        "repeats": repeats,
        "warmup_run": warmup,
        "all_seconds": runs,
        "all_startup_seconds": startups,
    }, full_output


# The service


class Service:
    """`python -m seqgraph_allennlp.serve MODEL` on a free loopback port, its log in a file."""

    def __init__(self, model: str, log_path: Path, threads: int, batch_size: int, max_wait_ms: float) -> None:
        self.command = [sys.executable, "-m", "seqgraph_allennlp.serve", model, "--host", HOST, "--port", "0",
                        "--batch-size", str(batch_size), "--max-wait-ms", f"{max_wait_ms:g}"]
        self.log_path = log_path
        self.threads = threads
        self.process: Optional[subprocess.Popen] = None
        self.port: Optional[int] = None
        self.startup_seconds: Optional[float] = None

    def start(self, timeout: float) -> None:
        start = time.perf_counter()
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(self.command, cwd=ROOT, env=thread_environment(self.threads),
                                            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        while True:
            found = re.search(r"Uvicorn running on http://127\.0\.0\.1:(\d+)", self.log())
            if found:
                self.port = int(found.group(1))
                break
            if self.process.poll() is not None:
                raise SystemExit(f"the service exited with {self.process.returncode}:\n{self.log()[-3000:]}")
            if time.perf_counter() - start > timeout:
                self.kill()
                raise SystemExit(f"the service was not ready within {timeout:g} s:\n{self.log()[-3000:]}")
            time.sleep(0.1)
        self.startup_seconds = time.perf_counter() - start

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def stop(self, timeout: float = 60.0) -> Dict[str, Any]:
        """SIGTERM, then what its exit says: graceful when it stopped by itself, cleanly."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            returncode = self.process.wait(timeout=timeout)
            exited = True
        except subprocess.TimeoutExpired:
            self.kill()
            returncode, exited = self.process.returncode, False
        log = self.log()
        graceful = (exited and returncode in (0, -signal.SIGTERM) and "parser service stopped" in log
                    and "Traceback" not in log)
        result = {"signal": "SIGTERM", "exited_by_itself": exited, "returncode": returncode, "graceful": graceful}
        if not graceful:
            result["log_tail"] = log[-3000:]
        return result

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


class Client:
    """One keep-alive HTTP/1.1 connection (asyncio streams, h11), reopened after an error."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: Optional[asyncio.StreamReader] = None
        self.writer: Optional[asyncio.StreamWriter] = None
        self.connection: Optional[h11.Connection] = None

    async def connect(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.connection = h11.Connection(h11.CLIENT)

    async def close(self) -> None:
        writer, self.reader, self.writer, self.connection = self.writer, None, None, None
        if writer is not None:
            writer.close()
            try:
                await writer.wait_closed()
            except (ConnectionError, OSError):
                pass

    async def request(self, method: str, target: str, body: bytes = b"",
                      content_type: Optional[str] = None) -> Tuple[int, bytes]:
        """The answer's status and body."""
        if self.connection is None:
            await self.connect()
        assert self.connection is not None and self.reader is not None and self.writer is not None
        headers = [("Host", f"{self.host}:{self.port}"), ("Content-Length", str(len(body)))]
        if content_type is not None:
            headers.append(("Content-Type", content_type))
        data = self.connection.send(h11.Request(method=method, target=target, headers=headers))
        data += self.connection.send(h11.Data(data=body)) if body else b""
        data += self.connection.send(h11.EndOfMessage())
        self.writer.write(data)
        await self.writer.drain()
        status, chunks = None, []
        while True:
            event = self.connection.next_event()
            if event is h11.NEED_DATA:
                self.connection.receive_data(await self.reader.read(1 << 16))
            elif isinstance(event, h11.Response):
                status = event.status_code
            elif isinstance(event, h11.Data):
                chunks.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                break
            elif isinstance(event, h11.ConnectionClosed):
                raise ConnectionError("the service closed the connection before answering")
        if self.connection.our_state is h11.DONE and self.connection.their_state is h11.DONE:
            self.connection.start_next_cycle()
        else:  # the service closes this connection: a new one next time
            await self.close()
        assert status is not None
        return status, b"".join(chunks)



async def health(port: int) -> Dict[str, Any]:
    """The service's counters (`GET /health`), on a connection of its own: uvicorn closes one left idle for 5 s."""
    client = Client(HOST, port)
    try:
        status, body = await client.request("GET", "/health")
    finally:
        await client.close()
    if status != 200:
        raise RuntimeError(f"/health answered {status}: {body[:300]!r}")
    return json.loads(body)


def percentile(values: Sequence[float], q: float) -> Optional[float]:
    """The `q`-th percentile (0..100), interpolated linearly between the closest ranks (numpy's default)."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100.0
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


async def run_level(port: int, bodies: Sequence[bytes], concurrency: int, max_seconds: float,
                    request_timeout: float) -> Tuple[Dict[str, Any], List[Optional[bytes]]]:
    """
    Sends every body once from `concurrency` clients (each its next once answered), until all are sent or
    `max_seconds` have passed; the level's numbers (without the comparison) and the 200 answers' bodies.
    """
    count = len(bodies)
    latencies: List[Optional[float]] = [None] * count
    statuses: List[Optional[int]] = [None] * count
    answers: List[Optional[bytes]] = [None] * count
    failures: List[str] = []
    clients = [Client(HOST, port) for _ in range(concurrency)]
    await asyncio.gather(*(client.connect() for client in clients))
    state = {"next": 0, "stopped_early": False}
    start = time.perf_counter()
    deadline = start + max_seconds
    last_answer = start

    async def send(client: Client) -> None:
        nonlocal last_answer
        while state["next"] < count:
            if time.perf_counter() >= deadline:
                state["stopped_early"] = True
                return
            index = state["next"]
            state["next"] += 1
            sent = time.perf_counter()
            try:
                status, body = await asyncio.wait_for(
                    client.request("POST", PARSE_TARGET, bodies[index], CONLLU_TYPE), request_timeout
                )
            except Exception as error:  # no answer: a timeout, a closed connection
                status, body = None, b""
                failures.append(f"request {index}: {type(error).__name__}: {' '.join(str(error).split())}")
                await client.close()
            now = time.perf_counter()
            last_answer = max(last_answer, now)
            latencies[index], statuses[index] = now - sent, status
            if status == 200:
                answers[index] = body
            elif status is not None:
                failures.append(f"request {index}: status {status}: {body[:300].decode('utf-8', 'replace')}")

    try:
        await asyncio.gather(*(send(client) for client in clients))
    finally:
        await asyncio.gather(*(client.close() for client in clients))
    wall = last_answer - start
    sent_latencies = [latency for latency in latencies if latency is not None]
    answered = sum(1 for status in statuses if status == 200)
    sent = sum(1 for latency in latencies if latency is not None)
    level = {
        "concurrency": concurrency,
        "requests_planned": count,
        "requests_sent": sent,
        "answered_200": answered,
        "errors": sent - answered,
        "error_examples": failures[:KEPT_EXAMPLES],
        "stopped_early": state["stopped_early"],
        "wall_seconds": wall,
        "sentences_per_second": answered / wall if wall > 0 else None,
        # seconds, over every request sent (errors included)
        "latency_seconds": {
            "p50": percentile(sent_latencies, 50),
            "p90": percentile(sent_latencies, 90),
            "p99": percentile(sent_latencies, 99),
            "max": max(sent_latencies) if sent_latencies else None,
            "mean": statistics.fmean(sent_latencies) if sent_latencies else None,
        },
    }
    return level, answers


async def run_service_levels(
    port: int, blocks: Sequence[str], levels: Sequence[int], max_seconds: float, request_timeout: float, warmup: int
) -> Tuple[List[Dict[str, Any]], Dict[int, List[Optional[bytes]]]]:
    """The warm-up requests, then each level in turn, with the model's calls counted by `/health`."""
    bodies = [block.encode("utf-8") for block in blocks]
    warming = Client(HOST, port)
    try:
        for index in range(warmup):  # not counted: the first calls of the model are slower
            status, body = await warming.request("POST", PARSE_TARGET, bodies[index % len(bodies)], CONLLU_TYPE)
            if status != 200:
                raise SystemExit(f"a warm-up request was answered {status}: {body[:300]!r}")
    finally:
        await warming.close()
    results, answers = [], {}
    for concurrency in levels:
        before = await health(port)
        level, level_answers = await run_level(port, bodies, concurrency, max_seconds, request_timeout)
        after = await health(port)
        calls = after["batches"] - before["batches"]
        sentences = after["sentences"] - before["sentences"]
        level["model_calls"] = calls
        level["sentences_per_model_call"] = sentences / calls if calls else None
        results.append(level)
        answers[concurrency] = level_answers
    return results, answers


# The benchmark


def parse_arguments(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="benchmarks/serve_load.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, metavar="ARCHIVE", help="a trained model archive (model.tar.gz)")
    parser.add_argument("--conllu", default=DEFAULT_CONLLU, metavar="FILE",
                        help="the sentences, in file order (default: %(default)s)")
    parser.add_argument("--requests", type=int, default=5000, metavar="N",
                        help="sentences per level, one per request, the file cycled when shorter (default: %(default)s)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32], metavar="C",
                        help="clients sending at once, one level each (default: 1 8 32)")
    parser.add_argument("--max-seconds", type=float, default=600.0,
                        help="per level: no request is sent after this (default: %(default)s)")
    parser.add_argument("--threads", type=int, default=2,
                        help="torch threads (OMP_NUM_THREADS, MKL_NUM_THREADS) of the service and of allennlp "
                        "predict (default: %(default)s)")
    parser.add_argument("--batch-size", type=int, default=64, help="allennlp predict's --batch-size (default: %(default)s)")
    parser.add_argument("--service-batch-size", type=int, default=DEFAULT_BATCH_SIZE,
                        help="the service's --batch-size (default: %(default)s, its own default)")
    parser.add_argument("--max-wait-ms", type=float, default=DEFAULT_MAX_WAIT_MS,
                        help="the service's --max-wait-ms (default: %(default)s, its own default)")
    parser.add_argument("--warmup", type=int, default=16,
                        help="requests sent one by one before the levels, not counted (default: %(default)s)")
    parser.add_argument("--request-timeout", type=float, default=60.0,
                        help="seconds a request may wait for its answer, else it is an error (default: %(default)s)")
    parser.add_argument("--start-timeout", type=float, default=300.0,
                        help="seconds the service may take to be ready (default: %(default)s)")
    parser.add_argument("--predict-repeats", type=int, default=1,
                        help="runs of each allennlp predict command, alternating; medians are kept (default: %(default)s)")
    parser.add_argument("--predict-warmup", action=argparse.BooleanOptionalAction, default=True,
                        help="a first one-sentence allennlp predict run, not kept, to fill the file cache (default: on)")
    parser.add_argument("--predict-timeout", type=float, default=3600.0,
                        help="seconds each allennlp predict run may take (default: %(default)s)")
    parser.add_argument("--work-dir", default=str(WORK),
                        help="the sentence files, predict's outputs and the service's log (default: %(default)s)")
    parser.add_argument("--out", "--output", dest="out", default=str(RESULT),
                        help="the results JSON (default: %(default)s)")
    args = parser.parse_args(argv)
    # the command line recorded in the JSON (`stamp` reads sys.argv, which a caller of main(argv) does not set)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    refuse_missing_files(parser, [args.model, args.conllu])
    for name in ("requests", "threads", "batch_size", "service_batch_size", "predict_repeats"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if any(level < 1 for level in args.concurrency):
        parser.error("--concurrency levels must be at least 1")
    if args.warmup < 0 or args.max_seconds < 0 or args.max_wait_ms < 0:
        parser.error("--warmup, --max-seconds and --max-wait-ms must be at least 0")
    return args


def run_benchmark(args: argparse.Namespace) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """
    The results JSON, and what the comparison read: `references` (allennlp predict's `fields` per
    request) and `answers` (per level, the body of each request's 200 answer, None for the others).
    """
    # the stamp's `machine.threads` is this process's OMP_NUM_THREADS: the threads given to both
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    work = Path(args.work_dir)
    work.mkdir(parents=True, exist_ok=True)
    blocks, file_sentences = load_sentences(args.conllu, args.requests)

    predict, predicted = run_predict(args.model, blocks, work, args.batch_size, args.threads,
                                     args.predict_repeats, args.predict_warmup, args.predict_timeout)
    references = read_references(predicted)
    if len(references) != len(blocks):
        raise SystemExit(f"allennlp predict wrote {len(references)} sentences for {len(blocks)}: {predicted}")

    service = Service(args.model, work / "service.log", args.threads, args.service_batch_size, args.max_wait_ms)
    try:
        service.start(args.start_timeout)
        assert service.port is not None
        levels, answers = asyncio.run(run_service_levels(
            service.port, blocks, args.concurrency, args.max_seconds, args.request_timeout, args.warmup
        ))
        exit_state = service.stop()
    finally:
        service.kill()

    reference_rate = predict["sentences_per_second_after_startup"]
    for level in levels:
        level["mismatches"], level["mismatch_examples"] = count_mismatches(answers[level["concurrency"]], references)
        rate = level["sentences_per_second"]
        level["ratio_to_predict_after_startup"] = rate / reference_rate if rate and reference_rate else None

    result = {
        "benchmark": "serve_load",
        "measures": "the parser service (python -m seqgraph_allennlp.serve) under single-sentence requests on "
                    "loopback, at each concurrency level, against allennlp predict on the same sentences",
        "model": args.model,
        "model_sha256": sha256(Path(args.model)),
        "conllu": args.conllu,
        "conllu_sha256": sha256(Path(args.conllu)),
        "settings": {
            "requests": args.requests,
            "sentences_in_file": file_sentences,
            "file_cycled": args.requests > file_sentences,
            "concurrency": list(args.concurrency),
            "max_seconds_per_level": args.max_seconds,
            "threads": args.threads,
            "predict_batch_size": args.batch_size,
            "service_batch_size": args.service_batch_size,
            "service_max_wait_ms": args.max_wait_ms,
            "warmup_requests": args.warmup,
            "request_timeout_seconds": args.request_timeout,
            "request": f"POST {PARSE_TARGET}, Content-Type {CONLLU_TYPE}, one sentence's CoNLL-U lines; "
                       "each client one keep-alive connection (asyncio, h11), in this process",
            "compared": "FORM, UPOS, HEAD, DEPREL and DEPS of every word, and whether the sentence is an error, "
                        "against allennlp predict's CoNLL-U output for the same sentence",
        },
        "predict": predict,
        "service": {"command": shlex.join(["python", *service.command[1:]]), "startup_seconds": service.startup_seconds,
                    "stop": exit_state},
        "levels": levels,
        "done_when": done_when(levels, exit_state),
        **stamp("benchmarks/serve_load.py"),
        "command": f"benchmarks/serve_load.py {shlex.join(args.argv)}",
    }
    return result, {"references": references, "answers": answers}


def done_when(levels: Sequence[Dict[str, Any]], exit_state: Dict[str, Any]) -> Dict[str, Any]:
    """The issue's checks; None where a level was not run (or predict's speed after start-up is unknown)."""
    by_level = {level["concurrency"]: level for level in levels}
    ratio = by_level[32]["ratio_to_predict_after_startup"] if 32 in by_level else None
    p99 = by_level[8]["latency_seconds"]["p99"] if 8 in by_level else None
    checks = {
        f"ratio_at_concurrency_32_at_least_{MIN_RATIO_AT_32}": None if ratio is None else ratio >= MIN_RATIO_AT_32,
        f"p99_latency_at_concurrency_8_under_{MAX_P99_AT_8_SECONDS:g}_s":
            None if p99 is None else p99 < MAX_P99_AT_8_SECONDS,
        "no_errors": all(level["errors"] == 0 for level in levels),
        "no_mismatches": all(level["mismatches"] == 0 for level in levels),
        "every_request_sent": not any(level["stopped_early"] for level in levels),
        "service_stopped_by_itself": exit_state["graceful"],
    }
    checks["met"] = all(value is True for value in checks.values())
    return checks


def summary(result: Dict[str, Any]) -> List[str]:
    predict = result["predict"]
    after = predict["sentences_per_second_after_startup"]
    lines = [
        f"allennlp predict: {predict['sentences']} sentences in {predict['seconds']:.1f} s, start-up "
        f"{predict['startup_seconds']:.1f} s: " + (f"{after:.1f} sentences/s after start-up" if after else
                                                    "no time left after start-up"),
        "",
    ]

    def number(value, form="{:.1f}"):
        return "-" if value is None else form.format(value)

    lines += markdown.table(
        ["concurrency", "sent", "sentences/s", "ratio to predict", "p50 (ms)", "p99 (ms)", "max (ms)", "errors",
         "mismatches", "sentences per model call", "stopped early"],
        ([str(level["concurrency"]), str(level["requests_sent"]), number(level["sentences_per_second"]),
          number(level["ratio_to_predict_after_startup"], "{:.2f}"),
          *(number(None if level["latency_seconds"][key] is None else 1000 * level["latency_seconds"][key])
            for key in ("p50", "p99", "max")),
          str(level["errors"]), str(level["mismatches"]), number(level["sentences_per_model_call"]),
          "yes" if level["stopped_early"] else "no"] for level in result["levels"]),
    )
    stop = result["service"]["stop"]
    lines += ["", f"service stop: {'graceful' if stop['graceful'] else 'NOT graceful'} "
                  f"(exit status {stop['returncode']})",
              "done when: " + ", ".join(f"{key}={value}" for key, value in result["done_when"].items())]
    return lines


def main(argv: Optional[Sequence[str]] = None) -> None:
    args = parse_arguments(argv)
    result, _ = run_benchmark(args)
    print("\n".join(summary(result)))
    print(f"wrote {write_json(Path(args.out), result)}")
    failed = (any(level["errors"] or level["mismatches"] for level in result["levels"])
              or not result["service"]["stop"]["graceful"])
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
