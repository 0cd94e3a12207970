"""
What goes in and out of the parser service: a request's input, read from its body by its `Content-Type`
(`ParseInput`, `read_input`), the format of its answer (`output_format`, `without_conllu`), and the error a
request is refused with (`ServiceError`). The worker and the HTTP side both speak these; neither the web stack
nor the model is imported here.
"""
import json
import re
from typing import Any, NamedTuple

from seqgraph_allennlp.common.errors import SeqGraphError

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


def internal_error(error: BaseException) -> ServiceError:
    """The 500 for an error of the service itself: its type only, the rest is in the log."""
    return ServiceError(500, f"internal error of the parser service: {type(error).__name__} (its log says more)")


def without_conllu(output: Any) -> Any:
    """An output as `allennlp predict` writes JSON: without the CoNLL-U that the service also made."""
    if not isinstance(output, dict):
        return output
    answer = {key: value for key, value in output.items() if key != "conllu"}
    if "sentences" in answer:
        answer["sentences"] = [without_conllu(sentence) for sentence in answer["sentences"]]
    return answer


def media_type(value: str) -> str:
    """A `Content-Type` or `Accept` entry without its parameters, lower-cased."""
    return value.split(";", 1)[0].strip().lower()


def output_format(request) -> str:
    """
    The answer's format for a Starlette `request`: `?format=json|conllu`, else CoNLL-U when `Accept` asks
    for it, else JSON.
    """
    requested = request.query_params.get("format")
    if requested is not None:
        if requested not in (JSON_FORMAT, CONLLU_FORMAT):
            raise ServiceError(422, f'format must be "json" or "conllu", got {requested!r}')
        return requested
    accepted = [media_type(part) for part in request.headers.get("accept", "").split(",")]
    return CONLLU_FORMAT if CONLLU_TYPE in accepted and "application/json" not in accepted else JSON_FORMAT


def read_input(request, body: bytes) -> ParseInput:
    """The body as the predictor's input, by the `request`'s `Content-Type`: CoNLL-U, raw text, else JSON."""
    content_type = media_type(request.headers.get("content-type", ""))
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ServiceError(400, f"the body is not UTF-8 ({error.reason} at byte {error.start})") from None
    if content_type == CONLLU_TYPE:
        return ParseInput(CONLLU, text)
    if content_type == "text/plain":
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
