"""
Errors about the user's input, and a hook that prints them as one line instead of a traceback.

`allennlp train`, `evaluate` and `predict` read data deep inside AllenNLP's data loaders, so an error in a
CoNLL-U file would surface as a long traceback through library code. At the start of AllenNLP's command
line (`seqgraph_allennlp.common.command_line`) the package installs a `sys.excepthook` that prints these
errors (and only these) as `error: path:line: problem`; the process still exits with status 1. Set
`SEQGRAPH_TRACEBACK=1` to see the full traceback.

`allennlp train` replaces `sys.excepthook` with its own (which logs every uncaught exception with its
traceback) in `prepare_global_logging`, after the package is imported; that function is wrapped so the
hook is put back in front of AllenNLP's, which still handles every other exception.
"""
import os
import sys
from typing import Tuple, Type


class SeqGraphError(Exception):
    """
    The base of the errors about the user's input (a malformed CoNLL-U file, a sentence too long for the
    model, ...), whose message is one line that says what to fix. Each subclass keeps its own older parent
    too (most are also `ValueError`s), so code that catches those still catches them.
    """


class SentenceTooLongError(SeqGraphError, ValueError):
    """
    A sentence longer than the model's position embeddings (`recurrent_weight.max_sentence_length`).
    """


def user_error_types() -> Tuple[Type[BaseException], ...]:
    """The exceptions that the hook prints as one line."""
    return (SeqGraphError,)


# how the jsonnet library reports an `assert` or `error` in a config: its message is for the user
JSONNET_ERROR = "RUNTIME ERROR: "


def jsonnet_message(text: str) -> str:
    """
    `path:line: message` from jsonnet's `RUNTIME ERROR: message` followed by `\tpath:(line:col)-...` lines.
    """
    lines = text.splitlines()
    message = lines[0][len(JSONNET_ERROR):]
    if len(lines) > 1 and ":(" in lines[1]:
        path, _, position = lines[1].strip().partition(":(")
        return f"{path}:{position.split(':')[0]}: {message}"
    return message


def install_error_hook() -> None:
    """Installs the hook (once, however often it is called), and keeps it in front of AllenNLP's."""
    _chain_hook()
    _keep_hook_after_allennlp_logging()


def _chain_hook() -> None:
    previous_hook = sys.excepthook
    if getattr(previous_hook, "_seqgraph", False):
        return

    def hook(exception_type, exception, traceback):
        if not os.environ.get("SEQGRAPH_TRACEBACK"):
            if issubclass(exception_type, user_error_types()):
                print(f"error: {exception}", file=sys.stderr)
                return
            if issubclass(exception_type, RuntimeError) and str(exception).startswith(JSONNET_ERROR):
                print(f"error: {jsonnet_message(str(exception))}", file=sys.stderr)
                return
        previous_hook(exception_type, exception, traceback)

    hook._seqgraph = True  # type: ignore[attr-defined]
    sys.excepthook = hook


def _keep_hook_after_allennlp_logging() -> None:
    from allennlp.common import logging as common_logging

    prepare = common_logging.prepare_global_logging
    if getattr(prepare, "_seqgraph", False):
        return

    def prepare_global_logging(*args, **kwargs):
        result = prepare(*args, **kwargs)
        _chain_hook()
        return result

    prepare_global_logging._seqgraph = True  # type: ignore[attr-defined]
    common_logging.prepare_global_logging = prepare_global_logging
