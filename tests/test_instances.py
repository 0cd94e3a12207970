"""`seqgraph_experiments.instances`: a file read by a model's own reader and parsed in the predictor's buckets."""
from pathlib import Path

import pytest
from allennlp.models.archival import load_archive

from seqgraph_experiments.instances import forward_in_buckets, read_instances

ROOT = Path(__file__).resolve().parents[1]
DATA = str(ROOT / "fixtures" / "conllu" / "en_small.conllu")


@pytest.fixture(scope="module")
def archive(trained_model_archive):
    return load_archive(trained_model_archive)


def test_forward_in_buckets_returns_each_sentence_its_own_parse_in_file_order(archive):
    instances = read_instances(archive, DATA, gold=False)
    gold = [instance["head_indices"].labels for instance in read_instances(archive, DATA)]
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
