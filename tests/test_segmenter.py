"""
The `segmenter` model and predictor, trained on the fixture treebank (fixtures/configs/segmenter.jsonnet),
and a parser archive that carries one.
"""
import json
import subprocess
import sys
import tarfile

import pytest
from allennlp.models.archival import load_archive
from allennlp.predictors import Predictor

from seqgraph_allennlp.segmentation.archive import SEGMENTER_NAME, SegmenterArchiveError, attach_segmenter
from tests.conftest import FIXTURES, ROOT

TEXT = "I'm here. You don't know it.\n\nWe can't go now! It's a dog."


@pytest.fixture(scope="module")
def segmenter(segmenter_archive):
    return load_archive(str(segmenter_archive)).model


def test_the_fixture_segmenter_splits_tokens_sentences_and_multiword_tokens(segmenter):
    sentences = segmenter.segment([TEXT])[0]
    assert [sentence.words for sentence in sentences] == [
        ["I", "'m", "here", "."], ["You", "do", "n't", "know", "it", "."],
        ["We", "ca", "n't", "go", "now", "!"], ["It", "'s", "a", "dog", "."],
    ]
    assert [[token.form for token in sentence.multiword_tokens] for sentence in sentences] == [
        ["I'm"], ["don't"], ["can't"], ["It's"],
    ]
    assert [sentence.text for sentence in sentences] == [
        "I'm here.", "You don't know it.", "We can't go now!", "It's a dog.",
    ]


def test_the_archive_keeps_the_multiword_tokens_seen_in_training(segmenter):
    assert dict(segmenter.expander.pairs()) == {
        "I'm": ["I", "'m"], "It's": ["It", "'s"], "She's": ["She", "'s"], "can't": ["ca", "n't"],
        "didn't": ["did", "n't"], "don't": ["do", "n't"],
    }


def test_empty_and_whitespace_texts_give_no_sentence(segmenter):
    assert segmenter.segment(["", "  \n\n "]) == [[], []]


def test_any_length_of_text_is_read_in_bounded_windows(segmenter, monkeypatch):
    # 1 MB of one paragraph without a sentence boundary: every call to the network is at most
    # batch_size windows of window_length characters, and nothing of the text is lost
    text = ("abc def, ghi " * 80_000)[:1_000_000]
    shapes = []
    network = segmenter._logits

    def recording(characters, features, mask):
        shapes.append(tuple(characters.shape))
        return network(characters, features, mask)

    monkeypatch.setattr(segmenter, "_logits", recording)
    (sentences,) = segmenter.segment([text])
    assert len(shapes) > 1
    assert all(rows <= segmenter.batch_size and length <= segmenter.window_length for rows, length in shapes)
    rebuilt = "".join(form + (" " if sentence.space_after[last] else "")
                      for sentence in sentences for form, _, last in sentence.tokens())
    assert rebuilt.split() == text.split()


def test_segmenter_predictor_writes_conllu_with_range_lines(segmenter_archive):
    predictor = Predictor.from_archive(load_archive(str(segmenter_archive)), "segmenter",
                                       extra_args={"output_format": "conllu"})
    outputs = predictor.predict_batch_json([{"text": "I'm here."}, {"words": ["x"]}])
    assert predictor.dump_line(outputs[0]) == (
        "# sent_id = 1\n# text = I'm here.\n"
        "1-2\tI'm\t_\t_\t_\t_\t_\t_\t_\t_\n1\tI\t_\t_\t_\t_\t_\t_\t_\t_\n2\t'm\t_\t_\t_\t_\t_\t_\t_\t_\n"
        "3\there\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n4\t.\t_\t_\t_\t_\t_\t_\t_\t_\n\n"
    )
    assert predictor.dump_line(outputs[1]) == '# error = record 2: record needs "text", a string\n\n'
    assert json.loads(Predictor.from_archive(load_archive(str(segmenter_archive)), "segmenter").dump_line(
        predictor.predict_json({"text": "It's a dog."})))["sentences"][0]["multiword_tokens"] == [[0, 1, "It's"]]


# A parser archive that carries the segmenter

@pytest.fixture(scope="module")
def parser_with_segmenter(trained_model_archive, segmenter_archive, tmp_path_factory):
    return attach_segmenter(trained_model_archive, segmenter_archive,
                            tmp_path_factory.mktemp("carried") / "model.tar.gz")


