"""
What AllenNLP's command line gets from `--include-package seqgraph_allennlp`, and only there: defaults for
the variables that the shipped jsonnet configs read (`seqgraph_allennlp.common.environment`), and the hook
that prints errors in the user's input as one line (`seqgraph_allennlp.common.errors`).

Importing the package changes nothing else in the importing process (its environment, `sys.excepthook`):
a program that imports it among other libraries keeps its own settings. A Python program that wants the
command line's behaviour (e.g. to read a shipped config with `Params.from_file`) calls
`seqgraph_allennlp.configure_command_line()` itself.
"""
import sys

from seqgraph_allennlp.common.environment import set_default_environment
from seqgraph_allennlp.common.errors import install_error_hook


def running_allennlp_command_line() -> bool:
    """
    Whether this process is AllenNLP's command line: the `allennlp` console script imports
    `allennlp.__main__` (which nothing else in AllenNLP imports), and `python -m allennlp` runs it as
    `__main__`.
    """
    if "allennlp.__main__" in sys.modules:
        return True
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return getattr(spec, "name", None) == "allennlp.__main__"


def configure_command_line() -> None:
    """
    Gives this process what `allennlp ... --include-package seqgraph_allennlp` gets: sets each variable of
    the shipped configs that the environment lacks to its default (data paths, `ENCODER`, the pretrained
    models' locations), and installs the hook that prints user errors (`SeqGraphError`, a config's
    `assert`) as one `error: ...` line instead of a traceback. Calling it again changes nothing.
    """
    set_default_environment()
    install_error_hook()
