import itertools
import logging
from typing import Dict, Iterable, Iterator, List, Optional, Tuple

import torch

from allennlp.common.checks import ConfigurationError
from allennlp.common.file_utils import cached_path
from allennlp.data.dataset_readers.dataset_reader import DatasetReader
from allennlp.data.fields import AdjacencyField, Field, MetadataField, SequenceLabelField, TextField
from allennlp.data.instance import Instance
from allennlp.data.token_indexers import SingleIdTokenIndexer, TokenCharactersIndexer, TokenIndexer
from allennlp.data.tokenizers import Token

from seqgraph_allennlp.common.conllu import (
    ConlluError,
    ConlluSentence,
    check_complete_columns,
    check_tree,
    read_sentences,
)
from seqgraph_allennlp.common.enhanced import EnhancedGraph, enhanced_graph

logger = logging.getLogger(__name__)

POS_TAG_COLUMNS = ("upos", "xpos")


class PaddedSequenceLabelField(SequenceLabelField):
    """
    A `SequenceLabelField` whose namespace is padded on purpose (`"pos"`, `"upos"`, as in allennlp-models'
    `universal_dependencies` reader): a tag that training never saw indexes to the unknown entry, so a test
    file with a rare tag (`X`, `SYM`) is still read, where a non-padded namespace (one ending in `labels`
    or `tags`) fails with a `KeyError`. AllenNLP logs a warning recommending such a namespace the first time
    it meets another; the choice is deliberate here, so the warning is not logged. Renaming the namespace
    would also orphan the vocabulary of every archive trained so far.
    """

    def _maybe_warn_for_namespace(self, label_namespace: str) -> None:
        pass


class NodeAdjacencyField(AdjacencyField):
    """
    An `AdjacencyField` over the sentence's nodes, the root included: a `(V, V)` matrix, `V = N + 1`, of
    label indices at `[head, dependent]` and -1 where there is no edge, for a `TextField` of `N` words.
    AllenNLP's field is indexed by the words only, and an enhanced graph has edges from the root.

    # Parameters

    indices : `List[Tuple[int, int]]`, `(head, dependent)` node indices, `0..N`.
    sequence_field : `TextField` of the `N` words.
    labels : `List[str]`, one per edge.
    label_namespace : `str`
    """

    def __init__(
        self,
        indices: List[Tuple[int, int]],
        sequence_field: TextField,
        labels: Optional[List[str]] = None,
        label_namespace: str = "enhanced_tags",
    ) -> None:
        num_nodes = sequence_field.sequence_length() + 1
        if not all(0 <= head < num_nodes and 0 < dependent < num_nodes for head, dependent in indices):
            raise ValueError(f"edges {indices} outside a sentence of {num_nodes - 1} words")
        # AllenNLP's bounds check is by words: give it in-range indices, then the real ones
        super().__init__([], sequence_field, None, label_namespace, padding_value=-1)
        if len(set(indices)) != len(indices):
            raise ValueError(f"duplicate edges in {indices}")
        self.indices = list(indices)
        self.labels = labels

    def _maybe_warn_for_namespace(self, label_namespace: str) -> None:
        # padded on purpose, as the relations' namespace: an enhanced label unseen in training is scored
        pass

    def get_padding_lengths(self) -> Dict[str, int]:
        return {"num_nodes": self.sequence_field.sequence_length() + 1}

    def as_tensor(self, padding_lengths: Dict[str, int]) -> torch.Tensor:
        num_nodes = padding_lengths["num_nodes"]
        tensor = torch.full((num_nodes, num_nodes), -1, dtype=torch.long)
        labels = self._indexed_labels or [1] * len(self.indices)
        for (head, dependent), label in zip(self.indices, labels):
            tensor[head, dependent] = label
        return tensor

    def empty_field(self) -> "NodeAdjacencyField":
        return NodeAdjacencyField([], self.sequence_field.empty_field(), [], self._label_namespace)