def test_attach_copies_the_parser_and_adds_the_segmenter(trained_model_archive, parser_with_segmenter):
    with tarfile.open(trained_model_archive) as original, tarfile.open(parser_with_segmenter) as carried:
        assert sorted(carried.getnames()) == sorted(original.getnames() + [SEGMENTER_NAME])
        for name in original.getnames():
            member = original.getmember(name)
            if member.isfile():
                assert carried.extractfile(name).read() == original.extractfile(name).read()


def test_the_parser_splits_text_with_the_segmenter_it_carries(parser_with_segmenter, trained_model_archive):
    from seqgraph_allennlp import Parser

    parser = Parser.from_archive(parser_with_segmenter)
    result = parser.parse("I'm here. You don't know it.")
    assert [sentence.text for sentence in result] == ["I'm here.", "You don't know it."]
    assert [word.form for word in result[0].words] == ["I", "'m", "here", "."]
    conllu = result.to_conllu()
    assert "1-2\tI'm\t" in conllu and "2-3\tdon't\t" in conllu
    assert all(word.head is not None for sentence in result for word in sentence.words)
    # without a segmenter, spaCy's rules: no multiword token
    rules = Parser.from_archive(trained_model_archive).parse("I'm here. You don't know it.").to_conllu()
    assert "1-2\t" not in rules


def test_the_rules_can_be_asked_for_with_a_segmenter_carried(parser_with_segmenter):
    from seqgraph_allennlp.predictors.seqgraph_parser import SeqGraphParserPredictor

    archive = load_archive(str(parser_with_segmenter))
    outputs = {}
    for segmenter in (None, "learned", "rules"):
        predictor = SeqGraphParserPredictor(archive.model, archive.validation_dataset_reader,
                                            output_format="conllu", segmenter=segmenter)
        outputs[segmenter] = predictor.dump_line(predictor.predict_json({"text": "I'm here."}))
    assert outputs[None] == outputs["learned"]
    assert "1-2\tI'm\t" in outputs["learned"]
    assert "1-2\t" not in outputs["rules"] and "\tI\t" in outputs["rules"]


def test_learned_needs_a_carried_segmenter(trained_model_archive):
    from seqgraph_allennlp.predictors.seqgraph_parser import PredictorArgumentError, SeqGraphParserPredictor

    archive = load_archive(str(trained_model_archive))
    with pytest.raises(PredictorArgumentError, match="carries a segmenter"):
        SeqGraphParserPredictor(archive.model, archive.validation_dataset_reader, segmenter="learned")


def test_attaching_the_carried_segmenter_again_writes_nothing(parser_with_segmenter, segmenter_archive, tmp_path):
    archive = tmp_path / "parser.tar.gz"
    archive.write_bytes(parser_with_segmenter.read_bytes())
    written_at = archive.stat().st_mtime_ns
    assert attach_segmenter(archive, segmenter_archive) == archive
    assert archive.stat().st_mtime_ns == written_at
    # another segmenter replaces it
    other = tmp_path / "other_segmenter.tar.gz"
    with tarfile.open(segmenter_archive) as source, tarfile.open(other, "w:gz") as target:
        for member in source.getmembers():
            target.addfile(member, source.extractfile(member) if member.isfile() else None)
    attach_segmenter(archive, other)
    with tarfile.open(archive) as carried:
        assert carried.getnames().count(SEGMENTER_NAME) == 1
        assert carried.extractfile(SEGMENTER_NAME).read() == other.read_bytes()


def test_attach_refuses_what_is_not_a_model_archive(trained_model_archive, tmp_path):
    not_archive = tmp_path / "x.tar.gz"
    not_archive.write_text("hello")
    with pytest.raises(SegmenterArchiveError, match="not a model archive"):
        attach_segmenter(trained_model_archive, not_archive)
    with pytest.raises(SegmenterArchiveError, match="not a segmenter"):
        attach_segmenter(trained_model_archive, trained_model_archive, tmp_path / "out.tar.gz")
    with pytest.raises(SegmenterArchiveError, match="no such file"):
        attach_segmenter(tmp_path / "missing.tar.gz", trained_model_archive)


def test_attach_command_says_what_is_wrong_in_one_line(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "seqgraph_allennlp.segmentation.attach", str(tmp_path / "a.tar.gz"), str(tmp_path / "b")],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [f"error: {tmp_path / 'a.tar.gz'}: no such file (expected a parser's model.tar.gz)"]
