"""
`word_piece_mismatched` (seqgraph_allennlp/dataset_readers/word_piece_indexer.py) indexes words exactly as
AllenNLP's `pretrained_transformer_mismatched`: the same word pieces, type ids, offsets and masks, a word without
pieces and a sentence cut into segments by `max_length` included, and the same padded tensors.
"""
import pytest
from allennlp.data import Token, Vocabulary
from allennlp.data.token_indexers import PretrainedTransformerMismatchedIndexer

from seqgraph_allennlp.dataset_readers.word_piece_indexer import WordPieceMismatchedIndexer

SENTENCES = [
    ["the", "cat", "was", "sitting", "on", "it", "."],
    # a word the tiny vocabulary splits, unknown words, a control character that has no word piece
    ["its", "xyzzy", "\x00", "I", "was", "ran", ",", "and", "you", "?"],
    ["a"],
]


@pytest.mark.parametrize("max_length", [None, 6])
def test_indexes_words_as_allennlps_mismatched_indexer(tiny_mpnet, max_length):
    ours = WordPieceMismatchedIndexer(tiny_mpnet, max_length=max_length)
    allennlps = PretrainedTransformerMismatchedIndexer(tiny_mpnet, max_length=max_length)
    # the Rust tokenizer is there: the fast path runs, not AllenNLP's code
    assert getattr(ours._tokenizer, "_tokenizer", None) is not None
    for words in SENTENCES:
        tokens = [Token(word) for word in words]
        expected = allennlps.tokens_to_indices(tokens, Vocabulary())
        indexed = ours.tokens_to_indices(tokens, Vocabulary())
        assert indexed == expected, words
        lengths = ours.get_padding_lengths(indexed)
        padded = {key: value + 3 for key, value in lengths.items()}
        ours_tensors = ours.as_padded_tensor_dict(indexed, padded)
        expected_tensors = allennlps.as_padded_tensor_dict(expected, padded)
        assert ours_tensors.keys() == expected_tensors.keys()
        for key in ours_tensors:
            assert ours_tensors[key].tolist() == expected_tensors[key].tolist(), key
    # the control character has no piece: AllenNLP's (-1, -1), which the embedder averages to zeros
    indexed = ours.tokens_to_indices([Token(word) for word in SENTENCES[1]], Vocabulary())
    assert indexed["offsets"][2] == (-1, -1)
    # the split word has several pieces
    assert any(end > start for start, end in indexed["offsets"])
