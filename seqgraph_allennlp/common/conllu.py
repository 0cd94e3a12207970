"""
Lossless CoNLL-U reading, validation and writing, with no AllenNLP dependency (the `seqgraph_ud` dataset
reader and the predictor both build on it).

Why not `conllu.parse_incr` alone: it turns each sentence into dictionaries and throws away what a
faithful writer and clear errors need: the line number of every line, and the exact text of each line
(it drops comments with no `key = value`, strips whitespace, parses FEATS, DEPS and MISC into structures
that are not guaranteed to serialise back to the same bytes, and accepts two spaces as a column
separator). So sentences are split here line by line and their raw lines kept, and only single values go
through the `conllu` package's own value parsers (ID, HEAD, comments).

Why not the UD validator (`udtools`' `udvalidate`, installed with the project): it checks a treebank
against UD's guidelines (allowed relations, features, punctuation attachment, ...) and lists every issue of
a file, where a parser must accept any well-formed file and stop at its first malformed line with one
`file:line` error. What only repeats the CoNLL 2018 evaluation (UAS, LAS) is taken from it instead
(`seqgraph_allennlp.common.scoring`).

Conventions: a sentence of `N` words has word ids `1..N`; heads are word ids with `0` the root, as in the
file. Multiword-token ranges (`3-4`) and empty nodes (`8.1`) are kept in `ConlluSentence.lines` for writing
but are not words.

Writing (`format_sentence`) replaces HEAD and DEPREL (and optionally UPOS) and keeps every other column as
read, except DEPS: the enhanced graph (DEPS and the empty nodes, which exist only in that layer,
`seqgraph_allennlp.common.enhanced`) must not stay beside a predicted tree it was not predicted with. So
DEPS is written `_` and the input's empty-node lines are left out unless the caller gives a predicted
enhanced graph or asks for the input's own with `KEEP_DEPS` (`format_gold`). A predicted graph has its
empty nodes collapsed into path labels (`3:conj>nsubj`), which UD does not allow: it is written with each
path as new empty nodes (`deps.expand_paths`), valid UD that collapses back into the same graph.

Line endings are normalised: `\\r\\n` and lone `\\r` read as `\\n`, and everything written ends lines with
`\\n`. A UTF-8 byte-order mark at the start of a file is dropped. Apart from these two normalisations (and
blank or whitespace-only lines around sentences, written as one empty line after each), writing back the
gold annotation (`format_gold`) gives the input file byte for byte.
"""
import io
from dataclasses import dataclass, field
from enum import Enum
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from conllu.exceptions import ParseException
from conllu.parser import parse_comment_line, parse_id_value, parse_int_value

from seqgraph_allennlp.common.deps import expand_paths, format_deps
from seqgraph_allennlp.common.errors import SeqGraphError

NUM_COLUMNS = 10
# 0-based positions of the columns that `format_sentence` rewrites.
UPOS_COLUMN = 3
HEAD_COLUMN = 6
DEPREL_COLUMN = 7
DEPS_COLUMN = 8


class _Deps(Enum):
    KEEP = "KEEP_DEPS"

    def __repr__(self) -> str:
        return self.value


# `format_sentence(..., deps=KEEP_DEPS)`: the DEPS column and the empty-node lines as read
KEEP_DEPS = _Deps.KEEP


class ConlluError(SeqGraphError, ValueError):
    """
    A malformed CoNLL-U file. The message is one line: `path:line: problem`, or `path: problem` when it is
    about the whole file (`line_number` `None`, e.g. a file with no sentence).
    """

    def __init__(self, file_path: str, line_number: Optional[int], problem: str) -> None:
        where = file_path if line_number is None else f"{file_path}:{line_number}"
        super().__init__(f"{where}: {problem}")
        self.file_path = file_path
        self.line_number = line_number
        self.problem = problem


@dataclass(frozen=True)
class ConlluWord:
    """
    One word line (integer id) of a CoNLL-U sentence. Every column but `id` and `head` is kept as the
    string found in the file (`"_"` included), so nothing is lost or re-formatted. `head` is `None` when
    the file has `_` (no gold head, e.g. raw text to parse).
    """

    id: int
    form: str
    lemma: str
    upos: str
    xpos: str
    feats: str
    head: Optional[int]
    deprel: str
    deps: str
    misc: str
    line_number: int

    @property
    def space_after(self) -> bool:
        return "SpaceAfter=No" not in self.misc.split("|")


