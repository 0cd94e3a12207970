import json
import logging
from typing import Any, Dict, List, Optional, Tuple, Union

import torch
from allennlp.common.checks import ConfigurationError
from allennlp.common.util import JsonDict, sanitize
from allennlp.data import Batch, DatasetReader, Instance
from allennlp.models import Model
from allennlp.nn.util import move_to_device
from allennlp.predictors.predictor import Predictor

from seqgraph_allennlp.common.errors import SeqGraphError
from seqgraph_allennlp.common.conllu import ConlluSentence, format_sentence, parse_string
from seqgraph_allennlp.common.enhanced_rules import drop_replaced_tree_edges, fill_lexical_labels
from seqgraph_allennlp.models.seqgraph_parser import DecodingOptions, SeqGraphParser, check_decoding_options
from seqgraph_allennlp.modules.cached_transformer_embedder import CachedPretrainedTransformerMismatchedEmbedder
from seqgraph_allennlp.modules.fused_bilstm import FusedBiLstm
from seqgraph_allennlp.modules.precision import (
    ENCODER_PRECISIONS,
    FEATURES_PRECISIONS,
    parsing_encoder_int8,
    parsing_features_precision,
)
from seqgraph_allennlp.predictors.batching import PreparedBatch, forward_in_length_buckets, without_gold
from seqgraph_allennlp.predictors.text_splitter import (
    DEFAULT_LANGUAGE,
    LanguageError,
    LearnedTextSplitter,
    TextSplitter,
    check_language,
)
from seqgraph_allennlp.segmentation.sentence import TextSentence

logger = logging.getLogger(__name__)

OUTPUT_FORMATS = ("json", "conllu")
# how `text` records are split: the archive's learned segmenter where it carries one, or spaCy's rules
SEGMENTERS = ("learned", "rules")
LEXICAL_LABELS = ("filled", "predicted")
# The keys of a prediction; everything else the model returns (loss, mask, ...) is dropped.
OUTPUT_KEYS = (
    "words",
    "predicted_heads",
    "predicted_dependencies",
    "generation_order",
    "edge_probabilities",
    "predicted_upos",
    "predicted_deps",
    "extra_edges",
    "extra_edge_probabilities",
)
# Input keys: a raw text (several sentences), or one sentence as words or as words split at whitespace.
TEXT_KEY = "text"
SENTENCE_KEYS = ("words", "sentence")


class InputError(SeqGraphError, ValueError):
    """
    A record that cannot be parsed. The message is one line, e.g.
    `record 3: record has none of "text", "words" or "sentence"`.
    """


class _Record(dict):
    """
    A JSON record as read by `SeqGraphParserPredictor.load_line`: the parsed object plus the number of the
    record in the input, and the reason it could not be read (not valid JSON, not an object), if any.
    """

    def __init__(self, values: Dict[str, Any], number: int, error: Optional[str] = None) -> None:
        super().__init__(values)
        self.number = number
        self.error = error


