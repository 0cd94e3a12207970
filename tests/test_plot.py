"""
`python -m seqgraph_allennlp.plot` and `plot_steps`: one panel per decoding step plus the final tree, and
one-line errors with exit status 2; `--html`: the parse as one self-contained page with a step slider,
opened in headless Chromium when one is installed. A model with the enhanced graph (`predict_enhanced`):
its extra edges, dashed, after the tree's steps in the page and in the figure's tree panel.
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


@pytest.fixture(scope="module")
def enhanced_model():
    """
    An untrained tiny model with the enhanced graph (the fixture twin of coach_valid_enhanced) and its reader,
    its stop score lowered so that the graph phase adds extra edges before it stops.
    """
    import torch
    from allennlp.common import Params
    from allennlp.data import DatasetReader, Vocabulary
    from allennlp.models import Model

    import seqgraph_allennlp  # noqa: F401

    params = Params.from_file(str(CONFIGS / "coach_valid_enhanced.jsonnet"))
    reader = DatasetReader.from_params(params["dataset_reader"].duplicate())
    vocabulary = Vocabulary.from_instances(reader.read(params["train_data_path"]))
    torch.manual_seed(13)
    model = Model.from_params(vocab=vocabulary, params=params["model"].duplicate())
    assert model.predict_enhanced
    model.stop_scorer.bias.data.fill_(-5.0)
    model.eval()
    return model, reader


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
        self.arc_labels = []  # each arc's label text (its tspans included), None for an arc without one
        self.enhanced_parts = []  # the text of the labels' `tspan.enhanced`, in the arcs' order
        self._in_word = False
        self._in_arc = False
        self._in_label = False
        self._in_enhanced = False
        self.feed(text)

    def handle_starttag(self, tag, attributes):
        attributes = dict(attributes)
        self.tags.append((tag, attributes))
        classes = (attributes.get("class") or "").split()
        self._in_word = tag == "text" and "word" in classes
        if tag == "g" and "arc" in classes:
            self.arcs.append(attributes)
            self.arc_labels.append(None)
            self._in_arc = True
        if self._in_arc and tag == "text" and "label" in classes:
            self._in_label = True
            self.arc_labels[-1] = ""
        if self._in_label and tag == "tspan" and "enhanced" in classes:
            self._in_enhanced = True
            self.enhanced_parts.append("")

    def handle_data(self, data):
        if self._in_word:
            self.words.append(data)
        if self._in_label:
            self.arc_labels[-1] += data
        if self._in_enhanced:
            self.enhanced_parts[-1] += data

    def handle_endtag(self, tag):
        self._in_word = False
        if tag == "tspan":
            self._in_enhanced = False
        elif tag == "text":
            self._in_label = False
        elif tag == "g":
            self._in_arc = False


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


# the data blob's keys of a tree-only page, as they were before the enhanced graph
TREE_ONLY_KEYS = {"words", "heads", "labels", "edges", "edge_steps", "edge_probabilities", "num_steps", "tau"}
EXTRA_KEYS = {
    "tree_steps",
    "enhanced_labels",
    "extra_edges",
    "extra_labels",
    "extra_steps",
    "extra_edge_probabilities",
}

# the tree's arcs as the page drew them before the enhanced graph (a non-projective tree: two crossing arcs
# share a level), which a tree-only parse must still get
TREE_ONLY_ARCS = (
    '<g class="arc" data-step="1" data-head="0" data-dependent="3">'
    '<title>ROOT → flew (root)  p = 0.500, step 1</title>'
    '<path class="line" d="M52.8,134.0 C52.8,43.3 259.8,43.3 259.8,126.0"/>'
    '<path class="arrow" d="M254.8,125.0 L264.8,125.0 L259.8,134.0 Z"/>'
    '<text class="label" x="156.3" y="61.0">root</text>'
    '</g>'
    "\n"
    '<g class="arc" data-step="2" data-head="3" data-dependent="1">'
    '<title>flew → A (det)  p = 0.250, step 2</title>'
    '<path class="line" d="M250.8,134.0 C250.8,88.7 115.8,88.7 115.8,126.0"/>'
    '<path class="arrow" d="M110.8,125.0 L120.8,125.0 L115.8,134.0 Z"/>'
    '<text class="label" x="183.3" y="95.0">det</text>'
    '</g>'
    "\n"
    '<g class="arc" data-step="2" data-head="4" data-dependent="2">'
    '<title>home → bird (obl)  p = 0.125, step 2</title>'
    '<path class="line" d="M325.5,134.0 C325.5,43.3 187.8,43.3 187.8,126.0"/>'
    '<path class="arrow" d="M182.8,125.0 L192.8,125.0 L187.8,134.0 Z"/>'
    '<text class="label" x="256.7" y="61.0">obl</text>'
    '</g>'
    "\n"
    '<g class="arc" data-step="3" data-head="3" data-dependent="4">'
    '<title>flew → home (advmod)  p = 1.000, step 3</title>'
    '<path class="line" d="M268.8,134.0 C268.8,88.7 334.5,88.7 334.5,126.0"/>'
    '<path class="arrow" d="M329.5,125.0 L339.5,125.0 L334.5,134.0 Z"/>'
    '<text class="label" x="301.7" y="95.0">advmod</text>'
    '</g>'
    "\n"
    '<g class="arc" data-step="4" data-head="2" data-dependent="5">'
    '<title>bird → today  p = 0.750, step 4</title>'
    '<path class="line" d="M196.8,134.0 C196.8,-2.0 406.5,-2.0 406.5,126.0"/>'
    '<path class="arrow" d="M401.5,125.0 L411.5,125.0 L406.5,134.0 Z"/>'
    '</g>'
    "\n"
)


def _tree_only_parse():
    from seqgraph_allennlp.html_view import StepwiseParse

    return StepwiseParse(
        words=["A", "bird", "flew", "home", "today"],
        heads=[3, 4, 0, 3, 2],
        labels=["det", "obl", "root", "advmod", None],
        edges=[(0, 3), (3, 1), (4, 2), (3, 4), (2, 5)],
        edge_steps=[0, 1, 1, 2, 3],
        edge_probabilities=[0.5, 0.25, 0.125, 1.0, 0.75],
        num_steps=4,
        tau=0.1,
    )


def _classes(attributes):
    return (attributes.get("class") or "").split()


def _arc_control_y(page: _Page, index: int) -> float:
    """The y of an arc's Bezier control points (its level: the lower, the higher the arc) from its path."""
    lines = [attributes for tag, attributes in page.tags if tag == "path" and "line" in _classes(attributes)]
    match = re.match(r"M[-\d.]+,[-\d.]+ C[-\d.]+,([-\d.]+) ", lines[index]["d"])
    return float(match.group(1))


