"""
`scripts/enhanced_rescore.py`: a committed row's test prediction brought under the predictor's current rules
without its model, from the kept prediction without rules or by filling the kept one again.
"""
import gzip
import json

import pytest

from seqgraph_allennlp.common.scoring import enhanced_scores, official_scores
from seqgraph_experiments import enhanced_rescore
from seqgraph_experiments.enhanced_eval import gzip_file
from seqgraph_experiments.provenance import sha256

# "He jumped out of the box": two case markers of "box"; gold `obl:of` (the nearest before it)
WORDS = [("He", "he", 2, "nsubj"), ("jumped", "jump", 0, "root"), ("out", "out", 6, "case"), ("of", "of", 6, "case"),
         ("the", "the", 6, "det"), ("box", "box", 2, "obl")]


def sentence(box_label: str) -> str:
    lines = ["# sent_id = 1", "# text = He jumped out of the box"]
    for index, (form, lemma, head, relation) in enumerate(WORDS, start=1):
        deps = f"{head}:{box_label}" if form == "box" else f"{head}:{relation}"
        lines.append(f"{index}\t{form}\t{lemma}\t_\t_\t_\t{head}\t{relation}\t{deps}\t_")
    return "\n".join(lines) + "\n\n"


@pytest.fixture
def row(tmp_path, monkeypatch):
    gold = tmp_path / "gold.conllu"
    gold.write_text(sentence("obl:of"))
    enhanced = tmp_path / "results" / "enhanced"
    enhanced.mkdir(parents=True)
    monkeypatch.setattr(enhanced_rescore, "ROOT", tmp_path)
    monkeypatch.setitem(enhanced_rescore.SPLITS, "test", gold)
    # the kept prediction as the first-marker rule filled it, and the model's own graph without rules
    for name, label in (("row.test.conllu", "obl:out"), ("row.test_without_rules.conllu", "obl")):
        (tmp_path / name).write_text(sentence(label))
        gzip_file(tmp_path / name, enhanced / f"{name}.gz")
    kept = enhanced / "row.test.conllu.gz"
    result = {
        "kind": "enhanced_eval",
        "test": {**official_scores(str(gold), str(tmp_path / "row.test.conllu")),
                 **enhanced_scores(str(gold), str(tmp_path / "row.test.conllu"))},
        "test_predictions": {"path": "results/enhanced/row.test.conllu.gz", "sha256": sha256(kept)},
        "test_without_rules": {"ELAS": 0.0, "EULAS": 1.0, "predictions": {
            "path": "results/enhanced/row.test_without_rules.conllu.gz",
            "sha256": sha256(enhanced / "row.test_without_rules.conllu.gz")}},
    }
    record = enhanced / "row.json"
    record.write_text(json.dumps(result))
    return record, kept, tmp_path


@pytest.mark.parametrize("source", ["raw", "refilled"])
def test_a_row_is_rescored_under_the_current_rules(row, source):
    record, kept, base = row
    if source == "refilled":
        result = json.loads(record.read_text())
        del result["test_without_rules"]["predictions"]
        record.write_text(json.dumps(result))
    before = json.loads(record.read_text())
    assert before["test"]["ELAS"] == pytest.approx(5 / 6)
    entry = enhanced_rescore.rescore(record, {"nsubj", "root", "case", "det", "obl"}, base / "work")
    after = json.loads(record.read_text())
    # the nearest marker: the box is `obl:of` now, as in gold; the basic tree's scores as they were
    assert "2:obl:of" in gzip.decompress(kept.read_bytes()).decode()
    assert after["test"]["ELAS"] == 1.0 and after["test"]["UAS"] == before["test"]["UAS"]
    assert after["test_predictions"]["sha256"] == sha256(kept)
    assert entry["source"] == source and entry["before"]["ELAS"] == before["test"]["ELAS"]
    assert after["rescored"] == [entry]
    # rescoring again changes nothing
    assert enhanced_rescore.rescore(record, {"nsubj", "root", "case", "det", "obl"}, base / "work2") is None
    assert json.loads(record.read_text()) == after


def test_symbol_markers_counts_a_symbol_nearest_among_several_markers(tmp_path):
    # "out & box": the nearest case marker before "box" is a symbol with a word before it (filling can differ)
    lines = ["# sent_id = 1", "# text = He jumped out & box"]
    rows = [("He", 2, "nsubj", "2:nsubj"), ("jumped", 0, "root", "0:root"), ("out", 5, "case", "5:case"),
            ("&", 5, "case", "5:case"), ("box", 2, "obl", "2:obl:out")]
    for index, (form, head, relation, deps) in enumerate(rows, start=1):
        lines.append(f"{index}\t{form}\t{form.lower()}\t_\t_\t_\t{head}\t{relation}\t{deps}\t_")
    path = tmp_path / "symbol.conllu"
    path.write_text("\n".join(lines) + "\n\n")
    assert enhanced_rescore.symbol_markers(path) == 1
    # a word as the nearest marker, or a symbol alone: nothing to count
    path.write_text(path.read_text().replace("\t&\t&\t", "\tof\tof\t"))
    assert enhanced_rescore.symbol_markers(path) == 0
    text = path.read_text().replace("\tof\tof\t", "\t&\t&\t")
    path.write_text(text.replace("\t5\tcase\t5:case\t_\n4", "\t2\tadvmod\t2:advmod\t_\n4"))
    assert enhanced_rescore.symbol_markers(path) == 0
