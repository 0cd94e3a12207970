"""
One sentence's parse as a self-contained HTML page: the words in a row with the dependency arcs over them
(as displaCy draws them: an arrowhead on the dependent, the relation on the arc) and a step slider that adds
the edges in the order the decoder chose them.

    python -m seqgraph_allennlp.plot MODEL.tar.gz --sentence "The cat sat on the mat ." --html parse.html

The page needs nothing outside itself: the CSS, the script and the SVG are inline and no font is loaded.
The tree is drawn in the HTML itself (one `<g class="arc">` per word, its head's arc, `data-step` the step
that added it, counted from 1), so the page shows the final tree even without JavaScript; the script only
hides the arcs of later steps and colours those of the current step. Its data is one JSON blob,
`<script type="application/json" id="seqgraph-data">`, with the decoder's output as it is:

- `words`, `heads` (1-based, 0 the root) and `labels` (`null` for a model without labels), one per word;
- `edges` (`[head, dependent]` in generation order), `edge_steps` (the decoder's 0-based step of each edge;
  with `tau` several edges share a step), `edge_probabilities` (each edge's probability under the policy
  of its step), `num_steps` and `tau`.

A model that also generates the enhanced UD graph (`predict_enhanced`) adds its extra edges after the tree,
one per step until STOP: the page draws them as dashed arcs in `EXTRA_ARC_COLOUR` (`<g class="arc extra">`,
labelled with the enhanced relation), each at its own step after the tree's (`data-step` the tree's last
step + 1, + 2, ...), so the slider walks through the tree and then the graph phase, and the last step shows
the whole graph. A tree arc whose enhanced relation differs from the basic one shows both (`obl` with `:in`
added in the extra edges' colour, or `punct / aux:pass` where the enhanced one does not extend it). Its data
blob has, besides the above, `tree_steps` (the tree's steps; `num_steps` counts the extra edges' too),
`enhanced_labels` (each tree edge's enhanced relation, one per word), `extra_edges`, `extra_labels`,
`extra_steps` (0-based, as `edge_steps`: the tree's steps, + 1, ...) and `extra_edge_probabilities`. A
tree-only model's page is as it was, without these keys.

The step shown first is the last (the final tree or graph); `#step=N` (0 to `num_steps`) or `#step=last`
in the address picks another, and the page keeps the address in step with the slider.
"""
import html
import json
import unicodedata
from typing import List, NamedTuple, Optional, Sequence, Tuple

ROOT_TOKEN = "ROOT"
# The arcs' colours: distinctive, so that a screenshot test can find the arcs by colour
# (tests/test_plot.py), and far from the black text and the white page.
ARC_COLOUR = "#d6247a"
CURRENT_ARC_COLOUR = "#ff8c00"
# the enhanced graph's extra arcs (dashed) and the enhanced part of a tree arc's label: far from the two above
EXTRA_ARC_COLOUR = "#0b8f7e"
EXTRA_DASH = "6 4"

# Layout in pixels. The words are measured by an estimate of their width (no font is loaded, so the
# browser's is unknown): generous enough for DejaVu Sans and the common system fonts.
WORD_FONT_SIZE = 16
LABEL_FONT_SIZE = 12
CHARACTER_WIDTH = 0.62  # of the font size, an average Latin letter; wide (CJK) characters count 1.0
MIN_WORD_GAP = 72
WORD_PADDING = 24
MARGIN = 24
MAX_LEVEL_HEIGHT = 34
MIN_LEVEL_HEIGHT = 16
# the height that all the levels share when the tree is deep (a long sentence)
TOTAL_LEVEL_HEIGHT = 420
HEAD_OFFSET = 9  # an arc leaves its head this far to the side, so it does not meet the arrow into the head
ARROW_WIDTH = 5
ARROW_LENGTH = 9
# an extra arc's arrow ends this far to the side of its dependent (the side it comes from): every word
# already has its tree arc's arrow in the middle
EXTRA_ARROW_OFFSET = 7