@dataclass
class ConlluSentence:
    """
    One sentence exactly as it is in the file.

    # Parameters

    file_path : `str`
        The file it was read from (as given by the user), for error messages.
    lines : `List[str]`
        Every line of the sentence, without its line terminator: comments, multiword-token ranges, empty
        nodes and word lines, in file order. The blank line that ends the sentence is not included.
    line_numbers : `List[int]`
        The 1-based line number in the file of each of `lines`.
    words : `List[ConlluWord]`
        The parsed word lines (integer ids `1..N` only), in order.
    """

    file_path: str
    lines: List[str]
    line_numbers: List[int]
    words: List[ConlluWord] = field(default_factory=list)

    @property
    def start_line(self) -> int:
        return self.line_numbers[0]

    def __len__(self) -> int:
        return len(self.words)

    @property
    def forms(self) -> List[str]:
        return [word.form for word in self.words]

    @property
    def upos(self) -> List[str]:
        return [word.upos for word in self.words]

    @property
    def xpos(self) -> List[str]:
        return [word.xpos for word in self.words]

    @property
    def heads(self) -> List[Optional[int]]:
        return [word.head for word in self.words]

    @property
    def deprels(self) -> List[str]:
        return [word.deprel for word in self.words]

    @property
    def has_heads(self) -> bool:
        """Every word has an integer HEAD (so the tree checks apply)."""
        return all(word.head is not None for word in self.words)

    @property
    def has_gold_tree(self) -> bool:
        """Every word has an integer HEAD and a DEPREL: the sentence can be trained or evaluated on."""
        return self.has_heads and all(word.deprel != "_" for word in self.words)

    @property
    def comments(self) -> List[str]:
        return [line for line in self.lines if line.startswith("#")]

    @property
    def metadata(self) -> Dict[str, Optional[str]]:
        """The `# key = value` comments, parsed by the `conllu` package (`newdoc`/`newpar` may be `None`)."""
        metadata: Dict[str, Optional[str]] = {}
        for comment in self.comments:
            for key, value in parse_comment_line(comment):
                metadata[key] = value
        return metadata

    @property
    def sent_id(self) -> Optional[str]:
        return self.metadata.get("sent_id")

    @property
    def text(self) -> Optional[str]:
        return self.metadata.get("text")


def _parse_word_columns(
    columns: List[str], file_path: str, line_number: int
) -> Optional[Tuple[int, Optional[int]]]:
    """
    Validates the ID (and, for a word line, the HEAD) of a token line. Returns `(id, head)` for a word
    line and `None` for a multiword-token range or an empty node.
    """
    try:
        token_id = parse_id_value(columns[0])
    except ParseException:
        token_id = None
    if token_id is None:  # also `_` and the empty string, which `parse_id_value` lets through
        raise ConlluError(
            file_path, line_number, f"invalid ID {columns[0]!r}: expected N, N-M or N.M"
        )
    if not isinstance(token_id, int):
        return None
    try:
        head = parse_int_value(columns[HEAD_COLUMN])
    except ParseException:
        raise ConlluError(
            file_path,
            line_number,
            f"invalid HEAD {columns[HEAD_COLUMN]!r} for word {token_id}: expected an integer or '_'",
        ) from None
    return token_id, head


def _build_sentence(
    file_path: str, lines: List[str], line_numbers: List[int]
) -> ConlluSentence:
    sentence = ConlluSentence(file_path, lines, line_numbers)
    for line, line_number in zip(lines, line_numbers):
        if line.startswith("#"):
            continue
        columns = line.split("\t")
        if len(columns) != NUM_COLUMNS:
            raise ConlluError(
                file_path,
                line_number,
                f"expected {NUM_COLUMNS} tab-separated columns, found {len(columns)}",
            )
        parsed = _parse_word_columns(columns, file_path, line_number)
        if parsed is None:
            continue
        token_id, head = parsed
        expected = len(sentence.words) + 1
        if token_id != expected:
            raise ConlluError(
                file_path,
                line_number,
                f"word id {token_id} out of order: expected {expected} (word ids must be 1..N in order)",
            )
        sentence.words.append(
            ConlluWord(token_id, *columns[1:HEAD_COLUMN], head, *columns[DEPREL_COLUMN:], line_number)
        )
    if not sentence.words:
        raise ConlluError(
            file_path, sentence.start_line, "sentence has no word lines (integer ids)"
        )
    num_words = len(sentence.words)
    for word in sentence.words:
        if word.head is not None and not 0 <= word.head <= num_words:
            raise ConlluError(
                file_path,
                word.line_number,
                f"HEAD {word.head} of word {word.id} is outside the sentence (0..{num_words})",
            )
    return sentence


