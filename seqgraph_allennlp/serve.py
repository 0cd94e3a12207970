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

Requests are batched: those that arrive within `max_wait_ms` of each other (`BATCH_WAIT_LIMIT` times that at
most in all, `batch_size` records or sentences at most) are parsed in one run of the model, in the one thread
that loaded it (`serving.worker` says how, and why that thread).

Errors are JSON, `{"error": "..."}`: 400 for a body that is not JSON (or not UTF-8), 422 for input that is
JSON but not records the predictor can read (a wrong type, no words, not an object; CoNLL-U that does not
parse) or an unknown `format`, 413 for a body over `max_body_bytes`, 404 and 405 for other paths and
methods, 500 for an error of the service itself, which goes on serving. A sentence too long for the model
is not an error of the request: its output is `{"error": ...}` (`# error = ...` in CoNLL-U) and the other
sentences are parsed. On SIGINT or SIGTERM the service stops taking connections, answers the requests it
has, then exits.

This module is the command line; the service is in `seqgraph_allennlp.serving` (`messages`: a request's input
and answer, `worker`: the batches in the model's thread, `app`: the HTTP side, `page`: the page at `/`).
"""
import argparse
import logging
import os
import sys
from typing import List, Optional

# The web stack is imported by the service only: the package (`import seqgraph_allennlp`, which `python -m
# seqgraph_allennlp.serve` runs first anyway, registering the model and reader) imports neither this module
# nor `serving`.
import uvicorn
from uvicorn.logging import DefaultFormatter

from seqgraph_allennlp.serving.app import DEFAULT_MAX_BODY_BYTES, ParserService
from seqgraph_allennlp.serving.messages import (
    CONLLU,
    CONLLU_FORMAT,
    CONLLU_TYPE,
    JSON_FORMAT,
    RECORDS,
    ParseInput,
    ServiceError,
)
from seqgraph_allennlp.serving.worker import (
    BATCH_WAIT_LIMIT,
    DEFAULT_BATCH_SIZE,
    DEFAULT_MAX_WAIT_MS,
    model_thread_executor,
)

# the service's names, importable from here as before it was in parts
__all__ = [
    "BATCH_WAIT_LIMIT",
    "CONLLU",
    "CONLLU_FORMAT",
    "CONLLU_TYPE",
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_HOST",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MAX_WAIT_MS",
    "DEFAULT_PORT",
    "EXIT_ERROR",
    "JSON_FORMAT",
    "RECORDS",
    "ParseInput",
    "ParserService",
    "ServiceError",
    "main",
    "model_thread_executor",
]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
EXIT_ERROR = 2


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
