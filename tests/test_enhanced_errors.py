"""
scripts/enhanced_errors.py (`seqgraph_experiments.enhanced_errors`): the edge kinds and their recall, on the
enhanced fixture against itself and against a copy with one extra edge taken out.
"""
import gzip
import json

import pytest

from seqgraph_experiments import ROOT
from seqgraph_experiments.enhanced_errors import compare, main

ENHANCED = ROOT / "fixtures" / "conllu" / "enhanced.conllu"


def test_a_file_against_itself_recalls_every_edge():
    result = compare(str(ENHANCED), str(ENHANCED))
    assert result["labelled_recall"] == result["unlabelled_recall"] == 1.0
    assert all(kind["recall_points_lost"] == 0.0 for kind in result["gold_by_kind"].values())
    # "He was trying to buddy ... and impress him": impress has a second head, trying (3:xcomp)
    assert result["gold_by_kind"]["extra:xcomp"]["edges"] >= 1
    assert result["predicted_by_kind"]["extra"]["labelled_precision"] == 1.0
    assert result["gold_extra"]["labelled_recall"] == 1.0
    assert result["gold_extra"]["edges"] == sum(
        kind["edges"] for name, kind in result["gold_by_kind"].items() if name.startswith("extra:"))


def test_a_missing_extra_edge_is_counted_as_its_kind(tmp_path):
    text = ENHANCED.read_text(encoding="utf-8")
    line = "9\timpress\timpress\tVERB\tVB\tVerbForm=Inf\t5\tconj\t3:xcomp|5:conj:and\t_"
    assert line in text
    predicted = tmp_path / "predicted.conllu"
    predicted.write_text(text.replace(line, line.replace("3:xcomp|5:conj:and", "5:conj:and")), encoding="utf-8")
    full, missing = compare(str(ENHANCED), str(ENHANCED)), compare(str(ENHANCED), str(predicted))
    xcomp = missing["gold_by_kind"]["extra:xcomp"]
    assert xcomp["edges"] == full["gold_by_kind"]["extra:xcomp"]["edges"]
    assert xcomp["labelled_recall"] == pytest.approx((xcomp["edges"] - 1) / xcomp["edges"])
    assert xcomp["recall_points_lost"] == pytest.approx(100.0 / missing["gold_edges"])
    assert missing["gold_by_kind"]["tree"]["labelled_recall"] == 1.0
    extra = missing["gold_extra"]
    one_lost = (extra["edges"] - 1) / extra["edges"]
    assert extra["labelled_recall"] == extra["unlabelled_recall"] == pytest.approx(one_lost)
    out = tmp_path / "errors.json"
    main([str(ENHANCED), str(predicted), "--out", str(out)])
    assert json.loads(out.read_text())["gold_by_kind"]["extra:xcomp"] == xcomp
    # the gzipped copy a row keeps reads as the file
    zipped = tmp_path / "predicted.conllu.gz"
    zipped.write_bytes(gzip.compress(predicted.read_bytes()))
    assert compare(str(ENHANCED), str(zipped)) == missing
