"""
The segmenter's pure parts (`seqgraph_allennlp.segmentation`): a treebank's text and character labels, the
labels back into sentences, multiword-token expansion, and the `segmenter_ud` reader's windows.
"""
import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seqgraph_allennlp.common.conllu import read_sentences
from seqgraph_allennlp.dataset_readers.segmenter_ud import SegmenterUDReader
from seqgraph_allennlp.segmentation.documents import documents
from seqgraph_allennlp.segmentation.features import NUM_FEATURES, character_features, character_token
from seqgraph_allennlp.segmentation.labels import (
    INSIDE,
    MULTIWORD_END,
    MULTIWORD_SENTENCE_END,
    NUM_LABELS,
    SENTENCE_END,
    TOKEN_END,
    gold_tokens,
    labels_to_sentences,
    text_labels,
)
from seqgraph_allennlp.segmentation.multiword import MultiwordExpander, induce_rule
from seqgraph_allennlp.segmentation.sentence import MultiwordToken, TextSentence
from tests.conftest import FIXTURES

SMALL = str(FIXTURES / "conllu" / "segmenter_small.conllu")
EWT_SMALL = str(FIXTURES / "conllu" / "en_small.conllu")


def test_text_labels_mark_token_sentence_and_multiword_ends():
    sentences = list(read_sentences(SMALL))[:2]
    text, labels, multiword = text_labels([sentences])
    assert text == "I'm here. You don't know it."
    ends = {position: int(label) for position, label in enumerate(labels) if label != INSIDE}
    assert ends == {
        2: MULTIWORD_END, 7: TOKEN_END, 8: SENTENCE_END,  # I'm | here | .
        12: TOKEN_END, 18: MULTIWORD_END, 23: TOKEN_END, 26: TOKEN_END, 27: SENTENCE_END,
    }
    assert [(token.form, token.words) for token in multiword] == [("I'm", ("I", "'m")), ("don't", ("do", "n't"))]


def test_paragraphs_are_joined_by_the_separator_asked_for():
    document = documents(read_sentences(SMALL))[0]
    blank, _, _ = text_labels(document)
    running, _, _ = text_labels(document, lambda _: " ")
    assert blank == "I'm here. You don't know it.\n\nWe can't go now! It's a dog."
    assert running == blank.replace("\n\n", " ")


@pytest.mark.parametrize("path", [SMALL, EWT_SMALL])
def test_gold_labels_give_back_the_gold_sentences(path):
    sentences = list(read_sentences(path))
    expander = MultiwordExpander(
        (token.form, token.words) for sentence in sentences for token in gold_tokens(sentence) if token.is_multiword
    )
    for document in documents(sentences):
        text, labels, _ = text_labels(document)
        predicted = labels_to_sentences(text, labels, expander.expand)
        gold = [sentence for paragraph in document for sentence in paragraph]
        assert [sentence.words for sentence in predicted] == [sentence.forms for sentence in gold]
        assert [sentence.text for sentence in predicted] == [sentence.text for sentence in gold]
        assert [[token.form for token in sentence.multiword_tokens] for sentence in predicted] == [
            [token.form for token in gold_tokens(sentence) if token.is_multiword] for sentence in gold
        ]


def test_whitespace_and_blank_lines_always_split():
    text = "ab cd\n\nef"
    sentences = labels_to_sentences(text, numpy.zeros(len(text), dtype=numpy.int64))
    assert [sentence.words for sentence in sentences] == [["ab", "cd"], ["ef"]]
    assert [sentence.space_after for sentence in sentences] == [[True, True], [True]]


def test_a_label_inside_a_run_splits_it_without_whitespace():
    text = "end.Next"
    labels = numpy.zeros(len(text), dtype=numpy.int64)
    labels[2], labels[3] = TOKEN_END, SENTENCE_END
    sentences = labels_to_sentences(text, labels)
    assert [sentence.words for sentence in sentences] == [["end", "."], ["Next"]]
    assert [sentence.space_after for sentence in sentences] == [[False, False], [True]]


