import json
from pathlib import Path

import numpy
import pytest

from seqgraph_allennlp.common.conllu import read_sentences
from seqgraph_allennlp.common.scoring import AlignmentError
from seqgraph_experiments import paired_bootstrap
from seqgraph_experiments.paired_bootstrap import paired_bootstrap as bootstrap
from seqgraph_experiments.paired_bootstrap import sentence_counts

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "conllu"
GOLD = FIXTURES / "en_small.conllu"


def with_heads_changed(tmp_path: Path, sentence_indices) -> Path:
    """The gold file with word 1 of the given sentences given a wrong head (0, or 2 where 0 is right)."""
    lines, sentence = [], 0
    for line in GOLD.read_text(encoding="utf-8").splitlines():
        columns = line.split("\t")
        if not line:
            sentence += 1
        elif columns[0] == "1" and sentence in sentence_indices:
            columns[6] = "2" if columns[6] == "0" else "0"
            line = "\t".join(columns)
        lines.append(line)
    path = tmp_path / "predicted.conllu"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_sentence_counts_are_the_words_of_each_sentence_and_those_right():
    sentences = list(read_sentences(str(GOLD)))
    table = sentence_counts(str(GOLD), str(GOLD))
    assert table[:, 0].tolist() == [len(sentence.words) for sentence in sentences]
    assert (table[:, 1] == table[:, 0]).all() and (table[:, 2] == table[:, 0]).all()


def test_a_wrong_head_counts_against_its_sentence_only(tmp_path):
    predicted = with_heads_changed(tmp_path, {1})
    table = sentence_counts(str(GOLD), str(predicted))
    gold = sentence_counts(str(GOLD), str(GOLD))
    assert (gold[:, 1] - table[:, 1]).tolist() == [0, 1] + [0] * (len(table) - 2)


def test_the_gzipped_predictions_a_run_keeps_count_as_the_file_itself(tmp_path):
    import gzip

    predicted = with_heads_changed(tmp_path, {1, 3})
    kept = tmp_path / "row.test.conllu.gz"
    kept.write_bytes(gzip.compress(predicted.read_bytes()))
    table = sentence_counts(str(GOLD), str(kept))
    assert numpy.array_equal(table, sentence_counts(str(GOLD), str(predicted)))
    assert (table[:, 1] < table[:, 0]).sum() == 2


def test_predictions_of_another_file_are_refused(tmp_path):
    shorter = tmp_path / "shorter.conllu"
    shorter.write_text(GOLD.read_text(encoding="utf-8").split("\n\n")[0] + "\n\n", encoding="utf-8")
    with pytest.raises(AlignmentError):
        sentence_counts(str(GOLD), str(shorter))


def test_equal_predictions_never_lead():
    table = numpy.array([[10, 8, 7], [5, 5, 4], [7, 3, 3]])
    result = bootstrap(table, table.copy(), samples=200, seed=0)
    assert result["UAS"]["difference"] == 0.0 and result["UAS"]["interval_95"] == [0.0, 0.0]
    assert result["UAS"]["share_not_leading"] == 1.0


def test_one_error_in_one_sentence_is_undone_when_that_sentence_is_not_drawn():
    # five sentences of 4 words; the second parser has one wrong head in the last one. The first parser
    # does not lead exactly in the samples that never draw that sentence: (4/5)^5 of them
    first = numpy.array([[4, 4, 4]] * 5)
    second = first.copy()
    second[4, 1] = 3
    result = bootstrap(first, second, samples=40000, seed=3)
    assert result["UAS"]["difference"] == pytest.approx(1 / 20)
    assert result["UAS"]["share_not_leading"] == pytest.approx(0.8 ** 5, abs=0.01)
    assert result["LAS"]["difference"] == 0.0
    with pytest.raises(ValueError):
        bootstrap(first, first[:4], samples=10, seed=0)


def test_the_command_writes_its_json(tmp_path, monkeypatch):
    monkeypatch.setattr(paired_bootstrap, "OUT", tmp_path / "significance")
    predicted = with_heads_changed(tmp_path, {0, 1})
    paired_bootstrap.main([str(GOLD), str(GOLD), str(predicted), "--names", "gold", "changed", "--name", "t",
                           "--samples", "500"])
    result = json.loads((tmp_path / "significance" / "t.json").read_text())
    words = int(sentence_counts(str(GOLD), str(GOLD))[:, 0].sum())
    assert result["gold"]["words"] == words
    assert result["UAS"]["difference"] == pytest.approx(2 / words)
    assert [parser["name"] for parser in result["parsers"]] == ["gold", "changed"]
    assert result["parsers"][0]["UAS"] == 1.0 and result["parsers"][1]["UAS"] == pytest.approx(1 - 2 / words)
    assert result["command"].startswith("scripts/paired_bootstrap.py")

    from seqgraph_experiments.report import write_report

    write_report(tmp_path, tmp_path / "RESULTS.md")
    report = (tmp_path / "RESULTS.md").read_text()
    assert "## Paired bootstrap (t): gold against changed" in report
    assert f"| UAS | 100.00 | {100 * (1 - 2 / words):.2f} | {200 / words:+.2f} |" in report


