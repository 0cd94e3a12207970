"""
The project's scorer against the UD team's own evaluation (`udtools.udeval`, the CoNLL 2018 shared task's
script): the same UAS and LAS on a predicted file whose heads and relations differ from the gold ones.
"""
from pathlib import Path

import pytest
from udtools import udeval  # a runtime dependency (requirements/runtime.txt): the scorer reports its figures

from seqgraph_allennlp.common.conllu import check_tree, parse_string, read_sentences
from seqgraph_allennlp.common.scoring import score_files

GOLD = Path(__file__).resolve().parents[1] / "fixtures" / "conllu" / "en_small.conllu"


def predicted_lines(sentence):
    """The sentence with every leaf word moved to another head and every third relation changed, still a tree."""
    heads = {word.id: word.head for word in sentence.words}
    has_dependents = set(heads.values())
    num_words = len(sentence.words)
    changed = {}
    for word in sentence.words:
        head, deprel = word.head, word.deprel
        if word.id not in has_dependents and head != 0:
            # a leaf has no descendants: any other word is a valid head
            head = word.id % num_words + 1
            if head == word.id or heads[word.id] == 0:
                head = word.head
        if word.id % 3 == 0:
            # a subtype of the same relation (right for LAS) or another relation (wrong)
            deprel = deprel + ":sub" if word.id % 2 else ("obj" if deprel != "obj" else "nsubj")
        changed[word.id] = (head, deprel)
    lines = []
    for line in sentence.lines:
        columns = line.split("\t")
        if len(columns) == 10 and columns[0].isdigit():
            head, deprel = changed[int(columns[0])]
            columns[6], columns[7] = str(head), deprel
        lines.append("\t".join(columns))
    return lines


def test_scorer_agrees_with_udeval(tmp_path):
    sentences = list(read_sentences(str(GOLD)))
    text = "".join("\n".join(predicted_lines(sentence)) + "\n\n" for sentence in sentences)
    predicted = tmp_path / "predicted.conllu"
    predicted.write_text(text, encoding="utf-8")
    for sentence in parse_string(text):
        check_tree(sentence)  # udeval refuses anything but trees
    ours = score_files(str(GOLD), str(predicted))
    theirs = udeval.evaluate(udeval.load_conllu_file(str(GOLD)), udeval.load_conllu_file(str(predicted)))
    assert 0.5 < ours["UAS"] < 1.0 and ours["LAS"] < ours["UAS"]
    assert ours["UAS"] == pytest.approx(theirs["UAS"].f1, abs=1e-9)
    assert ours["LAS"] == pytest.approx(theirs["LAS"].f1, abs=1e-9)
