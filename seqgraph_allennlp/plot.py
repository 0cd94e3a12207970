"""
Per-step edge distributions of the sequential graph parser, as in Figure 1 of Welleck & Cho (2019).

    python -m seqgraph_allennlp.plot MODEL.tar.gz --sentence "The cat sat on the mat ." -o steps.png

The sentence is split on whitespace and parsed with the greedy valid decoder (`SeqGraphParser.decode_steps`).
The figure has one panel per decoding step: the policy over edges at that step as a heat map (rows the head
incl. ROOT, columns the dependent), the edge chosen at that step in a red box and the edges chosen before it
as white dots; and a last panel with the final tree drawn as arcs over the sentence, each arc labelled with
the step that added it. A model that also generates the enhanced UD graph (`predict_enhanced`) has its extra
edges, added one per step after the tree until STOP, drawn dashed below the words in that panel, numbered
on from the tree's steps; the step panels are the tree's only.

    python -m seqgraph_allennlp.plot MODEL.tar.gz --sentence "The cat sat on the mat ." --html parse.html

writes the same parse as one self-contained HTML page (`seqgraph_allennlp.html_view`): the words with the
labelled arcs over them and a step slider that adds the edges in the order the decoder chose them (and then
the enhanced graph's extra edges, dashed, for a model that has them). With
`--html` alone no image is written; with `-o` too, both are. `--tau` (a number in (0, 1], or `none` for one
edge per step) decodes with another multi-edge threshold than the model's, for both.

Errors (missing model file, empty sentence, a model that decodes with MST, ...) are printed as one line on
stderr and exit with status 2.
"""
import argparse
import math
import os
import sys
from typing import List, Optional, Sequence

# costs nothing: `python -m seqgraph_allennlp.plot` imports the package (torch included) before this module
from seqgraph_allennlp.common.errors import SeqGraphError

# Imports of torch, allennlp and this package are left to the functions that need them, so that the
# command line checks its arguments (and `--help` answers) without loading them.

# the label of node 0, the root token, in the figures
ROOT_TOKEN = "ROOT"
EXIT_ERROR = 2
# the heat maps' colours: a square-root scale, so that the small mass of later, flatter steps still shows
COLOUR_GAMMA = 0.5
MAX_COLUMNS = 5
LABEL_LENGTH = 12
# the enhanced graph's extra edges in the tree panel: the HTML view's colour (seqgraph_allennlp.html_view)
EXTRA_EDGE_COLOUR = "#0b8f7e"


class PlotError(SeqGraphError):
    """A problem with the user's input: reported as one line, without a traceback."""


def _short(word: str) -> str:
    return word if len(word) <= LABEL_LENGTH else word[: LABEL_LENGTH - 1] + "\u2026"


def _tick_stride(num_labels: int) -> int:
    """Label every tick up to 20 labels, then every second, third, ... so that at most ~20 show."""
    return max(1, math.ceil(num_labels / 20))


def _sentence_tensors(model, reader, words: List[str]):
    """The model's input for one sentence, on the model's device, after the checks that plotting needs."""
    from allennlp.data import Batch
    from allennlp.nn import util

    if not words:
        raise PlotError("the sentence is empty: give at least one word")
    if not hasattr(model, "decode_steps"):
        raise PlotError(
            f"the model is a {type(model).__name__}, which has no decoding steps to plot "
            "(a seqgraph_parser model is needed)"
        )
    if getattr(model, "decoder", "valid") == "mst":
        raise PlotError(
            'this model decodes with Chu-Liu-Edmonds (decoder: "mst"), which has no steps to plot; '
            'use a model trained with decoder: "valid"'
        )
    instance = reader.text_to_instance(words)
    reader.apply_token_indexers(instance)
    batch = Batch([instance])
    batch.index_instances(model.vocab)
    tensors = batch.as_tensor_dict()
    device = next(model.parameters()).device
    return util.move_to_device(tensors, device)


