"""
The DEPS column as text: one node's enhanced `(head, label)` pairs written as a DEPS value (`format_deps`), and a
graph's collapsed path labels undone into chains through new empty nodes (`expand_paths`), which
`seqgraph_allennlp.common.conllu.format_sentence` writes as empty-node lines. Reading DEPS and collapsing a
sentence's empty nodes into path labels is `seqgraph_allennlp.common.enhanced`, which reads sentences of
`seqgraph_allennlp.common.conllu`; this module reads neither, so that both can use it.

Conventions: as in `seqgraph_allennlp.common.conllu`, a sentence of `N` words has word ids `1..N` and head `0`
is the root; a head as DEPS writes it is a word id (`"3"`) or an empty node id (`"3.1"`).
"""
import re
from typing import Dict, List, Optional, Sequence, Set, Tuple, Union

# collapsed labels join the labels of a path through empty nodes with this
PATH_SEPARATOR = ">"
# a head as DEPS writes it: a word id (`0` the root) or an empty node id (`8.1`)
_HEAD_ID = re.compile(r"(0|[1-9][0-9]*)(?:\.([1-9][0-9]*))?")

# One node's DEPS pairs with heads as id strings (`"3"`, `"2.1"`), as `expand_paths` gives them.
DepsPairs = List[Tuple[str, str]]


def format_deps(edges: Sequence[Tuple[Union[int, str], str]]) -> str:
    """
    A DEPS value: `head:label` pairs joined by `|`, sorted by head, then label, as UD requires (heads as
    numbers: `2 < 2.1 < 2.10 < 3`); a pair given twice is written once (a graph is a set of edges); `_` for
    no edge.

    # Parameters

    edges : `Sequence[Tuple[Union[int, str], str]]`
        One node's `(head, label)` pairs, head `0` the root; a head is a word id (an integer, or its
        string) or an empty node id (`"2.1"`, as `expand_paths` gives them).

    # Raises

    `ValueError` for a head that is not such an id and for a label that is empty or has whitespace or `|`.
    """
    if not edges:
        return "_"
    pairs: Set[Tuple[Tuple[int, int], str, str]] = set()
    for head, label in edges:
        head_id = _head_id(head)
        # anything else would make the column unreadable (or mean another head)
        if head_id is None or not isinstance(label, str) or not label or re.search(r"[\s|]", label):
            raise ValueError(f"cannot write enhanced edge ({head!r}, {label!r}) in DEPS")
        pairs.add((_head_key(head_id), label, head_id))
    return "|".join(f"{head_id}:{label}" for _, label, head_id in sorted(pairs))


