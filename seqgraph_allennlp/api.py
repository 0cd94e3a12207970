"""
Parsing from Python without the command line: `Parser` loads a trained archive once and parses raw text,
tokenised sentences and CoNLL-U files, returning small dataclasses. It is a thin layer over the
`seqgraph_parser` predictor, which does the tokenising, batching, decoding and CoNLL-U writing, so both
give the same trees.

    from seqgraph_allennlp import Parser

    parser = Parser.from_archive("out/model.tar.gz")
    for sentence in parser.parse("The cat sat on the mat. It didn't move."):
        for word in sentence.words:
            print(word.id, word.form, word.head, word.deprel)
    print(parser.parse("Dogs bark.").to_conllu())
"""
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from allennlp.data import DatasetReader, Instance
from allennlp.models import Model
from allennlp.models.archival import load_archive

from seqgraph_allennlp.common.conllu import ConlluSentence, parse_string, read_sentences
from seqgraph_allennlp.common.enhanced import enhanced_graph
from seqgraph_allennlp.predictors.seqgraph_parser import InputError, SeqGraphParserPredictor


@dataclass(frozen=True)
class Word:
    """
    One word of a parsed sentence.

    # Parameters

    id : `int`
        1-based position in the sentence.
    form : `str`
    head : `Optional[int]`
        The predicted head's id, `0` for the root; `None` where the sentence could not be parsed.
    deprel : `Optional[str]`
        The predicted relation to the head; `None` where the sentence could not be parsed.
    upos : `Optional[str]`, optional (default = `None`)
        The UPOS column of the output: CoNLL-U input's own tag where it is not `_`, else the model's
        predicted tag when it has a UPOS tagger (`predict_upos`; with `overwrite_upos`, the predicted tag
        everywhere); `None` where neither gives one (text and word lists parsed by a model without a tagger).
    space_after : `bool`, optional (default = `True`)
        Whether whitespace followed the word (`SpaceAfter=No` in CoNLL-U where not).
    deps : `Optional[List[Tuple[int, str]]]`, optional (default = `None`)
        The word's enhanced UD heads and labels (the DEPS column) from a model that predicts the enhanced
        graph (`predict_enhanced`), as `(head, label)` pairs sorted by head, `0` the root, the word's tree
        head among them; a path through an empty node is one pair labelled with the path (`conj>nsubj`).
        `None` from a model that does not predict it.
    """

    id: int
    form: str
    head: Optional[int]
    deprel: Optional[str]
    upos: Optional[str] = None
    space_after: bool = True
    deps: Optional[List[Tuple[int, str]]] = None


@dataclass(frozen=True)
class Edge:
    """One edge of the generation order: added at its step with the policy's `probability`."""

    head: int
    dependent: int
    probability: float


@dataclass(frozen=True)
class Sentence:
    """
    One parsed sentence.

    # Parameters

    words : `List[Word]`
    generation_order : `List[Edge]`
        The edges in the order the parser added them (empty for a model that decodes all edges at once).
    text : `Optional[str]`
        The sentence's text (`# text`), where known.
    sent_id : `Optional[str]`
        Its `# sent_id`: the input's for CoNLL-U, its number within the call for raw text.
    error : `Optional[str]`
        Why the sentence was not parsed (e.g. longer than the model's `max_sentence_length`), else `None`.
    conllu : `str`
        The sentence as CoNLL-U, as `allennlp predict` writes it (`to_conllu()`).
    """

    words: List[Word]
    generation_order: List[Edge]
    text: Optional[str] = None
    sent_id: Optional[str] = None
    error: Optional[str] = None
    conllu: str = field(default="", repr=False)

    @property
    def heads(self) -> List[Optional[int]]:
        return [word.head for word in self.words]

    @property
    def deprels(self) -> List[Optional[str]]:
        return [word.deprel for word in self.words]

    def to_conllu(self) -> str:
        """The sentence as CoNLL-U, ending with its blank line."""
        return self.conllu


class ParseResult(List[Sentence]):
    """The sentences of one `Parser` call, in input order (a list), and `to_conllu()` for all of them."""

    def to_conllu(self) -> str:
        return "".join(sentence.to_conllu() for sentence in self)