def decode_sentence(model, reader, words: Sequence[str], decoding=None):
    """
    Runs `model.decode_steps` on one sentence and returns plain numpy/list data:
    `(policies (num_steps, V, V), edges [(head, dependent), ...], edge_steps [...], edge_probabilities [...],
    heads [V])`. `decoding` (`DecodingOptions`) replaces the model's own decoding options.
    """
    from allennlp.common.checks import ConfigurationError

    words = list(words)
    tensors = _sentence_tensors(model, reader, words)
    model.eval()
    try:
        output = model.decode_steps(tensors["words"], tensors.get("pos_tags"), decoding=decoding)
    except (ConfigurationError, ValueError) as error:
        message = getattr(error, "message", None) or str(error)
        raise PlotError(" ".join(str(message).split())) from error
    num_words = len(words)
    policies = output["policies"][0].float().cpu()
    edges = output["edges"][0, :num_words].cpu().tolist()
    edge_steps = output["edge_steps"][0, :num_words].cpu().tolist()
    probabilities = output["edge_probabilities"][0, :num_words].cpu().tolist()
    heads = output["heads"][0].cpu().tolist()
    return policies.numpy(), edges, edge_steps, probabilities, heads


def _forward_output(model, reader, words: List[str], decoding, heads: List[int]):
    """
    The model's `forward` on `words` (with `decoding`, `None` for the model's own), after checking that it
    decoded the tree that `decode_steps` did (`heads`): its labels and enhanced graph must fit those arcs.
    """
    import torch

    with torch.no_grad():
        output = model(**_sentence_tensors(model, reader, words), decoding=decoding)
    forward_heads = output["heads"][0].cpu().tolist()
    if forward_heads != heads:
        raise PlotError(
            "the model's forward pass decoded another tree than decode_steps "
            f"({forward_heads[1:]} against {heads[1:]}): its labels would not fit the arcs"
        )
    return output


def enhanced_graph_of(model, output, heads: List[int]):
    """
    The enhanced graph in `forward`'s `output` for one sentence (a `predict_enhanced` model's): `(extra_edges
    [(head, dependent), ...] in the order the graph phase added them, their labels, their probabilities, the
    enhanced label of each word's tree edge)`, labels from the vocabulary namespace `"enhanced_tags"`.
    """
    num_words = len(heads) - 1
    extra = [tuple(edge) for edge in output["extra_edges"][0].cpu().tolist() if edge[0] >= 0]
    extra_probabilities = output["extra_edge_probabilities"][0, : len(extra)].float().cpu().tolist()
    enhanced_edges = output["enhanced_edges"][0].cpu().tolist()
    enhanced_tags = output["enhanced_tags"][0].cpu().tolist()
    # the tree's edges, one per word in word order, then the extra ones
    tree_edges = [tuple(edge) for edge in enhanced_edges[:num_words]]
    following = [tuple(edge) for edge in enhanced_edges[num_words:] if edge[0] >= 0]
    expected_tree = [(heads[dependent], dependent) for dependent in range(1, num_words + 1)]
    if tree_edges != expected_tree or following != extra:
        raise PlotError(
            "the model's enhanced edges are not its tree's followed by its extra edges "
            f"({enhanced_edges} against {expected_tree} and {extra})"
        )

    def label(index: int) -> str:
        return model.vocab.get_token_from_index(index, "enhanced_tags")

    enhanced_labels = [label(index) for index in enhanced_tags[:num_words]]
    extra_labels = [label(index) for index in enhanced_tags[num_words : num_words + len(extra)]]
    return extra, extra_labels, extra_probabilities, enhanced_labels