def expand_paths(
    graph: Sequence[Sequence[Tuple[int, str]]]
) -> Tuple[List[DepsPairs], List[Tuple[str, DepsPairs]]]:
    """
    The inverse of the collapse of empty nodes: each edge with a path label (`(3, "conj>nsubj")`) becomes
    a chain through new empty nodes (`3 -conj-> 3.1 -nsubj-> word`), so that every label written is a
    single relation, as UD requires, and `enhanced.enhanced_graph` of the written sentence collapses it back
    into the same graph.

    Empty nodes are shared as in a gold gapping graph: all edges whose path starts with the same head and
    first label go through one empty node (`(4, "conj>nsubj")` on word 6 and `(4, "conj>obj")` on word 7
    make one node `4.1` with DEPS `4:conj`, and words 6 and 7 get `4.1:nsubj` and `4.1:obj`), and the rest
    of longer paths (`a>b>c`) nest the same way under it: the empty nodes form a tree of path prefixes, so
    each path of the graph is the one path from its head to its word. A path back to its own head
    (`(7, "acl:relcl>nsubj")` on word 7) is the cycle `7 -acl:relcl-> 7.1 -nsubj-> 7`. A graph without path
    labels gives no empty node and its own pairs.

    Each empty node is placed after the word at the start of its path (`0.m` before the first word for a
    path from the root) and numbered `k.1`, `k.2`, ... per word `k`, in the order of the path prefixes
    (head, then labels), a node before those nested under it.

    # Parameters

    graph : `EnhancedGraph` (`seqgraph_allennlp.common.enhanced`)
        Each word's `(head, label)` pairs, heads word ids in `0..N` and labels relations or paths of them
        joined by `>` (`PATH_SEPARATOR`).

    # Returns

    `Tuple[List[List[Tuple[str, str]]], List[Tuple[str, List[Tuple[str, str]]]]]`
        Each word's DEPS pairs, heads as id strings (`"3"`, `"3.1"`), sorted as UD sorts DEPS; and the
        new empty nodes as `(id, DEPS pairs)` in file order (`2.1`, `2.2`, `3.1`), each with its one
        parent. `format_deps` writes each list of pairs.

    # Raises

    `ValueError` for a head that is not a word id in `0..N` and for a path with an empty step (`conj>`,
    `a>>b`).
    """
    num_words = len(graph)
    # each word's edges as (head, the labels of the path)
    paths: List[List[Tuple[int, Tuple[str, ...]]]] = []
    for word, edges in enumerate(graph, start=1):
        word_paths = []
        for head, label in edges:
            head_id = _head_id(head)
            if head_id is None or "." in head_id or int(head_id) > num_words:
                raise ValueError(
                    f"enhanced edge ({head!r}, {label!r}) of word {word}: the head is not a word id in "
                    f"0..{num_words}"
                )
            if not isinstance(label, str):
                raise ValueError(f"cannot write enhanced edge ({head!r}, {label!r}) in DEPS")
            steps = tuple(label.split(PATH_SEPARATOR))
            if len(steps) > 1 and not all(steps):
                raise ValueError(
                    f"enhanced edge ({head!r}, {label!r}) of word {word}: a path label needs a relation at "
                    f"each step"
                )
            word_paths.append((int(head_id), steps))
        paths.append(word_paths)
    # the empty nodes: one per proper prefix of a path, numbered per word in prefix order
    prefixes = sorted({(head, steps[:length]) for word_paths in paths for head, steps in word_paths
                       for length in range(1, len(steps))})
    node_ids: Dict[Tuple[int, Tuple[str, ...]], str] = {}
    numbered: Dict[int, int] = {}
    for head, steps in prefixes:
        numbered[head] = numbered.get(head, 0) + 1
        node_ids[(head, steps)] = f"{head}.{numbered[head]}"

    def node(head: int, steps: Tuple[str, ...]) -> str:
        return node_ids[(head, steps)] if steps else str(head)

    words = [sorted({(node(head, steps[:-1]), steps[-1]) for head, steps in word_paths}, key=_pair_key)
             for word_paths in paths]
    empty_nodes = [(node_ids[(head, steps)], [(node(head, steps[:-1]), steps[-1])]) for head, steps in prefixes]
    empty_nodes.sort(key=lambda empty_node: _head_key(empty_node[0]))
    return words, empty_nodes


def _head_id(head: object) -> Optional[str]:
    """A head as DEPS writes it (`"3"`, `"2.1"`), or `None` when it is no word or empty node id."""
    if isinstance(head, str):
        return head if _HEAD_ID.fullmatch(head) else None
    try:
        number = int(head)  # type: ignore[call-overload]
    except (TypeError, ValueError, OverflowError):
        return None
    if isinstance(head, bool) or number != head or number < 0:
        return None
    return str(number)


def _head_key(head_id: str) -> Tuple[int, int]:
    """A head id as UD sorts it (`udtools`' `nodeid2tuple`): `2` < `2.1` < `2.10` < `3`."""
    word, _, empty = head_id.partition(".")
    return int(word), int(empty) if empty else 0


def _pair_key(pair: Tuple[str, str]) -> Tuple[Tuple[int, int], str]:
    return _head_key(pair[0]), pair[1]