def parse_lines(lines: Iterable[str], file_path: str = "<string>") -> Iterator[ConlluSentence]:
    """
    Lazily splits CoNLL-U lines (with or without their `\\n`) into validated `ConlluSentence`s. Sentences
    are separated by blank (or whitespace-only) lines; a missing final blank line is fine.

    Raises `ConlluError` (naming `file_path` and the line) on a line without 10 tab-separated columns, an
    ID that is not `N`, `N-M` or `N.M`, a HEAD that is neither an integer nor `_`, a HEAD outside
    `0..N`, word ids that are not `1..N` in order, or a sentence with no word line. Tree shape is checked
    separately, by `check_tree`, and columns given on some words only by `check_complete_columns`.
    """
    buffer: List[str] = []
    numbers: List[int] = []
    for line_number, line in enumerate(lines, start=1):
        line = line.rstrip("\r\n")
        if line_number == 1 and line.startswith("\ufeff"):
            line = line[1:]
        if not line.strip():
            if buffer:
                yield _build_sentence(file_path, buffer, numbers)
                buffer, numbers = [], []
            continue
        buffer.append(line)
        numbers.append(line_number)
    if buffer:
        yield _build_sentence(file_path, buffer, numbers)


def read_sentences(file_path: str, display_path: Optional[str] = None) -> Iterator[ConlluSentence]:
    """
    Lazily reads the sentences of a CoNLL-U file (one sentence in memory at a time). `display_path` is the
    name used in error messages (e.g. the URL the user gave, when `file_path` is its cached copy).
    """
    # `utf-8-sig` drops a byte-order mark; the default `newline=None` turns `\r\n` and `\r` into `\n`.
    name = display_path or str(file_path)
    try:
        with open(file_path, "r", encoding="utf-8-sig") as conllu_file:
            yield from parse_lines(conllu_file, name)
    except UnicodeDecodeError:
        line_number, byte = first_undecodable_line(file_path)
        raise ConlluError(
            name, line_number,
            f"not UTF-8 (byte 0x{byte:02x}): CoNLL-U files are UTF-8; convert this one first, e.g. "
            f"iconv -f latin1 -t utf-8",
        ) from None


def first_undecodable_line(file_path: str) -> Tuple[int, int]:
    """The number of the first line of a file that is not valid UTF-8, and its first offending byte."""
    with open(file_path, "rb") as raw_file:
        for line_number, line in enumerate(raw_file, start=1):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as error:
                return line_number, line[error.start]
    return 1, 0


def parse_string(text: str, file_path: str = "<string>") -> List[ConlluSentence]:
    """
    The sentences of CoNLL-U `text` (e.g. sent to a predictor).
    """
    # `StringIO(newline=None)` splits on the same line breaks as a file; `str.splitlines` would also split
    # on characters such as U+2028 that may occur inside a FORM.
    return list(parse_lines(io.StringIO(text, newline=None), file_path))


def find_tree_problem(heads: Sequence[int]) -> Optional[Tuple[int, str]]:
    """
    Whether 1-based `heads` (`heads[i]` is the head of word `i + 1`, `0` the root, every value in
    `0..N`) form a dependency tree: exactly one word attached to the root and no cycle.

    # Returns

    `None` for a tree, else `(word, problem)`: the word id the problem is best reported at, and a
    description such as `"2 words have head 0: 3, 7"` or `"cycle 3 -> 5 -> 3"` (each arrow goes from
    a word to its head).
    """
    roots = [index + 1 for index, head in enumerate(heads) if head == 0]
    if not roots:
        return 1, "no word has head 0"
    if len(roots) > 1:
        return roots[1], f"{len(roots)} words have head 0: {', '.join(map(str, roots))}"
    # Follow head pointers from every word; a walk that meets its own path again has found a cycle.
    state = [0] * (len(heads) + 1)  # 0: unvisited, 1: on the current path, 2: reaches the root
    state[0] = 2
    for start in range(1, len(heads) + 1):
        path = []
        node = start
        while state[node] == 0:
            state[node] = 1
            path.append(node)
            node = heads[node - 1]
        if state[node] == 1:
            cycle = path[path.index(node):]
            first = cycle.index(min(cycle))
            cycle = cycle[first:] + cycle[:first]
            return cycle[0], "cycle " + " -> ".join(map(str, cycle + [cycle[0]]))
        for visited in path:
            state[visited] = 2
    return None