class StepwiseParse(NamedTuple):
    """
    A sentence parsed one step at a time, as `seqgraph_allennlp.plot.parse_sentence` returns it.

    # Parameters

    words : `List[str]`
    heads : `List[int]`
        The head of each word, 1-based, 0 the root.
    labels : `List[Optional[str]]`
        The relation of each word to its head; `None` where the model predicts no labels.
    edges : `List[Tuple[int, int]]`
        The `(head, dependent)` edges in the order the decoder added them (nodes numbered with the root 0).
    edge_steps : `List[int]`
        The decoder's step (from 0) of each edge.
    edge_probabilities : `List[float]`
        Each edge's probability under the policy of its step.
    num_steps : `int`
        The tree's steps (the decoder's policies); `total_steps` counts the extra edges' too.
    tau : `float`, optional
        The decoder's multi-edge threshold, `None` for one edge per step.
    extra_edges : `Sequence[Tuple[int, int]]`, optional (default = `()`)
        The enhanced graph's `(head, dependent)` edges after the tree's, in the order the graph phase added
        them, one per step; none for a model without the graph phase.
    extra_labels : `Sequence[Optional[str]]`, optional (default = `()`)
        The enhanced relation of each extra edge; empty (or `None`s) where there are none.
    extra_edge_probabilities : `Sequence[float]`, optional (default = `()`)
        Each extra edge's probability under the policy of its step.
    enhanced_labels : `List[Optional[str]]`, optional (default = `None`)
        The enhanced relation of each word's tree edge (in word order); `None` for a model without the graph
        phase, which also marks a parse as a tree-only one.
    """

    words: List[str]
    heads: List[int]
    labels: List[Optional[str]]
    edges: List[Tuple[int, int]]
    edge_steps: List[int]
    edge_probabilities: List[float]
    num_steps: int
    tau: Optional[float] = None
    extra_edges: Sequence[Tuple[int, int]] = ()
    extra_labels: Sequence[Optional[str]] = ()
    extra_edge_probabilities: Sequence[float] = ()
    enhanced_labels: Optional[List[Optional[str]]] = None

    @property
    def enhanced(self) -> bool:
        """Whether the parse comes from a model with the graph phase (even one that added no extra edge)."""
        return self.enhanced_labels is not None or len(self.extra_edges) > 0

    @property
    def total_steps(self) -> int:
        """The tree's steps and one per extra edge."""
        return self.num_steps + len(self.extra_edges)


def _text_width(text: str, font_size: float) -> float:
    units = sum(
        1.0 if unicodedata.east_asian_width(character) in "WF" else CHARACTER_WIDTH for character in text
    )
    return units * font_size


