"""
What AllenNLP's command line gets from `--include-package seqgraph_allennlp`, and only there: defaults for
the variables that the shipped jsonnet configs read (`seqgraph_allennlp.common.environment`), the hook
that prints errors in the user's input as one line (`seqgraph_allennlp.common.errors`), and an `allennlp
evaluate` that refuses a sentence without its gold tree (`evaluate_with_gold`).

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
    models' locations), installs the hook that prints user errors (`SeqGraphError`, a config's
    `assert`) as one `error: ...` line instead of a traceback, and makes `allennlp evaluate` read with
    `require_gold` (`evaluate_with_gold`). Calling it again changes nothing.
    """
    set_default_environment()
    install_error_hook()
    evaluate_with_gold()


def evaluate_with_gold() -> None:
    """
    Makes `allennlp evaluate` read its files with the `seqgraph_ud` reader's `require_gold`: a sentence
    without its gold tree is then a one-line `ConlluError` naming its file and line. Without it, AllenNLP
    evaluates raw text (`_` heads) to UAS 0.00 and exits 0, and fails with a traceback about
    "non-homogeneous Instances" where such a sentence shares a batch with annotated ones. `allennlp
    predict` reads with the same reader, which accepts raw text there.

    AllenNLP builds the evaluation reader inside `evaluate_from_archive`, from the archive that
    `allennlp.commands.evaluate.load_archive` loads: that name is wrapped (in that module only, so `predict`
    and Python callers of `load_archive` are untouched) to turn `require_gold` on for the loaded reader.
    """
    from allennlp.commands import evaluate

    load = evaluate.load_archive
    if getattr(load, "_seqgraph", False):
        return

    def load_archive(*args, **kwargs):
        # imported here: this module runs while the package is still being imported
        from seqgraph_allennlp.dataset_readers import SeqGraphUDReader

        archive = load(*args, **kwargs)
        if isinstance(archive.validation_dataset_reader, SeqGraphUDReader):
            archive.validation_dataset_reader.require_gold = True
        return archive

    load_archive._seqgraph = True  # type: ignore[attr-defined]
    evaluate.load_archive = load_archive
