"""
`python -m seqgraph_allennlp.plot` and `plot_steps`: one panel per decoding step plus the final tree, and
one-line errors with exit status 2.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "fixtures" / "configs"
SENTENCE = "The cat sat on the mat ."
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _environment():
    # one thread: torch's default of one per core mostly waits on the others for these tiny tensors
    return {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _plot(*arguments, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "seqgraph_allennlp.plot", *map(str, arguments)],
        cwd=ROOT,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="module")
def archive_path(tmp_path_factory):
    from allennlp.commands.train import train_model_from_file

    import seqgraph_allennlp  # noqa: F401

    serialization_dir = tmp_path_factory.mktemp("plot_model") / "model"
    train_model_from_file(
        str(CONFIGS / "coach_valid.jsonnet"),
        str(serialization_dir),
        overrides=json.dumps({"trainer.num_epochs": 1}),
    )
    return serialization_dir / "model.tar.gz"


@pytest.fixture(scope="module")
def archive(archive_path):
    from allennlp.models.archival import load_archive

    return load_archive(str(archive_path))


def _step_axes(figure):
    return [axes for axes in figure.axes if axes.get_label().startswith("step-")]


def test_cli_writes_a_png(archive_path, tmp_path):
    output = tmp_path / "plots" / "steps.png"
    result = _plot(archive_path, "--sentence", SENTENCE, "-o", output)
    assert result.returncode == 0, result.stderr
    data = output.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert len(data) > 20_000


def test_one_panel_per_word_and_a_tree(archive, archive_path, tmp_path):
    from allennlp.models.archival import load_archive

    from seqgraph_allennlp.plot import plot_steps

    words = SENTENCE.split()
    # with tau (0.05 in the recommended config) a step may add several edges: a panel per step
    steps_with_tau = len(_step_axes(plot_steps(archive.model, archive.dataset_reader, words, str(tmp_path / "tau.png"))))
    assert 1 <= steps_with_tau <= len(words)
    # one edge per step: a panel per word
    one_edge = load_archive(str(archive_path), overrides=json.dumps({"model.tau": None}))
    figure = plot_steps(one_edge.model, one_edge.dataset_reader, words, str(tmp_path / "steps.png"))
    panels = _step_axes(figure)
    assert len(panels) == len(words)
    assert [axes.get_label() for axes in figure.axes].count("tree") == 1
    # each panel's heat map covers every head (root included) and every dependent
    for axes in panels:
        (image,) = axes.get_images()
        assert image.get_array().shape == (len(words) + 1, len(words))
    assert panels[0].get_title().startswith("t=1: ")
    assert (tmp_path / "steps.png").stat().st_size > 0


def test_max_steps_caps_the_panels(archive):
    from seqgraph_allennlp.plot import plot_steps

    figure = plot_steps(archive.model, archive.dataset_reader, SENTENCE.split(), None, max_steps=3)
    assert len(_step_axes(figure)) == 3


def test_plot_steps_rejects_an_mst_model(archive):
    from allennlp.common import Params
    from allennlp.models import Model

    from seqgraph_allennlp.plot import PlotError, plot_steps

    # a one-step model that decodes with Chu-Liu-Edmonds (a recurrent one cannot), untrained
    params = Params.from_file(str(CONFIGS / "one_step_mst.jsonnet"))
    model = Model.from_params(vocab=archive.model.vocab, params=params["model"])
    assert model.decoder == "mst"
    with pytest.raises(PlotError, match="mst"):
        plot_steps(model, archive.dataset_reader, SENTENCE.split(), None)


def test_missing_model_is_one_line_with_status_2(tmp_path):
    output = tmp_path / "steps.png"
    result = _plot(tmp_path / "no_such_model.tar.gz", "--sentence", SENTENCE, "-o", output)
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert "model file not found" in result.stderr
    assert "Traceback" not in result.stderr
    assert not output.exists()


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--sentence", "   "], "the sentence is empty"),
        (["--sentence", SENTENCE, "--max-steps", "0"], "--max-steps must be at least 1"),
    ],
    ids=["empty sentence", "no steps"],
)
def test_argument_errors_are_one_line(tmp_path, capsys, arguments, message):
    # in process: the command line is this `main` (its exit path is tested above); the arguments are
    # checked before the model file
    from seqgraph_allennlp.plot import main

    output = tmp_path / "steps.png"
    assert main([str(tmp_path / "model.tar.gz"), *arguments, "-o", str(output)]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip().count("\n") == 0
    assert message in captured.err
    assert captured.out == ""
    assert not output.exists()