def not_empty(sentences: Iterable[ConlluSentence], file_path: str) -> Iterator[ConlluSentence]:
    """
    `sentences`, and a `ConlluError` at their end if there was none: an empty file would otherwise train on
    nothing, evaluate to no metrics, or predict an empty output, each without a word.
    """
    empty = True
    for sentence in sentences:
        empty = False
        yield sentence
    if empty:
        raise ConlluError(file_path, None, "no sentences: the file is empty")


def check_gold_tree(sentence: ConlluSentence) -> None:
    """Raises `ConlluError` at the first word of a sentence without its gold tree (HEAD and DEPREL)."""
    if sentence.has_gold_tree:
        return
    missing = [
        name for name, given in (("HEAD", sentence.has_heads), ("DEPREL", "_" not in sentence.deprels)) if not given
    ]
    raise ConlluError(
        sentence.file_path,
        sentence.words[0].line_number,
        f"sentence starting at line {sentence.start_line} has no gold {' and '.join(missing)} ('_' on every "
        "word): evaluation needs the gold tree of every sentence (allennlp predict parses text without one)",
    )


# what `check_same_targets` calls each target that the reader may add
TARGET_NAMES = ("UPOS", "enhanced graph (DEPS)")


def check_same_targets(
    sentence: ConlluSentence, targets: Tuple[bool, ...], first: ConlluSentence, first_targets: Tuple[bool, ...]
) -> None:
    """
    Raises `ConlluError` at the first word of `sentence` when it has a target (`TARGET_NAMES`: UPOS, DEPS)
    that the `first` sentence lacks, or lacks one it has: AllenNLP cannot batch such instances together.
    """
    for name, has, first_has in zip(TARGET_NAMES, targets, first_targets):
        if has == first_has:
            continue
        this, other = ("has", "has none") if has else ("has no", "has one")
        raise ConlluError(
            sentence.file_path,
            sentence.words[0].line_number,
            f"sentence starting at line {sentence.start_line} {this} gold {name} but the sentence starting at "
            f"line {first.start_line} {other}: evaluation needs it on every sentence or on none",
        )


