"""
scripts/raw_text_eval.py (a model parses a treebank from its raw text and from its gold tokens, scored by
`udtools.udeval`) and its section of docs/RESULTS.md, with the tiny fixture parser.
"""
import json
import subprocess
import sys
from pathlib import Path

from seqgraph_allennlp import Parser
from seqgraph_allennlp.common.scoring import enhanced_scores, score_files
from seqgraph_allennlp.segmentation.archive import attach_segmenter
from seqgraph_experiments.report.raw_text import raw_text_table

ROOT = Path(__file__).resolve().parents[1]

GOLD = ROOT / "fixtures" / "conllu" / "en_small.conllu"


def raw_text_eval(archive, name: str, out_dir: Path) -> dict:
    """scripts/raw_text_eval.py of an archive on GOLD, as a user runs it: the JSON it wrote."""
    completed = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "raw_text_eval.py"), str(archive), str(GOLD),
         "--name", name, "--out-dir", str(out_dir)],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads((out_dir / f"{name}.json").read_text())


def test_raw_text_and_gold_tokens_are_scored(trained_model_archive, tmp_path):
    result = raw_text_eval(trained_model_archive, "fixture", tmp_path)
    raw, gold = result["rows"]
    # an archive without a segmenter: spaCy's rules only
    assert raw["input"] == "raw text (paragraphs), spaCy rules (en)" and gold["input"] == "gold tokenisation"
    # gold tokens: every word aligned, and UAS / LAS as the project's own scorer counts them
    assert gold["Tokens"] == gold["Words"] == gold["Sentences"] == 100.0
    predicted = tmp_path / "predicted.conllu"
    predicted.write_text(Parser.from_archive(trained_model_archive).parse_conllu(GOLD).to_conllu())
    counts = score_files(str(GOLD), str(predicted))
    assert abs(gold["UAS"] - round(100 * counts["UAS"], 2)) < 1e-9
    assert abs(gold["LAS"] - round(100 * counts["LAS"], 2)) < 1e-9
    # the fixture model has no tagger: no UPOS figure
    assert raw["UPOS"] is None and gold["UPOS"] is None
    assert 0 < raw["Words"] <= 100 and raw["UAS"] <= raw["Words"]

    section = "\n".join(raw_text_table(result))
    assert "## Raw text: parsing (fixture)" in section
    assert f"| gold tokenisation | 100.00 | 100.00 | 100.00 | — | {gold['UAS']:.2f} | {gold['LAS']:.2f} |" in section


def test_an_archive_with_a_segmenter_gets_a_row_for_each_splitter(trained_model_archive, segmenter_archive, tmp_path):
    archive = tmp_path / "with_segmenter.tar.gz"
    attach_segmenter(str(trained_model_archive), str(segmenter_archive), str(archive))
    learned, rules, gold = raw_text_eval(archive, "fixture", tmp_path)["rows"]
    assert learned["input"] == "raw text (paragraphs), learned segmenter"
    assert rules["input"] == "raw text (paragraphs), spaCy rules (en)"
    assert gold["Words"] == 100.0
    for row in (learned, rules):
        assert 0 < row["Words"] <= 100 and row["UAS"] <= row["Words"]


def test_a_model_of_the_enhanced_graph_gets_elas_and_eulas_from_raw_text(enhanced_model_archive, tmp_path):
    result = raw_text_eval(enhanced_model_archive, "enhanced", tmp_path)
    raw, gold = result["rows"]
    # gold tokens: the project's enhanced scorer on the same model's prediction, empty nodes collapsed
    predicted = tmp_path / "predicted.conllu"
    predicted.write_text(Parser.from_archive(enhanced_model_archive).parse_conllu(GOLD).to_conllu())
    scores = enhanced_scores(str(GOLD), str(predicted))
    assert gold["ELAS"] == round(100 * scores["ELAS"], 2) and gold["EULAS"] == round(100 * scores["EULAS"], 2)
    assert 0 < raw["ELAS"] <= raw["EULAS"] <= 100 and raw["ELAS"] <= raw["Words"]
    assert "ELAS, EULAS with empty nodes collapsed" in result["scorer"]
    section = "\n".join(raw_text_table(result))
    assert "| input | Tokens | Sentences | Words | UPOS | UAS | LAS | ELAS | EULAS | s |" in section
    assert f"| {gold['LAS']:.2f} | {gold['ELAS']:.2f} | {gold['EULAS']:.2f} | {gold['seconds']:.1f} |" in section


def test_a_tree_model_gets_no_elas_from_a_gold_file_with_enhanced_graphs(trained_model_archive, tmp_path):
    # en_small.conllu has DEPS; the tree model writes none, and the gold tokens' DEPS are not its own
    result = raw_text_eval(trained_model_archive, "tree", tmp_path)
    assert all("ELAS" not in row for row in result["rows"])
    assert "| ELAS |" not in "\n".join(raw_text_table(result))
