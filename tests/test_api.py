"""
`seqgraph_allennlp.Parser`, the Python API, on the tiny model trained once per session
(`trained_model_archive` in conftest.py): the same trees as the predictor and as `allennlp predict`, and
the example of docs/USAGE.md ("In Python") runs as written (the README's three lines:
tests/test_readme_first_screen.py).
"""
import contextlib
import dataclasses
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from allennlp.common.checks import ConfigurationError
from allennlp.models.archival import load_archive
from allennlp.predictors import Predictor

from seqgraph_allennlp import Parser
from seqgraph_allennlp.api import Edge, ParseResult, Sentence, Word
from seqgraph_allennlp.common.conllu import check_tree, parse_string
from seqgraph_allennlp.common.errors import SeqGraphError
from seqgraph_allennlp.predictors.seqgraph_parser import InputError

ROOT = Path(__file__).resolve().parents[1]
CONLLU = ROOT / "fixtures" / "conllu"
ALLENNLP = Path(sys.executable).parent / "allennlp"
# the archive that docs/USAGE.md's example loads, replaced by the test model
README_ARCHIVE = "out/model.tar.gz"
USAGE = ROOT / "docs" / "USAGE.md"
TEXTS = [
    "The cat sat on the mat. It didn't move!\n\nA second paragraph, with \"quotes\" (and brackets)",
    "Dogs bark.Cats don't.",
]


@pytest.fixture(scope="module")
def parser(trained_model_archive):
    return Parser.from_archive(trained_model_archive)


def assert_parsed(sentence: Sentence):
    assert sentence.error is None
    assert [word.id for word in sentence.words] == list(range(1, len(sentence.words) + 1))
    (conllu,) = parse_string(sentence.to_conllu())
    check_tree(conllu)
    assert conllu.heads == sentence.heads and conllu.deprels == sentence.deprels
    assert sorted(edge.dependent for edge in sentence.generation_order) == [word.id for word in sentence.words]
    for edge in sentence.generation_order:
        assert sentence.words[edge.dependent - 1].head == edge.head and 0.0 <= edge.probability <= 1.0