class Parser:
    """
    Parses with a trained `seqgraph_parser` archive (or a `conll18_biaffine_parser` one) in Python.

    `parse(text)` takes raw text (a string: tokenised and split into sentences as the predictor does
    with `{"text": ...}`), one sentence as a list of words, or a list of such lists; `parse_texts` several
    raw texts at once; `parse_conllu` a CoNLL-U file or string. Each returns a `ParseResult`, a list of
    `Sentence`s. Input that cannot be parsed
    at all (an empty text, a word that is not a string, a malformed CoNLL-U file) raises a
    `seqgraph_allennlp.common.errors.SeqGraphError` with a one-line message; a sentence too long for the
    model comes back with `error` set and no heads.

    # Parameters

    model : `Model`
    dataset_reader : `DatasetReader`
        The model's `seqgraph_ud` reader.
    tau : `float`, optional (default = `None`)
        Multi-edge decoding threshold (the predictor's `tau`); `None` keeps the model's.
    language : `str`, optional (default = `None`)
        The language of raw text (the predictor's `language`); `None` takes the archive's, else `"en"`.
    batch_size : `int`, optional (default = `1024`)
        Sentences per call to the model when parsing lists of sentences and CoNLL-U. Each call is cut into
        buckets of similar lengths (`length_buckets`): larger calls give fuller buckets, and EWT test parsed
        about 1.5 times as fast in calls of 1024 as of 64 (`results/benchmarks/api_batch_size.json`).
    overwrite_upos : `bool`, optional (default = `False`)
        With a model with a UPOS tagger, give each word the predicted UPOS even where CoNLL-U input has its
        own (the predictor's `overwrite_upos`); by default the input's UPOS is kept and only `_` is filled.
    segmenter : `str`, optional (default = `None`)
        How raw text is split (the predictor's `segmenter`): `"learned"`, the segmenter the archive carries;
        `"rules"`, spaCy's rules; `None`, the archive's segmenter where it carries one, else the rules.
    features_precision : `str`, optional (default = `"auto"`)
        What a frozen transformer's features are computed in (the predictor's `features_precision`):
        `"auto"` (int8 on a CPU), `"as_trained"`, `"float32"`, `"bfloat16"` or `"int8"`.
    encoder_precision : `str`, optional (default = `"auto"`)
        What a `fused_bilstm` encoder's LSTM layers compute in (the predictor's `encoder_precision`): `"auto"`
        (int8 on a CPU without native bfloat16), `"as_trained"` or `"int8"`.
    """

    def __init__(
        self,
        model: Model,
        dataset_reader: DatasetReader,
        tau: Optional[float] = None,
        language: Optional[str] = None,
        batch_size: int = 1024,
        overwrite_upos: bool = False,
        segmenter: Optional[str] = None,
        features_precision: str = "auto",
        encoder_precision: str = "auto",
    ) -> None:
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        self._model = model
        self._dataset_reader = dataset_reader
        self._tau = tau
        self._overwrite_upos = overwrite_upos
        self._segmenter = segmenter
        self._features_precision = features_precision
        self._encoder_precision = encoder_precision
        self.batch_size = batch_size
        # checks tau, language, overwrite_upos and segmenter now rather than at the first call
        self.language = self._predictor(language).language

    @classmethod
    def from_archive(
        cls,
        archive_path: Union[str, "os.PathLike[str]"],
        cuda_device: int = -1,
        tau: Optional[float] = None,
        language: Optional[str] = None,
        batch_size: int = 1024,
        overwrite_upos: bool = False,
        segmenter: Optional[str] = None,
        features_precision: str = "auto",
        encoder_precision: str = "auto",
    ) -> "Parser":
        """
        Loads `model.tar.gz` (as written by `allennlp train`) once, onto `cuda_device` (`-1`: the CPU).
        """
        archive = load_archive(str(archive_path), cuda_device=cuda_device)
        return cls(archive.model, archive.validation_dataset_reader, tau, language, batch_size, overwrite_upos,
                   segmenter, features_precision, encoder_precision)

    def _predictor(self, language: Optional[str] = None) -> SeqGraphParserPredictor:
        # a fresh predictor per call (cheap: the model and the tokeniser are shared), so that the
        # sentences of raw text are numbered from 1 in each call, as in a run of `allennlp predict`
        return SeqGraphParserPredictor(
            self._model,
            self._dataset_reader,
            output_format="conllu",
            tau=self._tau,
            language=getattr(self, "language", None) if language is None else language,
            overwrite_upos=self._overwrite_upos,
            segmenter=self._segmenter,
            features_precision=self._features_precision,
            encoder_precision=self._encoder_precision,
        )

    # Parsing

    def parse(self, text_or_words: Union[str, Sequence[str], Sequence[Sequence[str]]]) -> ParseResult:
        """
        Parses raw text (`str`: one sentence or several), one tokenised sentence (a list of words) or
        several (a list of lists of words).
        """
        predictor = self._predictor()
        if isinstance(text_or_words, str):
            if not text_or_words.strip():
                # the predictor would say the same, but also log it as a failed record
                raise InputError('empty text: "text" has no words')
            output = predictor.predict_json({"text": text_or_words})
            if "error" in output:
                raise InputError(output["error"])
            return ParseResult(_sentence(sentence) for sentence in output["sentences"])
        if not isinstance(text_or_words, (list, tuple)) or not text_or_words:
            raise InputError(
                "parse() takes a string, a list of words or a list of lists of words, got "
                + ("an empty list" if isinstance(text_or_words, (list, tuple)) else type(text_or_words).__name__)
            )
        if all(isinstance(word, str) for word in text_or_words):
            sentences: List[Any] = [text_or_words]
        elif all(isinstance(words, (list, tuple)) for words in text_or_words):
            sentences = list(text_or_words)
        else:
            raise InputError("parse() takes a list of words (strings) or a list of lists of words, not a mix")
        records = [{"words": list(words)} for words in sentences]
        for number, record in enumerate(records, start=1):
            try:
                predictor._json_to_instance(record)
            except InputError as error:
                where = f"sentence {number}: " if len(records) > 1 else ""
                raise InputError(where + str(error)) from None
        result = ParseResult()
        for start in range(0, len(records), self.batch_size):
            batch = records[start : start + self.batch_size]
            for record, output in zip(batch, predictor.predict_batch_json(batch)):
                result.append(_sentence(output, record["words"]))
        return result

    def parse_texts(self, texts: Sequence[str]) -> List[ParseResult]:
        """
        Parses several raw texts (documents) in one run, a `ParseResult` each: the texts are split together
        (a learned segmenter reads them in one pass) and their sentences parsed in calls of `batch_size`,
        so many short texts parse as fast as one long one (`parse` on each would call the model once per
        text). Sentences are numbered through the texts, as one `allennlp predict` run over them numbers
        them. An empty text, or one that is not a string, raises `InputError` naming it.
        """
        if isinstance(texts, str) or not isinstance(texts, (list, tuple)):
            raise InputError(f"parse_texts() takes a list of strings, got {type(texts).__name__}")
        for number, text in enumerate(texts, start=1):
            if not isinstance(text, str):
                raise InputError(f"text {number}: parse_texts() takes strings, got {type(text).__name__}")
            if not text.strip():
                raise InputError(f'text {number}: empty text: "text" has no words')
        predictor = self._predictor()
        prepared = predictor.prepare_batch_json([{"text": text} for text in texts])
        outputs = predictor.predict_prepared([prepared], self.batch_size)[0]
        results = []
        for number, output in enumerate(outputs, start=1):
            if "error" in output:
                raise InputError(f"text {number}: {output['error']}")
            results.append(ParseResult(_sentence(sentence) for sentence in output["sentences"]))
        return results

    def parse_conllu(self, path_or_string: Union[str, "os.PathLike[str]"]) -> ParseResult:
        """
        Parses the sentences of a CoNLL-U file, or of CoNLL-U text (a string with a line break). Each
        sentence's `conllu` is its input, line for line, with HEAD and DEPREL predicted.
        """
        if isinstance(path_or_string, str) and "\n" in path_or_string:
            sentences: Iterable[ConlluSentence] = parse_string(path_or_string)
        elif isinstance(path_or_string, (str, os.PathLike)):
            path = Path(path_or_string)
            if not path.is_file():
                raise InputError(f"{path}: no such CoNLL-U file")
            sentences = read_sentences(str(path))
        else:
            raise InputError(f"parse_conllu() takes a path or CoNLL-U text, got {type(path_or_string).__name__}")
        predictor = self._predictor()
        result = ParseResult()
        for batch in _batches(self._dataset_reader.sentences_to_instances(sentences), self.batch_size):
            result.extend(_sentence(output) for output in predictor.predict_batch_instance(batch))
        return result