def check_tree(sentence: ConlluSentence) -> None:
    """
    Raises `ConlluError` when the sentence has all its gold heads and they are not a tree, e.g.
    `path:123: sentence starting at line 120 is not a tree: cycle 3 -> 5 -> 3`. A sentence with any `_`
    head is not checked. Kept apart from reading so that callers choose between an error and a warning.
    """
    if not sentence.has_heads:
        return
    problem = find_tree_problem(sentence.heads)  # type: ignore[arg-type]
    if problem is not None:
        word, description = problem
        raise ConlluError(
            sentence.file_path,
            sentence.words[word - 1].line_number,
            f"sentence starting at line {sentence.start_line} is not a tree: {description}",
        )


# the columns `check_complete_columns` checks, by `ConlluWord` attribute, as CoNLL-U names them
COLUMN_NAMES = {"upos": "UPOS", "xpos": "XPOS", "head": "HEAD", "deprel": "DEPREL"}


def check_complete_columns(sentence: ConlluSentence, columns: Sequence[str] = ("head", "deprel")) -> None:
    """
    Raises `ConlluError` when one of `columns` (`ConlluWord` attributes among `COLUMN_NAMES`) is `_` on some
    words of the sentence but not on others, at the first word without it, e.g. `path:12: word 3 has no
    HEAD ('_') but word 1 at line 10 has: HEAD must be given on every word of the sentence or on none`. A
    column given on every word, or `_` on every word (raw text to parse), passes.

    Why an error: such a sentence is neither gold nor raw text. A reader that kept it would drop its partial
    annotation without a word (it is no tree, nor a full set of targets), and AllenNLP cannot batch it with
    annotated sentences. Kept apart from reading, as `check_tree` is: a predicted file may lack some heads.
    """
    for column in columns:
        values = [getattr(word, column) for word in sentence.words]
        given = [index for index, value in enumerate(values) if value is not None and value != "_"]
        if not given or len(given) == len(values):
            continue
        missing = next(word for word, value in zip(sentence.words, values) if value is None or value == "_")
        example = sentence.words[given[0]]
        name = COLUMN_NAMES[column]
        raise ConlluError(
            sentence.file_path,
            missing.line_number,
            f"word {missing.id} has no {name} ('_') but word {example.id} at line {example.line_number} has: "
            f"{name} must be given on every word of the sentence or on none",
        )


