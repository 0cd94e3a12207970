"""
The enhanced UD layer (the DEPS column) as data: each word's enhanced heads, read and checked from a
`ConlluSentence`, with empty nodes collapsed. Writing a graph back as DEPS is `seqgraph_allennlp.common.deps`.

An enhanced graph may give a word several heads (a shared subject, control, the antecedent of a relative
pronoun), may have directed cycles (`acl:relcl` + `ref`) and several root edges. Its nodes may include
empty nodes (`8.1`, e.g. the elided verb of a gapping construction), which a parser that labels pairs of
words cannot predict. The IWPT 2020/2021 shared tasks therefore scored enhanced graphs after the UD tools'
`enhanced_collapse_empty_nodes.pl` had removed the empty nodes from gold and system files alike: every
path `word -a-> 8.1 -b-> word` becomes one edge labelled `a>b`. `enhanced_graph` does the same collapse
(a port of that script's behaviour, checked against it on UD_English-EWT:
`results/enhanced/collapse_check.json`), so a graph from this module is what ELAS and EULAS compare
(`seqgraph_allennlp.common.scoring.enhanced_scores`).

A path label is no UD relation (the validator refuses `3:conj>nsubj`), so a graph is not written that way:
`deps.expand_paths` undoes the collapse, each path becoming a chain of new empty nodes (`3 -conj-> 3.1 -nsubj->
2`), which `seqgraph_allennlp.common.conllu.format_sentence` writes as empty-node lines. Collapsing the
written sentence again (`enhanced_graph`) gives back the same graph, so ELAS and EULAS, which collapse
first, score the written file as the graph.

Conventions: as in `seqgraph_allennlp.common.conllu`, a sentence of `N` words has word ids `1..N` and head
`0` is the root. An `EnhancedGraph` lists, for each word in order, its `(head, label)` pairs sorted by
head, then label, as UD orders DEPS.
"""
import re
from typing import Dict, List, Optional, Set, Tuple

from seqgraph_allennlp.common.conllu import DEPS_COLUMN, ConlluError, ConlluSentence
from seqgraph_allennlp.common.deps import PATH_SEPARATOR

# For each word 1..N (index 0 is word 1) its enhanced heads: (head word id, full label), head 0 the root,
# sorted by (head, label).
EnhancedGraph = List[List[Tuple[int, str]]]

# one `head:label` pair of DEPS; the head is a word id (`0` the root) or an empty node id (`8.1`)
_DEP = re.compile(r"(0|[1-9][0-9]*)(?:\.([1-9][0-9]*))?:(\S+)")
# an empty node's id inside a path, as the Perl script strips it from a collapsed label
_EMPTY_NODE_IN_PATH = re.compile(r">\d+\.\d+>")

# A node of the graph as in the ID column: (word, 0) for a word or the root, (word, k) for empty node `word.k`.
_NodeId = Tuple[int, int]
# A path: node, label, node, label, ..., node (a plain edge is head, label, dependent).
_Path = Tuple[object, ...]


