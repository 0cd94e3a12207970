"""
LAS compares universal relations taken from the gold strings, as the CoNLL 2018 evaluation does: a gold
relation whose full form never occurred in training (`obj:unseen`) is right when the prediction has its
universal part (`obj`), though its indexed label is the unknown one.
"""
from pathlib import Path

import pytest
import torch
from allennlp.common import Params
from allennlp.data import Batch, Vocabulary
from allennlp.models import Model

import seqgraph_allennlp  # noqa: F401
from seqgraph_allennlp.dataset_readers import SeqGraphUDReader
from seqgraph_allennlp.training.attachment_scores import (
    UniversalRelationAttachmentScores,
    gold_universal_labels,
    universal_label_table,
)

ROOT = Path(__file__).resolve().parents[1]
LABELS = ["@@PADDING@@", "@@UNKNOWN@@", "nmod", "obj", "nmod:poss"]


def test_gold_universal_labels_from_strings():
    metadata = [{"deprels": ["nmod:tmod", "obj", "dislocated"]}, {"deprels": ["nmod:poss"]}]
    gold = gold_universal_labels(metadata, LABELS, 3, torch.device("cpu"))
    # nmod:tmod and nmod:poss -> the index of the first label with universal part nmod; dislocated and
    # padding -> -1
    assert gold.tolist() == [[2, 3, -1], [2, -1, -1]]
    assert gold_universal_labels([{"deprels": None}], LABELS, 3, torch.device("cpu")) is None


def test_unseen_subtype_counts_right_with_strings_and_wrong_when_indexed():
    def las(gold_universal):
        scores = UniversalRelationAttachmentScores(universal_label_table(LABELS))
        scores.gold_universal = gold_universal
        # one word, right head, predicted nmod; gold nmod:tmod is the unknown label (index 1) once indexed
        scores(torch.tensor([[2]]), torch.tensor([[2]]), torch.tensor([[2]]), torch.tensor([[1]]))
        return scores.get_metric()["LAS"]

    assert las(gold_universal_labels([{"deprels": ["nmod:tmod"]}], LABELS, 1, torch.device("cpu"))) == 1.0
    assert las(None) == 0.0


def unseen_subtype_batch():
    """The fixture sentences, indexed with their own vocabulary, after every `obj` became `obj:unseen`."""
    reader = SeqGraphUDReader()
    instances = list(reader.read(str(ROOT / "fixtures" / "conllu" / "en_small.conllu")))
    vocab = Vocabulary.from_instances(instances, non_padded_namespaces=["*labels", "head_index_tags"])
    changed = []
    for instance in instances:
        deprels = [d + ":unseen" if d == "obj" else d for d in instance["metadata"]["deprels"]]
        changed.append(reader.text_to_instance(
            instance["metadata"]["words"], heads=instance["head_indices"].labels, deprels=deprels,
        ))
        reader.apply_token_indexers(changed[-1])
    assert sum(d.endswith(":unseen") for i in changed for d in i["metadata"]["deprels"]) >= 2
    batch = Batch(changed)
    batch.index_instances(vocab)
    tensors = batch.as_tensor_dict()
    # the gold label of every obj:unseen word is the unknown one
    unknown = vocab.get_token_index(vocab._oov_token, "head_tags")
    assert (tensors["head_tags"] == unknown).sum() >= 2
    original = Batch(instances)
    original.index_instances(vocab)
    return tensors, original.as_tensor_dict(), vocab


@pytest.mark.parametrize("config", ["coach_valid", "biaffine_mst"])
def test_models_score_unseen_subtypes_by_their_universal_part(config, monkeypatch):
    tensors, original, vocab = unseen_subtype_batch()
    # the batch has no UPOS: coach_valid without its tagger
    overrides = '{"model.predict_upos": false}' if config == "coach_valid" else ""
    model = Model.from_params(vocab=vocab, params=Params.from_file(
        str(ROOT / "fixtures" / "configs" / f"{config}.jsonnet"), overrides)["model"])
    model.eval()
    # a perfect parser: gold heads and the original (seen) gold labels
    batch_size = original["head_indices"].size(0)
    gold_heads = torch.cat([original["head_indices"].new_zeros(batch_size, 1), original["head_indices"]], dim=1)
    gold_labels = torch.cat([original["head_tags"].new_zeros(batch_size, 1), original["head_tags"]], dim=1)
    if config == "coach_valid":
        monkeypatch.setattr(model.tree_phase, "decode", lambda *args: (gold_heads, None))
        num_labels = vocab.get_vocab_size("head_tags")
        monkeypatch.setattr(model.label_classifier, "logits",
                            lambda *args: torch.nn.functional.one_hot(gold_labels, num_labels).float())
    else:
        monkeypatch.setattr(model, "_mst_decode", lambda *args: (gold_heads, gold_labels))
    with torch.no_grad():
        model(**tensors)
    metrics = model.get_metrics(reset=True)
    assert metrics["UAS"] == 1.0
    assert metrics["LAS"] == 1.0
