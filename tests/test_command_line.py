"""
Importing the package changes nothing in the importer's process; AllenNLP's command line (recognised by
itself) and `configure_command_line()` get the configs' defaults and the one-line errors.
"""
import importlib.machinery
import subprocess
import sys
import types
from pathlib import Path

from seqgraph_allennlp.common.command_line import running_allennlp_command_line

from test_cli_errors import user_environment

ROOT = Path(__file__).resolve().parents[1]

# run in a fresh interpreter: the tests' own process has imported the package and has conftest's defaults
PROGRAM = """
import atexit, gc, os, sys
# registered first, so run last: after the package's own exit handler
atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count() > 0))
from allennlp.commands import evaluate
from allennlp.common import logging as common_logging

hook, prepare, load_archive = sys.excepthook, common_logging.prepare_global_logging, evaluate.load_archive
os.environ["ENCODER"] = "stacked"  # the user's own setting
before = dict(os.environ)
handlers = atexit._ncallbacks()
import seqgraph_allennlp
assert atexit._ncallbacks() == handlers
changed = sorted(set(os.environ.items()) ^ set(before.items()))
assert not changed, changed
assert sys.excepthook is hook and common_logging.prepare_global_logging is prepare
assert evaluate.load_archive is load_archive
print("import: unchanged")

seqgraph_allennlp.configure_command_line()
assert os.environ["TRAIN_DATA_PATH"] == "data/UD_English-EWT/en_ewt-ud-train.conllu"
assert os.environ["ENCODER"] == "stacked"
# the shipped configs read their models with local_files_only: Hugging Face stays online for the others
assert "HF_HUB_OFFLINE" not in os.environ and "TRANSFORMERS_OFFLINE" not in os.environ
assert sys.excepthook is not hook
# allennlp evaluate reads with the reader's require_gold; configuring again wraps nothing twice
assert evaluate.load_archive is not load_archive
wrapped, handlers = evaluate.load_archive, atexit._ncallbacks()
seqgraph_allennlp.configure_command_line()
assert evaluate.load_archive is wrapped and atexit._ncallbacks() == handlers
print("configured")
from seqgraph_allennlp.common.conllu import ConlluError
raise ConlluError("in.conllu", 3, "a user error")
"""


def test_importing_leaves_the_process_as_it_was_and_configure_command_line_sets_it_up():
    result = subprocess.run(
        [sys.executable, "-c", PROGRAM], cwd=ROOT, capture_output=True, text=True, timeout=300,
        env=user_environment(),
    )
    # the objects alive at exit are frozen (exit_without_final_collections), and the exit status is kept
    assert result.stdout.splitlines() == ["import: unchanged", "configured", "frozen at exit: True"], result.stderr[-3000:]
    # the hook that configure_command_line installed: one line, status 1
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert [line for line in result.stderr.splitlines() if line.startswith("error: ")] == [
        "error: in.conllu:3: a user error"
    ]


def test_the_command_line_is_recognised_as_a_script_and_as_a_module(monkeypatch):
    # pytest is not AllenNLP's command line
    assert not running_allennlp_command_line()
    # the `allennlp` console script imports allennlp.__main__
    monkeypatch.setitem(sys.modules, "allennlp.__main__", types.ModuleType("allennlp.__main__"))
    assert running_allennlp_command_line()
    monkeypatch.delitem(sys.modules, "allennlp.__main__")
    # `python -m allennlp` runs allennlp/__main__.py as __main__
    main = types.ModuleType("__main__")
    main.__spec__ = importlib.machinery.ModuleSpec("allennlp.__main__", None)
    monkeypatch.setitem(sys.modules, "__main__", main)
    assert running_allennlp_command_line()