def _type_name(value: Any) -> str:
    return {
        str: "a string",
        list: "a list",
        dict: "an object",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _enhanced_graph(output: JsonDict) -> Optional[List[List[Tuple[int, str]]]]:
    """The predicted enhanced graph of an output (`predicted_deps`) for `format_sentence`, or `None`."""
    deps = output.get("predicted_deps")
    if deps is None:
        return None
    return [[(int(head), str(label)) for head, label in word] for word in deps]


class PredictorArgumentError(SeqGraphError, ConfigurationError):
    """A `--predictor-args` value the predictor does not take: one line on the command line, no traceback."""


def _one_line(message: str) -> str:
    return " ".join(str(message).split())


@Predictor.register("seqgraph_parser")
class SeqGraphParserPredictor(Predictor):
    """
    Parses sentences with a `seqgraph_parser` model (or any model whose human-readable output has
    `predicted_heads` and `predicted_dependencies`).

    Input, one JSON object per line:

    * `{"text": "Raw text. One sentence or several."}`: tokenised and split into sentences by spaCy's
      rule-based tokeniser and sentencizer for the predictor's `language` (`TextSplitter`); a blank line
      always ends a sentence;
    * `{"words": ["The", "cat", "sat"]}` or `{"sentence": "The cat sat ."}`: one sentence, already
      tokenised (`sentence` is split on whitespace; with both, `words` are parsed and `sentence` is only the
      `# text` of CoNLL-U output), with optional `"pos"`: one tag per word (needed by models with a POS
      embedding).

    With `allennlp predict --use-dataset-reader` the input is a CoNLL-U file read by the model's
    `seqgraph_ud` reader instead.

    Output, one per sentence, in input order (a `text` record gives one per sentence of its text; in Python,
    its prediction is `{"sentences": [...]}`, one entry each):

    * `output_format: "json"`: a JSON object with `words`, `predicted_heads` (1-based, 0 the root),
      `predicted_dependencies`, and for the valid decoder `generation_order` (the `[head, dependent]`
      edge added at each step) and `edge_probabilities` (the policy's probability of each of those edges),
      for a model with a UPOS tagger (`predict_upos`) `predicted_upos`, its tag for each word, and for a
      model of the enhanced graph (`predict_enhanced`) `predicted_deps`, each word's enhanced `[head,
      label]` pairs (the DEPS column: several heads per word, 0 the root), with the graph phase's
      `extra_edges` (`[head, dependent]` in the order they were added after the tree) and
      `extra_edge_probabilities`;
      a sentence of a `text` record also has `sent_id` (its number among the sentences of all `text`
      records, from 1), `text` (the sentence, whitespace inside it written as one space), `space_after`
      (whether whitespace followed each word in the input) and, on the command line, `record` (the number
      of the input record it came from);
    * `output_format: "conllu"`: a CoNLL-U sentence. A sentence read from a CoNLL-U file is written line for
      line as it was read (comments, multiword-token ranges and every column) except HEAD and DEPREL of its
      words, which carry the prediction, and DEPS: the predicted enhanced graph from a model that predicts
      it (`predict_enhanced`, empty nodes collapsed into labels such as `conj>nsubj`), `_` from one that
      does not (the input's DEPS would not describe the predicted tree); empty-node lines belong to the
      enhanced layer and are left out either way. A JSON record becomes a minimal sentence: a
      `# text = ...` comment and one line per word with ID, FORM, the `pos` tags (in the column the
      reader's `pos_tags` names, UPOS by default), HEAD and DEPREL, `_` elsewhere. A sentence of a `text`
      record also gets `# sent_id = N` before `# text`, and `SpaceAfter=No` in MISC after each word that
      no whitespace followed, so that the text can be rebuilt from the FORMs. With a model with a UPOS
      tagger, the UPOS column gets the predicted tag where the input has none (`_`: text, words without
      `pos`, CoNLL-U without UPOS); a gold UPOS of the input is kept unless `overwrite_upos`.

    A record that cannot be parsed (not valid JSON, not a JSON object, none of `text`, `words` or
    `sentence`, `text` with `words` or `sentence`, `text` not a string, no words, `words` not a list of
    non-empty strings, `pos` not one string per word, more words than the model's `max_sentence_length`)
    is not dropped: a one-line error naming the problem and the record's
    number (its line among the non-blank input lines) is logged, and its output record is
    `{"error": "record 3: ..."}`, or in CoNLL-U, `# error = record 3: ...` and a blank line. The other
    records of its batch are parsed as usual. A CoNLL-U sentence too long for the model, or such a
    sentence of a `text` record, is written with `_` heads and relations after a `# error = ...` comment
    (`record 3, sentence 2: ...` for the second sentence of a text), so the output still aligns with the
    input.

    # Parameters

    model : `Model`
    dataset_reader : `DatasetReader`
        The model's `seqgraph_ud` reader; it builds the instances (`text_to_instance`) and their indexers.
    frozen : `bool`, optional (default = `True`)
        Put the model in evaluation mode.
    output_format : `str`, optional (default = `"json"`)
        `"json"` or `"conllu"` (see above). On the command line:
        `--predictor-args '{"output_format": "conllu"}'`.
    tau : `float`, optional (default = `None`)
        Multi-edge decoding (Appendix A) without retraining: within a step, keep adding the next best
        valid edge while its probability is at least `tau`. `None` keeps the model's own setting (its
        config's `tau`). `--predictor-args '{"tau": 0.05}'`. The model is left as it is: the threshold is
        passed to each call (`DecodingOptions`).
    stop_bias : `float`, optional (default = `None`)
        For a model of the enhanced graph: added to the graph phase's `STOP` score (positive: fewer extra
        edges). `None` keeps the model's own setting. `--predictor-args '{"stop_bias": 1.0}'`; passed to each
        call, as `tau` is.
    language : `str`, optional (default = `None`)
        The language of `text` records, an ISO 639 code such as `"en"` or `"de"` (spaCy's
        language-neutral tokeniser where spaCy has no rules for it, e.g. Welsh). `None` takes the language
        recorded in the model's archive (the `seqgraph_ud` reader's `language`), else `"en"`.
        `--predictor-args '{"language": "de"}'`.
    overwrite_upos : `bool`, optional (default = `False`)
        With a model with a UPOS tagger, write the predicted UPOS over the input's own UPOS (CoNLL-U input,
        or `pos` written to UPOS) too, instead of only where the input has `_`. `--predictor-args
        '{"output_format": "conllu", "overwrite_upos": true}'`. A model without a tagger refuses it.
    lexical_labels : `str`, optional (default = `"filled"`)
        For a model of the enhanced graph: `"filled"` writes the lexical part of the enhanced labels
        (`obl:in`, `conj:and`) from the words, the marker of each dependent in the predicted basic tree
        (`seqgraph_allennlp.common.enhanced_rules`), where the model's own label has one or could have one;
        `"predicted"` keeps the model's labels as they are. Filled scored higher on EWT test
        (`results/enhanced/enhanced_rules.json`). `--predictor-args '{"lexical_labels": "predicted"}'`.
    drop_ref_tree_edges : `bool`, optional (default = `True`)
        For a model of the enhanced graph: take out of DEPS the basic tree edge of each word that the
        predicted graph attaches with `ref` (a relative pronoun: enhanced UD moves its relation to the
        antecedent, `common.enhanced_rules.drop_replaced_tree_edges`), which the tree-first parser's graph
        cannot leave out itself. Measured in `results/enhanced/enhanced_rules.json`.
    features_precision : `str`, optional (default = `"auto"`)
        For a model over a frozen transformer (`cached_pretrained_transformer_mismatched`): what its features
        are computed in while this predictor parses. `"auto"`: the fastest that parses as well, chosen by
        `seqgraph_allennlp.modules.precision.parsing_features_precision` (int8 on a CPU, as trained on a GPU);
        `"as_trained"`: the archive's own `transformer_precision`; `"float32"`, `"bfloat16"` (where native) or
        `"int8"` force one. `allennlp evaluate` computes them as trained. `--predictor-args
        '{"features_precision": "as_trained"}'`.
    encoder_precision : `str`, optional (default = `"auto"`)
        For a model with a `fused_bilstm` encoder: `"auto"` runs its LSTM layers in int8 on a CPU without
        native bfloat16 (`seqgraph_allennlp.modules.precision.parsing_encoder_int8`), as trained elsewhere;
        `"as_trained"` as the archive's config says; `"int8"` in int8 on any CPU.
    """

    def __init__(
        self,
        model: Model,
        dataset_reader: DatasetReader,
        frozen: bool = True,
        output_format: str = "json",
        tau: Optional[float] = None,
        stop_bias: Optional[float] = None,
        language: Optional[str] = None,
        overwrite_upos: bool = False,
        lexical_labels: str = "filled",
        drop_ref_tree_edges: bool = True,
        segmenter: Optional[str] = None,
        features_precision: str = "auto",
        encoder_precision: str = "auto",
    ) -> None:
        super().__init__(model, dataset_reader, frozen)
        for name, value, choices in (("features_precision", features_precision, FEATURES_PRECISIONS),
                                     ("encoder_precision", encoder_precision, ENCODER_PRECISIONS)):
            if value not in choices:
                raise PredictorArgumentError(
                    f"seqgraph_parser predictor: {name} must be one of {', '.join(map(repr, choices))}, got {value!r}"
                )
        self.features_precision = features_precision
        self.encoder_precision = encoder_precision
        device = torch.device("cpu") if self.cuda_device < 0 else torch.device("cuda", self.cuda_device)
        for module in model.modules():
            if isinstance(module, CachedPretrainedTransformerMismatchedEmbedder):
                module.set_transformer_precision(parsing_features_precision(
                    features_precision, module.configured_precision, device))
            elif isinstance(module, FusedBiLstm):
                module.use_int8_inference(parsing_encoder_int8(encoder_precision, device))
        if segmenter is not None and segmenter not in SEGMENTERS:
            raise PredictorArgumentError(
                f'seqgraph_parser predictor: segmenter must be "learned" or "rules", got {segmenter!r}'
            )
        if segmenter == "learned" and getattr(model, "segmenter", None) is None:
            raise PredictorArgumentError(
                'seqgraph_parser predictor: segmenter "learned" needs an archive that carries a segmenter '
                "(python -m seqgraph_allennlp.segmentation.attach PARSER SEGMENTER)"
            )
        self.segmenter = segmenter or ("learned" if getattr(model, "segmenter", None) is not None else "rules")
        if lexical_labels not in LEXICAL_LABELS:
            raise PredictorArgumentError(
                f'seqgraph_parser predictor: lexical_labels must be "filled" or "predicted", got {lexical_labels!r}'
            )
        self.lexical_labels = lexical_labels
        self.drop_ref_tree_edges = drop_ref_tree_edges
        # the sequential parser's readable outputs are plain Python lists already (`tolist()`), which AllenNLP's
        # `sanitize` would walk element by element for nothing (7 % of parsing an EWT batch with DEPS)
        self._plain_outputs = isinstance(model, SeqGraphParser)
        # the basic relations, whose subtypes (nmod:poss, acl:relcl) are not lexical
        self._basic_relations = set(model.vocab.get_token_to_index_vocabulary("head_tags"))
        # None: the model decodes as its config says
        self._decoding: Optional[DecodingOptions] = None
        decoding = getattr(model, "decoding", None)
        if tau is not None:
            if not isinstance(decoding, DecodingOptions) or decoding.decoder != "valid":
                raise ConfigurationError(
                    "seqgraph_parser predictor: tau needs a seqgraph_parser model with the valid decoder"
                )
            decoding = decoding._replace(tau=tau)
        if stop_bias is not None:
            if not isinstance(decoding, DecodingOptions) or not getattr(model, "predict_enhanced", False):
                raise ConfigurationError(
                    "seqgraph_parser predictor: stop_bias needs a seqgraph_parser model of the enhanced graph "
                    "(predict_enhanced)"
                )
            decoding = decoding._replace(stop_bias=float(stop_bias))
        if tau is not None or stop_bias is not None:
            self._decoding = check_decoding_options(decoding, model.recurrent, model.predict_enhanced)  # type: ignore
        if output_format not in OUTPUT_FORMATS:
            raise PredictorArgumentError(
                f'seqgraph_parser predictor: output_format must be "json" or "conllu", got {output_format!r}'
            )
        self.output_format = output_format
        if overwrite_upos and not self._predicts_upos:
            raise ConfigurationError(
                "seqgraph_parser predictor: overwrite_upos needs a model with a UPOS tagger "
                "(predict_upos: true)"
            )
        self.overwrite_upos = overwrite_upos
        if language is None:
            language = getattr(dataset_reader, "language", None) or DEFAULT_LANGUAGE
        try:
            self.language = check_language(language)
        except LanguageError as error:
            raise ConfigurationError(f"seqgraph_parser predictor: {error}")
        # built on the first text record: a CoNLL-U run never needs it
        self._text_splitter: Optional[Union[TextSplitter, LearnedTextSplitter]] = None
        self._num_records = 0
        self._num_text_sentences = 0

    @property
    def text_splitter(self) -> Union[TextSplitter, LearnedTextSplitter]:
        """How `text` records become sentences of words: the archive's segmenter, or spaCy's rules."""
        if self._text_splitter is None:
            if self.segmenter == "learned":
                self._text_splitter = LearnedTextSplitter(self._model.segmenter)  # type: ignore[attr-defined]
            else:
                self._text_splitter = TextSplitter(self.language)
        return self._text_splitter

    # Reading

    def load_line(self, line: str) -> JsonDict:
        """
        Parses one input line. Never raises: a line that is not a JSON object becomes an empty record that
        carries its error, so that it gets an output record in its place.
        """
        self._num_records += 1
        number = self._num_records
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            return _Record({}, number, f"not valid JSON ({error})")
        if not isinstance(value, dict):
            return _Record({}, number, f"expected a JSON object, got {_type_name(value)}")
        return _Record(value, number)

    def _json_to_instance(self, json_dict: JsonDict) -> Instance:
        """
        Builds the instance of a one-sentence record, or raises `InputError` saying what is wrong with it.
        """
        parts = self._json_to_instances(json_dict)
        if len(parts) != 1:
            raise InputError(f'"text" holds {len(parts)} sentences: use predict_json')
        return parts[0][0]

    def _json_to_instances(
        self, json_dict: JsonDict, sentences: Optional[List[TextSentence]] = None
    ) -> List[Tuple[Instance, Optional[JsonDict]]]:
        """
        The instances of a record: one for `words` or `sentence`, one per sentence for `text` (split
        already as `sentences`, or split now), each with the keys a sentence of a text adds to its output
        (`None` for the others). Raises `InputError` saying what is wrong with the record.
        """
        error = getattr(json_dict, "error", None)
        if error is not None:
            raise InputError(error)
        if not isinstance(json_dict, dict):
            raise InputError(f"expected a JSON object, got {_type_name(json_dict)}")
        if TEXT_KEY in json_dict:
            return self._text_to_instances(json_dict, sentences)
        return [(self._sentence_to_instance(json_dict), None)]

    def _text_to_instances(
        self, json_dict: JsonDict, sentences: Optional[List[TextSentence]] = None
    ) -> List[Tuple[Instance, Optional[JsonDict]]]:
        text = json_dict[TEXT_KEY]
        if not isinstance(text, str):
            raise InputError(f'"text" must be a string, got {_type_name(text)}')
        if any(key in json_dict for key in SENTENCE_KEYS):
            raise InputError('"text" cannot be given with "words" or "sentence": one input per record')
        if "pos" in json_dict:
            raise InputError('"pos" needs "words": the words of a "text" are not known in advance')
        if self._uses_pos_tags:
            raise InputError('this model needs POS tags: give "words" and "pos" instead of "text"')
        if sentences is None:
            sentences = self.text_splitter.split(text)
        if not sentences:
            raise InputError('empty text: "text" has no words')
        number = getattr(json_dict, "number", None)
        parts = []
        for sentence in sentences:
            self._num_text_sentences += 1
            sent_id = str(self._num_text_sentences)
            extras: JsonDict = {} if number is None else {"record": number}
            extras.update(sent_id=sent_id, text=sentence.text, space_after=list(sentence.space_after))
            conllu = None
            if self.output_format == "conllu":
                conllu = self._minimal_sentence(sentence.words, None, None, number, sentence, sent_id)
            instance = self._dataset_reader.text_to_instance(sentence.words, None, sentence=conllu)  # type: ignore
            parts.append((instance, extras))
        return parts

    def _sentence_to_instance(self, json_dict: JsonDict) -> Instance:
        text = json_dict.get("sentence")
        if text is not None and not isinstance(text, str):
            raise InputError(f'"sentence" must be a string, got {_type_name(text)}')
        if "words" in json_dict:
            words = json_dict["words"]
            if not isinstance(words, list):
                raise InputError(f'"words" must be a list of strings, got {_type_name(words)}')
            if not words:
                raise InputError('empty sentence: "words" is an empty list')
            for index, word in enumerate(words, start=1):
                if not isinstance(word, str):
                    raise InputError(
                        f'"words" must be a list of strings: word {index} is {_type_name(word)}'
                    )
                if not word.strip():
                    raise InputError(f'"words": word {index} is empty or only whitespace')
                if any(character in word for character in "\t\n\r"):
                    raise InputError(f'"words": word {index} contains a tab or a line break')
        elif text is not None:
            words = text.split()
            if not words:
                raise InputError('empty sentence: "sentence" has no words')
        else:
            raise InputError('record has none of "text", "words" or "sentence"')

        pos = json_dict.get("pos")
        if pos is not None:
            if not isinstance(pos, list) or not all(isinstance(tag, str) for tag in pos):
                raise InputError(f'"pos" must be a list of strings, got {_type_name(pos)}')
            if len(pos) != len(words):
                raise InputError(f'"pos" has {len(pos)} tags for {len(words)} words')
            for index, tag in enumerate(pos, start=1):
                if not tag.strip() or any(character in tag for character in "\t\n\r"):
                    raise InputError(f'"pos": tag {index} is empty or contains whitespace')
        elif self._uses_pos_tags:
            raise InputError('this model needs POS tags: give "pos", one tag per word')

        sentence = None
        if self.output_format == "conllu":
            sentence = self._minimal_sentence(words, pos, text, getattr(json_dict, "number", None))
        # a model without a POS embedding ignores tags: no field for them (they still go to CoNLL-U)
        return self._dataset_reader.text_to_instance(  # type: ignore
            words, pos if self._uses_pos_tags else None, sentence=sentence
        )

    @property
    def _uses_pos_tags(self) -> bool:
        return bool(getattr(self._model, "uses_pos_tags", False))

    @property
    def _predicts_upos(self) -> bool:
        return bool(getattr(self._model, "predicts_upos", False))

    def _minimal_sentence(
        self,
        words: List[str],
        pos: Optional[List[str]],
        text: Optional[str],
        number: Optional[int],
        text_sentence: Optional[TextSentence] = None,
        sent_id: Optional[str] = None,
    ) -> ConlluSentence:
        """
        A CoNLL-U sentence for a JSON record: `# text`, then ID, FORM and the POS tags, `_` elsewhere. A
        sentence of a text also gets its `# sent_id`, its multiword tokens' range lines and `SpaceAfter=No`
        where no whitespace followed.
        """
        pos_column = 4 if getattr(self._dataset_reader, "pos_tags", None) == "xpos" else 3
        lines = [] if sent_id is None else [f"# sent_id = {sent_id}"]
        if text_sentence is not None:
            text = text_sentence.text
        lines.append("# text = " + (" ".join(text.split()) if text is not None else " ".join(words)))
        if text_sentence is not None:
            # its multiword tokens' range lines, and SpaceAfter=No on the tokens that no whitespace followed
            lines.extend(text_sentence.conllu_lines())
        else:
            for index, word in enumerate(words):
                columns = [str(index + 1), word] + ["_"] * 8
                if pos is not None:
                    columns[pos_column] = pos[index]
                lines.append("\t".join(columns))
        name = f"<record {number}>" if number is not None else "<record>"
        return parse_string("\n".join(lines) + "\n", name)[0]

    # Predicting

    def predict_json(self, inputs: JsonDict) -> JsonDict:
        return self.predict_batch_json([inputs])[0]

    def predict_batch_json(self, inputs: List[JsonDict]) -> List[JsonDict]:
        return self.predict_prepared([self.prepare_batch_json(inputs)])[0]

    def prepare_batch_json(self, inputs: List[JsonDict]) -> PreparedBatch:
        """
        The first half of `predict_batch_json`: reads and checks the records and builds their instances,
        without running the model (`predict_prepared` does). A record that cannot be read, or a sentence
        too long for the model, gets its error output now.
        """
        results: List[Any] = [None] * len(inputs)
        pending: List[Tuple[int, Optional[int], Instance, Optional[JsonDict]]] = []
        input_errors: List[int] = []
        # the texts of the batch split together: a learned segmenter reads them in one run
        texts = {position: record[TEXT_KEY] for position, record in enumerate(inputs)
                 if isinstance(record, dict) and isinstance(record.get(TEXT_KEY), str)
                 and getattr(record, "error", None) is None}
        split = dict(zip(texts, self.text_splitter.split_all(list(texts.values())))) if texts else {}
        for position, record in enumerate(inputs):
            try:
                parts = self._json_to_instances(record, split.get(position))
            except InputError as error:
                results[position] = self._error(self._record_name(record) + str(error))
                input_errors.append(position)
                continue
            is_text = isinstance(record, dict) and TEXT_KEY in record
            if is_text:
                results[position] = {"sentences": [None] * len(parts)}
            for index, (instance, extras) in enumerate(parts):
                slot = index if is_text else None
                error_message = self._length_error(instance)
                if error_message is None:
                    pending.append((position, slot, instance, extras))
                    continue
                name = self._record_name(record, None if slot is None else slot + 1)
                # a sentence of a text is written unparsed, so that the text still round-trips
                output = self._error(name + error_message, self._conllu_sentence(instance) if is_text else None)
                if extras is not None:
                    output.update((key, extras[key]) for key in ("record", "sent_id", "text") if key in extras)
                self._place(results, position, slot, output)
        return PreparedBatch(results, pending, input_errors)

    def predict_prepared(
        self, batches: List[PreparedBatch], batch_size: Optional[int] = None
    ) -> List[List[JsonDict]]:
        """
        The outputs of prepared batches (`prepare_batch_json`, `prepare_batch_instance`), one list per batch,
        from one run of the model over the sentences of all of them (in runs of at most `batch_size`
        sentences, when given): the parser service (`seqgraph_allennlp.serve`) batches the requests that
        arrive together this way. A batch may have been prepared by another predictor of the same model and
        options (each numbers its own `text` sentences). Each batch's `results` are filled in place.
        """
        instances = [instance for batch in batches for instance in batch.instances]
        step = batch_size or max(1, len(instances))
        outputs: List[JsonDict] = []
        for start in range(0, len(instances), step):
            outputs.extend(self._predict(instances[start : start + step]))
        remaining = iter(outputs)
        for batch in batches:
            for position, slot, _, extras in batch.pending:
                output = next(remaining)
                self._place(batch.results, position, slot, output if extras is None else {**output, **extras})
        return [batch.results for batch in batches]

    @staticmethod
    def _place(results: List[Any], position: int, slot: Optional[int], output: JsonDict) -> None:
        if slot is None:
            results[position] = output
        else:
            results[position]["sentences"][slot] = output

    def predict_instance(self, instance: Instance) -> JsonDict:
        return self.predict_batch_instance([instance])[0]

    def predict_batch_instance(self, instances: List[Instance]) -> List[JsonDict]:
        return self.predict_prepared([self.prepare_batch_instance(instances)])[0]

    def prepare_batch_instance(self, instances: List[Instance]) -> PreparedBatch:
        """
        The first half of `predict_batch_instance` (as `prepare_batch_json` is of `predict_batch_json`): a
        sentence too long for the model gets its error output now.
        """
        results: List[Any] = [None] * len(instances)
        pending: List[Tuple[int, Optional[int], Instance, Optional[JsonDict]]] = []
        for position, instance in enumerate(instances):
            error_message = self._length_error(instance)
            if error_message is None:
                pending.append((position, None, instance, None))
                continue
            sentence = self._conllu_sentence(instance)
            if sentence is not None:
                error_message = f"{sentence.file_path}:{sentence.start_line}: {error_message}"
            results[position] = self._error(error_message, sentence)
        return PreparedBatch(results, pending, [])

    def _predict(self, instances: List[Instance]) -> List[JsonDict]:
        if not instances:
            return []
        inputs = []
        for instance in instances:
            instance = without_gold(instance)
            self._dataset_reader.apply_token_indexers(instance)
            inputs.append(instance)
        outputs = forward_in_length_buckets(self._forward_on_instances, inputs)
        results = []
        for instance, output in zip(instances, outputs):
            result = {key: output[key] if self._plain_outputs else sanitize(output[key])
                      for key in OUTPUT_KEYS if key in output}
            if "words" not in result:
                result["words"] = [token.text for token in instance["words"]]  # type: ignore
            if "predicted_deps" in result:
                result["predicted_deps"] = self._enhanced_rules(result, self._conllu_sentence(instance))
            if self.output_format == "conllu":
                sentence = self._conllu_sentence(instance)
                if sentence is None:
                    sentence = self._minimal_sentence(result["words"], None, None, None)
                result["conllu"] = format_sentence(
                    sentence,
                    result["predicted_heads"],
                    result["predicted_dependencies"],
                    self._upos_column(sentence, result),
                    _enhanced_graph(result),
                )
            results.append(result)
        return results

    def _enhanced_rules(self, result: JsonDict, sentence: Optional[ConlluSentence]) -> List[List[List[Any]]]:
        """
        `predicted_deps` after the predictor's rules (`common.enhanced_rules`): the lexical part of its labels
        filled from the words (`lexical_labels`), then the tree edges of the words attached by `ref` taken out
        (`drop_ref_tree_edges`).
        """
        graph = _enhanced_graph(result)
        if self.lexical_labels == "filled":
            forms = result["words"]
            lemmas = [word.lemma for word in sentence.words] if sentence is not None else ["_"] * len(forms)
            # the UPOS the output writes (a verb marker is written as its form)
            upos = result.get("predicted_upos")
            if sentence is not None:
                upos = self._upos_column(sentence, result) or [word.upos for word in sentence.words]
            graph = fill_lexical_labels(
                forms, lemmas, result["predicted_heads"], result["predicted_dependencies"], graph,
                self._basic_relations, upos=upos,
            )
        if self.drop_ref_tree_edges:
            graph = drop_replaced_tree_edges(result["predicted_heads"], graph)
        return [[[head, label] for head, label in word] for word in graph]

    def _forward_on_instances(self, instances: List[Instance]) -> List[Dict[str, Any]]:
        """
        `Model.forward_on_instances`, but with the predictor's decoding options (its `tau`, `stop_bias`) passed to the
        model's `forward` when there are any.
        """
        if self._decoding is None:
            return self._model.forward_on_instances(instances)
        with torch.no_grad():
            batch = Batch(instances)
            batch.index_instances(self._model.vocab)
            tensors = move_to_device(batch.as_tensor_dict(), self.cuda_device)
            outputs = self._model.make_output_human_readable(self._model(**tensors, decoding=self._decoding))
        # the outputs kept are human-readable lists, one entry per instance
        return [
            {key: outputs[key][index] for key in OUTPUT_KEYS if key in outputs} for index in range(len(instances))
        ]

    def _upos_column(self, sentence: ConlluSentence, output: JsonDict) -> Optional[List[str]]:
        """
        The UPOS column to write: the predicted tag where the input has `_` (or everywhere with
        `overwrite_upos`), the input's tag elsewhere; `None` (the column as read) without predicted tags.
        """
        predicted = output.get("predicted_upos")
        if predicted is None:
            return None
        return [
            tag if self.overwrite_upos or word.upos == "_" else word.upos
            for word, tag in zip(sentence.words, predicted)
        ]

    # Errors

    @staticmethod
    def _record_name(record: Any, sentence: Optional[int] = None) -> str:
        """`record 3: `, or `record 3, sentence 2: ` for a sentence of a text; no number in Python."""
        names = []
        number = getattr(record, "number", None)
        if number is not None:
            names.append(f"record {number}")
        if sentence is not None:
            names.append(f"sentence {sentence}")
        return ", ".join(names) + ": " if names else ""

    @staticmethod
    def _conllu_sentence(instance: Instance) -> Optional[ConlluSentence]:
        metadata = instance.fields.get("metadata")
        if metadata is None:
            return None
        return metadata.metadata.get("conllu")  # type: ignore[attr-defined]

    def _length_error(self, instance: Instance) -> Optional[str]:
        max_length = getattr(self._model, "max_sentence_length", None)
        num_words = len(instance["words"])  # type: ignore[arg-type]
        if isinstance(max_length, int) and num_words > max_length:
            return (
                f"sentence of {num_words} words is longer than this model's "
                f"max_sentence_length={max_length}"
            )
        return None

    def _error(self, message: str, sentence: Optional[ConlluSentence] = None) -> JsonDict:
        message = _one_line(message)
        logger.error("seqgraph_parser predictor: %s", message)
        result: JsonDict = {"error": message}
        if self.output_format == "conllu":
            text = f"# error = {message}\n"
            if sentence is None:
                result["conllu"] = text + "\n"
            else:
                # the sentence itself, unparsed, so that the output still aligns with the input
                none = [None] * len(sentence)
                result["conllu"] = text + format_sentence(sentence, none, none)
        return result

    # Writing

    def dump_line(self, outputs: JsonDict) -> str:
        if "sentences" in outputs:
            # a text record: one output per sentence
            return "".join(self.dump_line(sentence) for sentence in outputs["sentences"])
        if self.output_format == "conllu":
            if "conllu" in outputs:
                return outputs["conllu"]
            if "error" in outputs:
                return f"# error = {_one_line(outputs['error'])}\n\n"
            sentence = self._minimal_sentence(outputs["words"], None, None, None)
            return format_sentence(
                sentence,
                outputs["predicted_heads"],
                outputs["predicted_dependencies"],
                self._upos_column(sentence, outputs),
                _enhanced_graph(outputs),
            )
        return json.dumps({key: value for key, value in outputs.items() if key != "conllu"}) + "\n"