def parse_sentence(model, reader, words: Sequence[str], decoding=None):
    """
    Parses `words` with `model` (a `SeqGraphParser`) step by step and returns a
    `seqgraph_allennlp.html_view.StepwiseParse`: the generation order, steps and probabilities of
    `decode_sentence`, and the relation labels.

    `decode_steps` gives no labels: they come from the model's `forward`, as the predictor's do
    (`make_output_human_readable`), which decodes the same tree; a tree that differs is an error rather than
    labels for the wrong heads. For a model with the enhanced graph (`predict_enhanced`) `forward` also gives
    its extra edges (in the order added, with their labels and probabilities) and each tree edge's enhanced
    label: the parse's `extra_edges`, `extra_labels`, `extra_edge_probabilities` and `enhanced_labels`, empty
    and `None` for other models.

    # Parameters

    model : `SeqGraphParser`
    reader : `SeqGraphUDReader`
        The archive's reader, which makes the model's input from the words.
    words : `Sequence[str]`
    decoding : `DecodingOptions`, optional (default = `None`)
        Replaces the model's own decoding options (e.g. another `tau`).
    """
    from seqgraph_allennlp.html_view import StepwiseParse

    words = list(words)
    policies, edges, edge_steps, probabilities, heads = decode_sentence(model, reader, words, decoding)
    decoding = decoding if decoding is not None else model.decoding
    labels: List[Optional[str]] = [None] * len(words)
    enhanced = {}
    predict_enhanced = getattr(model, "predict_enhanced", False)
    if getattr(model, "predict_labels", False) or predict_enhanced:
        output = _forward_output(model, reader, words, decoding, heads)
        if getattr(model, "predict_labels", False):
            labels = [
                model.vocab.get_token_from_index(label, "head_tags")
                for label in output["head_tags"][0, 1 : len(words) + 1].cpu().tolist()
            ]
        if predict_enhanced:
            extra, extra_labels, extra_probabilities, enhanced_labels = enhanced_graph_of(
                model, output, heads
            )
            enhanced = {
                "extra_edges": extra,
                "extra_labels": extra_labels,
                "extra_edge_probabilities": extra_probabilities,
                "enhanced_labels": enhanced_labels,
            }
    return StepwiseParse(
        words=words,
        heads=heads[1 : len(words) + 1],
        labels=labels,
        edges=[tuple(edge) for edge in edges],
        edge_steps=edge_steps,
        edge_probabilities=probabilities,
        num_steps=int(policies.shape[0]),
        tau=decoding.tau,
        **enhanced,
    )


def write_parse_html(model, reader, words: Sequence[str], output_path: str, decoding=None):
    """
    Writes the HTML view of `model`'s parse of `words` (`seqgraph_allennlp.html_view`) to `output_path`
    and returns the `StepwiseParse` it shows. `decoding` (`DecodingOptions`) replaces the model's own.
    """
    from seqgraph_allennlp.html_view import write_html

    parse = parse_sentence(model, reader, words, decoding)
    directory = os.path.dirname(os.path.abspath(output_path))
    os.makedirs(directory, exist_ok=True)
    write_html(parse, output_path)
    return parse


