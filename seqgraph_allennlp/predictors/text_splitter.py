"""
Raw text to sentences of words, for the predictor's `{"text": ...}` input and `seqgraph_allennlp.Parser`.

spaCy's rule-based tokeniser for the language (`spacy.blank`, no trained model: it ships with spaCy and
runs offline) and its rule-based `sentencizer`. For English it splits words the way UD English-EWT does
("didn't" is `did` `n't`, "Google's" is `Google` `'s`); its scores on EWT test against the gold tokens and
sentences, and those of the alternatives that were measured, are in docs/RESULTS.md ("Raw text:
tokenisation", `scripts/tokenisation_f1.py`).
"""
import logging
from functools import lru_cache
from typing import List, Tuple

import spacy
from spacy.language import Language
from spacy.util import get_lang_class

from seqgraph_allennlp.common.errors import SeqGraphError
from seqgraph_allennlp.segmentation.sentence import TextSentence

logger = logging.getLogger(__name__)

# spaCy's language-neutral tokeniser, for languages it has no rules for (Welsh, for one)
MULTILINGUAL = "xx"
DEFAULT_LANGUAGE = "en"


class LanguageError(SeqGraphError, ValueError):
    """A `language` that is not a language code."""


def check_language(language: str) -> str:
    """`language` if it looks like a language code (`en`, `grc`, `zh_hant`), else `LanguageError`."""
    if not isinstance(language, str) or not language or not language.replace("_", "").isalnum():
        raise LanguageError(f'language must be a language code such as "en", got {language!r}')
    return language


@lru_cache(maxsize=None)
def spacy_language(language: str) -> str:
    """
    The spaCy language that tokenises `language` (an ISO 639 code such as `en`, `de`, `grc`): itself where
    spaCy has rules for it, else the language-neutral `xx`, with a warning (once per language).
    """
    check_language(language)
    try:
        get_lang_class(language)
    except ImportError:
        logger.warning(
            "spaCy has no tokeniser rules for language %r: raw text is tokenised by its "
            "language-neutral tokeniser (%r)", language, MULTILINGUAL,
        )
        return MULTILINGUAL
    return language


@lru_cache(maxsize=None)
def _pipeline(language: str) -> Tuple[Language, object]:
    # built once per language and process: predictors and `Parser`s share it
    nlp = spacy.blank(language)
    return nlp, nlp.add_pipe("sentencizer")


class TextSplitter:
    """
    Splits raw text into sentences of words: spaCy's rule-based tokeniser for `language` and its
    `sentencizer` (a sentence ends after `.`, `!`, `?` and the like, with the quotes and brackets that
    follow). A blank line (two line breaks or more) always ends a sentence, so paragraphs never run
    together. Whitespace is never part of a word.

    # Parameters

    language : `str`, optional (default = `"en"`)
        An ISO 639 language code. Where spaCy has no rules for it, its language-neutral tokeniser (`xx`)
        is used, with a warning.
    """

    def __init__(self, language: str = DEFAULT_LANGUAGE) -> None:
        self.language = language
        self.spacy_language = spacy_language(language)
        self._nlp, self._sentencizer = _pipeline(self.spacy_language)

    def split(self, text: str) -> List[TextSentence]:
        """The sentences of `text`, in order; none for a text of only whitespace."""
        doc = self._nlp.make_doc(text)
        for token in doc[:-1]:
            if token.is_space and token.text.count("\n") >= 2:
                # the sentencizer keeps the boundaries that are already set
                doc[token.i + 1].is_sent_start = True
        doc = self._sentencizer(doc)  # type: ignore[operator]
        sentences = []
        for span in doc.sents:
            words: List[str] = []
            space_after: List[bool] = []
            for token in span:
                # whitespace beyond the one space a word carries is a token of its own: never a word
                if token.is_space:
                    continue
                following = token.i + 1
                space = bool(token.whitespace_) or following == len(doc) or doc[following].is_space
                # spaCy splits at whitespace; this only guards the CoNLL-U columns against surprises
                pieces = token.text.split()
                words.extend(pieces)
                space_after.extend([True] * (len(pieces) - 1) + [space])
            if words:
                sentences.append(TextSentence(words, space_after))
        return sentences

    def split_all(self, texts: List[str]) -> List[List[TextSentence]]:
        """The sentences of each text."""
        return [self.split(text) for text in texts]


class LearnedTextSplitter:
    """
    Splits raw text with a segmenter learned from a treebank (`seqgraph_allennlp.models.segmenter`): its
    tokens, sentences and multiword tokens (expanded into their words).

    # Parameters

    segmenter : `Segmenter`
    """

    def __init__(self, segmenter) -> None:  # type: ignore[no-untyped-def]
        self.segmenter = segmenter

    def split(self, text: str) -> List[TextSentence]:
        """The sentences of `text`, in order; none for a text of only whitespace."""
        return self.segmenter.segment([text])[0]

    def split_all(self, texts: List[str]) -> List[List[TextSentence]]:
        """The sentences of each text, segmented together (fewer, fuller batches than one text at a time)."""
        return self.segmenter.segment(texts)
