from typing import List

from allennlp.data.token_indexers import PretrainedTransformerMismatchedIndexer, TokenIndexer
from allennlp.data.token_indexers.token_indexer import IndexedTokenList
from allennlp.data.tokenizers import Token
from allennlp.data.vocabulary import Vocabulary


@TokenIndexer.register("word_piece_mismatched")
class WordPieceMismatchedIndexer(PretrainedTransformerMismatchedIndexer):
    """
    AllenNLP's `pretrained_transformer_mismatched` indexer (the same parameters and output), splitting each word
    into word pieces with the Hugging Face fast tokenizer's own (Rust) `encode` instead of AllenNLP's
    `intra_word_tokenize`, which calls the Python `encode_plus` and builds a `Token` per piece: on EWT test
    (25,094 words) 0.14 s instead of 0.53 s (results/benchmarks/word_pieces.json), about 2 % of parsing it
    with the English model (docs/BENCHMARKS.md). Words are still split one by one, as AllenNLP does: a word's
    pieces must not depend on its neighbours, and the Rust tokenizer's `encode_batch` was slower on single
    words. A tokenizer without
    a Rust backend (a slow, Python one) is indexed by AllenNLP's code.

    Registered as a `TokenIndexer` with name "word_piece_mismatched".

    # Parameters

    As `pretrained_transformer_mismatched`.
    """

    def tokens_to_indices(self, tokens: List[Token], vocabulary: Vocabulary) -> IndexedTokenList:
        backend = getattr(self._tokenizer, "_tokenizer", None)
        if backend is None:
            return super().tokens_to_indices(tokens, vocabulary)
        self._matched_indexer._add_encoding_to_vocabulary_if_needed(vocabulary)
        tokenizer = self._allennlp_tokenizer
        start, end = tokenizer.single_sequence_start_tokens, tokenizer.single_sequence_end_tokens
        token_ids = [token.text_id for token in start]
        offsets = []
        for token in tokens:
            pieces = backend.encode(token.ensure_text(), add_special_tokens=False).ids
            if pieces:
                offsets.append((len(token_ids), len(token_ids) + len(pieces) - 1))
                token_ids.extend(pieces)
            else:
                # a word without pieces (a control character, say), as AllenNLP's indexer marks it
                offsets.append((-1, -1))
        type_ids = ([token.type_id for token in start]
                    + [tokenizer.single_sequence_token_type_id] * (len(token_ids) - len(start))
                    + [token.type_id for token in end])
        token_ids += [token.text_id for token in end]
        output: IndexedTokenList = {
            "token_ids": token_ids,
            "mask": [True] * len(tokens),
            "type_ids": type_ids,
            "offsets": offsets,
            "wordpiece_mask": [True] * len(token_ids),
        }
        return self._matched_indexer._postprocess_output(output)
