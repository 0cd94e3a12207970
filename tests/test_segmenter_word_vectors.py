"""
The segmenter's optional word-vector features (seqgraph_allennlp/segmentation/word_vectors.py): each
character carries the pretrained vector of its word, with the 8-dimensional GloVe fixture.
"""
import numpy
import pytest
import torch
from allennlp.commands.train import train_model_from_file
from allennlp.common import Params
from allennlp.data import Vocabulary
from allennlp.models import Model
from allennlp.models.archival import load_archive

from seqgraph_allennlp.dataset_readers.segmenter_ud import CHARACTERS, SegmenterUDReader
from seqgraph_allennlp.segmentation.features import NUM_FEATURES
from seqgraph_allennlp.segmentation.word_vectors import WordVectorError, WordVectors, read_word_vectors
from tests.conftest import FIXTURES, ROOT

GLOVE = FIXTURES / "glove" / "glove.fixture.8d.txt"
TEXT = "I'm here. You don't know it.\n\nWe can't go now! It's a dog."


def test_each_character_of_a_word_carries_its_vector_lower_cased():
    words, vectors = read_word_vectors(str(GLOVE), max_words=3)
    assert words == ["from", "the", "ap"] and vectors.shape == (3, 8) and vectors.dtype == torch.float16
    features = WordVectors(words, vectors)("The, x-from")
    assert features.shape == (11, 8) and features.dtype == numpy.float32
    the, start = vectors[1].float().numpy(), vectors[0].float().numpy()
    for position in range(3):
        numpy.testing.assert_array_equal(features[position], the)
    for position in range(7, 11):
        numpy.testing.assert_array_equal(features[position], start)
    # punctuation, the space and a word the table lacks ("x") get zeros
    assert not features[3:7].any()
    assert WordVectors(words, vectors)("").shape == (0, 8)


def test_a_missing_or_broken_vector_file_is_named_with_its_line(tmp_path):
    with pytest.raises(WordVectorError, match="nowhere.txt: no such word vector file"):
        read_word_vectors(str(tmp_path / "nowhere.txt"), 10)
    broken = tmp_path / "broken.txt"
    broken.write_text("a 1 2\nb 1 x\n", encoding="utf-8")
    with pytest.raises(WordVectorError, match="broken.txt, line 2: not a word and its numbers"):
        read_word_vectors(str(broken), 10)
    broken.write_text("a 1 2\nb 1\n", encoding="utf-8")
    with pytest.raises(WordVectorError, match="line 2: 1 numbers, expected 2"):
        read_word_vectors(str(broken), 10)


def test_the_reader_adds_the_vectors_after_the_character_features():
    reader = SegmenterUDReader(word_vectors=str(GLOVE), max_word_vectors=1000)
    features = reader.features("the dog")
    assert features.shape == (7, NUM_FEATURES + 8)
    words, vectors = read_word_vectors(str(GLOVE), 1000)
    numpy.testing.assert_array_equal(features[0, NUM_FEATURES:], vectors[words.index("the")].float().numpy())
    assert not features[3, NUM_FEATURES:].any()


def test_a_segmenter_trained_with_word_vectors_keeps_them(tmp_path):
    glove = tmp_path / "glove.txt"
    glove.write_text(GLOVE.read_text(encoding="utf-8"), encoding="utf-8")
    overrides = (
        f'{{"dataset_reader.word_vectors": "{glove}", "validation_dataset_reader.word_vectors": "{glove}", '
        f'"model.word_vectors": "{glove}", "model.word_vector_dim": 8, '
        f'"model.encoder.input_size": {8 + NUM_FEATURES + 8}}}'
    )
    serialization_dir = tmp_path / "model"
    train_model_from_file(str(FIXTURES / "configs" / "segmenter.jsonnet"), str(serialization_dir),
                          overrides=overrides)
    expected = load_archive(str(serialization_dir / "model.tar.gz")).model.segment([TEXT])
    # the archive alone: the vector file is gone
    glove.unlink()
    loaded = load_archive(str(serialization_dir / "model.tar.gz")).model
    assert [[sentence.words for sentence in text] for text in loaded.segment([TEXT])] == \
        [[sentence.words for sentence in text] for text in expected]
    assert [token for token, _, _ in loaded.segment([TEXT])[0][0].tokens()] == ["I'm", "here", "."]
    assert loaded._features("the")[:, NUM_FEATURES:].any()


def test_word_vectors_without_their_dimension_are_refused(tmp_path):
    overrides = f'{{"model.word_vectors": "{GLOVE}"}}'
    with pytest.raises(Exception, match="word_vectors and word_vector_dim go together"):
        train_model_from_file(str(FIXTURES / "configs" / "segmenter.jsonnet"), str(tmp_path / "model"),
                              overrides=overrides)


def test_the_shipped_config_builds_its_segmenter_over_the_installed_glove():
    params = Params.from_file(str(ROOT / "training_config" / "segmenter_glove.jsonnet"))
    assert params["dataset_reader"]["word_vectors"] == params["model"]["word_vectors"]
    vocab = Vocabulary()
    vocab.add_tokens_to_namespace(["a", "b"], CHARACTERS)
    model = Model.from_params(vocab=vocab, params=params["model"])
    words, vectors = model._word_vector_table
    assert len(words) == 100000 and vectors.shape == (100000, 50) and words[:3] == ["the", ",", "."]
    assert model._features("The cat")[:, NUM_FEATURES:].shape == (7, 50)


def test_the_shipped_config_says_what_to_install_when_glove_is_missing(monkeypatch):
    monkeypatch.setenv("GLOVE_6B_50D", "")
    with pytest.raises(RuntimeError, match="python -m seqgraph_assets.glove"):
        Params.from_file(str(ROOT / "training_config" / "segmenter_glove.jsonnet"))
