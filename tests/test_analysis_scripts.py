"""The analysis scripts (easy-first evidence, tau sweep) on the tiny model of conftest.py."""
import json
import math
from collections import defaultdict
from pathlib import Path

import pytest
import torch
from allennlp.data import Batch
from allennlp.models.archival import load_archive

from seqgraph_allennlp.predictors.batching import without_gold
from seqgraph_allennlp.structs.tree import transitive_closure, valid_mask
from seqgraph_experiments import easy_first, tau_sweep
from seqgraph_experiments.instances import parse_instances

ROOT = Path(__file__).resolve().parents[1]
DATA = str(ROOT / "fixtures" / "conllu" / "en_small.conllu")


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


def reference_by_relative_step(archive):
    """
    easy_first's measures by relative step, computed apart: one sentence at a time, each step's valid edges
    rebuilt from the edges of the earlier steps (`valid_mask` of their transitive closure).
    """
    model = archive.model
    model.eval()
    reader = archive.validation_dataset_reader
    instances = list(reader.read(DATA))
    stripped = [without_gold(instance) for instance in instances]
    for instance in stripped:
        reader.apply_token_indexers(instance)
    batch = Batch(stripped)
    batch.index_instances(model.vocab)
    decoding = model.decode_steps(batch.as_tensor_dict()["words"])
    num_nodes = decoding["mask"].size(1)
    measures = defaultdict(lambda: defaultdict(list))
    for sentence, instance in enumerate(instances):
        gold = instance["head_indices"].labels
        num_words = len(gold)
        edges = decoding["edges"][sentence, :num_words].tolist()
        steps = decoding["edge_steps"][sentence, :num_words].tolist()
        for position, ((head, dependent), step) in enumerate(zip(edges, steps)):
            earlier = torch.zeros(1, num_nodes, num_nodes, dtype=torch.bool)
            for (earlier_head, earlier_dependent), earlier_step in zip(edges, steps):
                earlier[0, earlier_head, earlier_dependent] = earlier_step < step
            valid = valid_mask(earlier, transitive_closure(earlier), decoding["mask"][sentence : sentence + 1])[0]
            policy = decoding["policies"][sentence, step] * valid
            policy = policy / policy.sum()
            entropy = float(-(policy * policy.clamp(min=1e-30).log()).sum())
            row = measures[min(easy_first.BINS - 1, easy_first.BINS * position // num_words)]
            row["entropy"].append(entropy)
            row["relative_entropy"].append(entropy / math.log(max(int(valid.sum()), 2)))
            row["accuracy"].append(float(gold[dependent - 1] == head))
    return measures, decoding


@pytest.mark.parametrize("tau", [None, 0.001])
def test_easy_first_measures_each_edge_at_the_step_that_added_it(trained_model_archive, tau):
    archive = load_archive(trained_model_archive, overrides=json.dumps({"model.tau": tau}))
    expected, decoding = reference_by_relative_step(archive)
    num_words = decoding["mask"].sum(dim=-1) - 1
    num_steps = decoding["edge_steps"].max(dim=-1).values + 1
    if tau is None:
        assert torch.equal(num_steps, num_words)
    else:
        # several edges in a step, which a replay of one edge per step got wrong
        assert (num_steps < num_words).any()
    result = easy_first.analyse(archive, DATA)
    for row in result["by_relative_step"]:
        measures = expected[row["bin"]]
        assert row["edges"] == len(measures["entropy"])
        for key in ("entropy", "relative_entropy", "accuracy"):
            if measures[key]:
                assert row[key] == pytest.approx(sum(measures[key]) / len(measures[key]), rel=1e-4, abs=1e-6), key


def test_tau_sweep_one_edge_per_step_takes_one_step_per_word(archive):
    instances, gold = parse_instances(archive, DATA)
    model = archive.model
    model.eval()
    one_edge = tau_sweep.decode(model, instances, gold, None)
    assert one_edge["steps_per_sentence"] == pytest.approx(one_edge["words_per_sentence"])
    # tau = 1 can never add a second edge in a step either; a tiny tau adds many
    assert tau_sweep.decode(model, instances, gold, 1.0)["steps_per_sentence"] == pytest.approx(
        one_edge["words_per_sentence"])
    assert tau_sweep.decode(model, instances, gold, 1e-9)["steps_per_sentence"] < one_edge["words_per_sentence"]
    # the sweep passes its options to each call: the model keeps its config's
    assert model.tau == 0.05


def test_forward_in_buckets_returns_each_sentence_its_own_parse_in_file_order(archive):
    from seqgraph_experiments.instances import forward_in_buckets

    instances, gold = parse_instances(archive, DATA)
    model = archive.model.eval()
    # a bucket runs its sentences sorted by length (the first batch has 7, 5, 16, 33 and 11 words): the
    # outputs must be put back in file order
    outputs = forward_in_buckets(model, instances, batch_size=5)
    assert len(outputs) == len(instances)
    for instance, reference, output in zip(instances, gold, outputs):
        alone = model.forward_on_instance(instance)
        assert len(output["predicted_heads"]) == len(reference)
        assert list(output["predicted_heads"]) == list(alone["predicted_heads"])
        assert output["words"] == alone["words"]