def test_parse_text(parser):
    result = parser.parse(TEXTS[0])
    assert isinstance(result, ParseResult) and len(result) == 3
    assert [sentence.text for sentence in result] == [
        "The cat sat on the mat.", "It didn't move!", 'A second paragraph, with "quotes" (and brackets)'
    ]
    assert [sentence.sent_id for sentence in result] == ["1", "2", "3"]
    assert [word.form for word in result[1].words] == ["It", "did", "n't", "move", "!"]
    assert [word.space_after for word in result[1].words] == [True, False, True, False, True]
    for sentence in result:
        assert_parsed(sentence)
        assert all(word.upos is None for word in sentence.words)
    assert result.to_conllu() == "".join(sentence.to_conllu() for sentence in result)
    # each call numbers its sentences from 1, as one run of `allennlp predict` does
    assert [sentence.sent_id for sentence in parser.parse(TEXTS[1])] == ["1", "2"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        result[0].words[0].head = 3  # type: ignore[misc]


def test_parse_texts_parses_each_text_as_parse_does(parser):
    results = parser.parse_texts(list(TEXTS))
    assert len(results) == len(TEXTS)
    for text, result in zip(TEXTS, results):
        alone = parser.parse(text)
        assert [sentence.text for sentence in result] == [sentence.text for sentence in alone]
        assert [[(word.form, word.head, word.deprel) for word in sentence.words] for sentence in result] == \
            [[(word.form, word.head, word.deprel) for word in sentence.words] for sentence in alone]
        for sentence in result:
            assert_parsed(sentence)
    # numbered through the texts, as one `allennlp predict` run over them
    sent_ids = [sentence.sent_id for result in results for sentence in result]
    assert sent_ids == [str(number) for number in range(1, len(sent_ids) + 1)]
    for value, message in [("a text", "takes a list of strings, got str"), (["ok", 3], "text 2: .*got int"),
                           (["ok", " \n"], 'text 2: empty text')]:
        with pytest.raises(InputError, match=message):
            parser.parse_texts(value)
    assert parser.parse_texts([]) == []


def test_the_same_as_the_predictor(trained_model_archive, parser):
    predictor = Predictor.from_archive(load_archive(trained_model_archive), "seqgraph_parser")
    for text in TEXTS:
        expected = predictor.predict_json({"text": text})["sentences"]
        result = parser.parse(text)
        assert [[word.form for word in sentence.words] for sentence in result] == [
            record["words"] for record in expected
        ]
        assert [sentence.heads for sentence in result] == [record["predicted_heads"] for record in expected]
        assert [sentence.deprels for sentence in result] == [record["predicted_dependencies"] for record in expected]
        assert [[[edge.head, edge.dependent] for edge in sentence.generation_order] for sentence in result] == [
            record["generation_order"] for record in expected
        ]
        assert [[edge.probability for edge in sentence.generation_order] for sentence in result] == [
            record["edge_probabilities"] for record in expected
        ]


def test_parse_words(parser):
    (one,) = parser.parse(["Dogs", "bark", "."])
    assert [word.form for word in one.words] == ["Dogs", "bark", "."]
    assert_parsed(one)
    several = parser.parse([["Dogs", "bark", "."], ("Cats", "do", "n't", ".")])
    assert len(several) == 2 and several[0].heads == one.heads
    assert [word.form for word in several[1].words] == ["Cats", "do", "n't", "."]
    # batches of one: the same trees
    batched = Parser(parser._model, parser._dataset_reader, batch_size=1).parse([["Dogs", "bark", "."]] * 3)
    assert [sentence.heads for sentence in batched] == [one.heads] * 3


def test_parse_conllu(parser, trained_model_archive, tmp_path):
    path = CONLLU / "en_small.conllu"
    from_file = parser.parse_conllu(path)
    gold = parse_string(path.read_text(encoding="utf-8"))
    assert len(from_file) == len(gold)
    assert [sentence.sent_id for sentence in from_file] == [sentence.sent_id for sentence in gold]
    assert [word.upos for word in from_file[0].words] == gold[0].upos
    for sentence in from_file:
        assert_parsed(sentence)
    # the output is what `allennlp predict --use-dataset-reader` writes in CoNLL-U
    predictor = Predictor.from_archive(
        load_archive(trained_model_archive), "seqgraph_parser", extra_args={"output_format": "conllu"}
    )
    instances = list(predictor._dataset_reader.read(str(path)))
    expected = "".join(predictor.dump_line(output) for output in predictor.predict_batch_instance(instances))
    assert from_file.to_conllu() == expected
    # a string of CoNLL-U text, a str path and a small batch size give the same
    assert parser.parse_conllu(path.read_text(encoding="utf-8")).to_conllu() == expected
    assert Parser(parser._model, parser._dataset_reader, batch_size=2).parse_conllu(str(path)).to_conllu() == expected


def test_bad_input(parser, tmp_path):
    cases = [
        ("", 'empty text: "text" has no words'),
        (" \n ", 'empty text: "text" has no words'),
        ([], "got an empty list"),
        (5, "got int"),
        ([["a"], "b"], "not a mix"),
        (["a", ""], '"words": word 2 is empty or only whitespace'),
        ([["a"], ["b", 3]], 'sentence 2: "words" must be a list of strings: word 2 is a number'),
    ]
    for value, message in cases:
        with pytest.raises(InputError, match=message):
            parser.parse(value)
    with pytest.raises(InputError, match="no such CoNLL-U file"):
        parser.parse_conllu(tmp_path / "missing.conllu")
    malformed = tmp_path / "bad.conllu"
    malformed.write_text("1\tHello\t_\t_\t_\t_\t0\troot\t_\n\n", encoding="utf-8")
    with pytest.raises(SeqGraphError, match="bad.conllu:1: expected 10 tab-separated columns, found 9"):
        parser.parse_conllu(malformed)
    # gold heads that are not a tree: the reader's own error (`sentences_to_instances`, as in `read`)
    cycle = "1\tHello\t_\t_\t_\t_\t2\tdep\t_\t_\n2\tyou\t_\t_\t_\t_\t1\tdep\t_\t_\n\n"
    with pytest.raises(SeqGraphError, match="<string>:1: sentence starting at line 1 is not a tree"):
        parser.parse_conllu(cycle)
    assert issubclass(InputError, SeqGraphError)


def test_a_sentence_too_long_comes_back_with_its_error(parser):
    max_length = parser._model.max_sentence_length
    result = parser.parse("Short. " + " ".join(["word"] * max_length) + ". Short again.")
    assert [sentence.error is None for sentence in result] == [True, False, True]
    assert result[1].error.startswith(f"sentence 2: sentence of {max_length + 1} words is longer")
    assert result[1].heads == [None] * (max_length + 1) and result[1].generation_order == []
    assert result[1].text.startswith("word word")
    long_words = parser.parse([["Hi"], ["word"] * (max_length + 1)])
    assert long_words[1].error is not None and [word.form for word in long_words[1].words] == ["word"] * (
        max_length + 1
    )
    assert long_words.to_conllu().count("# error = ") == 1


def test_options(trained_model_archive, parser):
    assert parser.language == "en"
    assert Parser.from_archive(trained_model_archive, language="de").language == "de"
    words = "the dog saw a cat in the garden with a big old telescope".split()
    many = Parser.from_archive(trained_model_archive, tau=0.001).parse(words)[0]
    predictor = Predictor.from_archive(
        load_archive(trained_model_archive), "seqgraph_parser", extra_args={"tau": 0.001}
    )
    assert [[edge.head, edge.dependent] for edge in many.generation_order] == predictor.predict_json(
        {"words": words}
    )["generation_order"]
    with pytest.raises(ConfigurationError, match="tau must be in"):
        Parser.from_archive(trained_model_archive, tau=1.5)
    with pytest.raises(ConfigurationError, match="language must be a language code"):
        Parser.from_archive(trained_model_archive, language="")
    # this model has no UPOS tagger (tests/test_upos_tagger.py parses with one)
    with pytest.raises(ConfigurationError, match="overwrite_upos needs a model with a UPOS tagger"):
        Parser.from_archive(trained_model_archive, overwrite_upos=True)
    with pytest.raises(ValueError, match="batch_size"):
        Parser(parser._model, parser._dataset_reader, batch_size=0)
    assert Word(1, "a", 0, "root") == Word(1, "a", 0, "root", None, True)
    assert Edge(0, 1, 0.5).probability == 0.5


def readme_example() -> str:
    """docs/USAGE.md's Python example: the indented block that starts with the import of `Parser`."""
    lines = USAGE.read_text(encoding="utf-8").splitlines()
    start = lines.index("    from seqgraph_allennlp import Parser")
    block = []
    for line in lines[start:]:
        if line and not line.startswith("    "):
            break
        block.append(line[4:])
    return "\n".join(block).strip() + "\n"


def test_the_readme_example_runs(trained_model_archive):
    code = readme_example()
    assert README_ARCHIVE in code and "parse(" in code and "to_conllu()" in code
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(code.replace(README_ARCHIVE, str(trained_model_archive)), "docs/USAGE.md", "exec"), {})
    printed = output.getvalue()
    assert "# sent_id = 1" in printed and "# text = " in printed