def plot_steps(
    model,
    reader,
    words: Sequence[str],
    output_path: Optional[str] = None,
    max_steps: Optional[int] = None,
    decoding=None,
):
    """
    Draws the per-step edge distributions of `model` (a `SeqGraphParser`) on `words` and the final tree,
    saves the figure to `output_path` (any format matplotlib knows from the extension; nothing is saved when
    it is `None`) and returns the matplotlib `Figure`.

    Its step panels are the axes labelled `step-1`, `step-2`, ... (`Axes.get_label()`), the tree panel is
    `tree` and the colour bar `colorbar`. `max_steps` keeps only the first steps (the tree is always whole).
    `decoding` (`DecodingOptions`) replaces the model's own decoding options.

    For a model with the enhanced graph (`predict_enhanced`) the tree panel also draws the graph phase's
    extra edges, dashed below the words and numbered by their steps after the tree's (from `forward`, which
    must decode the same tree); the step panels are the tree's steps only, the graph phase's policies are
    not drawn.
    """
    from matplotlib.colors import PowerNorm
    from matplotlib.figure import Figure
    from matplotlib.gridspec import GridSpec
    from matplotlib.patches import Rectangle

    if max_steps is not None and max_steps < 1:
        raise PlotError(f"--max-steps must be at least 1, got {max_steps}")
    words = list(words)
    policies, edges, edge_steps, probabilities, heads = decode_sentence(model, reader, words, decoding)
    num_steps = policies.shape[0]
    shown = num_steps if max_steps is None else min(num_steps, max_steps)
    num_nodes = len(words) + 1
    nodes = [ROOT_TOKEN] + words
    extra_edges = []
    if getattr(model, "predict_enhanced", False):
        output = _forward_output(model, reader, words, decoding, heads)
        extra_edges = enhanced_graph_of(model, output, heads)[0]

    # the heat maps: rows are heads (ROOT and words), columns dependents (words; ROOT is never a dependent)
    maps = policies[:shown, :, 1:]
    vmax = float(maps.max()) if maps.size else 1.0
    norm = PowerNorm(gamma=COLOUR_GAMMA, vmin=0.0, vmax=max(vmax, 1e-6))

    # as few rows as MAX_COLUMNS allows, the panels spread evenly over them
    rows = max(1, math.ceil(shown / MAX_COLUMNS))
    columns = max(1, math.ceil(shown / rows))
    # a panel grows with the sentence, within bounds that keep a 6-10 word sentence readable
    panel = min(4.2, max(2.6, 0.24 * num_nodes + 1.0))
    tree_height = 2.4 + 0.06 * num_nodes
    if extra_edges:
        # the extra edges' arcs below the words
        tree_height *= 1.6
    width = columns * panel + 1.3
    height = rows * (panel + 0.35) + tree_height + 1.0
    figure = Figure(figsize=(width, height), dpi=100, layout="constrained")
    grid = GridSpec(
        rows + 1,
        columns + 1,
        figure=figure,
        width_ratios=[1.0] * columns + [0.05],
        height_ratios=[panel] * rows + [tree_height],
    )

    stride = _tick_stride(num_nodes)
    head_ticks = list(range(0, num_nodes, stride))
    dependent_ticks = list(range(0, num_nodes - 1, stride))
    image = None
    step_of_edge = {}
    for (head, dependent), step in zip(edges, edge_steps):
        if head >= 0:
            step_of_edge[(head, dependent)] = step
    for index in range(shown):
        row, column = divmod(index, columns)
        axes = figure.add_subplot(grid[row, column], label=f"step-{index + 1}")
        image = axes.imshow(maps[index], cmap="viridis", norm=norm, aspect="auto", interpolation="nearest")
        # the edges chosen before this step (white dots) and at this step (red box)
        earlier = [edge for edge, step in step_of_edge.items() if step < index]
        if earlier:
            axes.scatter(
                [dependent - 1 for _, dependent in earlier],
                [head for head, _ in earlier],
                s=14,
                c="white",
                edgecolors="black",
                linewidths=0.5,
                zorder=3,
            )
        chosen = [
            (edge, probability)
            for edge, step, probability in zip(edges, edge_steps, probabilities)
            if step == index and edge[0] >= 0
        ]
        for (head, dependent), _ in chosen:
            axes.add_patch(
                Rectangle(
                    (dependent - 1.5, head - 0.5),
                    1,
                    1,
                    fill=False,
                    edgecolor="red",
                    linewidth=2.0,
                    zorder=4,
                )
            )
        if chosen:
            (head, dependent), probability = chosen[0]
            arrow = f"{_short(nodes[head])} \u2192 {_short(nodes[dependent])}"
            title = f"t={index + 1}: {arrow} (p={probability:.2f})"
            if len(chosen) > 1:
                title += f" +{len(chosen) - 1}"
        else:
            title = f"t={index + 1}"
        axes.set_title(title, fontsize=9)
        axes.set_yticks(head_ticks)
        axes.set_xticks(dependent_ticks)
        axes.tick_params(length=2, labelsize=7)
        if column == 0:
            axes.set_yticklabels([_short(nodes[i]) for i in head_ticks])
            axes.set_ylabel("head", fontsize=8)
        else:
            axes.set_yticklabels([])
        # x labels under the last panel of each column
        if index + columns >= shown:
            axes.set_xticklabels([_short(nodes[i + 1]) for i in dependent_ticks], rotation=60, ha="right")
            axes.set_xlabel("dependent", fontsize=8)
        else:
            axes.set_xticklabels([])

    if image is not None:
        colour_axes = figure.add_subplot(grid[:rows, columns], label="colorbar")
        colour_bar = figure.colorbar(image, cax=colour_axes)
        colour_bar.set_label("policy probability of the edge (sqrt scale)", fontsize=8)
        colour_bar.ax.tick_params(labelsize=7)

    tree_axes = figure.add_subplot(grid[rows, :], label="tree")
    _draw_tree(tree_axes, nodes, edges, edge_steps, probabilities, extra_edges, first_extra_step=num_steps)
    title = "Per-step edge distributions (red box: edge chosen at step t; white dots: edges chosen before)"
    if shown < num_steps:
        title += f"\nfirst {shown} of {num_steps} steps shown"
    figure.suptitle(title, fontsize=11)
    if output_path is not None:
        directory = os.path.dirname(os.path.abspath(output_path))
        os.makedirs(directory, exist_ok=True)
        figure.savefig(output_path)
    return figure