def test_a_tree_only_page_is_as_before(archive):
    from seqgraph_allennlp.html_view import EXTRA_ARC_COLOUR, render_html
    from seqgraph_allennlp.plot import parse_sentence

    # a hand-made tree, non-projective: the same arcs, levels and labels as the page had before
    parse = _tree_only_parse()
    assert parse.extra_edges == () and parse.enhanced_labels is None and not parse.enhanced
    assert parse.total_steps == parse.num_steps
    text = render_html(parse)
    assert TREE_ONLY_ARCS in text
    page = _Page(text)
    assert len(page.arcs) == len(parse.words)
    assert set(_data_blob(text)) == TREE_ONLY_KEYS
    # nothing of the enhanced graph: no extra arcs, no dashes, no colour of theirs, the legend as it was
    assert not any("extra" in _classes(attributes) for _, attributes in page.tags)
    assert page.enhanced_parts == []
    assert "stroke-dasharray" not in text and EXTRA_ARC_COLOUR not in text
    assert "the edges of the current step in orange.</div>" in text
    (slider,) = [attributes for tag, attributes in page.tags if tag == "input"]
    assert slider["max"] == slider["value"] == str(parse.num_steps)

    # a trained tree-only model's parse: none of the enhanced fields, the page's data as before
    words = SENTENCE.split()
    model_parse = parse_sentence(archive.model, archive.dataset_reader, words)
    assert not archive.model.predict_enhanced
    assert model_parse.extra_edges == () and model_parse.extra_labels == ()
    assert model_parse.extra_edge_probabilities == () and model_parse.enhanced_labels is None
    model_text = render_html(model_parse)
    assert set(_data_blob(model_text)) == TREE_ONLY_KEYS
    assert _data_blob(model_text)["num_steps"] == model_parse.num_steps
    model_page = _Page(model_text)
    assert len(model_page.arcs) == len(words)
    assert [_classes(arc) for arc in model_page.arcs] == [["arc"]] * len(words)