def enhanced_graph(sentence: ConlluSentence) -> Optional[EnhancedGraph]:
    """
    The sentence's enhanced graph (its DEPS column) over its words, empty nodes collapsed as the UD tools'
    `enhanced_collapse_empty_nodes.pl` collapses them: each path from a word (or the root) through one or
    more empty nodes to a word becomes an edge labelled with the path's labels joined by `>`
    (`3:conj>nsubj`), and edges from or to an empty node that no such path uses disappear with the node.

    # Parameters

    sentence : `ConlluSentence`
        A sentence as read, its empty-node lines (`8.1`) kept in `sentence.lines`.

    # Returns

    `Optional[EnhancedGraph]`
        Each word's `(head, label)` pairs sorted by head, then label (a word whose only heads were empty
        nodes that no path reaches has none), or `None` when the sentence has no enhanced annotation
        (every DEPS `_`).

    # Raises

    `ConlluError`, at the line concerned, for malformed DEPS (a pair that is not `head:label`, an empty or
    blank label, a head that is not an id), a head outside the sentence (a word id above `N`, an empty node
    that the sentence does not have), pairs not sorted by head then label, a repeated pair, and a sentence
    whose DEPS is `_` on some nodes but not on others.
    """
    nodes = _enhanced_nodes(sentence)
    annotated = [node for node in nodes if node[2] != "_"]
    if not annotated:
        return None
    missing = [node for node in nodes if node[2] == "_"]
    if missing:
        node_id, line_number, _ = missing[0]
        raise ConlluError(
            sentence.file_path, line_number,
            f"{_node_name(node_id)} has no DEPS ('_') but {_node_name(annotated[0][0])} at line "
            f"{annotated[0][1]} has: the enhanced graph must cover every node of the sentence or none",
        )
    empty_nodes = {node_id for node_id, _, _ in nodes if node_id[1] != 0}
    edges: List[_Path] = []
    # nodes in id order, as the script takes them (the order can decide which paths it finds)
    for node_id, line_number, deps in sorted(nodes, key=lambda node: node[0]):
        for head, label in parse_deps(deps, len(sentence), empty_nodes, sentence.file_path, line_number):
            edges.append((head, label, node_id))
    return _word_graph(_collapse_empty_nodes(edges), len(sentence))


def parse_deps(
    deps: str, num_words: int, empty_nodes: Set[_NodeId], file_path: str = "<string>", line_number: int = 0
) -> List[Tuple[_NodeId, str]]:
    """
    The `(head, label)` pairs of one DEPS value (not `_`), heads as `(word, k)` node ids (`(3, 0)` for
    word 3, `(8, 1)` for empty node `8.1`, `(0, 0)` the root), in file order.

    # Parameters

    deps : `str`
        The DEPS column, e.g. `4:nsubj|7.1:obj`.
    num_words : `int`
        `N`, the sentence's number of words: a word head must be in `0..N`.
    empty_nodes : `Set[Tuple[int, int]]`
        The sentence's empty nodes: an empty-node head must be one of them.
    file_path : `str`, optional
    line_number : `int`, optional
        Where `deps` is, for the `ConlluError` raised on malformed, out-of-sentence, unsorted or repeated pairs.
    """
    pairs: List[Tuple[_NodeId, str]] = []
    for item in deps.split("|"):
        match = _DEP.fullmatch(item)
        if match is None:
            raise ConlluError(
                file_path, line_number,
                f"malformed DEPS {deps!r}: {item!r} is not head:label (head a word id, 0 or an empty node "
                f"id such as 8.1; the label not empty)",
            )
        word, empty, label = match.groups()
        head = (int(word), int(empty) if empty else 0)
        if head[1] == 0 and head[0] > num_words:
            raise ConlluError(
                file_path, line_number,
                f"DEPS {deps!r}: head {word} is outside the sentence (0..{num_words})",
            )
        if head[1] != 0 and head not in empty_nodes:
            raise ConlluError(
                file_path, line_number,
                f"DEPS {deps!r}: head {word}.{empty} is not an empty node of the sentence",
            )
        pairs.append((head, label))
    for previous, pair in zip(pairs, pairs[1:]):
        if pair == previous:
            raise ConlluError(
                file_path, line_number, f"DEPS {deps!r} repeats {_format_pair(pair)}"
            )
        if pair < previous:
            raise ConlluError(
                file_path, line_number,
                f"DEPS {deps!r} is not sorted by head, then label: {_format_pair(pair)} comes after "
                f"{_format_pair(previous)}",
            )
    return pairs


def universal_enhanced_label(label: str) -> str:
    """
    The part of an enhanced label that EULAS compares, cut as `udtools.udeval` cuts it: each step of a
    collapsed path (`>`) loses everything from its first `:`, so `conj:and>nsubj:pass` gives `conj>nsubj`
    and `obl:in` gives `obl`.
    """
    return PATH_SEPARATOR.join(step.split(":")[0] for step in label.split(PATH_SEPARATOR))


