"""`make english-model` (scripts/english_model.sh) on a fixture twin: it trains with its budget (overridden here),
evaluates on the test file, and a second run neither trains again nor loses the model."""
import json
import os
import subprocess
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_script(env):
    return subprocess.run(["bash", "scripts/english_model.sh"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)


def gold_heads_and_relations(path):
    """`(head, universal relation)` of every word of a CoNLL-U file, by hand: no ranges, no empty nodes."""
    words = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        columns = line.split("\t")
        if len(columns) == 10 and columns[0].isdigit():
            words.append((int(columns[6]), columns[7].split(":")[0]))
    return words


def test_english_model_script_trains_evaluates_and_keeps_a_trained_model(tmp_path):
    model_dir = tmp_path / "english"
    env = {**os.environ, "ENGLISH_CONFIG": "fixtures/configs/coach_valid.jsonnet", "ENGLISH_MODEL_DIR": str(model_dir),
           "ENGLISH_TEST": "fixtures/conllu/en_heldout.conllu", "ENGLISH_EPOCHS": "2", "ENGLISH_PATIENCE": "1",
           "SEGMENTER_CONFIG": "fixtures/configs/segmenter.jsonnet",
           "OMP_NUM_THREADS": "1"}
    first = run_script(env)
    assert first.returncode == 0, first.stderr[-3000:]
    used = json.loads((model_dir / "config.json").read_text())
    assert used["trainer"]["num_epochs"] == 2 and used["trainer"]["patience"] == 1
    assert used["model"]["type"] == "seqgraph_parser"
    test_metrics = json.loads((model_dir / "test_metrics.json").read_text())
    # allennlp evaluate on the held-out file scored the kept model's parses: UAS and LAS counted again
    # here from the archive's parses of the same file and the file's gold columns (every word; LAS on the
    # universal relation)
    from seqgraph_allennlp.api import Parser

    gold = gold_heads_and_relations(ROOT / env["ENGLISH_TEST"])
    parsed = Parser.from_archive(model_dir / "model.tar.gz").parse_conllu(str(ROOT / env["ENGLISH_TEST"]))
    predicted = [(word.head, word.deprel.split(":")[0]) for sentence in parsed for word in sentence.words]
    assert len(predicted) == len(gold) > 30
    right_heads = [guess[0] == truth[0] for guess, truth in zip(predicted, gold)]
    right_both = [guess == truth for guess, truth in zip(predicted, gold)]
    assert test_metrics["UAS"] == pytest.approx(sum(right_heads) / len(gold), abs=1e-9)
    assert test_metrics["LAS"] == pytest.approx(sum(right_both) / len(gold), abs=1e-9)
    assert 0 < test_metrics["loss"] < 100
    assert "english-model: fixtures/configs/coach_valid.jsonnet in" in first.stdout
    # the segmenter, trained after the parser, is inside its archive, and raw text was parsed with both splitters
    with tarfile.open(model_dir / "model.tar.gz") as archive_file:
        assert "segmenter.tar.gz" in archive_file.getnames()
    raw_rows = json.loads((model_dir / "raw_text.json").read_text())["rows"]
    assert [row["input"] for row in raw_rows] == [
        "raw text (paragraphs), learned segmenter", "raw text (paragraphs), spaCy rules (en)", "gold tokenisation"]
    assert "learned segmenter" in first.stdout and "Tokens" in first.stdout
    archive = model_dir / "model.tar.gz"
    trained_at = archive.stat().st_mtime_ns
    # a trained segmenter named by SEGMENTER_MODEL is put in instead of training one (here the same one)
    second = run_script({**env, "SEGMENTER_MODEL": str(model_dir / "segmenter" / "model.tar.gz")})
    assert second.returncode == 0, second.stderr[-3000:]
    assert "is trained already" in second.stdout and archive.stat().st_mtime_ns == trained_at
    assert "trained already (SEGMENTER_MODEL)" in second.stdout


def test_a_missing_segmenter_model_is_refused_before_any_training(tmp_path):
    env = {**os.environ, "ENGLISH_MODEL_DIR": str(tmp_path / "english"), "SEGMENTER_MODEL": str(tmp_path / "none.tar.gz")}
    result = run_script(env)
    assert result.returncode == 2
    assert result.stderr.strip() == f"error: {tmp_path / 'none.tar.gz'}: no such segmenter archive (SEGMENTER_MODEL)"
    assert not (tmp_path / "english").exists()