def test_the_page_shows_the_enhanced_labels_and_extra_arcs_of_a_hand_made_graph():
    from seqgraph_allennlp.html_view import EXTRA_ARC_COLOUR, render_html

    # "home" gets a second head (flew, extra), "bird" a cycle (home -> bird in the tree, bird -> home
    # extra) and the root an edge from a word (backwards, into node 0)
    parse = _tree_only_parse()._replace(
        enhanced_labels=["det", "obl:in", "root", "punct", None],
        extra_edges=[(2, 4), (5, 3), (4, 0)],
        extra_labels=["nsubj:xsubj", "conj:and", "dep"],
        extra_edge_probabilities=[0.5, 0.25, 0.125],
    )
    assert parse.enhanced and parse.total_steps == parse.num_steps + 3
    text = render_html(parse)
    page = _Page(text)
    tree = [index for index, arc in enumerate(page.arcs) if "extra" not in _classes(arc)]
    extra = [index for index, arc in enumerate(page.arcs) if "extra" in _classes(arc)]
    assert len(tree) == 5 and len(extra) == 3
    # the extra arcs, in the order added, each at its own step after the tree's last, with their labels
    assert [
        (int(page.arcs[i]["data-head"]), int(page.arcs[i]["data-dependent"]), int(page.arcs[i]["data-step"]))
        for i in extra
    ] == [(2, 4, 5), (5, 3, 6), (4, 0, 7)]
    assert [page.arc_labels[i] for i in extra] == parse.extra_labels
    # the tree arcs' steps as before; their labels with the enhanced relation where it differs:
    # `obl` extended to `obl:in`, `advmod` against `punct`; the others as they were
    assert [int(page.arcs[i]["data-step"]) for i in tree] == [1, 2, 2, 3, 4]
    assert [page.arc_labels[i] for i in tree] == ["root", "det", "obl:in", "advmod / punct", None]
    assert page.enhanced_parts == [":in", " / punct"]
    assert "obl, enhanced obl:in" in text
    # an extra arc never shares a level with an arc that it crosses or nests with: bird -> home (extra)
    # and home -> bird (tree) have one span
    spans = [tuple(sorted((int(arc["data-head"]), int(arc["data-dependent"])))) for arc in page.arcs]
    for i in extra:
        for j in range(len(page.arcs)):
            (left, right), (other_left, other_right) = spans[i], spans[j]
            if j != i and other_left < right and left < other_right:
                assert _arc_control_y(page, i) != _arc_control_y(page, j), (spans[i], spans[j])
    # dashed, in their own colour, and the slider walks through them after the tree
    (rule,) = re.findall(r"#tree \.arc\.extra \.line \{([^}]*)\}", text)
    assert f"stroke: {EXTRA_ARC_COLOUR};" in rule
    assert re.search(r"stroke-dasharray: *\d+(\.\d+)?([ ,]+\d+(\.\d+)?)+ *;", rule), rule
    (slider,) = [attributes for tag, attributes in page.tags if tag == "input"]
    assert slider["max"] == slider["value"] == "7"
    items = [attributes["data-step"] for tag, attributes in page.tags if tag == "li"]
    assert items == [str(step) for step in range(1, 8)]
    data = _data_blob(text)
    assert set(data) == TREE_ONLY_KEYS | EXTRA_KEYS
    assert data["num_steps"] == 7 and data["tree_steps"] == 4
    assert data["extra_edges"] == [[2, 4], [5, 3], [4, 0]] and data["extra_steps"] == [4, 5, 6]
    assert data["extra_labels"] == parse.extra_labels
    assert data["enhanced_labels"] == parse.enhanced_labels
    # a graph with an edge that is none
    with pytest.raises(ValueError, match="extra edge"):
        render_html(parse._replace(extra_edges=[(2, 4), (5, 3), (4, 9)]))


