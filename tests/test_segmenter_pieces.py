"""
The segmenter's optional piece-end feature (seqgraph_allennlp/segmentation/pieces.py): where a subword
tokenizer ends its pieces, with a tiny tokenizer built here (no download).
"""
import numpy
import pytest
from allennlp.commands.train import train_model_from_file
from allennlp.models.archival import load_archive

from seqgraph_allennlp.dataset_readers.segmenter_ud import SegmenterUDReader
from seqgraph_allennlp.segmentation.features import NUM_FEATURES
from seqgraph_allennlp.segmentation.pieces import PieceEnds, PieceTokenizerError, read_tokenizer_json
from tests.conftest import FIXTURES

TEXT = "I'm here. You don't know it.\n\nWe can't go now! It's a dog."


def tiny_tokenizer_json() -> str:
    """A word-level tokenizer that splits at whitespace and punctuation: its pieces are known here."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel({"[UNK]": 0, "here": 1, "dog": 2}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    return tokenizer.to_str()


@pytest.fixture()
def tokenizer_file(tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_text(tiny_tokenizer_json(), encoding="utf-8")
    return path


def test_piece_ends_mark_the_last_character_of_each_piece():
    ends = PieceEnds(tiny_tokenizer_json())("ab, c  d")
    assert ends.shape == (8, 1) and ends.dtype == numpy.float32
    assert numpy.flatnonzero(ends[:, 0]).tolist() == [1, 2, 4, 7]
    assert PieceEnds(tiny_tokenizer_json())("").shape == (0, 1)


def test_a_tokenizer_is_read_from_a_file_or_its_directory(tokenizer_file):
    assert read_tokenizer_json(tokenizer_file) == read_tokenizer_json(tokenizer_file.parent)


def test_a_missing_or_broken_tokenizer_is_named(tmp_path):
    with pytest.raises(PieceTokenizerError, match="nowhere.*no such file"):
        read_tokenizer_json(tmp_path / "nowhere")
    (tmp_path / "tokenizer.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(PieceTokenizerError, match="not a tokenizer.json"):
        read_tokenizer_json(tmp_path)


def test_the_reader_adds_the_feature_of_the_whole_text(tokenizer_file):
    reader = SegmenterUDReader(piece_tokenizer=str(tokenizer_file))
    features = reader.features("here, dog")
    assert features.shape == (9, NUM_FEATURES + 1)
    assert numpy.flatnonzero(features[:, -1]).tolist() == [3, 4, 8]
    instance = reader.text_to_instance("here, dog")
    assert instance["features"].tensor.shape == (9, NUM_FEATURES + 1)


def test_a_segmenter_trained_with_pieces_keeps_its_tokenizer(tokenizer_file, tmp_path):
    overrides = (
        f'{{"dataset_reader.piece_tokenizer": "{tokenizer_file}", '
        f'"validation_dataset_reader.piece_tokenizer": "{tokenizer_file}", '
        f'"model.piece_tokenizer": "{tokenizer_file}", "model.encoder.input_size": {8 + NUM_FEATURES + 1}}}'
    )
    serialization_dir = tmp_path / "model"
    train_model_from_file(str(FIXTURES / "configs" / "segmenter.jsonnet"), str(serialization_dir),
                          overrides=overrides)
    trained = load_archive(str(serialization_dir / "model.tar.gz")).model
    expected = trained.segment([TEXT])
    # the archive alone: the tokenizer file is gone
    tokenizer_file.unlink()
    loaded = load_archive(str(serialization_dir / "model.tar.gz")).model
    assert [[sentence.words for sentence in text] for text in loaded.segment([TEXT])] == \
        [[sentence.words for sentence in text] for text in expected]
    assert [token for token, _, _ in loaded.segment([TEXT])[0][0].tokens()] == ["I'm", "here", "."]


def test_a_wrong_input_size_is_refused_with_the_count_of_features(tokenizer_file, tmp_path):
    overrides = (f'{{"dataset_reader.piece_tokenizer": "{tokenizer_file}", "model.piece_tokenizer": "{tokenizer_file}"}}')
    with pytest.raises(Exception, match=f"{NUM_FEATURES + 1} features"):
        train_model_from_file(str(FIXTURES / "configs" / "segmenter.jsonnet"), str(tmp_path / "model"),
                              overrides=overrides)
