"""
What AllenNLP's command line gets from `--include-package seqgraph_allennlp`, and only there: defaults for
the variables that the shipped jsonnet configs read (`seqgraph_allennlp.common.environment`), the hook
that prints errors in the user's input as one line (`seqgraph_allennlp.common.errors`), an `allennlp
evaluate` that refuses a sentence without its gold tree (`evaluate_with_gold`), and a quicker exit
(`exit_without_final_collections`).

Importing the package changes nothing else in the importing process (its environment, `sys.excepthook`):
a program that imports it among other libraries keeps its own settings. A Python program that wants the
command line's behaviour (e.g. to read a shipped config with `Params.from_file`) calls
`seqgraph_allennlp.configure_command_line()` itself.
"""
import atexit
import gc
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
    `assert`) as one `error: ...` line instead of a traceback, makes `allennlp evaluate` read with
    `require_gold` (`evaluate_with_gold`) and the process's exit quicker (`exit_without_final_collections`).
    Calling it again changes nothing.
    """
    set_default_environment()
    install_error_hook()
    evaluate_with_gold()
    exit_without_final_collections()


_freezes_at_exit = False


def _freeze_before_finalization() -> None:
    gc.freeze()


def exit_without_final_collections() -> None:
    """
    At exit, freezes every object still alive (`gc.freeze`, from an `atexit` handler) so that the
    interpreter's finalization does not walk them in its last garbage collections. After AllenNLP's
    imports about half a million objects are alive, and those collections took about 1.2 s of every
    command's exit on two cores (the whole exit 1.5 s, 0.3 s frozen). What the process had to do is done
    by then (the atexit handlers still run, files are closed as their last reference goes); only cyclic
    garbage left at exit is not collected, whose memory the operating system takes back, and whose
    finalizers Python does not promise to run at exit anyway.
    """
    global _freezes_at_exit
    if not _freezes_at_exit:
        atexit.register(_freeze_before_finalization)
        _freezes_at_exit = True


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
