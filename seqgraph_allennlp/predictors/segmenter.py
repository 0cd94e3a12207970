"""
The `segmenter` predictor: raw text into tokens, words and sentences with a trained `segmenter` archive.
"""
import json
from typing import List

from allennlp.common.util import JsonDict
from allennlp.data import Instance
from allennlp.predictors.predictor import Predictor

from seqgraph_allennlp.common.errors import SeqGraphError
from seqgraph_allennlp.segmentation.sentence import TextSentence

OUTPUT_FORMATS = ("json", "conllu")


class SegmenterInputError(SeqGraphError, ValueError):
    """A record the segmenter cannot read."""


@Predictor.register("segmenter")
class SegmenterPredictor(Predictor):
    """
    Splits `{"text": ...}` records into sentences of tokens and words with a `segmenter` model; the texts of
    a batch (`--batch-size`) are read in one run.

    Output, one record per input: `{"sentences": [{"words", "space_after", "multiword_tokens", "text"}]}`,
    `multiword_tokens` as `[first word, last word, form]` (0-based, inclusive); or, with
    `output_format: "conllu"`, each sentence as CoNLL-U (`# sent_id`, `# text`, a range line before the
    words of each multiword token, `SpaceAfter=No` where no whitespace followed a token, `_` in the columns
    a segmenter does not predict, HEAD included). A record that cannot be read gets `{"error": ...}` (in
    CoNLL-U, a `# error = ...` comment), and the others are segmented.

    # Parameters

    output_format : `str`, optional (default = `"json"`)
        `"json"` or `"conllu"`.
    """

    def __init__(self, model, dataset_reader, frozen: bool = True, output_format: str = "json") -> None:  # type: ignore[no-untyped-def]
        super().__init__(model, dataset_reader, frozen)
        if output_format not in OUTPUT_FORMATS:
            raise SegmenterInputError(f'segmenter predictor: output_format must be "json" or "conllu", got {output_format!r}')
        self.output_format = output_format
        self._num_sentences = 0

    def load_line(self, line: str) -> JsonDict:
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            return {"error": f"not JSON: {error}"}
        return record if isinstance(record, dict) else {"error": f"expected a JSON object, got {type(record).__name__}"}

    def predict_json(self, inputs: JsonDict) -> JsonDict:
        return self.predict_batch_json([inputs])[0]

    def predict_batch_json(self, inputs: List[JsonDict]) -> List[JsonDict]:
        texts, positions, outputs = [], [], [None] * len(inputs)
        for position, record in enumerate(inputs):
            error = record.get("error") if isinstance(record, dict) else "expected a JSON object"
            if error is None and not isinstance(record.get("text"), str):
                error = 'record needs "text", a string'
            if error is not None:
                outputs[position] = {"error": f"record {position + 1}: {error}"}
                continue
            texts.append(record["text"])
            positions.append(position)
        for position, sentences in zip(positions, self._model.segment(texts)):  # type: ignore[attr-defined]
            outputs[position] = {"sentences": [self._sentence_output(sentence) for sentence in sentences]}
        return outputs  # type: ignore[return-value]

    def _sentence_output(self, sentence: TextSentence) -> JsonDict:
        self._num_sentences += 1
        return {
            "sent_id": str(self._num_sentences),
            "text": sentence.text,
            "words": sentence.words,
            "space_after": sentence.space_after,
            "multiword_tokens": [[token.first, token.last, token.form] for token in sentence.multiword_tokens],
            "conllu": "\n".join(
                [f"# sent_id = {self._num_sentences}", f"# text = {sentence.text}"] + sentence.conllu_lines()
            ) + "\n\n",
        }

    def _json_to_instance(self, json_dict: JsonDict) -> Instance:
        raise SegmenterInputError("the segmenter predictor reads text records (predict_json), not instances")

    def dump_line(self, outputs: JsonDict) -> str:
        if self.output_format == "conllu":
            if "error" in outputs:
                return f"# error = {outputs['error']}\n\n"
            return "".join(sentence["conllu"] for sentence in outputs["sentences"])
        if "sentences" in outputs:
            outputs = {"sentences": [{key: value for key, value in sentence.items() if key != "conllu"}
                                     for sentence in outputs["sentences"]]}
        return json.dumps(outputs, ensure_ascii=False) + "\n"