@DatasetReader.register("seqgraph_ud")
class SeqGraphUDReader(DatasetReader):
    """
    Reads a CoNLL-U (Universal Dependencies) file lazily, one sentence at a time, into instances for a
    dependency parser. Field names and label namespaces are those of allennlp-models'
    `universal_dependencies` reader, so the same reader also feeds `biaffine_parser` (which needs
    `pos_tags: "upos"` or `"xpos"`).

    Only words (integer ids) become tokens: multiword-token ranges (`3-4`) and empty nodes (`8.1`) are left
    out of the parse but kept, with comments and every column, in `metadata["conllu"]`, so that a predictor
    writes its output line for line like the input (`seqgraph_allennlp.common.conllu.format_sentence`).

    Each instance has these fields:

    * `words` : `TextField` of the word forms;
    * `pos_tags` : `SequenceLabelField` (namespace `"pos"`), only when `pos_tags` is set: gold tags as the
      model's input (`pos_tag_embedding`);
    * `upos_tags` : `SequenceLabelField` of the UPOS column (namespace `"upos"`), only with `upos_targets`
      and when every word has a UPOS (not `_`): the targets of the model's UPOS tagger (`predict_upos`),
      never its input;
    * `head_indices` : `SequenceLabelField` of 1-based head word ids, 0 the root (namespace
      `"head_index_tags"`), and `head_tags` : `SequenceLabelField` of relations (namespace `"head_tags"`),
      only when every word has a gold HEAD and DEPREL (a sentence with `_` heads is raw text to parse);
    * `enhanced_tags` : `NodeAdjacencyField` (namespace `"enhanced_tags"`), only with `enhanced` and when the
      sentence has DEPS: the enhanced graph, `(V, V)` label indices at `[head, dependent]` (node 0 the root),
      -1 where there is no edge, with empty nodes collapsed as the IWPT shared tasks scored them
      (`seqgraph_allennlp.common.enhanced.enhanced_graph`: a path through an empty node becomes one edge
      labelled `conj>nsubj`);
    * `metadata` : `MetadataField` with `"words"` (the forms), `"pos"` (the tags or `None`), `"deprels"`
      (the gold relations as strings, or `None`; LAS compares their universal part) and `"conllu"` (the
      `ConlluSentence`, or `None` for an instance made from a plain word list).

    # Parameters

    token_indexers : `Dict[str, TokenIndexer]`, optional (default = `{"tokens": SingleIdTokenIndexer(),
        "token_characters": TokenCharactersIndexer(min_padding_length=3)}`)
        The indexers for the words: word ids (case kept) and characters by default.
    pos_tags : `str`, optional (default = `None`)
        Which CoNLL-U column gives the `pos_tags` field: `"upos"`, `"xpos"`, or `None` for no tags (the
        default, since raw text to be parsed has no gold tags).
    upos_targets : `bool`, optional (default = `False`)
        Add the `upos_tags` field (the UPOS column) to each sentence that has one, for `seqgraph_parser`'s
        UPOS tagger (`predict_upos: true`). Off by default: AllenNLP passes every field to the model's
        `forward`, and a model without a `upos_tags` argument (allennlp-models' `biaffine_parser`) rejects
        it. As with gold heads, a batch cannot mix sentences with and without the field, so a training file
        needs UPOS on every word.
    enhanced : `bool`, optional (default = `False`)
        Add the `enhanced_tags` field (the DEPS column) to each sentence that has one, for
        `seqgraph_parser`'s graph phase (`predict_enhanced: true`). Off by default for the same reason as
        `upos_targets`: a model without an `enhanced_tags` argument rejects the field. A malformed DEPS
        raises `ConlluError` whether or not it is on.
    skip_invalid_trees : `bool`, optional (default = `False`)
        A sentence whose gold heads are not a tree (no root word, several, or a cycle) is an error; with
        `True` it is skipped with a warning naming the file and line instead.
    require_gold : `bool`, optional (default = `False`)
        Every sentence must have its gold tree (HEAD and DEPREL on every word), and the targets that
        `upos_targets` and `enhanced` add must be on every sentence or on none; a sentence that breaks this
        raises `ConlluError`. This is what evaluation needs: a sentence without gold cannot be scored (a file
        of raw text would score UAS 0), and AllenNLP cannot batch it with annotated ones. `allennlp evaluate
        ... --include-package seqgraph_allennlp` turns it on for the reader it evaluates with
        (`seqgraph_allennlp.common.command_line`); off, raw text (`_` in every HEAD) is read for prediction.
    max_sentences : `int`, optional (default = `None`)
        Read only the first `max_sentences` sentences of each file (skipped ones included), e.g. to train
        on a subset. `None` reads them all.
    language : `str`, optional (default = `None`)
        The language of the treebank, an ISO 639 code such as `"en"` (`-o '{"dataset_reader.language":
        "de"}'` at training). Not used to read CoNLL-U; it is kept in the model archive so that the
        `seqgraph_parser` predictor and `seqgraph_allennlp.Parser` tokenise raw text (`{"text": ...}`) for
        that language. `None`: English, unless the predictor is given a `language`.
    **kwargs
        Passed to `DatasetReader` (e.g. `max_instances`). Sharding across processes and workers is
        always done by this reader.

    Malformed input raises `seqgraph_allennlp.common.conllu.ConlluError`, whose message names the file
    and line: besides what `read_sentences` refuses, a sentence whose HEAD or DEPREL (and UPOS or XPOS,
    where `pos_tags` or `upos_targets` use it) is `_` on some words but not on others
    (`check_complete_columns`), and a file with no sentence (nothing to train on, evaluate or parse).
    """

    def __init__(
        self,
        token_indexers: Dict[str, TokenIndexer] = None,
        pos_tags: Optional[str] = None,
        upos_targets: bool = False,
        enhanced: bool = False,
        skip_invalid_trees: bool = False,
        require_gold: bool = False,
        max_sentences: Optional[int] = None,
        language: Optional[str] = None,
        **kwargs,
    ) -> None:
        super().__init__(
            manual_distributed_sharding=True, manual_multiprocess_sharding=True, **kwargs
        )
        if pos_tags not in POS_TAG_COLUMNS + (None,):
            raise ConfigurationError(
                f"pos_tags must be one of 'upos', 'xpos' or null (no tags), got {pos_tags!r}"
            )
        if max_sentences is not None and max_sentences < 0:
            raise ConfigurationError(f"max_sentences must be >= 0 or null, got {max_sentences}")
        self._token_indexers = token_indexers or {
            "tokens": SingleIdTokenIndexer(lowercase_tokens=False),
            # The character CNN's widest filter needs at least 3 characters per word.
            "token_characters": TokenCharactersIndexer(min_padding_length=3),
        }
        self.pos_tags = pos_tags
        self.upos_targets = upos_targets
        self.enhanced = enhanced
        self.skip_invalid_trees = skip_invalid_trees
        self.require_gold = require_gold
        self.max_sentences = max_sentences
        self.language = language

    def _read(self, file_path: str) -> Iterator[Instance]:
        # A URL is downloaded to the cache; error messages still name what the user wrote.
        local_path = cached_path(file_path)
        logger.info("Reading CoNLL-U sentences from %s", file_path)
        sentences: Iterator[ConlluSentence] = not_empty(
            read_sentences(local_path, display_path=str(file_path)), str(file_path)
        )
        if self.max_sentences is not None:
            # Cut before sharding, so that all workers together read the same first sentences.
            sentences = itertools.islice(sentences, self.max_sentences)
        yield from self.sentences_to_instances(self.shard_iterable(sentences))

    @property
    def annotated_columns(self) -> Tuple[str, ...]:
        """The columns (`ConlluWord` attributes) a sentence must give on every word or on none."""
        columns = ("head", "deprel")
        if self.upos_targets or self.pos_tags == "upos":
            columns += ("upos",)
        if self.pos_tags == "xpos":
            columns += ("xpos",)
        return columns

    def sentences_to_instances(self, sentences: Iterable[ConlluSentence]) -> Iterator[Instance]:
        """
        The instances of CoNLL-U sentences (read from a file or parsed from a string), in order: a
        sentence with a column given on some words only (`annotated_columns`) raises `ConlluError`; one
        whose gold heads are not a tree too, or is skipped with a warning when `skip_invalid_trees`; with
        `require_gold`, so does a sentence without its gold tree, or whose targets differ from the first
        sentence's.
        """
        # with `require_gold`: the first sentence and which targets it has, that every other must have
        first: Optional[Tuple[ConlluSentence, Tuple[bool, ...]]] = None
        for sentence in sentences:
            check_complete_columns(sentence, self.annotated_columns)
            if sentence.has_heads:
                try:
                    check_tree(sentence)
                except ConlluError as error:
                    if not self.skip_invalid_trees:
                        raise
                    logger.warning("Skipping a sentence: %s", error)
                    continue
            has_upos = all(tag != "_" for tag in sentence.upos)
            # parsed whether or not it is a target: a malformed DEPS is an error in either case
            graph = enhanced_graph(sentence)
            if self.require_gold:
                check_gold_tree(sentence)
                targets = (self.upos_targets and has_upos, self.enhanced and graph is not None)
                if first is None:
                    first = sentence, targets
                check_same_targets(sentence, targets, *first)
            yield self.text_to_instance(
                sentence.forms,
                getattr(sentence, self.pos_tags) if self.pos_tags else None,
                sentence.heads if sentence.has_gold_tree else None,
                sentence.deprels if sentence.has_gold_tree else None,
                sentence,
                sentence.upos if self.upos_targets and has_upos else None,
                graph if self.enhanced else None,
            )

    def text_to_instance(
        self,  # type: ignore
        words: List[str],
        pos_tags: List[str] = None,
        heads: List[int] = None,
        deprels: List[str] = None,
        sentence: ConlluSentence = None,
        upos_tags: List[str] = None,
        enhanced: EnhancedGraph = None,
    ) -> Instance:
        """
        # Parameters

        words : `List[str]`
            The words of the sentence.
        pos_tags : `List[str]`, optional (default = `None`)
            One tag per word; without them the instance has no `pos_tags` field.
        heads : `List[int]`, optional (default = `None`)
            The gold head of each word, 1-based with 0 the root. Given together with `deprels`.
        deprels : `List[str]`, optional (default = `None`)
            The gold relation of each word to its head.
        sentence : `ConlluSentence`, optional (default = `None`)
            The sentence as read, kept in the metadata for writing predictions back as CoNLL-U.
        upos_tags : `List[str]`, optional (default = `None`)
            The gold UPOS of each word, the tagger's targets; without them the instance has no `upos_tags`
            field (`sentences_to_instances` gives them only with `upos_targets`).
        enhanced : `EnhancedGraph`, optional (default = `None`)
            The gold enhanced heads of each word, `(head, label)` pairs with head 0 the root; without them the
            instance has no `enhanced_tags` field (`sentences_to_instances` gives them only with `enhanced`).

        # Returns

        An `Instance` with the fields described in the class docstring.
        """
        if (heads is None) != (deprels is None):
            raise ValueError("heads and deprels must be given together")
        given = (("pos_tags", pos_tags), ("heads", heads), ("deprels", deprels), ("upos_tags", upos_tags))
        for name, values in given:
            if values is not None and len(values) != len(words):
                raise ValueError(f"{len(words)} words but {len(values)} {name}")

        fields: Dict[str, Field] = {}
        # Indexers are added by `apply_token_indexers`, so that data-loader workers can build instances.
        text_field = TextField([Token(word) for word in words])
        fields["words"] = text_field
        if pos_tags is not None:
            fields["pos_tags"] = PaddedSequenceLabelField(pos_tags, text_field, label_namespace="pos")
        if heads is not None:
            # As in allennlp-models, the root gets no dummy label: head index 0 with its own relation.
            fields["head_tags"] = SequenceLabelField(
                list(deprels), text_field, label_namespace="head_tags"
            )
            fields["head_indices"] = SequenceLabelField(
                list(heads), text_field, label_namespace="head_index_tags"
            )
        if enhanced is not None:
            if len(enhanced) != len(words):
                raise ValueError(f"{len(words)} words but {len(enhanced)} enhanced head lists")
            # one label per (head, dependent) pair: the rare second label of a pair (two relations to the
            # same head) is not a target
            labelled = {}
            for dependent, heads in enumerate(enhanced, 1):
                for head, label in heads:
                    labelled.setdefault((head, dependent), label)
            edges, labels = list(labelled), list(labelled.values())
            fields["enhanced_tags"] = NodeAdjacencyField(edges, text_field, labels)
            # the gold edges the matrix cannot hold, so that ELAS still counts them as gold
            uncounted = sum(len(heads) for heads in enhanced) - len(edges)
        if upos_tags is not None:
            fields["upos_tags"] = PaddedSequenceLabelField(list(upos_tags), text_field, label_namespace="upos")
        fields["metadata"] = MetadataField(
            {
                "words": list(words),
                "pos": list(pos_tags) if pos_tags is not None else None,
                # gold relations as strings: LAS compares their universal part even when unseen in training
                "deprels": list(deprels) if deprels is not None else None,
                "conllu": sentence,
            }
        )
        if enhanced is not None:
            fields["metadata"].metadata["enhanced_uncounted"] = uncounted  # type: ignore[attr-defined]
        return Instance(fields)

    def apply_token_indexers(self, instance: Instance) -> None:
        instance.fields["words"]._token_indexers = self._token_indexers  # type: ignore
