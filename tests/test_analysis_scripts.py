"""The analysis scripts (easy-first evidence, tau sweep) on the tiny model of conftest.py."""
import math
import sys
from pathlib import Path

import pytest
from allennlp.models.archival import load_archive

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
DATA = str(ROOT / "fixtures" / "conllu" / "en_small.conllu")

import easy_first  # noqa: E402
import tau_sweep  # noqa: E402


@pytest.fixture(scope="module")
def archive(trained_model_archive):
    return load_archive(trained_model_archive)


def test_easy_first_counts_every_word_once_and_bounds_the_entropy(archive):
    result = easy_first.analyse(archive, DATA)
    instances = list(archive.validation_dataset_reader.read(DATA))
    words = sum(len(instance["head_indices"].labels) for instance in instances)
    rows = result["by_relative_step"]
    assert sum(row["edges"] for row in rows) == words
    assert sum(info["count"] for info in result["relations"].values()) == words
    for row in rows:
        if row["edges"]:
            assert 0.0 <= row["accuracy"] <= 1.0
            assert 0.0 <= row["relative_entropy"] <= 1.0 + 1e-6
            assert row["entropy"] >= 0.0 and not math.isnan(row["entropy"])


def test_tau_sweep_one_edge_per_step_takes_one_step_per_word(archive):
    instances, gold = tau_sweep.load_instances(archive, DATA)
    model = archive.model
    model.eval()
    one_edge = tau_sweep.decode(model, instances, gold, None)
    assert one_edge["steps_per_sentence"] == pytest.approx(one_edge["words_per_sentence"])
    # tau = 1 can never add a second edge in a step either; a tiny tau adds many
    assert tau_sweep.decode(model, instances, gold, 1.0)["steps_per_sentence"] == pytest.approx(
        one_edge["words_per_sentence"])
    assert tau_sweep.decode(model, instances, gold, 1e-9)["steps_per_sentence"] < one_edge["words_per_sentence"]
    model.tau = None