def _batches(instances: Iterable[Instance], size: int) -> Iterator[List[Instance]]:
    batch: List[Instance] = []
    for instance in instances:
        batch.append(instance)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _sentence(output: dict, words: Optional[List[str]] = None) -> Sentence:
    """A `Sentence` from one of the predictor's CoNLL-U outputs (`words`: the input of a word list)."""
    error = output.get("error")
    conllu = output.get("conllu", "")
    # the CoNLL-U of an unparsed word list is only its error comment: no word line, no tab
    parsed = parse_string(conllu) if "\t" in conllu else []
    if parsed:
        sentence = parsed[0]
        graph = enhanced_graph(sentence) or [None] * len(sentence.words)
        entries = [
            Word(
                word.id,
                word.form,
                word.head,
                None if word.deprel == "_" else word.deprel,
                None if word.upos == "_" else word.upos,
                word.space_after,
                None if deps is None else list(deps),
            )
            for word, deps in zip(sentence.words, graph)
        ]
        text, sent_id = sentence.text, sentence.sent_id
    else:
        entries = [Word(index, form, None, None) for index, form in enumerate(words or [], start=1)]
        text, sent_id = None, None
    order = [
        Edge(int(head), int(dependent), float(probability))
        for (head, dependent), probability in zip(
            output.get("generation_order") or [], output.get("edge_probabilities") or []
        )
    ]
    return Sentence(entries, order, text, sent_id, error, conllu)