def _enhanced_nodes(sentence: ConlluSentence) -> List[Tuple[_NodeId, int, str]]:
    """`(node id, line number, DEPS)` of the sentence's words and empty nodes, in file order."""
    nodes = []
    words = iter(sentence.words)
    for line, line_number in zip(sentence.lines, sentence.line_numbers):
        if line.startswith("#"):
            continue
        columns = line.split("\t")
        token_id = columns[0]
        if "-" in token_id:  # a multiword-token range is no node
            continue
        if "." in token_id:
            major, minor = token_id.split(".")
            nodes.append(((int(major), int(minor)), line_number, columns[DEPS_COLUMN]))
        else:
            word = next(words)
            nodes.append(((word.id, 0), word.line_number, word.deps))
    return nodes


def _collapse_empty_nodes(edges: List[_Path]) -> List[_Path]:
    """
    The word-to-word edges of a graph (`(head, label, dependent)`, node ids `(word, k)`) with every path
    through empty nodes collapsed into one edge, as the UD tools' `enhanced_collapse_empty_nodes.pl` does.

    Paths grow from both ends: a path that starts at an empty node (a queue, each path once) is extended
    backwards with each known path that ends at that node; a path that reaches words at both ends is kept,
    a cycle through an empty node included (even a self-loop: the script keeps it to lose nothing), while a
    path that still has an empty end is queued for further growth only if no node repeats on it. Edges are
    taken in the script's order (nodes in file order, each node's DEPS in order) so that the same paths are
    found. A path whose empty source has no parent, or whose empty target has no child, leads nowhere and
    is dropped.
    """
    def is_empty(node: object) -> bool:
        return node[1] != 0  # type: ignore[index]

    word_edges = [edge for edge in edges if not is_empty(edge[0]) and not is_empty(edge[-1])]
    from_empty = [edge for edge in edges if is_empty(edge[0])]
    into_empty = [edge for edge in edges if is_empty(edge[-1])]
    queued = set(from_empty)
    known_into = set(into_empty)
    next_index = 0
    while next_index < len(from_empty):
        tail = from_empty[next_index]
        next_index += 1
        # the paths known now: those found while extending this one wait for a later turn, as in the script
        for head_part in [path for path in into_empty if path[-1] == tail[0]]:
            path = head_part[:-1] + tail
            if not is_empty(path[0]) and not is_empty(path[-1]):
                word_edges.append(path)
                continue
            nodes_on_path = path[::2]
            if len(set(nodes_on_path)) < len(nodes_on_path):
                continue  # a cycle through an empty node: growing it would never end
            if is_empty(path[0]) and path not in queued:
                from_empty.append(path)
                queued.add(path)
            if is_empty(path[-1]) and path not in known_into:
                into_empty.append(path)
                known_into.add(path)
    return [(path[0], _path_label(path), path[-1]) for path in word_edges]


def _path_label(path: _Path) -> str:
    """
    The label of a collapsed path: its labels joined by `>`, the empty nodes' ids removed from between
    them the way the Perl script removes them (one substitution over the joined text).
    """
    if len(path) == 3:
        return str(path[1])
    joined = PATH_SEPARATOR.join(
        _format_node(item) if isinstance(item, tuple) else str(item) for item in path[1:-1]
    )
    return _EMPTY_NODE_IN_PATH.sub(PATH_SEPARATOR, joined)


def _word_graph(edges: List[_Path], num_words: int) -> EnhancedGraph:
    """The words' sorted, distinct `(head, label)` pairs from collapsed `(head, label, dependent)` edges."""
    heads: Dict[int, Set[Tuple[int, str]]] = {word: set() for word in range(1, num_words + 1)}
    for head, label, dependent in edges:
        heads[dependent[0]].add((head[0], label))  # type: ignore[index]
    return [sorted(heads[word]) for word in range(1, num_words + 1)]


def _format_node(node_id: _NodeId) -> str:
    return f"{node_id[0]}.{node_id[1]}" if node_id[1] else str(node_id[0])


def _format_pair(pair: Tuple[_NodeId, str]) -> str:
    return f"{_format_node(pair[0])}:{pair[1]}"


def _node_name(node_id: _NodeId) -> str:
    return f"empty node {_format_node(node_id)}" if node_id[1] else f"word {node_id[0]}"
