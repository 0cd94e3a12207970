"""
scripts/tokenisation_f1.py (tokenisers scored against a treebank's gold tokens with `udtools.udeval`) and
its section of docs/RESULTS.md, on the fixture treebank.
"""
import json
import sys
from pathlib import Path

import pytest

from seqgraph_allennlp.common.conllu import read_sentences
from seqgraph_experiments import tokenisation_f1
from seqgraph_allennlp.segmentation.documents import documents
from seqgraph_experiments.raw_text import LAYOUTS, layout_texts
from seqgraph_experiments.report import write_report
from seqgraph_experiments.report.raw_text import tokenisation_table

ROOT = Path(__file__).resolve().parents[1]

GOLD = ROOT / "fixtures" / "conllu" / "en_small.conllu"


def gold_split(text):
    """A 'splitter' that knows the gold words (the fixture's forms, in order): scores 100."""
    words = [form for sentence in read_sentences(str(GOLD)) for form in sentence.forms]
    spans, position = [], 0
    for word in words:
        start = text.find(word, position)
        if start >= 0 and not text[position:start].strip():
            spans.append((start, start + len(word)))
            position = start + len(word)
    return [spans]


def test_layouts_rebuild_the_text():
    sentences = list(read_sentences(str(GOLD)))
    docs = documents(sentences)
    assert sum(len(paragraph) for doc in docs for paragraph in doc) == len(sentences)
    for layout in LAYOUTS:
        texts = layout_texts(docs, layout)
        assert "".join("".join(texts).split()) == "".join(
            "".join(sentence.text.split()) for sentence in sentences
        )
    assert len(layout_texts(docs, "sentences")) == len(sentences)
    assert all("\n" not in text for text in layout_texts(docs, "running"))


def test_scores_of_the_gold_words_and_of_a_splitter_that_drops_characters():
    docs = documents(list(read_sentences(str(GOLD))))
    texts = layout_texts(docs, "sentences")
    # each gold sentence alone, split into its gold words: every score is 100
    conllu, uncovered, _ = tokenisation_f1.system_conllu(gold_split, texts)
    scores = tokenisation_f1.score(GOLD, conllu)
    assert uncovered == 0
    assert scores["Sentences"]["f1"] == 1.0 and scores["Words"]["f1"] == 1.0
    # the fixture's multiword tokens are written as words: they are the only token errors
    assert 0.9 < scores["Tokens"]["f1"] < 1.0

    # characters a splitter leaves out are put back in place, so the scorer still accepts the file
    def dropping(text):
        return [[(start, end) for start, end in sentence if text[start:end] not in (",", "-")]
                for sentence in tokenisation_f1.shipped("en")(text)]

    conllu, uncovered, _ = tokenisation_f1.system_conllu(dropping, texts)
    assert uncovered > 0
    assert 0.9 < tokenisation_f1.score(GOLD, conllu)["Words"]["f1"] <= 1.0


def test_the_script_and_its_section_of_the_report(tmp_path, monkeypatch):
    monkeypatch.setattr(tokenisation_f1, "OUT", tmp_path / "results" / "tokenisation")
    monkeypatch.setattr(sys, "argv", ["tokenisation_f1.py", str(GOLD), "--name", "fixture",
                                      "--only", "spacy_en (shipped)", "spacy_xx"])
    tokenisation_f1.main()
    result = json.loads((tmp_path / "results" / "tokenisation" / "fixture.json").read_text())
    assert [(row["candidate"], row["layout"]) for row in result["rows"]] == [
        (name, layout) for name in ("spacy_en (shipped)", "spacy_xx") for layout in LAYOUTS
    ]
    for row in result["rows"]:
        assert 0.9 < row["Words"]["f1"] <= 1.0 and 0.9 < row["Tokens"]["f1"] <= 1.0
        # the fixture's sentences often end without a full stop, and a rule-based splitter misses them
        assert 0.0 < row["Sentences"]["f1"] <= 1.0
        assert row["uncovered_characters"] == 0
    english = {row["layout"]: row for row in result["rows"] if row["candidate"] == "spacy_en (shipped)"}
    assert english["sentences"]["Words"]["f1"] == pytest.approx(1.0)  # the fixture's words, as EWT splits them
    assert result["library_versions"]["spacy"] and result["gold"]["sentences"] == 6
    assert result["command"].startswith("scripts/tokenisation_f1.py ")

    lines = tokenisation_table(result)
    assert lines[0] == "## Raw text: tokenisation (fixture)"
    assert sum(line.startswith("| spacy_") for line in lines) == 6
    write_report(tmp_path / "results", tmp_path / "docs" / "RESULTS.md")
    assert "## Raw text: tokenisation (fixture)" in (tmp_path / "docs" / "RESULTS.md").read_text()
