"""
The `seqgraph_parser` predictor, on a tiny model trained once per session (`trained_model_archive` in
conftest.py). Most runs go through allennlp's own `_PredictManager` in-process, which is what
`allennlp predict` runs; one test runs the real command in a subprocess.
"""
import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest
import torch
from allennlp.commands.predict import _PredictManager
from allennlp.common.checks import ConfigurationError
from allennlp.models.archival import load_archive
from allennlp.predictors import Predictor

import seqgraph_allennlp  # noqa: F401
from seqgraph_allennlp.common.conllu import check_tree, find_tree_problem, parse_string
from seqgraph_allennlp.models import DecodingOptions
from seqgraph_allennlp.predictors import SeqGraphParserPredictor

ROOT = Path(__file__).resolve().parents[1]
CONLLU = ROOT / "fixtures" / "conllu"
ALLENNLP = Path(sys.executable).parent / "allennlp"
# the position embeddings of the model trained in conftest.py's `trained_model_archive`
TRAINED_MODEL_MAX_SENTENCE_LENGTH = 256
OUTPUT_KEYS = {"words", "predicted_heads", "predicted_dependencies", "generation_order", "edge_probabilities"}

# (input line, what its one-line error must say); record numbers are given by position in BAD_INPUT
BAD_RECORDS = [
    ('{"sentence": "  "}', 'empty sentence: "sentence" has no words'),
    ('{"words": []}', 'empty sentence: "words" is an empty list'),
    ('{"txt": "The cat sat"}', 'record has none of "text", "words" or "sentence"'),
    ('{"words": "The cat sat"}', '"words" must be a list of strings, got a string'),
    ('{"words": ["The", 3]}', '"words" must be a list of strings: word 2 is a number'),
    ('{"words": ["The", "cat"], "pos": ["DET"]}', '"pos" has 1 tags for 2 words'),
    ('{"words": ["The", "cat"', "not valid JSON"),
    ('["The", "cat"]', "expected a JSON object, got a list"),
    ('{"text": " \\n\\t "}', 'empty text: "text" has no words'),
    ('{"text": ["The", "cat"]}', '"text" must be a string, got a list'),
    ('{"text": "The cat", "words": ["The", "cat"]}', '"text" cannot be given with "words" or "sentence"'),
    ('{"text": "The cat", "pos": ["DET", "NOUN"]}', '"pos" needs "words"'),
]
GOOD_RECORD = '{"words": ["We", "moved", "on", "."]}'


@pytest.fixture(scope="module")
def archive(trained_model_archive):
    archive = load_archive(trained_model_archive)
    assert archive.model.max_sentence_length == TRAINED_MODEL_MAX_SENTENCE_LENGTH
    return archive


def make_predictor(archive, output_format: str = "json") -> SeqGraphParserPredictor:
    # a fresh predictor per run: record numbers count from 1
    predictor = Predictor.from_archive(archive, "seqgraph_parser", extra_args={"output_format": output_format})
    assert isinstance(predictor, SeqGraphParserPredictor)
    return predictor


def run_manager(
    archive, input_path: Path, output_path: Path, output_format="json", batch_size=1, use_reader=False
) -> str:
    """What `allennlp predict` does once the predictor is loaded; returns the output file's text."""
    predictor = make_predictor(archive, output_format)
    _PredictManager(predictor, str(input_path), str(output_path), batch_size, False, use_reader).run()
    return output_path.read_text(encoding="utf-8")


