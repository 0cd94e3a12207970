"""
The HTTP side of the parser service: the Starlette app (`ParserService.app`) around the batching worker, its
routes (`/`, `/health`, `/parse`, `/view`), a body read up to `max_body_bytes`, and every error answered as
JSON, `{"error": "..."}`, the service going on.
"""
import contextlib
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, Optional

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from seqgraph_allennlp.serving.messages import (
    CONLLU_FORMAT,
    CONLLU_TYPE,
    ServiceError,
    internal_error,
    output_format,
    read_input,
    without_conllu,
)
from seqgraph_allennlp.serving.page import page
from seqgraph_allennlp.serving.worker import DEFAULT_BATCH_SIZE, DEFAULT_MAX_WAIT_MS, ParserWorker

# the service's one log, under the name of the command that runs it
logger = logging.getLogger("seqgraph_allennlp.serve")

DEFAULT_MAX_BODY_BYTES = 1 << 20


class ParserService(ParserWorker):
    """
    The service around a loaded model: the batching worker (`ParserWorker`), the counters and the Starlette
    app (`app`), whose lifespan starts and stops the worker.

    # Parameters

    model, dataset_reader, name, batch_size, max_wait_ms, model_thread :
        As `ParserWorker`'s.
    max_body_bytes : `int`, optional (default = `1048576`)
        A larger body is refused with 413.
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
        super().__init__(model, dataset_reader, name, batch_size, max_wait_ms, model_thread)
        if not isinstance(max_body_bytes, int) or max_body_bytes < 1:
            raise ValueError(f"max_body_bytes must be a positive integer, got {max_body_bytes!r}")
        self.max_body_bytes = max_body_bytes
        self.app = self._build_app()

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

        async def unexpected_error(request, error: Exception):
            return _json_error(500, "internal error of the parser service (its log says more)")

        return Starlette(
            routes=[
                Route("/", self._page, methods=["GET"]),
                Route("/health", self._health, methods=["GET"]),
                Route("/parse", self._parse_endpoint, methods=["POST"]),
                Route("/view", self._view_endpoint, methods=["POST"]),
            ],
            lifespan=lifespan,
            exception_handlers={HTTPException: http_error, Exception: unexpected_error},
        )

    async def _page(self, request):
        return HTMLResponse(page(self.name))

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
            answer_format = output_format(request)
            parse_input = read_input(request, await self._body(request))
            outputs = await self.parse(parse_input)
        except ServiceError as error:
            return _json_error(error.status, error.message)
        except Exception as error:  # answered, logged, and the service goes on
            logger.exception("a /parse request failed")
            return _json_error(500, internal_error(error).message)
        if answer_format == CONLLU_FORMAT:
            text = "".join(self.predictor.dump_line(output) for output in outputs)
            return Response(text, media_type=CONLLU_TYPE + "; charset=utf-8")
        answers = [without_conllu(output) for output in outputs]
        return JSONResponse(answers[0] if parse_input.single else answers)

    async def _view_endpoint(self, request):
        try:
            sentences = await self.view(read_input(request, await self._body(request)))
        except ServiceError as error:
            return _json_error(error.status, error.message)
        except Exception as error:
            logger.exception("a /view request failed")
            return _json_error(500, internal_error(error).message)
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


def _json_error(status: int, message: str, headers: Optional[Dict[str, str]] = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)