def _json_for_script(value) -> str:
    """JSON that cannot end its `<script>` element early nor open a comment there, whatever the words."""
    text = json.dumps(value, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _arc_levels(spans: Sequence[Tuple[int, int]], extra: Optional[Sequence[bool]] = None) -> List[int]:
    """
    The level (1 = lowest) of each `(left, right)` span: one above every span inside it, so that nested
    arcs never touch. A span marked in `extra` (an enhanced graph's extra arc) also goes above every shorter
    span that it crosses, and a span above every shorter extra one that it crosses: extra arcs often cross
    the tree's and each other (several heads, cycles), and two crossing arcs at one level run together along
    their tops. Tree arcs that cross each other (a non-projective tree) keep sharing a level, as before.
    """
    extra = [False] * len(spans) if extra is None else list(extra)
    levels = [1] * len(spans)
    order = sorted(range(len(spans)), key=lambda index: spans[index][1] - spans[index][0])
    for position, index in enumerate(order):
        left, right = spans[index]
        below = []
        for other in order[:position]:
            other_left, other_right = spans[other]
            inside = left <= other_left and other_right <= right
            crossing = other_left < right and left < other_right
            if inside or (crossing and (extra[index] or extra[other])):
                below.append(levels[other])
        levels[index] = 1 + max(below, default=0)
    return levels


def _edge_text(
    nodes: Sequence[str],
    head: int,
    dependent: int,
    label: Optional[str],
    probability: float,
    enhanced: Optional[str] = None,
    extra: bool = False,
) -> str:
    """
    One edge as text: `head -> dependent (label)  p = ...`; `enhanced` (a tree edge's enhanced relation where
    it differs from `label`) and `extra` (an enhanced graph's extra edge) add to the parenthesis.
    """
    notes = [label] if label is not None else []
    if enhanced is not None:
        notes.append(f"enhanced {enhanced}")
    if extra:
        notes.append("extra edge")
    relation = f" ({', '.join(notes)})" if notes else ""
    return f"{nodes[head]} \u2192 {nodes[dependent]}{relation}  p = {probability:.3f}"


def _label_parts(label: Optional[str], enhanced: Optional[str]) -> Tuple[str, str]:
    """
    A tree arc's label as `(basic, enhanced part)`: the enhanced part is drawn after the basic label in the
    extra arcs' colour, `:in` after `obl` for `obl:in` (an enhanced relation that extends the basic one) and
    ` / aux:pass` after `punct` otherwise; empty where the two agree or the parse has no enhanced relations.
    """
    if enhanced is None or enhanced == label:
        return label or "", ""
    if not label:
        return "", enhanced
    if enhanced.startswith(label):
        return label, enhanced[len(label) :]
    return label, f" / {enhanced}"


def render_html(parse: StepwiseParse, title: Optional[str] = None) -> str:
    """
    The HTML page of `parse` (see the module's docstring).

    # Parameters

    parse : `StepwiseParse`
    title : `str`, optional (default = `None`)
        The page's title; the sentence when `None`.
    """
    words = list(parse.words)
    nodes = [ROOT_TOKEN] + words
    escape = html.escape
    label_of = {dependent: parse.labels[dependent - 1] for dependent in range(1, len(nodes))}
    enhanced = parse.enhanced
    extra_edges = [tuple(edge) for edge in parse.extra_edges]
    for head, dependent in extra_edges:
        if not (0 <= head < len(nodes) and 0 <= dependent < len(nodes)) or head == dependent:
            raise ValueError(
                f"extra edge {(head, dependent)} is not an edge between two of the {len(nodes)} nodes"
            )
    extra_labels = list(parse.extra_labels) or [None] * len(extra_edges)
    extra_probabilities = list(parse.extra_edge_probabilities)
    if len(extra_labels) != len(extra_edges) or len(extra_probabilities) != len(extra_edges):
        raise ValueError(
            f"{len(extra_edges)} extra edges with {len(parse.extra_labels)} labels and "
            f"{len(extra_probabilities)} probabilities"
        )
    if parse.enhanced_labels is not None and len(parse.enhanced_labels) != len(words):
        raise ValueError(f"{len(parse.enhanced_labels)} enhanced labels for {len(words)} words")
    # the tree edge's enhanced relation, where it differs from the basic one
    enhanced_of = {
        dependent: parse.enhanced_labels[dependent - 1]
        if parse.enhanced_labels is not None and parse.enhanced_labels[dependent - 1] != label_of[dependent]
        else None
        for dependent in range(1, len(nodes))
    }
    label_parts = {
        dependent: _label_parts(label_of[dependent], enhanced_of[dependent]) for dependent in label_of
    }
    # the slider's steps after the tree's: one per extra edge
    extra_steps = [parse.num_steps + index for index in range(len(extra_edges))]
    total_steps = parse.num_steps + len(extra_edges)

    # x of each node: each pair of neighbours far enough apart for both words and any label between them
    widths = [_text_width(node, WORD_FONT_SIZE) for node in nodes]
    short_labels = {}
    for head, dependent in parse.edges:
        if abs(head - dependent) == 1 and label_of.get(dependent):
            short_labels[min(head, dependent)] = _text_width("".join(label_parts[dependent]), LABEL_FONT_SIZE)
    for (head, dependent), label in zip(extra_edges, extra_labels):
        if abs(head - dependent) == 1 and label:
            left = min(head, dependent)
            # an extra arc leaves its head and enters its dependent to the side: a little more room
            needed = _text_width(label, LABEL_FONT_SIZE) + EXTRA_ARROW_OFFSET
            short_labels[left] = max(short_labels.get(left, 0.0), needed)
    xs = [MARGIN + widths[0] / 2]
    for index in range(1, len(nodes)):
        gap = max(
            MIN_WORD_GAP,
            (widths[index - 1] + widths[index]) / 2 + WORD_PADDING,
            short_labels.get(index - 1, 0.0) + 2 * HEAD_OFFSET + 12,
        )
        xs.append(xs[-1] + gap)
    width = xs[-1] + widths[-1] / 2 + MARGIN

    edges = [(head, dependent) for head, dependent in parse.edges if head >= 0]
    steps = [step for (head, _), step in zip(parse.edges, parse.edge_steps) if head >= 0]
    probabilities = [p for (head, _), p in zip(parse.edges, parse.edge_probabilities) if head >= 0]
    spans = [(min(edge), max(edge)) for edge in edges + extra_edges]
    all_levels = _arc_levels(spans, [False] * len(edges) + [True] * len(extra_edges))
    levels, extra_levels = all_levels[: len(edges)], all_levels[len(edges) :]
    max_level = max(all_levels, default=1)
    level_height = max(MIN_LEVEL_HEIGHT, min(MAX_LEVEL_HEIGHT, TOTAL_LEVEL_HEIGHT / max_level))
    arc_base = 20 + LABEL_FONT_SIZE + max_level * level_height
    word_y = arc_base + 24
    index_y = word_y + 18
    height = index_y + 12

    def arc(kind, head, dependent, step, level, tooltip, label, enhanced_part=""):
        direction = 1 if dependent > head else -1
        start = xs[head] + direction * HEAD_OFFSET
        # an extra arc's arrow beside the tree arc's, on the side it comes from
        end = xs[dependent] - (direction * EXTRA_ARROW_OFFSET if kind == "arc extra" else 0)
        rise = level * level_height
        # a cubic Bezier whose apex, halfway, is `rise` above the words
        control = arc_base - rise / 0.75
        parts = [
            f'<g class="{kind}" data-step="{step + 1}" data-head="{head}" data-dependent="{dependent}">',
            f"<title>{escape(tooltip)}</title>",
            f'<path class="line" d="M{start:.1f},{arc_base:.1f} C{start:.1f},{control:.1f} '
            f'{end:.1f},{control:.1f} {end:.1f},{arc_base - ARROW_LENGTH + 1:.1f}"/>',
            f'<path class="arrow" d="M{end - ARROW_WIDTH:.1f},{arc_base - ARROW_LENGTH:.1f} '
            f'L{end + ARROW_WIDTH:.1f},{arc_base - ARROW_LENGTH:.1f} L{end:.1f},{arc_base:.1f} Z"/>',
        ]
        if label is not None:
            extension = f'<tspan class="enhanced">{escape(enhanced_part)}</tspan>' if enhanced_part else ""
            parts.append(
                f'<text class="label" x="{(start + end) / 2:.1f}" y="{arc_base - rise - 5:.1f}">'
                f"{escape(label)}{extension}</text>"
            )
        parts.append("</g>")
        return "".join(parts)

    arcs = []
    for (head, dependent), step, probability, level in zip(edges, steps, probabilities, levels):
        label = label_of[dependent]
        text = _edge_text(nodes, head, dependent, label, probability, enhanced_of[dependent])
        tooltip = text + f", step {step + 1}"
        basic, enhanced_part = label_parts[dependent]
        shown = basic if label is not None or enhanced_part else None
        arcs.append(arc("arc", head, dependent, step, level, tooltip, shown, enhanced_part))
    for (head, dependent), label, step, probability, level in zip(
        extra_edges, extra_labels, extra_steps, extra_probabilities, extra_levels
    ):
        tooltip = _edge_text(nodes, head, dependent, label, probability, extra=True) + f", step {step + 1}"
        arcs.append(arc("arc extra", head, dependent, step, level, tooltip, label))

    word_elements = []
    for index, node in enumerate(nodes):
        kind = "word root" if index == 0 else "word"
        word_elements.append(
            f'<text class="{kind}" data-node="{index}" x="{xs[index]:.1f}" y="{word_y:.1f}">'
            f"{escape(node)}</text>"
        )
        if index > 0:
            word_elements.append(f'<text class="index" x="{xs[index]:.1f}" y="{index_y:.1f}">{index}</text>')

    step_items = []
    for step in range(parse.num_steps):
        texts = [
            _edge_text(nodes, head, dependent, label_of[dependent], probability, enhanced_of[dependent])
            for (head, dependent), edge_step, probability in zip(edges, steps, probabilities)
            if edge_step == step
        ]
        step_items.append(
            f'<li data-step="{step + 1}"><span class="number">{step + 1}</span>'
            + "".join(f'<span class="edge">{escape(text)}</span>' for text in texts)
            + "</li>"
        )
    for (head, dependent), label, step, probability in zip(
        extra_edges, extra_labels, extra_steps, extra_probabilities
    ):
        text = _edge_text(nodes, head, dependent, label, probability, extra=True)
        step_items.append(
            f'<li data-step="{step + 1}"><span class="number">{step + 1}</span>'
            f'<span class="edge extra">{escape(text)}</span></li>'
        )

    data = {
        "words": words,
        "heads": list(parse.heads),
        "labels": list(parse.labels),
        "edges": [list(edge) for edge in parse.edges],
        "edge_steps": list(parse.edge_steps),
        "edge_probabilities": list(parse.edge_probabilities),
        "num_steps": total_steps,
        "tau": parse.tau,
    }
    sentence = " ".join(words)
    decoding = "one edge per step" if parse.tau is None else f"tau = {parse.tau:g}: several edges per step"
    legend = ""
    extra_css = ""
    if enhanced:
        data.update(
            {
                "tree_steps": parse.num_steps,
                "enhanced_labels": list(parse.enhanced_labels) if parse.enhanced_labels is not None else None,
                "extra_edges": [list(edge) for edge in extra_edges],
                "extra_labels": extra_labels,
                "extra_steps": extra_steps,
                "extra_edge_probabilities": extra_probabilities,
            }
        )
        decoding = (
            f"the tree in {parse.num_steps}, {decoding}; then the enhanced graph's "
            f"{len(extra_edges)} extra edge{'' if len(extra_edges) == 1 else 's'}, one per step"
        )
        legend = (
            "; the enhanced graph's extra edges dashed in green-blue, as is the enhanced part of a tree "
            "arc's relation"
        )
        extra_css = _EXTRA_CSS.format(extra_colour=EXTRA_ARC_COLOUR, dash=EXTRA_DASH)
    return _PAGE.format(
        title=escape(title if title is not None else sentence),
        sentence=escape(sentence),
        decoding=escape(decoding),
        legend=escape(legend),
        extra_css=extra_css,
        num_steps=total_steps,
        num_words=len(words),
        width=f"{width:.0f}",
        height=f"{height:.0f}",
        arcs="\n".join(arcs),
        words="\n".join(word_elements),
        steps="\n".join(step_items),
        data=_json_for_script(data),
        arc_colour=ARC_COLOUR,
        current_colour=CURRENT_ARC_COLOUR,
        word_size=WORD_FONT_SIZE,
        label_size=LABEL_FONT_SIZE,
        script=_SCRIPT,
    )


def write_html(parse: StepwiseParse, path: str, title: Optional[str] = None) -> None:
    """Writes `render_html(parse, title)` to `path` (UTF-8)."""
    with open(path, "w", encoding="utf-8") as file:
        file.write(render_html(parse, title))


# Builds nothing from the words: it only reads numbers from the data blob and the arcs' attributes, and
# writes text with `textContent`, so a word cannot turn into markup.
_SCRIPT = """
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("seqgraph-data").textContent);
  var total = data.num_steps;
  var nodes = ["ROOT"].concat(data.words);
  var arcs = Array.prototype.slice.call(document.querySelectorAll("#tree .arc"));
  var words = Array.prototype.slice.call(document.querySelectorAll("#tree .word"));
  var items = Array.prototype.slice.call(document.querySelectorAll("#steps li"));
  var slider = document.getElementById("step");
  var previous = document.getElementById("previous");
  var next = document.getElementById("next");
  var counter = document.getElementById("counter");
  var added = document.getElementById("added");
  var current = total;
  // a model with the enhanced graph's phase: its extra edges come after the tree's steps
  var graph = data.enhanced_labels !== undefined;
  var extraEdges = data.extra_edges || [];

  function fromAddress() {
    var match = /step=(last|\\d+)/.exec(window.location.hash);
    if (!match) return total;
    return match[1] === "last" ? total : Math.min(total, parseInt(match[1], 10));
  }

  function show(step, keepAddress) {
    current = Math.max(0, Math.min(total, step));
    slider.value = String(current);
    previous.disabled = current === 0;
    next.disabled = current === total;
    var dependents = {};
    arcs.forEach(function (arc) {
      var arcStep = parseInt(arc.getAttribute("data-step"), 10);
      arc.classList.toggle("future", arcStep > current);
      arc.classList.toggle("current", arcStep === current);
      if (arcStep === current) dependents[arc.getAttribute("data-dependent")] = true;
    });
    words.forEach(function (word) {
      word.classList.toggle("current", dependents[word.getAttribute("data-node")] === true);
    });
    items.forEach(function (item) {
      var itemStep = parseInt(item.getAttribute("data-step"), 10);
      item.classList.toggle("future", itemStep > current);
      item.classList.toggle("current", itemStep === current);
    });
    counter.textContent = "Step " + current + " / " + total +
      (current === total ? " \\u2014 the final " + (graph ? "graph" : "tree") :
        graph && current > data.tree_steps ? " \\u2014 the enhanced graph's extra edges" : "");
    added.textContent = "";
    if (current === 0) {
      added.textContent = "No edge yet: the next step adds the first.";
    }
    data.edges.forEach(function (edge, index) {
      if (data.edge_steps[index] + 1 !== current || edge[0] < 0) return;
      var line = document.createElement("div");
      var label = data.labels[edge[1] - 1];
      var notes = label === null ? [] : [label];
      var enhanced = graph && data.enhanced_labels !== null ? data.enhanced_labels[edge[1] - 1] : null;
      if (enhanced !== null && enhanced !== label) notes.push("enhanced " + enhanced);
      line.textContent = nodes[edge[0]] + " \\u2192 " + nodes[edge[1]] +
        (notes.length === 0 ? "" : " (" + notes.join(", ") + ")") +
        "   p = " + data.edge_probabilities[index].toFixed(3);
      added.appendChild(line);
    });
    extraEdges.forEach(function (edge, index) {
      if (data.extra_steps[index] + 1 !== current) return;
      var line = document.createElement("div");
      var label = data.extra_labels[index];
      line.textContent = nodes[edge[0]] + " \\u2192 " + nodes[edge[1]] +
        " (" + (label === null ? "" : label + ", ") + "extra edge)" +
        "   p = " + data.extra_edge_probabilities[index].toFixed(3);
      added.appendChild(line);
    });
    if (!keepAddress && window.history && window.history.replaceState) {
      try { window.history.replaceState(null, "", "#step=" + current); } catch (error) { /* file: pages */ }
    }
  }

  slider.addEventListener("input", function () { show(parseInt(slider.value, 10)); });
  previous.addEventListener("click", function () { show(current - 1); });
  next.addEventListener("click", function () { show(current + 1); });
  items.forEach(function (item) {
    item.addEventListener("click", function () { show(parseInt(item.getAttribute("data-step"), 10)); });
  });
  document.addEventListener("keydown", function (event) {
    // the slider moves itself on arrow keys (and reports it as "input")
    if (event.target === slider || event.altKey || event.ctrlKey || event.metaKey) return;
    var moves = {ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: total};
    if (event.key in moves) {
      event.preventDefault();
      show(moves[event.key]);
    }
  });
  window.addEventListener("hashchange", function () { show(fromAddress(), true); });
  show(fromAddress(), true);
})();
"""

# the enhanced graph's CSS, only on its pages (a tree-only page is as it was): before the current step's
# rules, which it leaves to colour an extra arc of the current step (still dashed)
_EXTRA_CSS = """#tree .arc.extra .line {{ stroke: {extra_colour}; stroke-dasharray: {dash}; }}
#tree .arc.extra .arrow {{ fill: {extra_colour}; }}
#tree .arc.extra .label, #tree .arc .label .enhanced {{ fill: {extra_colour}; }}
#steps li:not(.future) .edge.extra {{ color: {extra_colour}; }}
"""

# str.format: the CSS's and script's own braces are doubled, or come in through a field ({script}).
_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="seqgraph_allennlp.plot">
<title>{title}</title>
<style>
body {{ font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif;
  margin: 16px 20px; color: #222; background: #fff; }}
h1 {{ font-size: 17px; font-weight: 600; margin: 0 0 4px; }}
.meta {{ color: #666; font-size: 13px; margin-bottom: 10px; }}
.controls {{ display: flex; align-items: center; gap: 10px; flex-wrap: wrap; margin-bottom: 6px; }}
.controls input[type=range] {{ width: 320px; max-width: 60vw; }}
.controls button {{ font-size: 14px; padding: 3px 10px; }}
#counter {{ font-weight: 600; font-size: 14px; }}
#added {{ font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 13px; min-height: 18px;
  color: {current_colour}; white-space: pre; margin-bottom: 4px; }}
.figure {{ overflow-x: auto; border-top: 1px solid #eee; border-bottom: 1px solid #eee; }}
#tree {{ display: block; }}
#tree .word {{ font-size: {word_size}px; text-anchor: middle; fill: #111; }}
#tree .word.root {{ font-weight: 700; fill: #555; }}
#tree .word.current {{ fill: {current_colour}; font-weight: 700; }}
#tree .index {{ font-size: 10px; text-anchor: middle; fill: #999; }}
#tree .arc .line {{ fill: none; stroke: {arc_colour}; stroke-width: 2px; }}
#tree .arc .arrow {{ fill: {arc_colour}; stroke: none; }}
#tree .arc .label {{ font-size: {label_size}px; text-anchor: middle; fill: {arc_colour};
  paint-order: stroke; stroke: #fff; stroke-width: 4px; stroke-linejoin: round; }}
{extra_css}#tree .arc.current .line {{ stroke: {current_colour}; stroke-width: 3px; }}
#tree .arc.current .arrow, #tree .arc.current .label {{ fill: {current_colour}; }}
#tree .arc.future {{ display: none; }}
#steps {{ font-size: 13px; color: #333; columns: 2 340px; padding-left: 0; list-style: none;
  margin-top: 10px; }}
#steps li {{ cursor: pointer; padding: 1px 4px 1px 2.6em; position: relative; break-inside: avoid; }}
#steps li .number {{ position: absolute; left: 4px; color: #888; }}
#steps li .edge {{ display: block; }}
#steps li.future {{ color: #bbb; }}
#steps li.current {{ background: #fff1e0; color: #000; }}
.help {{ color: #888; font-size: 12px; }}
</style>
</head>
<body>
<h1>{sentence}</h1>
<div class="meta">{num_words} words, {num_steps} steps ({decoding}); arcs go from head to dependent,
the edges of the current step in orange{legend}.</div>
<div class="controls">
<button id="previous" type="button" title="previous step (left arrow)">&#9664; Prev</button>
<input id="step" type="range" min="0" max="{num_steps}" value="{num_steps}" aria-label="decoding step">
<button id="next" type="button" title="next step (right arrow)">Next &#9654;</button>
<span id="counter">Step {num_steps} / {num_steps}</span>
</div>
<div id="added"></div>
<div class="figure">
<svg id="tree" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img"
 aria-label="dependency tree">
{arcs}
{words}
</svg>
</div>
<ol id="steps">
{steps}
</ol>
<div class="help">Keys: &#8592; / &#8594; a step back / on, Home / End the first / last step;
<code>#step=N</code> in the address opens step N.</div>
<script type="application/json" id="seqgraph-data">{data}</script>
<script>{script}</script>
</body>
</html>
"""