def write_lines(path: Path, lines: List[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def json_records(text: str) -> List[dict]:
    return [json.loads(line) for line in text.splitlines()]


def assert_prediction(record: dict, words: List[str], positive_probabilities: bool = True):
    assert set(record) == OUTPUT_KEYS
    assert record["words"] == words
    num_words = len(words)
    assert len(record["predicted_heads"]) == len(record["predicted_dependencies"]) == num_words
    assert find_tree_problem(record["predicted_heads"]) is None  # a single-rooted tree
    assert all(isinstance(label, str) and label != "_" for label in record["predicted_dependencies"])
    order = record["generation_order"]
    assert len(order) == len(record["edge_probabilities"]) == num_words
    assert sorted(dependent for _, dependent in order) == list(range(1, num_words + 1))
    assert all(record["predicted_heads"][dependent - 1] == head for head, dependent in order)
    assert all(0.0 <= probability <= 1.0 for probability in record["edge_probabilities"])
    if positive_probabilities:
        assert all(probability > 0.0 for probability in record["edge_probabilities"])


def test_json_words_and_sentence(archive, tmp_path):
    words = ["We", "moved", "on", "."]
    input_path = write_lines(
        tmp_path / "input.jsonl", [json.dumps({"words": words}), json.dumps({"sentence": " We  moved on .\t"})]
    )
    by_words, by_sentence = json_records(run_manager(archive, input_path, tmp_path / "output.jsonl"))
    assert_prediction(by_words, words)
    assert by_sentence == by_words

    # the Python API gives the same, JSON-serialisable
    direct = make_predictor(archive).predict_json({"sentence": "We moved on ."})
    assert json.loads(json.dumps(direct)) == by_words


def test_pos_tags(archive, tmp_path):
    words = ["The", "cat", "sat"]
    pos = ["DET", "NOUN", "VERB"]
    conllu = make_predictor(archive, "conllu")
    output = conllu.predict_json({"words": words, "pos": pos, "sentence": "The cat sat"})
    text = conllu.dump_line(output)
    (sentence,) = parse_string(text)
    assert sentence.comments == ["# text = The cat sat"]
    assert sentence.forms == words
    assert sentence.upos == pos  # the reader reads no tags, so they go to UPOS
    # a model without a UPOS tagger (tests/test_upos_tagger.py has one) predicts none and leaves UPOS alone
    assert "predicted_upos" not in output
    assert parse_string(conllu.dump_line(conllu.predict_json({"words": words})))[0].upos == ["_"] * 3
    assert sentence.heads == output["predicted_heads"]
    assert sentence.deprels == output["predicted_dependencies"]
    check_tree(sentence)
    for line in text.splitlines()[1:4]:
        columns = line.split("\t")
        assert columns[2] == columns[4] == columns[5] == columns[8] == columns[9] == "_"
    assert text.endswith("\n\n")


def assert_reproduces(input_path: Path, output_text: str):
    """
    Line for line, the output is the input except HEAD and DEPREL of word lines, which form trees, and the
    enhanced layer, which a model without the graph phase does not predict: DEPS `_` and no empty nodes.
    """
    input_lines = input_path.read_text(encoding="utf-8").rstrip("\n").split("\n")
    # empty nodes (`8.1`) belong to the enhanced layer
    input_lines = [line for line in input_lines if line.startswith("#") or "." not in line.split("\t")[0]]
    output_lines = output_text.rstrip("\n").split("\n")
    assert len(output_lines) == len(input_lines)
    num_word_lines = 0
    for input_line, output_line in zip(input_lines, output_lines):
        if input_line.startswith("#") or not input_line.strip():
            assert output_line == input_line
            continue
        input_columns, output_columns = input_line.split("\t"), output_line.split("\t")
        assert len(output_columns) == 10
        if "-" in input_columns[0]:
            assert output_line == input_line  # multiword-token range
            continue
        num_word_lines += 1
        assert output_columns[:6] == input_columns[:6]
        # the input's DEPS would describe another tree: never passed off as the prediction's
        assert output_columns[8] == "_"
        assert output_columns[9:] == input_columns[9:]
        assert output_columns[6].isdigit() and output_columns[7] not in ("", "_")
    assert num_word_lines > 0
    sentences = parse_string(output_text)
    for sentence in sentences:
        check_tree(sentence)
    return sentences


@pytest.mark.parametrize("file_name", ["en_small.conllu", "no_heads.conllu"])
def test_conllu_output_with_the_dataset_reader(archive, tmp_path, file_name):
    input_path = CONLLU / file_name
    text = run_manager(archive, input_path, tmp_path / "output.conllu", "conllu", batch_size=4, use_reader=True)
    sentences = assert_reproduces(input_path, text)
    # the same parse as JSON output
    records = json_records(
        run_manager(archive, input_path, tmp_path / "output.jsonl", "json", batch_size=4, use_reader=True)
    )
    assert len(records) == len(sentences)
    for record, sentence in zip(records, sentences):
        assert_prediction(record, sentence.forms)
        assert sentence.heads == record["predicted_heads"]
        assert sentence.deprels == record["predicted_dependencies"]


def assert_same_predictions(batched: List[dict], single: List[dict]):
    assert len(batched) == len(single)
    for one, other in zip(batched, single):
        assert {key: value for key, value in one.items() if key != "edge_probabilities"} == {
            key: value for key, value in other.items() if key != "edge_probabilities"
        }
        if "error" not in one:
            assert one["edge_probabilities"] == pytest.approx(other["edge_probabilities"], abs=1e-5)


def test_batching_gives_the_same_output(archive, tmp_path):
    lines = [
        json.dumps({"sentence": sentence.text})
        for sentence in parse_string((CONLLU / "en_small.conllu").read_text(encoding="utf-8"))
    ]
    lines.insert(2, BAD_RECORDS[2][0])
    input_path = write_lines(tmp_path / "input.jsonl", lines)
    single = json_records(run_manager(archive, input_path, tmp_path / "single.jsonl", batch_size=1))
    batched = json_records(run_manager(archive, input_path, tmp_path / "batched.jsonl", batch_size=3))
    assert len(single) == len(lines)
    assert single[2] == {"error": 'record 3: record has none of "text", "words" or "sentence"'}
    assert_same_predictions(batched, single)

    # reading CoNLL-U
    input_path = CONLLU / "en_small.conllu"
    single = json_records(run_manager(archive, input_path, tmp_path / "single.jsonl", use_reader=True))
    batched = json_records(
        run_manager(archive, input_path, tmp_path / "batched.jsonl", batch_size=4, use_reader=True)
    )
    assert_same_predictions(batched, single)
    assert run_manager(
        archive, input_path, tmp_path / "single.conllu", "conllu", use_reader=True
    ) == run_manager(archive, input_path, tmp_path / "batched.conllu", "conllu", batch_size=4, use_reader=True)


def test_long_sentences(archive, tmp_path, caplog):
    vocabulary = "the cat sat on a mat and we moved on today .".split()
    long_words = [vocabulary[index % len(vocabulary)] for index in range(210)]
    too_long = TRAINED_MODEL_MAX_SENTENCE_LENGTH + 1
    input_path = write_lines(
        tmp_path / "input.jsonl",
        [
            json.dumps({"words": long_words}),
            json.dumps({"sentence": " ".join(["word"] * too_long)}),
            GOOD_RECORD,
        ],
    )
    with caplog.at_level(logging.ERROR):
        records = json_records(run_manager(archive, input_path, tmp_path / "output.jsonl", batch_size=3))
    assert len(records) == 3
    # the policy is over all 211 x 211 edges: in a model trained for one epoch, the chosen (valid) edge's
    # probability may underflow to 0 in float32
    assert_prediction(records[0], long_words, positive_probabilities=False)
    message = (
        f"record 2: sentence of {too_long} words is longer than this model's "
        f"max_sentence_length={TRAINED_MODEL_MAX_SENTENCE_LENGTH}"
    )
    assert records[1] == {"error": message}
    assert any(message in record.getMessage() for record in caplog.records)
    assert_prediction(records[2], ["We", "moved", "on", "."])


def test_a_conllu_sentence_too_long_for_the_model(archive, tmp_path):
    too_long = TRAINED_MODEL_MAX_SENTENCE_LENGTH + 1
    lines = ["# sent_id = long"]
    lines += [f"{index}\tword\t_\t_\t_\t_\t_\t_\t_\t_" for index in range(1, too_long + 1)]
    lines += ["", "# sent_id = short", "1\tHello\t_\t_\t_\t_\t_\t_\t_\t_", "2\tyou\t_\t_\t_\t_\t_\t_\t_\t_"]
    input_path = write_lines(tmp_path / "input.conllu", lines)
    text = run_manager(archive, input_path, tmp_path / "output.conllu", "conllu", batch_size=2, use_reader=True)
    output_lines = text.split("\n")
    # the long sentence is written unparsed after an error comment, so the output still aligns
    assert output_lines[0] == (
        f"# error = {input_path}:1: sentence of {too_long} words is longer than this model's "
        f"max_sentence_length={TRAINED_MODEL_MAX_SENTENCE_LENGTH}"
    )
    assert output_lines[1 : too_long + 3] == lines[: too_long + 2]
    (short,) = [sentence for sentence in parse_string(text) if sentence.sent_id == "short"]
    check_tree(short)


@pytest.mark.parametrize("batch_size", [1, 4])
def test_bad_input_gives_one_error_record_each(archive, tmp_path, caplog, batch_size):
    lines = [GOOD_RECORD]
    for bad, _ in BAD_RECORDS:
        lines += [bad, GOOD_RECORD]
    input_path = write_lines(tmp_path / "input.jsonl", lines)
    with caplog.at_level(logging.ERROR):
        records = json_records(run_manager(archive, input_path, tmp_path / "output.jsonl", batch_size=batch_size))
    assert len(records) == len(lines)
    errors = [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR]
    assert len(errors) == len(BAD_RECORDS)
    for index, (bad, problem) in enumerate(BAD_RECORDS):
        number = 2 * index + 2
        record = records[number - 1]
        assert set(record) == {"error"}
        assert record["error"].startswith(f"record {number}: {problem}")
        assert "\n" not in record["error"]
        assert any(record["error"] in message and "\n" not in message for message in errors)
    for record in records[::2]:
        assert_prediction(record, ["We", "moved", "on", "."])

    # CoNLL-U output: an error comment and a blank line in place of each bad record
    text = run_manager(archive, input_path, tmp_path / "output.conllu", "conllu", batch_size=batch_size)
    blocks = text.rstrip("\n").split("\n\n")
    assert len(blocks) == len(lines)
    for index, (bad, problem) in enumerate(BAD_RECORDS):
        number = 2 * index + 2
        assert blocks[number - 1].startswith(f"# error = record {number}: {problem}")
        assert "\n" not in blocks[number - 1]
    for block in blocks[::2]:
        (sentence,) = parse_string(block)
        check_tree(sentence)


def test_the_python_api_reports_bad_records_without_numbers(archive):
    predictor = make_predictor(archive)
    assert predictor.predict_json({"sentence": ""}) == {"error": 'empty sentence: "sentence" has no words'}
    results = predictor.predict_batch_json([{"words": ["Hi"]}, {"words": 5}])
    assert results[1] == {"error": '"words" must be a list of strings, got a number'}
    assert_prediction(results[0], ["Hi"])


def test_output_format_is_checked(archive):
    with pytest.raises(ConfigurationError, match='output_format must be "json" or "conllu"'):
        make_predictor(archive, "xml")


def test_allennlp_predict_command(trained_model_archive, tmp_path):
    lines = [GOOD_RECORD] + [bad for bad, _ in BAD_RECORDS] + ['{"sentence": "The cat sat ."}']
    input_path = write_lines(tmp_path / "input.jsonl", lines)
    output_path = tmp_path / "output.jsonl"
    command = [
        str(ALLENNLP), "predict", str(trained_model_archive), str(input_path),
        "--include-package", "seqgraph_allennlp", "--predictor", "seqgraph_parser",
        "--output-file", str(output_path), "--silent", "--batch-size", "4",
    ]  # fmt: skip
    completed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "Traceback" not in completed.stderr
    records = json_records(output_path.read_text(encoding="utf-8"))
    assert len(records) == len(lines)
    assert_prediction(records[0], ["We", "moved", "on", "."])
    assert_prediction(records[-1], ["The", "cat", "sat", "."])
    error_lines = [line for line in completed.stderr.splitlines() if " - ERROR - " in line]
    assert len(error_lines) == len(BAD_RECORDS)
    for number, ((_, problem), record, error_line) in enumerate(
        zip(BAD_RECORDS, records[1:-1], error_lines), start=2
    ):
        assert record["error"].startswith(f"record {number}: {problem}")
        assert record["error"] in error_line


def test_multi_edge_decoding_without_retraining(trained_model_archive, archive):
    # a predictor argument (`--predictor-args '{"tau": 0.001}'`) ...
    predictor = Predictor.from_archive(load_archive(trained_model_archive), "seqgraph_parser", extra_args={"tau": 0.001})
    # the predictor passes tau to each call and leaves the model as its config made it
    assert predictor._model.tau == 0.05
    words = "the dog saw a cat in the garden with a big old telescope".split()
    record = predictor.predict_json({"words": words})
    assert len(record["predicted_heads"]) == len(words)
    assert sorted(dependent for _, dependent in record["generation_order"]) == list(range(1, len(words) + 1))
    from allennlp.data import Batch

    instance = predictor._json_to_instance({"words": words})
    predictor._dataset_reader.apply_token_indexers(instance)
    batch = Batch([instance])
    batch.index_instances(predictor._model.vocab)
    output = predictor._model(**batch.as_tensor_dict(), decoding=DecodingOptions(tau=0.001))
    assert output["edges"][0].tolist() == record["generation_order"]
    # several edges in at least one step: fewer steps than words
    assert int(output["edge_steps"].max()) + 1 < len(words)
    with pytest.raises(ConfigurationError, match="tau must be in"):
        Predictor.from_archive(load_archive(trained_model_archive), "seqgraph_parser", extra_args={"tau": 1.5})
    # ... or a dotted override of the archived config (`allennlp evaluate/predict -o '{"model.tau": 0.05}'`)
    assert load_archive(trained_model_archive, overrides='{"model.tau": 0.05}').model.tau == 0.05
    # the archive keeps its config's tau (0.05 for the recommended config); null gives one edge per step
    assert load_archive(trained_model_archive).model.tau == 0.05
    assert load_archive(trained_model_archive, overrides='{"model.tau": null}').model.tau is None


@pytest.mark.parametrize("tau", [0.001, 0.3, 1.0])
def test_predictor_tau_parses_as_the_same_tau_in_the_config(trained_model_archive, archive, tau):
    # the way tau used to reach the decoder, by the model's own setting: here its config
    configured = Predictor.from_archive(
        load_archive(trained_model_archive, overrides=json.dumps({"model.tau": tau})), "seqgraph_parser"
    )
    assert configured._model.tau == tau
    predictor = Predictor.from_archive(archive, "seqgraph_parser", extra_args={"tau": tau})
    sentences = parse_string((CONLLU / "en_small.conllu").read_text(encoding="utf-8"), "en_small.conllu")
    records = [{"words": sentence.forms} for sentence in sentences]
    # several edges in a step at tau 0.001 (test_multi_edge_decoding_without_retraining)
    records.append({"words": "the dog saw a cat in the garden with a big old telescope".split()})
    expected = configured.predict_batch_json(records)
    assert predictor.predict_batch_json(records) == expected
    assert archive.model.tau == 0.05


def test_biaffine_baseline_predicts_conllu_without_warnings(caplog):
    # the runner scores every row, the biaffine baseline included, from this predictor's CoNLL-U output
    from allennlp.common import Params
    from allennlp.data import Vocabulary
    from allennlp.models import Model

    from seqgraph_allennlp.dataset_readers import SeqGraphUDReader

    reader = SeqGraphUDReader()
    instances = list(reader.read(str(CONLLU / "en_small.conllu")))
    vocab = Vocabulary.from_instances(instances, non_padded_namespaces=["*labels", "head_index_tags"])
    params = Params.from_file(str(ROOT / "fixtures" / "configs" / "biaffine_mst.jsonnet"))
    model = Model.from_params(vocab=vocab, params=params["model"])
    predictor = SeqGraphParserPredictor(model, reader, output_format="conllu")
    with caplog.at_level(logging.WARNING):
        outputs = predictor.predict_batch_instance(instances[:3])
    assert not [record for record in caplog.records if "couldn't be split" in record.getMessage()]
    for instance, output in zip(instances, outputs):
        sentence = parse_string(predictor.dump_line(output))[0]
        assert [word.form for word in sentence.words] == [token.text for token in instance["words"].tokens]
        # even untrained, the MST decoder gives a tree with one root word
        assert find_tree_problem([word.head for word in sentence.words]) is None
        assert all(word.deprel != "_" for word in sentence.words)


def test_pos_tags_reach_a_model_with_a_pos_embedding():
    from allennlp.common import Params
    from allennlp.data import Vocabulary
    from allennlp.models import Model

    from seqgraph_allennlp.dataset_readers import SeqGraphUDReader

    reader = SeqGraphUDReader(pos_tags="upos")
    instances = list(reader.read(str(CONLLU / "en_small.conllu")))
    vocab = Vocabulary.from_instances(instances, non_padded_namespaces=["*labels", "head_index_tags"])
    params = Params.from_file(str(ROOT / "fixtures" / "configs" / "coach_valid.jsonnet"), json.dumps({
        "model.pos_tag_embedding": {"embedding_dim": 4, "vocab_namespace": "pos"},
        "model.encoder.input_size": 16,
        "model.predict_upos": False,  # gold tags as input here, not the tagger's targets
    }))
    torch.manual_seed(0)
    model = Model.from_params(vocab=vocab, params=params["model"])
    predictor = SeqGraphParserPredictor(model, reader)
    words = ["The", "cat", "sat"]
    tagged = predictor.predict_json({"words": words, "pos": ["DET", "NOUN", "VERB"]})
    retagged = predictor.predict_json({"words": words, "pos": ["VERB", "DET", "NOUN"]})
    # the same words with other tags: the tags are embedded, so the policy differs
    assert tagged["edge_probabilities"] != retagged["edge_probabilities"]


# Raw text input (`{"text": ...}`): several sentences per record, tokenised by spaCy's rules for English

TEXT = (
    "I didn't see Google's  new office.\tWe moved on!\n"
    "No space.Next one \"quoted\" (really) ...\n\n"
    "A new paragraph without a full stop"
)
# the words and sentences TextSplitter("en") gives for TEXT
TEXT_SENTENCES = [
    ["I", "did", "n't", "see", "Google", "'s", "new", "office", "."],
    ["We", "moved", "on", "!"],
    ["No", "space", "."],
    ["Next", "one", '"', "quoted", '"', "(", "really", ")", "..."],
    ["A", "new", "paragraph", "without", "a", "full", "stop"],
]


def rebuild_text(words: List[str], space_after: List[bool]) -> str:
    return "".join(word + (" " if space else "") for word, space in zip(words, space_after))


def test_text_input_gives_one_record_per_sentence(archive, tmp_path):
    input_path = write_lines(
        tmp_path / "input.jsonl",
        [json.dumps({"text": TEXT}), GOOD_RECORD, json.dumps({"text": "Dogs bark. Cats don't."})],
    )
    for batch_size in (1, 3):
        records = json_records(run_manager(archive, input_path, tmp_path / "out.jsonl", batch_size=batch_size))
        assert [record["words"] for record in records] == TEXT_SENTENCES + [
            ["We", "moved", "on", "."], ["Dogs", "bark", "."], ["Cats", "do", "n't", "."]
        ]
        text_records = records[:5] + records[6:]
        # sentences of text records are numbered from 1 across the run, and say which record they came from
        assert [record["sent_id"] for record in text_records] == [str(number) for number in range(1, 8)]
        assert [record["record"] for record in text_records] == [1] * 5 + [3, 3]
        for record in text_records:
            assert_prediction({key: record[key] for key in OUTPUT_KEYS}, record["words"])
            assert set(record) == OUTPUT_KEYS | {"sent_id", "record", "text", "space_after"}
            assert rebuild_text(record["words"], record["space_after"]).rstrip() == record["text"]
        assert set(records[5]) == OUTPUT_KEYS  # a words record is as before
        # the sentences, each with its whitespace as one space, make the text ("space.Next" is two sentences)
        assert " ".join(record["text"] for record in records[:5]) == " ".join(TEXT.split()).replace(
            "space.Next", "space. Next"
        )
        assert records[0]["text"] == "I didn't see Google's new office."
        assert records[2]["space_after"] == [True, False, False]  # "No space.Next"

    # a text parses as its sentences given as words (a sentence's parse does not depend on its batch)
    predictor = make_predictor(archive)
    by_text = predictor.predict_json({"text": TEXT})["sentences"]
    by_words = predictor.predict_batch_json([{"words": words} for words in TEXT_SENTENCES])
    assert_same_predictions([{key: r[key] for key in OUTPUT_KEYS} for r in by_text], by_words)


def test_text_input_round_trips_through_conllu(archive, tmp_path):
    texts = [TEXT, "  Leading and trailing whitespace.   Two sentences.  ", "One"]
    input_path = write_lines(tmp_path / "input.jsonl", [json.dumps({"text": text}) for text in texts])
    output = run_manager(archive, input_path, tmp_path / "output.conllu", "conllu", batch_size=2)
    sentences = parse_string(output)
    assert len(sentences) == 5 + 2 + 1
    assert [sentence.sent_id for sentence in sentences] == [str(number) for number in range(1, 9)]
    for sentence in sentences:
        assert sentence.comments[:2] == [f"# sent_id = {sentence.sent_id}", f"# text = {sentence.text}"]
        check_tree(sentence)
    # the text from the `# text` lines, and from FORM and SpaceAfter, is the input modulo whitespace
    from_comments = " ".join(sentence.text for sentence in sentences)
    from_forms = "".join(
        rebuild_text(sentence.forms, [word.space_after for word in sentence.words]) for sentence in sentences
    )
    expected = " ".join(" ".join(text.split()) for text in texts)
    # the `# text` lines give the sentences; FORM and SpaceAfter also say that no space came between
    # "space." and "Next" (SpaceAfter=No on the last word of the sentence before)
    assert from_comments == expected.replace("space.Next", "space. Next")
    assert " ".join(from_forms.split()) == expected
    for sentence in sentences:
        assert rebuild_text(sentence.forms, [word.space_after for word in sentence.words]).rstrip() == sentence.text
    assert [sentence.forms for sentence in sentences[:5]] == TEXT_SENTENCES
    assert [word.misc for word in sentences[2].words] == ["_", "SpaceAfter=No", "SpaceAfter=No"]


def test_a_text_sentence_too_long_for_the_model(archive, tmp_path, caplog):
    too_long = TRAINED_MODEL_MAX_SENTENCE_LENGTH + 1
    text = "Short one. " + " ".join(["word"] * too_long) + ". Another short one."
    input_path = write_lines(tmp_path / "input.jsonl", [GOOD_RECORD, json.dumps({"text": text})])
    message = (
        f"record 2, sentence 2: sentence of {too_long + 1} words is longer than this model's "
        f"max_sentence_length={TRAINED_MODEL_MAX_SENTENCE_LENGTH}"
    )
    with caplog.at_level(logging.ERROR):
        records = json_records(run_manager(archive, input_path, tmp_path / "output.jsonl", batch_size=2))
    assert any(message in record.getMessage() for record in caplog.records)
    assert len(records) == 4
    assert records[2]["error"] == message and records[2]["sent_id"] == "2" and records[2]["record"] == 2
    assert_prediction({key: records[3][key] for key in OUTPUT_KEYS}, ["Another", "short", "one", "."])
    # in CoNLL-U the long sentence is written unparsed after its error, so the text still round-trips
    text_output = run_manager(archive, input_path, tmp_path / "output.conllu", "conllu", batch_size=2)
    blocks = text_output.rstrip("\n").split("\n\n")
    assert blocks[2].startswith(f"# error = {message}\n# sent_id = 2\n# text = word word")
    sentences = parse_string(text_output)
    assert " ".join(sentence.text for sentence in sentences[1:]) == text.strip()
    assert sentences[2].heads == [None] * (too_long + 1)


def test_the_language_of_text(trained_model_archive, archive, caplog):
    from seqgraph_allennlp.dataset_readers import SeqGraphUDReader

    # English unless said otherwise: the archive's reader records no language
    assert archive.validation_dataset_reader.language is None
    assert make_predictor(archive).language == "en"
    # a predictor argument (`--predictor-args '{"language": "de"}'`) ...
    german = Predictor.from_archive(archive, "seqgraph_parser", extra_args={"language": "de"})
    assert german.language == "de" and german.text_splitter.spacy_language == "de"
    # ... or the reader's `language` in the model's config, e.g. `-o '{"dataset_reader.language": "cy"}'`
    welsh_archive = load_archive(trained_model_archive, overrides='{"dataset_reader.language": "cy"}')
    welsh = Predictor.from_archive(welsh_archive, "seqgraph_parser")
    assert welsh.language == "cy"
    with caplog.at_level(logging.WARNING):
        # spaCy has no rules for Welsh: its language-neutral tokeniser, with a warning
        assert welsh.text_splitter.spacy_language == "xx"
        record = welsh.predict_json({"text": "Mae'r gath yn eistedd. Dw i'n hapus."})
    assert [sentence["words"] for sentence in record["sentences"]] == [
        ["Mae'r", "gath", "yn", "eistedd", "."], ["Dw", "i'n", "hapus", "."]
    ]
    assert SeqGraphParserPredictor(archive.model, SeqGraphUDReader(language="de")).language == "de"
    assert Predictor.from_archive(welsh_archive, "seqgraph_parser", extra_args={"language": "en"}).language == "en"
    with pytest.raises(ConfigurationError, match='language must be a language code such as "en"'):
        Predictor.from_archive(archive, "seqgraph_parser", extra_args={"language": "English please"})


def test_text_and_a_model_that_needs_pos_tags(archive, monkeypatch):
    predictor = make_predictor(archive)
    monkeypatch.setattr(SeqGraphParserPredictor, "_uses_pos_tags", property(lambda self: True))
    assert predictor.predict_json({"text": "The cat sat."}) == {
        "error": 'this model needs POS tags: give "words" and "pos" instead of "text"'
    }


def test_the_readable_outputs_are_plain_python_without_sanitize(archive):
    # the predictor skips AllenNLP's sanitize for this model: every value must already be what it would give
    from allennlp.common.util import sanitize

    predictor = make_predictor(archive)
    assert predictor._plain_outputs
    results = predictor.predict_batch_json([{"sentence": "The cat sat on the mat ."}, {"words": ["Dogs", "bark"]}])

    def plain(value):
        if isinstance(value, list):
            return all(plain(item) for item in value)
        return value is None or type(value) in (str, int, float, bool)

    for result in results:
        assert result["predicted_heads"] and result["generation_order"]
        for key, value in result.items():
            assert plain(value), key
            assert sanitize(value) == value, key


def test_sentences_with_a_long_word_are_bucketed_apart_by_its_length():
    from allennlp.data import Instance
    from allennlp.data.fields import TextField
    from allennlp.data.tokenizers import Token

    from seqgraph_allennlp.predictors.batching import LONG_WORD, length_buckets_of_instances

    def sentence(*words):
        return Instance({"words": TextField([Token(word) for word in words], {})})

    url = "https://example.org/" + "a" * 80
    mail = "someone.with.a.long.name@example.org"
    assert len(mail) > LONG_WORD >= len("ordinary")
    instances = [sentence("ordinary", "words"), sentence("see", url), sentence("a", "b", "c"),
                 sentence("write", "to", mail), sentence("x" * LONG_WORD)]
    buckets = length_buckets_of_instances(instances)
    assert sorted(position for bucket in buckets for position in bucket) == list(range(5))
    # the ordinary sentences (a word of LONG_WORD characters is one) by word count; then the long-word ones,
    # the 100-character URL's sentence on its own, not with the 36-character address's
    assert buckets == [[4, 0, 2], [3], [1]]


@pytest.mark.parametrize("max_size", [None, 1, 3, 5, 128])
def test_length_buckets_cover_the_batch_sorted_padded_and_capped(max_size):
    from seqgraph_allennlp.predictors.batching import length_buckets

    generator = torch.Generator().manual_seed(7)
    lengths = torch.randint(1, 40, (200,), generator=generator).tolist()
    buckets = length_buckets(lengths, min_size=4, max_padding=0.25, max_size=max_size)
    flat = [position for bucket in buckets for position in bucket]
    # every sentence once, in order of length across the buckets
    assert sorted(flat) == list(range(len(lengths)))
    assert [lengths[position] for position in flat] == sorted(lengths)
    uncapped = length_buckets(lengths, min_size=4, max_padding=0.25, max_size=None)
    if max_size is None:
        assert buckets == uncapped
        # a bucket closes once it has min_size sentences and the next would pad it by more than a quarter
        for bucket, following in zip(buckets, buckets[1:]):
            words = sum(lengths[position] for position in bucket) + lengths[following[0]]
            assert len(bucket) >= 4 and (len(bucket) + 1) * lengths[following[0]] > 1.25 * words
    else:
        assert max(len(bucket) for bucket in buckets) <= max_size
        # the cap only cuts the buckets of the padding rule, into near-equal parts
        cut = iter(buckets)
        for whole in uncapped:
            parts, taken = [], 0
            while taken < len(whole):
                parts.append(next(cut))
                taken += len(parts[-1])
            assert [position for part in parts for position in part] == whole
            assert len(parts) == -(-len(whole) // max_size)
            assert max(map(len, parts)) - min(map(len, parts)) <= len(parts)