def test_a_multiword_token_that_expands_to_one_word_stays_a_word():
    text = "xyz"
    labels = numpy.array([0, 0, MULTIWORD_SENTENCE_END])
    (sentence,) = labels_to_sentences(text, labels, lambda form: [form])
    assert sentence.words == ["xyz"] and sentence.multiword_tokens == ()


def test_empty_and_whitespace_texts_have_no_sentence():
    for text in ("", "   ", "\n\n\t "):
        assert labels_to_sentences(text, numpy.zeros(len(text), dtype=numpy.int64)) == []


def test_labels_must_match_the_text():
    with pytest.raises(ValueError, match="3 labels for a text of 2 characters"):
        labels_to_sentences("ab", numpy.zeros(3, dtype=numpy.int64))


def _rebuilt(sentences):
    return "".join(
        form + (" " if sentence.space_after[last] else "")
        for sentence in sentences for form, _, last in sentence.tokens()
    )


# letters, digits, punctuation, emoji, CJK, combining marks, control characters and whitespace
CHARACTERS = st.characters(codec="utf-8", categories=("L", "N", "P", "S", "M", "Cc", "Zs"))


@settings(max_examples=300, deadline=None)
@given(st.text(CHARACTERS, max_size=200), st.data())
def test_nothing_is_lost_whatever_the_labels(text, data):
    labels = numpy.asarray(data.draw(st.lists(st.integers(0, NUM_LABELS - 1), min_size=len(text), max_size=len(text))),
                           dtype=numpy.int64)
    sentences = labels_to_sentences(text, labels, lambda form: [form[:1], form[1:]] if len(form) > 1 else [form])
    # the tokens with their spaces give back the text, each whitespace run written as one space
    assert _rebuilt(sentences).split() == text.split()
    assert "".join(_rebuilt(sentences).split()) == "".join(text.split())
    for sentence in sentences:
        assert sentence.words and all(word and not any(c.isspace() for c in word) for word in sentence.words)


def test_text_sentence_writes_multiword_tokens_as_ud_does():
    sentence = TextSentence(["I", "'m", "here", "."], [False, True, False, True], (MultiwordToken(0, 1, "I'm"),))
    assert sentence.text == "I'm here."
    assert sentence.conllu_lines() == [
        "1-2\tI'm\t_\t_\t_\t_\t_\t_\t_\t_",
        "1\tI\t_\t_\t_\t_\t_\t_\t_\t_",
        "2\t'm\t_\t_\t_\t_\t_\t_\t_\t_",
        "3\there\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No",
        "4\t.\t_\t_\t_\t_\t_\t_\t_\t_",
    ]


# Multiword tokens

EWT_PAIRS = [("don't", ["do", "n't"])] * 3 + [("didn't", ["did", "n't"]), ("I'm", ["I", "'m"]), ("can't", ["ca", "n't"])]


def test_seen_tokens_take_their_most_frequent_expansion():
    expander = MultiwordExpander([("zum", ["zu", "dem"])] * 2 + [("zum", ["zum"])])
    assert expander.expand("zum") == ["zu", "dem"]


def test_casing_is_put_back_on_a_token_seen_in_another_case():
    expander = MultiwordExpander(EWT_PAIRS + [("zum", ["zu", "dem"])])
    assert expander.expand("Don't") == ["Do", "n't"]
    assert expander.expand("DON'T") == ["DO", "N'T"]
    assert expander.expand("Zum") == ["Zu", "dem"]


def test_unseen_tokens_follow_the_rule_of_their_longest_seen_ending():
    expander = MultiwordExpander(EWT_PAIRS + [("zum", ["zu", "dem"]), ("beim", ["bei", "dem"])])
    assert expander.expand("shouldn't") == ["should", "n't"]
    assert expander.expand("Wouldn't") == ["Would", "n't"]
    assert expander.expand("SHOULDN'T") == ["SHOULD", "N'T"]
    assert expander.expand("You'm") == ["You", "'m"]
    # "zum": keep "zu", write "dem" (a fixed string, not a piece of the token)
    assert induce_rule("zum", ["zu", "dem"]).rest == ("dem",)
    assert expander.expand("vom") == ["vo", "dem"]  # the rule of "-m", as learned
    assert expander.expand("xyz") == ["xyz"]  # no rule for this ending


