"""
A CoNLL-U file read by a trained model's own dataset reader (its archive's), as the tools feed it to the
model: with the gold annotation (training, scoring), or without it, as the predictor parses (no loss).
"""
from typing import Any, Dict, List

from allennlp.data import Instance

from seqgraph_allennlp.predictors.batching import forward_in_length_buckets, without_gold


def read_instances(archive, path: str, gold: bool = True) -> List[Instance]:
    """The file's instances, indexed; without `gold`, without their gold heads and labels."""
    reader = archive.validation_dataset_reader
    instances = list(reader.read(path))
    for instance in instances:
        reader.apply_token_indexers(instance)
    # the copies share the indexed words field
    return instances if gold else [without_gold(instance) for instance in instances]


def forward_in_buckets(model, instances: List[Instance], batch_size: int = 64) -> List[Dict[str, Any]]:
    """
    `Model.forward_on_instances` (under `no_grad`, human-readable output) over `instances` in file order,
    each batch of `batch_size` sentences cut into length buckets as the `seqgraph_parser` predictor does:
    the outputs, in the order of `instances`.
    """
    outputs: List[Dict[str, Any]] = []
    for begin in range(0, len(instances), batch_size):
        outputs.extend(forward_in_length_buckets(model.forward_on_instances, instances[begin: begin + batch_size]))
    return outputs