def test_html_of_an_enhanced_model_has_the_extra_arcs_after_the_tree(enhanced_model, tmp_path):
    import torch

    from seqgraph_allennlp.plot import _sentence_tensors, decode_sentence, write_parse_html

    model, reader = enhanced_model
    words = SENTENCE.split()
    parse = write_parse_html(model, reader, words, str(tmp_path / "graph.html"))
    text = (tmp_path / "graph.html").read_text(encoding="utf-8")
    # the parse: the tree of decode_steps, the extra edges and labels of forward
    policies, edges, edge_steps, probabilities, heads = decode_sentence(model, reader, words)
    with torch.no_grad():
        output = model(**_sentence_tensors(model, reader, words))
    extra = [tuple(edge) for edge in output["extra_edges"][0].tolist() if edge[0] >= 0]
    assert len(extra) >= 2, "the lowered stop score should give extra edges"
    assert list(parse.extra_edges) == extra
    assert parse.num_steps == policies.shape[0] and parse.heads == heads[1:]
    vocabulary = model.vocab.get_token_to_index_vocabulary("enhanced_tags")
    tags = output["enhanced_tags"][0].tolist()
    assert list(parse.extra_labels) == [
        model.vocab.get_token_from_index(tag, "enhanced_tags")
        for tag in tags[len(words) : len(words) + len(extra)]
    ]
    assert len(parse.enhanced_labels) == len(words)
    assert all(label in vocabulary for label in parse.enhanced_labels)
    probabilities_of_extra = output["extra_edge_probabilities"][0, : len(extra)].tolist()
    assert parse.extra_edge_probabilities == pytest.approx(probabilities_of_extra)

    page = _Page(text)
    _assert_self_contained(text, page)
    tree = [arc for arc in page.arcs if "extra" not in _classes(arc)]
    extra_arcs = [(arc, label) for arc, label in zip(page.arcs, page.arc_labels) if "extra" in _classes(arc)]
    assert len(tree) == len(words) and len(extra_arcs) == len(extra)
    last_tree_step = max(int(arc["data-step"]) for arc in tree)
    assert last_tree_step == parse.num_steps
    assert [(int(arc["data-head"]), int(arc["data-dependent"])) for arc, _ in extra_arcs] == extra
    extra_steps = [int(arc["data-step"]) for arc, _ in extra_arcs]
    assert extra_steps == [last_tree_step + k for k in range(1, len(extra) + 1)]
    assert [label for _, label in extra_arcs] == list(parse.extra_labels)
    data = _data_blob(text)
    assert data["num_steps"] == parse.num_steps + len(extra) == parse.total_steps
    assert data["tree_steps"] == parse.num_steps
    assert data["extra_edges"] == [list(edge) for edge in extra]
    assert data["edges"] == edges and data["edge_steps"] == edge_steps
    (slider,) = [attributes for tag, attributes in page.tags if tag == "input"]
    assert slider["max"] == slider["value"] == str(parse.total_steps)


def test_the_figure_draws_the_extra_edges(enhanced_model, archive, tmp_path):
    import io

    from seqgraph_allennlp.plot import EXTRA_EDGE_COLOUR, decode_sentence, parse_sentence, plot_steps

    model, reader = enhanced_model
    words = SENTENCE.split()
    parse = parse_sentence(model, reader, words)
    figure = plot_steps(model, reader, words, str(tmp_path / "graph.png"))
    assert (tmp_path / "graph.png").read_bytes().startswith(PNG_SIGNATURE)
    (tree_axes,) = [axes for axes in figure.axes if axes.get_label() == "tree"]
    extra = [patch for patch in tree_axes.patches if patch.get_gid() == "extra-edge"]
    assert len(extra) == len(parse.extra_edges) >= 2
    assert len([patch for patch in tree_axes.patches if patch.get_gid() == "tree-edge"]) == len(words)
    for patch in extra:
        assert patch.get_linestyle() in ("--", "dashed")
        colour = tuple(int(EXTRA_EDGE_COLOUR[i : i + 2], 16) / 255 for i in (1, 3, 5))
        assert patch.get_edgecolor()[:3] == pytest.approx(colour)
    # numbered on from the tree's steps
    numbers = {text.get_text() for text in tree_axes.texts}
    assert {str(parse.num_steps + k) for k in range(1, len(parse.extra_edges) + 1)} <= numbers
    # the step panels are the tree's
    assert len(_step_axes(figure)) == decode_sentence(model, reader, words)[0].shape[0]
    figure.savefig(io.BytesIO(), format="png")

    # a tree-only model's figure has none
    plain = plot_steps(archive.model, archive.dataset_reader, words, None)
    (plain_tree,) = [axes for axes in plain.axes if axes.get_label() == "tree"]
    assert not [patch for patch in plain_tree.patches if patch.get_gid() == "extra-edge"]
    assert "extra" not in plain_tree.get_title()


def test_draw_tree_draws_extra_edges_into_the_root_and_in_cycles():
    import io

    from matplotlib.figure import Figure

    from seqgraph_allennlp.plot import _draw_tree

    parse = _tree_only_parse()
    figure = Figure(figsize=(6, 3))
    axes = figure.add_subplot(label="tree")
    nodes = ["ROOT"] + parse.words
    # a second head, a cycle (home -> bird in the tree), an edge into the root, and padding
    extra = [(2, 4), (5, 3), (4, 0), (-1, -1)]
    _draw_tree(axes, nodes, parse.edges, parse.edge_steps, parse.edge_probabilities, extra)
    patches = [patch for patch in axes.patches if patch.get_gid() == "extra-edge"]
    assert len(patches) == 3 and all(patch.get_linestyle() in ("--", "dashed") for patch in patches)
    assert {"5", "6", "7"} <= {text.get_text() for text in axes.texts}
    # below the words: the axes reach lower than a tree's
    assert axes.get_ylim()[0] < -0.3
    image = io.BytesIO()
    figure.savefig(image, format="png")
    assert image.getvalue().startswith(PNG_SIGNATURE)


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


