"""
`python -m seqgraph_allennlp.plot` and `plot_steps`: one panel per decoding step plus the final tree, and
one-line errors with exit status 2; `--html`: the parse as one self-contained page with a step slider,
opened in headless Chromium when one is installed.
"""
import html
import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "fixtures" / "configs"
SENTENCE = "The cat sat on the mat ."
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _environment():
    # one thread: torch's default of one per core mostly waits on the others for these tiny tensors
    return {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _plot(*arguments, timeout=120, cwd=ROOT):
    return subprocess.run(
        [sys.executable, "-m", "seqgraph_allennlp.plot", *map(str, arguments)],
        cwd=cwd,
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


# --- the HTML view ---------------------------------------------------------------------------------------

TRICKY_WORD = '<b>&"x'
HTML_SENTENCE = f"The cat sat on the {TRICKY_WORD} mat ."
DATA_BLOB = re.compile(r'<script type="application/json" id="seqgraph-data">(.*?)</script>', re.DOTALL)
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


class _Page(HTMLParser):
    """The parts of a page that the tests look at: every tag's attributes, the words, the arcs."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags = []  # (tag, attributes)
        self.words = []
        self.arcs = []
        self._in_word = False
        self.feed(text)

    def handle_starttag(self, tag, attributes):
        attributes = dict(attributes)
        self.tags.append((tag, attributes))
        classes = (attributes.get("class") or "").split()
        self._in_word = tag == "text" and "word" in classes
        if tag == "g" and "arc" in classes:
            self.arcs.append(attributes)

    def handle_data(self, data):
        if self._in_word:
            self.words.append(data)

    def handle_endtag(self, tag):
        self._in_word = False


def _data_blob(text: str):
    (blob,) = DATA_BLOB.findall(text)
    return json.loads(blob)


def _assert_self_contained(text: str, page: _Page):
    for tag, attributes in page.tags:
        for name in ("src", "href", "srcset", "xlink:href", "action", "data"):
            value = (attributes.get(name) or "").strip().lower()
            assert not value.startswith(("http:", "https:", "//")), f"<{tag} {name}={value!r}>"
        if tag == "script":
            assert "src" not in attributes, "a script is loaded from elsewhere"
        assert tag not in ("link", "iframe", "img", "object", "embed"), f"<{tag}> loads a resource"
    lowered = text.lower()
    assert "@import" not in lowered and "url(" not in lowered and "@font-face" not in lowered


def _one_edge_archive(archive_path):
    from allennlp.models.archival import load_archive

    return load_archive(str(archive_path), overrides=json.dumps({"model.tau": None}))


def test_html_holds_the_parse_and_nothing_from_outside(archive, tmp_path):
    from seqgraph_allennlp.plot import decode_sentence, write_parse_html

    words = HTML_SENTENCE.split()
    output = tmp_path / "view" / "parse.html"
    parse = write_parse_html(archive.model, archive.dataset_reader, words, str(output))
    text = output.read_text(encoding="utf-8")
    page = _Page(text)
    _assert_self_contained(text, page)

    # every word, escaped in the markup and whole in the text, after the root token
    assert page.words == ["ROOT"] + words
    assert "&lt;b&gt;&amp;&quot;x" in text

    # one arc per word (its head's), each appearing at the step that added it
    policies, edges, edge_steps, probabilities, heads = decode_sentence(
        archive.model, archive.dataset_reader, words
    )
    assert len(page.arcs) == len(words)
    assert sorted(int(arc["data-dependent"]) for arc in page.arcs) == list(range(1, len(words) + 1))
    for arc in page.arcs:
        dependent = int(arc["data-dependent"])
        assert int(arc["data-head"]) == heads[dependent]
        assert int(arc["data-step"]) == edge_steps[edges.index([heads[dependent], dependent])] + 1

    # the data: the decoder's generation order and probabilities as they are, the labels of the tree
    data = _data_blob(text)
    assert data["words"] == words
    assert data["edges"] == edges
    assert data["edge_probabilities"] == probabilities
    assert data["edge_steps"] == edge_steps
    assert data["num_steps"] == policies.shape[0] == parse.num_steps
    assert data["heads"] == heads[1:]
    assert data["tau"] == archive.model.tau
    vocabulary = archive.model.vocab.get_token_to_index_vocabulary("head_tags")
    assert len(data["labels"]) == len(words) and all(label in vocabulary for label in data["labels"])


def test_html_escapes_the_words():
    from seqgraph_allennlp.html_view import StepwiseParse, render_html

    words = [TRICKY_WORD, "</script><script>alert(1)</script>", "<!--", "ok"]
    parse = StepwiseParse(
        words=words,
        heads=[4, 4, 4, 0],
        labels=["a<b", 'q"', "&amp;", "root"],
        edges=[(0, 4), (4, 1), (4, 2), (4, 3)],
        edge_steps=[0, 1, 1, 2],
        edge_probabilities=[0.5, 0.25, 0.125, 1.0],
        num_steps=3,
        tau=0.1,
    )
    text = render_html(parse)
    page = _Page(text)
    # the data blob and the page's own script, nothing that a word brought in
    assert text.count("<script") == 2
    assert [tag for tag, _ in page.tags].count("script") == 2
    assert "<b>" not in text and "alert(1)</script>" not in text and "<!--" not in text
    assert "&lt;b&gt;&amp;&quot;x" in text
    assert page.words == ["ROOT"] + words
    data = _data_blob(text)
    assert data["words"] == words and data["labels"] == parse.labels
    assert data["edges"] == [list(edge) for edge in parse.edges]
    # labels are text on the arcs
    assert "a&lt;b" in text and "&amp;amp;" in text


def test_cli_html_alone_writes_no_image(archive_path, tmp_path):
    # run where a default steps.png would land, to see that none does
    output = tmp_path / "parse.html"
    result = _plot(archive_path, "--sentence", SENTENCE, "--html", output, "--tau", "none", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["wrote", str(output)]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["parse.html"]
    data = _data_blob(output.read_text(encoding="utf-8"))
    # --tau none: one edge per step
    assert data["tau"] is None and data["num_steps"] == len(SENTENCE.split())


# --- the page in a browser -------------------------------------------------------------------------------


def _chromium():
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def _run_browser(browser: str, profile: Path, *arguments: str) -> subprocess.CompletedProcess:
    command = [
        browser,
        "--headless=new",  # no display needed
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        "--force-device-scale-factor=1",
        # the page's console on stderr: a script error shows as "Uncaught ..."
        "--enable-logging=stderr",
        f"--user-data-dir={profile}",
        *arguments,
    ]
    # Chromium's sandbox refuses to run as root (CI containers): there it must be turned off
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.insert(1, "--no-sandbox")
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"{browser} failed: {result.stderr[-2000:]}"
    assert "Uncaught" not in result.stderr, result.stderr[-2000:]
    return result


def _screenshot(browser: str, page: Path, fragment: str, output: Path, size, profile: Path) -> None:
    _run_browser(
        browser,
        profile,
        f"--window-size={size[0]},{size[1]}",
        f"--screenshot={output}",
        f"{page.as_uri()}#{fragment}",
    )
    assert output.is_file()


# Drives the page's controls as a reader would and leaves what it saw in an attribute of <body>, which
# `--dump-dom` prints: the step, the counter and the number of arcs shown after each action.
DRIVER = """<script>
(function () {
  var seen = [];
  var slider = document.getElementById("step");
  function look(action) {
    seen.push([action, slider.value, document.getElementById("counter").textContent,
      document.querySelectorAll("#tree .arc:not(.future)").length,
      document.querySelectorAll("#tree .arc.current").length]);
  }
  function key(name) { document.dispatchEvent(new KeyboardEvent("keydown", {key: name, bubbles: true})); }
  look("open");
  key("Home"); look("Home");
  key("ArrowRight"); look("ArrowRight");
  document.getElementById("next").click(); look("next");
  document.getElementById("previous").click(); look("previous");
  slider.value = "3"; slider.dispatchEvent(new Event("input")); look("slider");
  key("End"); look("End");
  key("ArrowRight"); look("ArrowRight");
  document.body.setAttribute("data-seen", JSON.stringify(seen));
})();
</script>"""


def _colour_mask(image_path: Path, colour: str, tolerance: int = 40):
    import numpy
    from PIL import Image

    pixels = numpy.asarray(Image.open(image_path).convert("RGB")).astype(int)
    target = numpy.array([int(colour[index : index + 2], 16) for index in (1, 3, 5)])
    return (numpy.abs(pixels - target) <= tolerance).all(axis=-1)


@pytest.mark.skipif(
    _chromium() is None, reason=f"no Chromium binary on PATH (looked for {', '.join(CHROMIUM_NAMES)})"
)
def test_the_page_draws_arcs_in_a_browser(archive_path, tmp_path):
    from seqgraph_allennlp.html_view import ARC_COLOUR, CURRENT_ARC_COLOUR
    from seqgraph_allennlp.plot import write_parse_html

    browser = _chromium()
    one_edge = _one_edge_archive(archive_path)
    words = SENTENCE.split()
    page_path = tmp_path / "parse.html"
    parse = write_parse_html(one_edge.model, one_edge.dataset_reader, words, str(page_path))
    assert parse.num_steps == len(words) > 1
    text = page_path.read_text(encoding="utf-8")

    # A twin of the page with its figure pinned to the window's top left corner above the rest, so that the
    # screenshot's pixels are the SVG's coordinates; the page's markup, CSS and script are otherwise as is.
    pinned = tmp_path / "pinned.html"
    pin = (
        "<style>.figure { position: fixed; top: 0; left: 0; z-index: 9; background: #fff; border: 0; }</style>"
    )
    pinned.write_text(text.replace("</head>", pin + "\n</head>", 1), encoding="utf-8")
    svg = next(attributes for tag, attributes in _Page(text).tags if tag == "svg")
    width, height = int(svg["width"]), int(svg["height"])
    word_y = min(
        float(attributes["y"])
        for tag, attributes in _Page(text).tags
        if tag == "text" and "word" in (attributes.get("class") or "").split()
    )
    # the words' glyphs rise about one font size above their baseline
    words_top = int(word_y - 16)

    counts = {}
    for fragment in ("step=last", "step=1"):
        shot = tmp_path / f"{fragment.replace('=', '_')}.png"
        _screenshot(browser, pinned, fragment, shot, (width + 40, height + 200), tmp_path / "profile")
        earlier = _colour_mask(shot, ARC_COLOUR)[:height, :width]
        current = _colour_mask(shot, CURRENT_ARC_COLOUR)[:height, :width]
        arcs = earlier | current
        counts[fragment] = (int(earlier.sum()), int(current.sum()))
        # arcs above the words, none below them
        assert arcs[:words_top].sum() > 0, fragment
        assert arcs[int(word_y) + 6 :, :].sum() == 0, fragment
    # the last step shows the whole tree, the last edge in the current step's colour; the first step one
    # edge only, in that colour
    assert counts["step=last"][0] > 0 and counts["step=last"][1] > 0
    assert counts["step=1"][0] == 0 and counts["step=1"][1] > 0
    assert sum(counts["step=1"]) < sum(counts["step=last"])

    # the page as it is, opened without a fragment, shows the final tree too
    plain = tmp_path / "plain.png"
    _screenshot(browser, page_path, "", plain, (1000, 700), tmp_path / "profile")
    assert _colour_mask(plain, ARC_COLOUR).sum() > counts["step=last"][0] // 2

    # the keys, the buttons and the slider: one edge per step, so step k shows k arcs
    driven = tmp_path / "driven.html"
    driven.write_text(text.replace("</body>", DRIVER + "\n</body>", 1), encoding="utf-8")
    dom = _run_browser(browser, tmp_path / "profile", "--dump-dom", driven.as_uri()).stdout
    (seen,) = re.findall(r'data-seen="([^"]*)"', dom)
    seen = json.loads(html.unescape(seen))
    total = len(words)
    final = f"Step {total} / {total} \u2014 the final tree"
    assert seen == [
        ["open", str(total), final, total, 1],
        ["Home", "0", f"Step 0 / {total}", 0, 0],
        ["ArrowRight", "1", f"Step 1 / {total}", 1, 1],
        ["next", "2", f"Step 2 / {total}", 2, 1],
        ["previous", "1", f"Step 1 / {total}", 1, 1],
        ["slider", "3", f"Step 3 / {total}", 3, 1],
        ["End", str(total), final, total, 1],
        ["ArrowRight", str(total), final, total, 1],
    ]