def test_a_rule_never_gives_an_empty_word():
    expander = MultiwordExpander([("don't", ["do", "n't"])])
    assert expander.expand("n't") == ["n't"]


# The reader

def test_reader_cuts_each_document_into_windows_with_labels_and_features():
    reader = SegmenterUDReader(window_length=16)
    instances = list(reader.read(SMALL))
    texts = [text_labels(document)[0] for document in documents(read_sentences(SMALL))]
    assert len(instances) == sum(-(-len(text) // 16) for text in texts)
    first = instances[0]
    characters = [token.text for token in first["characters"].tokens]
    assert characters == [character_token(character) for character in "I'm here. You do"]
    assert character_token(" ") == "U+0020" and character_token("\n") == "U+000A"
    assert first["features"].tensor.shape == (16, NUM_FEATURES)
    assert first["labels"].tensor.tolist()[:9] == [0, 0, MULTIWORD_END, 0, 0, 0, 0, TOKEN_END, SENTENCE_END]
    # each multiword token is counted once, in the window where it ends
    counted = [pair for instance in instances for pair in instance["metadata"]["multiword_tokens"]]
    gold = [(token.form, token.words) for sentence in read_sentences(SMALL) for token in gold_tokens(sentence)
            if token.is_multiword]
    assert sorted(counted) == sorted(gold)


def test_a_small_file_is_read_again_with_shifted_windows_up_to_min_characters():
    once = list(SegmenterUDReader(window_length=16, paragraph_separators=[" "]).read(SMALL))
    length = sum(len(instance["characters"].tokens) for instance in once)
    # three passes: the text three times over, the second's windows shifted by 16 // 3, the third's by 2 * 16 // 3
    reader = SegmenterUDReader(window_length=16, paragraph_separators=[" "], min_characters=2 * length + 1)
    instances = list(reader.read(SMALL))

    def text(instance) -> str:
        return "".join(" " if token.text == "U+0020" else token.text for token in instance["characters"].tokens)

    assert sum(len(instance["characters"].tokens) for instance in instances) == 3 * length
    first_pass, rest = instances[: len(once)], instances[len(once):]
    assert [text(instance) for instance in first_pass] == [text(instance) for instance in once]
    assert [len(instance["characters"].tokens) for instance in rest[:2]] == [16 // 3, 16]
    assert text(rest[0]) + text(rest[1]) == text(once[0]) + text(once[1])[: 16 // 3]
    # each pass counts each multiword token once
    counted = [pair for instance in instances for pair in instance["metadata"]["multiword_tokens"]]
    assert len(counted) == 3 * sum(len(instance["metadata"]["multiword_tokens"]) for instance in once)
    assert len(list(SegmenterUDReader(window_length=16, min_characters=1).read(SMALL))) == len(once)


def test_reader_draws_paragraph_separators_from_those_given():
    reader = SegmenterUDReader(window_length=10_000, paragraph_separators=[" "])
    text = "".join(token.text for token in next(iter(reader.read(SMALL)))["characters"].tokens)
    assert "U+000A" not in text


def test_reader_refuses_separators_that_are_not_whitespace():
    with pytest.raises(ValueError, match="paragraph_separators must be whitespace"):
        SegmenterUDReader(paragraph_separators=["x"])


def test_character_features_see_case_and_category():
    features = character_features("Aa1.\n😀")
    assert features.shape == (6, NUM_FEATURES)
    upper, lower, digit, punctuation, newline, emoji = features.tolist()
    assert upper[2] == 1 and lower[3] == 1 and digit[5] == 1 and punctuation[6] == 1
    assert newline[0] == 1 and newline[1] == 1 and emoji[7] == 1
    assert character_features("").shape == (0, NUM_FEATURES)
