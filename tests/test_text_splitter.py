"""
`TextSplitter`: raw text to sentences of words with spaCy's rule-based tokeniser and sentencizer (the
predictor's `{"text": ...}` input and `Parser.parse`). No model needed.
"""
import logging
from pathlib import Path

import pytest

from seqgraph_allennlp.common.conllu import read_sentences
from seqgraph_allennlp.predictors.text_splitter import LanguageError, TextSplitter, check_language

CONLLU = Path(__file__).resolve().parents[1] / "fixtures" / "conllu"


def split(text, language="en"):
    return [(sentence.words, sentence.space_after) for sentence in TextSplitter(language).split(text)]


def test_english_words_as_in_ewt():
    ((words, _),) = split("I didn't see Google's office, we've left.")
    assert words == ["I", "did", "n't", "see", "Google", "'s", "office", ",", "we", "'ve", "left", "."]


def test_sentences_and_paragraphs():
    text = "One here. Two here!  Three?\n\nno full stop\nstill the same sentence\n \n Last"
    assert [words for words, _ in split(text)] == [
        ["One", "here", "."],
        ["Two", "here", "!"],
        ["Three", "?"],
        # a single line break is not a boundary; a blank line (spaces allowed in it) is
        ["no", "full", "stop", "still", "the", "same", "sentence"],
        ["Last"],
    ]


def test_whitespace_is_never_a_word_and_space_after_says_where_it_was():
    text = " \tHello ,world\u00a0again.Next\u3000one "
    sentences = TextSplitter("en").split(text)
    assert [sentence.words for sentence in sentences] == [["Hello", ",", "world", "again", "."], ["Next", "one"]]
    assert [sentence.space_after for sentence in sentences] == [[True, False, True, False, False], [True, True]]
    assert [sentence.text for sentence in sentences] == ["Hello ,world again.", "Next one"]
    for sentence in sentences:
        assert all(word and not any(character.isspace() for character in word) for word in sentence.words)


@pytest.mark.parametrize("text", ["", " ", "\n\n\t \u00a0"])
def test_no_sentence_in_whitespace(text):
    assert TextSplitter("en").split(text) == []


def test_the_words_are_the_text_on_ewt_sentences():
    # every character of the text ends up in exactly one word, in order, and `text` restores the spacing
    gold = list(read_sentences(str(CONLLU / "en_small.conllu")))
    text = "\n\n".join(sentence.text for sentence in gold)
    sentences = TextSplitter("en").split(text)
    assert "".join(word for sentence in sentences for word in sentence.words) == "".join(text.split())
    assert " ".join(sentence.text for sentence in sentences) == " ".join(text.split())
    assert len(sentences) >= len(gold)


def test_languages(caplog):
    assert TextSplitter("de").split("Das ist z. B. gut. Ja.")[0].words[-1] == "."
    assert TextSplitter("grc").spacy_language == "grc"
    with caplog.at_level(logging.WARNING):
        welsh = TextSplitter("cy")
    # spaCy has no Welsh rules: its language-neutral tokeniser, with a warning
    assert welsh.spacy_language == "xx"
    assert welsh.language == "cy"
    assert [sentence.words for sentence in welsh.split("Dw i'n hapus. Wyt ti?")] == [
        ["Dw", "i'n", "hapus", "."], ["Wyt", "ti", "?"]
    ]
    for bad in ["", "en us", "../en", None, 3]:
        with pytest.raises(LanguageError, match="language must be a language code"):
            check_language(bad)
