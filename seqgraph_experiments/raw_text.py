"""
Raw text against a UD treebank, shared by `tokenisation_f1` and `raw_text_eval`: the text of each document
rebuilt from the gold file's `# text` lines in one of three layouts, and the CoNLL 2018 shared task's
evaluation (`udtools.udeval`) of a system's CoNLL-U, whose words it aligns to the gold ones by characters.

* `sentences`: each gold sentence alone (its boundaries given): tokenisation only;
* `paragraphs`: each document with a blank line between its paragraphs (`# newpar`), as UD's raw text
  files are: a splitter finds the sentences inside paragraphs;
* `running`: each document on one line, nothing marking paragraphs.

Sentences of a paragraph are joined by a space, or by nothing where the gold's last word has `SpaceAfter=No`.
"""
import tempfile
from pathlib import Path
from typing import Dict, List

from udtools import udeval

from seqgraph_allennlp.common.conllu import ConlluSentence

LAYOUTS = ("sentences", "paragraphs", "running")
PARAGRAPH_BREAK = "\n\n"


def paragraph_text(paragraph: List[ConlluSentence]) -> str:
    text = paragraph[0].text
    for previous, sentence in zip(paragraph, paragraph[1:]):
        text += (" " if previous.words[-1].space_after else "") + sentence.text
    return text


def layout_texts(docs: List[List[List[ConlluSentence]]], layout: str) -> List[str]:
    """The pieces of raw text given to a tokeniser, one per sentence or document."""
    if layout == "sentences":
        return [sentence.text for doc in docs for paragraph in doc for sentence in paragraph]
    joiner = PARAGRAPH_BREAK if layout == "paragraphs" else " "
    return [joiner.join(paragraph_text(paragraph) for paragraph in doc) for doc in docs]


def evaluate(gold_path: Path, system_text: str) -> Dict:
    """udeval's scores (precision, recall, f1 of each metric) of a system's CoNLL-U text against the gold file."""
    with tempfile.NamedTemporaryFile("w", suffix=".conllu", encoding="utf-8", delete=False) as handle:
        handle.write(system_text)
    try:
        return udeval.evaluate(udeval.load_conllu_file(str(gold_path)), udeval.load_conllu_file(handle.name))
    finally:
        Path(handle.name).unlink()