def _draw_tree(
    axes, nodes: List[str], edges, edge_steps, probabilities, extra_edges=(), first_extra_step=None
) -> None:
    """
    The final tree as arcs above the words, from head to dependent, labelled with their step; an enhanced
    graph's `extra_edges` (`(head, dependent)` in the order added) dashed below the words in
    `EXTRA_EDGE_COLOUR`, numbered on from `first_extra_step` (0-based; default: after the tree's last step).
    Its patches are `FancyArrowPatch`es with the gid `tree-edge` or `extra-edge`.
    """
    from matplotlib import colormaps
    from matplotlib.patches import FancyArrowPatch
    from matplotlib.path import Path

    num_words = len(nodes) - 1
    steps = [step for step in edge_steps if step >= 0]
    last = max(steps) if steps else 0
    colours = colormaps["plasma"]
    for index, node in enumerate(nodes):
        axes.text(
            index,
            0,
            node,
            ha="center",
            va="top",
            fontsize=9 if num_words <= 20 else 7,
            fontweight="bold" if index == 0 else "normal",
            rotation=0 if num_words <= 14 else 45,
        )
    extra_edges = [tuple(edge) for edge in extra_edges if edge[0] >= 0]
    max_span = max([abs(head - dependent) for head, dependent in edges if head >= 0] + [1])
    base = 0.08
    for (head, dependent), step, probability in zip(edges, edge_steps, probabilities):
        if head < 0:
            continue
        span = abs(head - dependent)
        height = 0.2 + 0.8 * span / max_span
        # a quadratic Bezier in data coordinates whose apex, at the middle, is `height` above the words
        middle = (head + dependent) / 2
        path = Path(
            [(head, base), (middle, base + 2 * height), (dependent, base)],
            [Path.MOVETO, Path.CURVE3, Path.CURVE3],
        )
        colour = "red" if head == 0 else colours(0.85 * step / max(last, 1))
        axes.add_patch(
            FancyArrowPatch(
                path=path,
                arrowstyle="-|>",
                mutation_scale=10,
                linewidth=1.6 if head == 0 else 1.2,
                color=colour,
                linestyle="--" if head == 0 else "-",
                gid="tree-edge",
            )
        )
        axes.text(
            middle,
            base + height,
            f"{step + 1}",
            ha="center",
            va="center",
            fontsize=7,
            color=colour,
            bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none", "alpha": 0.9},
        )
    bottom = -0.3 if num_words <= 14 else -0.5
    title = (
        "Final tree: arcs from head to dependent, numbered by the step that added them "
        "(dashed red: ROOT arc)"
    )
    if extra_edges:
        # below the words (rotated ones reach lower), as deep as the tree's arcs are high
        extra_base = -0.22 if num_words <= 14 else -0.5
        max_extra_span = max(abs(head - dependent) for head, dependent in extra_edges)
        first = first_extra_step if first_extra_step is not None else last + 1
        for index, (head, dependent) in enumerate(extra_edges):
            depth = 0.15 + 0.45 * abs(head - dependent) / max_extra_span
            middle = (head + dependent) / 2
            path = Path(
                [(head, extra_base), (middle, extra_base - 2 * depth), (dependent, extra_base)],
                [Path.MOVETO, Path.CURVE3, Path.CURVE3],
            )
            axes.add_patch(
                FancyArrowPatch(
                    path=path,
                    arrowstyle="-|>",
                    mutation_scale=10,
                    linewidth=1.2,
                    color=EXTRA_EDGE_COLOUR,
                    linestyle="--",
                    gid="extra-edge",
                )
            )
            axes.text(
                middle,
                extra_base - depth,
                f"{first + index + 1}",
                ha="center",
                va="center",
                fontsize=7,
                color=EXTRA_EDGE_COLOUR,
                bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none", "alpha": 0.9},
            )
        bottom = extra_base - 0.6 - 0.08
        title += (
            f"\ndashed green-blue below the words: the enhanced graph's {len(extra_edges)} extra "
            f"edge{'' if len(extra_edges) == 1 else 's'}, numbered on from the tree's steps"
        )
    axes.set_xlim(-0.7, num_words + 0.7)
    axes.set_ylim(bottom, 1.15)
    axes.axis("off")
    axes.set_title(title, fontsize=9)