@pytest.mark.skipif(
    _chromium() is None, reason=f"no Chromium binary on PATH (looked for {', '.join(CHROMIUM_NAMES)})"
)
def test_the_page_draws_dashed_extra_arcs_in_a_browser(enhanced_model, tmp_path):
    from seqgraph_allennlp.html_view import ARC_COLOUR, CURRENT_ARC_COLOUR, EXTRA_ARC_COLOUR
    from seqgraph_allennlp.plot import write_parse_html

    browser = _chromium()
    model, reader = enhanced_model
    words = SENTENCE.split()
    page_path = tmp_path / "graph.html"
    parse = write_parse_html(model, reader, words, str(page_path))
    num_extra = len(parse.extra_edges)
    assert num_extra >= 2
    text = page_path.read_text(encoding="utf-8")

    # Twins with the figure pinned to the top left corner (as above) and the labels hidden (a tree arc's
    # label has its enhanced part in the extra arcs' colour): the pixels of that colour are the extra arcs'
    # lines and arrows. The solid twin draws them without their dashes.
    pin = (
        "<style>.figure { position: fixed; top: 0; left: 0; z-index: 9; background: #fff; border: 0; }\n"
        "#tree .label { display: none; }</style>"
    )
    solid_style = "<style>#tree .arc.extra .line { stroke-dasharray: none; }</style>"
    pinned = tmp_path / "pinned.html"
    pinned.write_text(text.replace("</head>", pin + "\n</head>", 1), encoding="utf-8")
    solid = tmp_path / "solid.html"
    solid.write_text(text.replace("</head>", pin + solid_style + "\n</head>", 1), encoding="utf-8")
    tags = _Page(text).tags
    svg = next(attributes for tag, attributes in tags if tag == "svg")
    width, height = int(svg["width"]), int(svg["height"])
    word_y = min(
        float(attributes["y"]) for tag, attributes in tags if tag == "text" and "word" in _classes(attributes)
    )
    words_top = int(word_y - 16)

    def shoot(page: Path, step: int):
        shot = tmp_path / f"{page.stem}_{step}.png"
        _screenshot(browser, page, f"step={step}", shot, (width + 40, height + 200), tmp_path / "profile")
        return {
            colour: _colour_mask(shot, colour)[:height, :width]
            for colour in (ARC_COLOUR, CURRENT_ARC_COLOUR, EXTRA_ARC_COLOUR)
        }

    tree_done = shoot(pinned, parse.num_steps)
    two_extra = shoot(pinned, parse.num_steps + 2)
    last = shoot(pinned, parse.total_steps)
    last_solid = shoot(solid, parse.total_steps)
    # the tree's last step: the whole tree, no extra arc yet
    assert tree_done[ARC_COLOUR].sum() > 0 and tree_done[EXTRA_ARC_COLOUR].sum() == 0
    # two steps on: the first extra arc in its colour, the second in the current step's
    assert two_extra[EXTRA_ARC_COLOUR].sum() > 0 and two_extra[CURRENT_ARC_COLOUR].sum() > 0
    # the last step: every extra arc, above the words, none below
    extra = last[EXTRA_ARC_COLOUR]
    assert extra[:words_top].sum() > two_extra[EXTRA_ARC_COLOUR].sum()
    assert extra[int(word_y) + 6 :].sum() == 0
    assert last[ARC_COLOUR].sum() > 0
    # dashed: the gaps leave a good part of the solid lines' pixels out
    solid_extra = last_solid[EXTRA_ARC_COLOUR].sum()
    assert 0 < extra.sum() < 0.85 * solid_extra, (int(extra.sum()), int(solid_extra))

    # the slider walks through the graph phase after the tree: the last step shows every arc
    driven = tmp_path / "driven.html"
    driven.write_text(text.replace("</body>", DRIVER + "\n</body>", 1), encoding="utf-8")
    dom = _run_browser(browser, tmp_path / "profile", "--dump-dom", driven.as_uri()).stdout
    (seen,) = re.findall(r'data-seen="([^"]*)"', dom)
    entries = json.loads(html.unescape(seen))
    seen = {entry[0]: entry[1:] for entry in entries if entry[0] in ("open", "Home", "End")}
    total = parse.total_steps
    final = [str(total), f"Step {total} / {total} \u2014 the final graph", len(words) + num_extra, 1]
    assert seen == {"open": final, "Home": ["0", f"Step 0 / {total}", 0, 0], "End": final}