ENHANCED_GOLD = FIXTURES / "enhanced.conllu"
ENHANCED_PREDICTED = FIXTURES / "enhanced_predicted.conllu"


def test_enhanced_sentence_counts_pool_to_the_scorers_elas_and_eulas():
    from seqgraph_allennlp.common.scoring import count_enhanced_files

    table = paired_bootstrap.enhanced_sentence_counts(str(ENHANCED_GOLD), str(ENHANCED_PREDICTED))
    scores = count_enhanced_files(str(ENHANCED_GOLD), str(ENHANCED_PREDICTED)).scores()
    assert table.shape == (3, 4) and scores["ELAS"] < scores["EULAS"] < 1
    assert paired_bootstrap.f1(table, 2) == pytest.approx(scores["ELAS"])
    assert paired_bootstrap.f1(table, 3) == pytest.approx(scores["EULAS"])
    # the hand edits of enhanced_predicted.conllu (fixtures/conllu/README.md) touch every sentence
    gold = paired_bootstrap.enhanced_sentence_counts(str(ENHANCED_GOLD), str(ENHANCED_GOLD))
    assert (table[:, 2] < gold[:, 2]).all() and (gold[:, 0] == gold[:, 1]).all()


def test_a_file_without_deps_has_no_enhanced_counts(tmp_path):
    lines = [line.split("\t") for line in ENHANCED_GOLD.read_text(encoding="utf-8").splitlines()]
    without = tmp_path / "without_deps.conllu"
    without.write_text("\n".join("\t".join(columns[:8] + ["_", columns[9]]) if len(columns) == 10 else columns[0]
                                 for columns in lines) + "\n", encoding="utf-8")
    assert paired_bootstrap.enhanced_sentence_counts(str(ENHANCED_GOLD), str(without)) is None


def test_one_missing_edge_is_undone_when_its_sentence_is_not_drawn():
    # five sentences of 4 gold edges; the second parser misses one edge of the last. The first parser does
    # not lead in ELAS exactly in the samples that never draw that sentence, and leads in EULAS as in ELAS
    first = numpy.array([[4, 4, 4, 4]] * 5)
    second = first.copy()
    second[4, 1:] = 3
    result = paired_bootstrap.enhanced_paired_bootstrap(first, second, samples=40000, seed=3)
    assert result["ELAS"]["difference"] == pytest.approx(1 - 2 * 19 / 39)
    assert result["ELAS"]["share_not_leading"] == pytest.approx(0.8 ** 5, abs=0.01)
    assert result["EULAS"] == result["ELAS"]
    # the same samples as the tree metrics' for the same seed
    tree_first = numpy.array([[4, 4, 4]] * 5)
    tree_second = tree_first.copy()
    tree_second[4, 1] = 3
    tree = bootstrap(tree_first, tree_second, samples=40000, seed=3)
    assert tree["UAS"]["share_not_leading"] == result["ELAS"]["share_not_leading"]
    with pytest.raises(ValueError):
        paired_bootstrap.enhanced_paired_bootstrap(first, first[:4], samples=10, seed=0)


def test_the_command_adds_elas_and_eulas_for_enhanced_graphs(tmp_path, monkeypatch):
    monkeypatch.setattr(paired_bootstrap, "OUT", tmp_path / "significance")
    paired_bootstrap.main([str(ENHANCED_GOLD), str(ENHANCED_GOLD), str(ENHANCED_PREDICTED), "--names", "gold",
                           "edited", "--name", "g", "--samples", "300"])
    result = json.loads((tmp_path / "significance" / "g.json").read_text())
    edited = paired_bootstrap.enhanced_sentence_counts(str(ENHANCED_GOLD), str(ENHANCED_PREDICTED))
    assert result["parsers"][0]["ELAS"] == 1.0 and result["parsers"][1]["ELAS"] == paired_bootstrap.f1(edited, 2)
    assert result["ELAS"]["difference"] == pytest.approx(1 - paired_bootstrap.f1(edited, 2))

    from seqgraph_experiments.report import write_report

    write_report(tmp_path, tmp_path / "RESULTS.md")
    report = (tmp_path / "RESULTS.md").read_text()
    elas = 100 * paired_bootstrap.f1(edited, 2)
    assert f"| ELAS | 100.00 | {elas:.2f} | {100 - elas:+.2f} |" in report
    assert "| EULAS | 100.00 |" in report


def test_enhanced_counts_of_another_file_are_refused(tmp_path):
    shorter = tmp_path / "shorter.conllu"
    shorter.write_text(ENHANCED_GOLD.read_text(encoding="utf-8").split("\n\n")[0] + "\n\n", encoding="utf-8")
    with pytest.raises(AlignmentError):
        paired_bootstrap.enhanced_sentence_counts(str(ENHANCED_GOLD), str(shorter))