# `--tau` not given: the model decodes with its own options (not a string, which argparse would parse)
KEEP_TAU = object()


def _tau(text: str) -> Optional[float]:
    if text.lower() == "none":
        return None
    try:
        tau = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1] or 'none', got {text!r}") from None
    if not 0.0 < tau <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {text}")
    return tau


def _decoding(model, tau):
    """The model's decoding options with `--tau`'s threshold; `None` (the model's own) without `--tau`."""
    if tau is KEEP_TAU or not hasattr(model, "decoding"):
        return None
    return model.decoding._replace(tau=tau)


def _parse_arguments(arguments: Optional[List[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m seqgraph_allennlp.plot",
        description="Plot the per-step edge distributions of a sequential graph parser on one sentence "
        "(Figure 1 of Welleck & Cho, 2019), or show its parse step by step in an HTML page (--html).",
    )
    parser.add_argument("model", help="a trained model archive (model.tar.gz)")
    parser.add_argument(
        "--sentence",
        required=True,
        help='the sentence, split on whitespace (e.g. "The cat sat on the mat .")',
    )
    parser.add_argument(
        "-o",
        "--output",
        default=None,
        help="the image to write (default: steps.png, none when only --html is given)",
    )
    parser.add_argument(
        "--html",
        default=None,
        metavar="PATH",
        help="also (or, without -o, only) write the parse as one self-contained HTML page with a step slider",
    )
    parser.add_argument(
        "--tau",
        type=_tau,
        default=KEEP_TAU,
        help="decode with this multi-edge threshold in (0, 1], or 'none' for one edge per step "
        "(default: the model's own)",
    )
    parser.add_argument("--cuda-device", type=int, default=-1, help="GPU to use, -1 for the CPU (default)")
    parser.add_argument(
        "--max-steps", type=int, default=None, help="plot only the first steps (for long sentences)"
    )
    return parser.parse_args(arguments)


def main(arguments: Optional[List[str]] = None) -> int:
    options = _parse_arguments(arguments)
    if options.output is None and options.html is None:
        options.output = "steps.png"
    try:
        words = options.sentence.split()
        if not words:
            raise PlotError("the sentence is empty: give at least one word")
        if options.max_steps is not None and options.max_steps < 1:
            raise PlotError(f"--max-steps must be at least 1, got {options.max_steps}")
        if not os.path.isfile(options.model):
            raise PlotError(f"model file not found: {options.model}")

        import seqgraph_allennlp  # noqa: F401  (registers the model and reader)
        from allennlp.models.archival import load_archive

        try:
            archive = load_archive(options.model, cuda_device=options.cuda_device)
        except Exception as error:  # a corrupt or foreign archive, a missing GPU, ...
            message = " ".join(str(error).split()) or type(error).__name__
            raise PlotError(f"could not load the model archive {options.model}: {message}") from error
        decoding = _decoding(archive.model, options.tau)
        written = []
        if options.output is not None:
            plot_steps(
                archive.model, archive.dataset_reader, words, options.output, options.max_steps, decoding
            )
            written.append(options.output)
        if options.html is not None:
            try:
                write_parse_html(archive.model, archive.dataset_reader, words, options.html, decoding)
            except OSError as error:  # a directory that cannot be written, ...
                raise PlotError(f"could not write {options.html}: {error.strerror or error}") from error
            written.append(options.html)
    except PlotError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    for path in written:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