def format_sentence(
    sentence: ConlluSentence,
    heads: Sequence[Optional[int]],
    deprels: Sequence[Optional[str]],
    upos: Optional[Sequence[str]] = None,
    deps: Union[Sequence[Sequence[Tuple[int, str]]], None, _Deps] = None,
    *,
    collapsed: bool = False,
) -> str:
    """
    The sentence's lines as read, with HEAD and DEPREL (columns 7 and 8) of its word lines replaced and
    DEPS (column 9) written as `deps` says. The text ends with the blank line that closes a sentence.

    # Parameters

    sentence : `ConlluSentence`
    heads : `Sequence[Optional[int]]`
        One head per word (1-based, `0` the root); `None` writes `_`.
    deprels : `Sequence[Optional[str]]`
        One relation per word; `None` writes `_`.
    upos : `Sequence[str]`, optional
        One tag per word for UPOS (column 4); without, UPOS is kept as read.
    deps : `EnhancedGraph`, `None` or `KEEP_DEPS`, optional (default `None`)
        `None`: DEPS `_` on every word and no empty-node lines (the enhanced layer was not predicted, and
        the input's would not match the new tree). An `EnhancedGraph`
        (`seqgraph_allennlp.common.enhanced`, one list of `(head, label)` pairs per word, empty nodes
        collapsed into path labels such as `conj>nsubj`): the input's empty-node lines are left out, and
        each path is written through new empty nodes (`expand_paths`: `3 -conj-> 3.1 -nsubj-> 2`), so that
        the sentence passes UD validation and `enhanced_graph` of it gives back the graph; each word's and
        empty node's DEPS by `format_deps`. An empty node's line is `k.m`, DEPS, and `_` in every other
        column, placed after word `k` (`0.m` before the first word), before the next token line. A graph
        without path labels gives no empty-node line. `KEEP_DEPS`: DEPS and the empty-node lines as read,
        so that writing every sentence of a file with its own gold heads and relations reproduces the file
        (`format_gold`).
    collapsed : `bool`, optional (default `False`)
        With an `EnhancedGraph`: write the path labels as they are (`3:conj>nsubj`) and no empty node, the
        collapsed form that the ELAS scoring gives `udtools.udeval` (not valid UD: the validator refuses
        the labels).
    """
    num_words = len(sentence.words)
    if len(heads) != num_words or len(deprels) != num_words:
        raise ValueError(
            f"{sentence.file_path}:{sentence.start_line}: sentence has {num_words} words but "
            f"got {len(heads)} heads and {len(deprels)} relations"
        )
    if upos is not None and len(upos) != num_words:
        raise ValueError(
            f"{sentence.file_path}:{sentence.start_line}: sentence has {num_words} words but "
            f"got {len(upos)} UPOS tags"
        )
    keep_deps = deps is KEEP_DEPS
    if not keep_deps and deps is not None and len(deps) != num_words:  # type: ignore[arg-type]
        raise ValueError(
            f"{sentence.file_path}:{sentence.start_line}: sentence has {num_words} words but "
            f"got an enhanced graph of {len(deps)} words"  # type: ignore[arg-type]
        )
    # the empty-node lines to write after each word (0: before the first token line)
    empty_node_lines: Dict[int, List[str]] = {}
    if not keep_deps and deps is not None:
        if collapsed:
            deps_column = [format_deps(edges) for edges in deps]  # type: ignore[union-attr]
        else:
            word_deps, empty_nodes = expand_paths(deps)  # type: ignore[arg-type]
            deps_column = [format_deps(edges) for edges in word_deps]
            for node_id, node_deps in empty_nodes:
                columns = [node_id] + ["_"] * (NUM_COLUMNS - 1)
                columns[DEPS_COLUMN] = format_deps(node_deps)
                empty_node_lines.setdefault(int(node_id.split(".")[0]), []).append("\t".join(columns))
    else:
        deps_column = ["_"] * num_words
    word_lines = {word.line_number: index for index, word in enumerate(sentence.words)}
    output = []
    before_first_word = empty_node_lines.get(0, [])
    for line, line_number in zip(sentence.lines, sentence.line_numbers):
        if before_first_word and not line.startswith("#"):
            output.extend(before_first_word)
            before_first_word = []
        index = word_lines.get(line_number)
        if index is not None:
            columns = line.split("\t")
            head, deprel = heads[index], deprels[index]
            columns[HEAD_COLUMN] = "_" if head is None else str(int(head))
            columns[DEPREL_COLUMN] = "_" if deprel is None else deprel
            if upos is not None:
                columns[UPOS_COLUMN] = upos[index]
            if not keep_deps:
                columns[DEPS_COLUMN] = deps_column[index]
            output.append("\t".join(columns))
            output.extend(empty_node_lines.get(index + 1, []))
            continue
        if not keep_deps and is_empty_node_line(line):
            continue
        output.append(line)
    return "\n".join(output) + "\n\n"


def is_empty_node_line(line: str) -> bool:
    """Whether a line of `ConlluSentence.lines` is an empty node (`8.1`), not a comment, word or range."""
    return not line.startswith("#") and "." in line.split("\t", 1)[0]


def format_gold(sentence: ConlluSentence) -> str:
    """
    The sentence as read (its own heads, relations and enhanced graph, empty nodes included):
    `format_sentence` with the gold annotation and `KEEP_DEPS`.
    """
    return format_sentence(sentence, sentence.heads, sentence.deprels, deps=KEEP_DEPS)