def test_allennlp_predict_and_the_api_give_the_same_trees(trained_model_archive, parser, tmp_path):
    input_path = tmp_path / "input.jsonl"
    input_path.write_text("".join(json.dumps({"text": text}) + "\n" for text in TEXTS), encoding="utf-8")
    output_path = tmp_path / "output.conllu"
    command = [
        str(ALLENNLP), "predict", str(trained_model_archive), str(input_path),
        "--include-package", "seqgraph_allennlp", "--predictor", "seqgraph_parser",
        "--predictor-args", '{"output_format": "conllu"}',
        "--output-file", str(output_path), "--silent", "--batch-size", "2",
    ]  # fmt: skip
    completed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr[-3000:]
    output = output_path.read_text(encoding="utf-8")
    from_command = parse_string(output)
    from_api = [sentence for text in TEXTS for sentence in parser.parse(text)]
    assert len(from_command) == len(from_api) == 5
    for command_sentence, api_sentence in zip(from_command, from_api):
        assert command_sentence.forms == [word.form for word in api_sentence.words]
        assert command_sentence.heads == api_sentence.heads
        assert command_sentence.deprels == api_sentence.deprels
        assert command_sentence.text == api_sentence.text
        assert [word.space_after for word in command_sentence.words] == [
            word.space_after for word in api_sentence.words
        ]
    # the first record's sentences are numbered as in the API's call, so its CoNLL-U is the same text
    assert output.startswith(parser.parse(TEXTS[0]).to_conllu())
    assert [sentence.sent_id for sentence in from_command] == ["1", "2", "3", "4", "5"]
