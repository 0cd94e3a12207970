"""
training_config/coach_valid_mpnet.jsonnet and biaffine_mst_mpnet.jsonnet (mpnet.libsonnet): the same features
for both; their fixture twins train, save, load and predict with the shipped
mpnet indexer and cached, layer-mixed embedder over a tiny random MPNet written here (the real model is
438 MB and comes from `make english`); without the model the config says how to get it.
"""
import pytest
from allennlp.common import Params
from allennlp.common.testing import ModelTestCase

import seqgraph_allennlp  # noqa: F401
from seqgraph_allennlp.structs.tree import is_tree

from tests.test_model import BIAFFINE_CANCELLED_GRADIENTS, CONFIGS, DATA, ROOT


@pytest.mark.parametrize("name", ["coach_valid_mpnet", "biaffine_mst_mpnet"])
def test_mpnet_config_says_how_to_get_the_model(monkeypatch, name):
    monkeypatch.setenv("PRETRAINED_MPNET", "")
    with pytest.raises(RuntimeError, match="make english"):
        Params.from_file(str(ROOT / "training_config" / f"{name}.jsonnet"))


def test_the_baseline_over_mpnet_reads_the_same_features_as_the_recurrent_parser(monkeypatch):
    monkeypatch.setenv("PRETRAINED_MPNET", "/models/all-mpnet-base-v2")
    recurrent = Params.from_file(str(ROOT / "training_config" / "coach_valid_mpnet.jsonnet")).as_dict()
    baseline = Params.from_file(str(ROOT / "training_config" / "biaffine_mst_mpnet.jsonnet")).as_dict()
    plain = Params.from_file(str(ROOT / "training_config" / "biaffine_mst.jsonnet")).as_dict()
    assert baseline["model"]["type"] == "conll18_biaffine_parser"
    for part in ("text_field_embedder", "encoder"):
        assert baseline["model"][part] == recurrent["model"][part], part
    # the same reader, but the recurrent parser's reads the gold UPOS as its tagger's targets
    assert {**baseline["dataset_reader"], "upos_targets": True} == recurrent["dataset_reader"]
    assert recurrent["model"]["predict_upos"] and not baseline["dataset_reader"].get("upos_targets", False)
    assert baseline["model"]["encoder"]["input_size"] == plain["model"]["encoder"]["input_size"] + 768
    # everything else is the plain baseline's
    for key in set(plain) - {"dataset_reader", "model"}:
        assert baseline[key] == plain[key], key
    for key in set(plain["model"]) - {"text_field_embedder", "encoder"}:
        assert baseline["model"][key] == plain["model"][key], key
    assert set(baseline["model"]) == set(plain["model"])


class TestMpnetConfig(ModelTestCase):
    def test_twin_trains_saves_loads_and_decodes_trees(self, tiny_mpnet, monkeypatch):
        monkeypatch.setenv("PRETRAINED_MPNET", tiny_mpnet)
        params = Params.from_file(str(ROOT / "training_config" / "coach_valid_mpnet.jsonnet"))
        embedder = params["model"]["text_field_embedder"]["token_embedders"]["mpnet"]
        assert embedder["mixed_layers"] == [-4, -3, -2, -1] and embedder["train_parameters"] is False
        # all-mpnet-base-v2 built with its first five layers: layers 2-5 mixed
        assert embedder["transformer_kwargs"] == {"local_files_only": True, "num_hidden_layers": 5}
        # the trained word and character embeddings stay beside the transformer's vectors
        assert set(params["dataset_reader"]["token_indexers"]) == {"tokens", "token_characters", "mpnet"}

        self.set_up_model(CONFIGS / "coach_valid_mpnet.jsonnet", DATA, seed=13)
        self.ensure_model_can_train_save_and_load(CONFIGS / "coach_valid_mpnet.jsonnet", seed=13)
        self.ensure_batch_predictions_are_consistent()
        mpnet = self.model.text_field_embedder._token_embedders["mpnet"]
        # only the mix of the four layers trains on the transformer's side
        trained = [name for name, parameter in mpnet.named_parameters() if parameter.requires_grad]
        assert sorted(trained) == ["_layer_mix.gamma"] + [f"_layer_mix.scalar_parameters.{i}" for i in range(4)]
        self.model.eval()
        tensors = self.dataset.as_tensor_dict()
        output = self.model(**tensors)
        assert is_tree(output["heads"], output["mask"], single_root=True).all()
        # the English model tags: its reader gives the tagger the gold UPOS, and every word gets a tag
        assert self.model.predicts_upos and "upos_tags" in tensors
        assert "upos_loss" in output and output["upos"].shape == output["mask"][:, 1:].shape


class TestBiaffineMpnetConfig(ModelTestCase):
    def test_twin_trains_saves_and_loads(self, tiny_mpnet, monkeypatch):
        monkeypatch.setenv("PRETRAINED_MPNET", tiny_mpnet)
        self.set_up_model(CONFIGS / "biaffine_mst_mpnet.jsonnet", DATA, seed=13)
        self.ensure_model_can_train_save_and_load(
            CONFIGS / "biaffine_mst_mpnet.jsonnet", seed=13, gradients_to_ignore=BIAFFINE_CANCELLED_GRADIENTS
        )
        mpnet = self.model.text_field_embedder._token_embedders["mpnet"]
        trained = [name for name, parameter in mpnet.named_parameters() if parameter.requires_grad]
        assert sorted(trained) == ["_layer_mix.gamma"] + [f"_layer_mix.scalar_parameters.{i}" for i in range(4)]


class TestMpnetEnhancedConfig(ModelTestCase):
    def test_twin_trains_saves_loads_and_predicts_graphs(self, tiny_mpnet, monkeypatch):
        monkeypatch.setenv("PRETRAINED_MPNET", tiny_mpnet)
        enhanced = Params.from_file(str(ROOT / "training_config" / "coach_valid_mpnet_enhanced.jsonnet")).as_dict()
        plain = Params.from_file(str(ROOT / "training_config" / "coach_valid_mpnet.jsonnet")).as_dict()
        # the same parser and features, with the graph phase (its own edge scores, its labels and initial
        # scores parsed in bfloat16), its targets and selection on ELAS; its features in float32 on the batches
        # as given, as its rows were trained (the tree configs' in bfloat16 on word-piece buckets)
        features = enhanced["model"]["text_field_embedder"]["token_embedders"].pop("mpnet")
        plain_features = plain["model"]["text_field_embedder"]["token_embedders"].pop("mpnet")
        assert (plain_features["transformer_precision"], plain_features["word_piece_buckets"]) == ("bfloat16", True)
        assert features == {key: value for key, value in plain_features.items()
                            if key not in ("transformer_precision", "word_piece_buckets")}
        # and AllenNLP's indexer, where the tree configs have its faster twin (the same word pieces)
        assert plain["dataset_reader"]["token_indexers"]["mpnet"]["type"] == "word_piece_mismatched"
        assert enhanced["dataset_reader"]["token_indexers"]["mpnet"]["type"] == "pretrained_transformer_mismatched"
        for reader in (plain, enhanced):
            reader["dataset_reader"]["token_indexers"]["mpnet"].pop("type")
        assert enhanced["model"] == {**plain["model"], "predict_enhanced": True, "label_bfloat16_inference": True,
                                     "arc_bfloat16_inference": True, "separate_graph_scores": True}
        assert enhanced["dataset_reader"] == {**plain["dataset_reader"], "enhanced": True}
        assert enhanced["trainer"]["validation_metric"] == "+ELAS"

        self.set_up_model(CONFIGS / "coach_valid_mpnet_enhanced.jsonnet", DATA, seed=13)
        self.ensure_model_can_train_save_and_load(
            CONFIGS / "coach_valid_mpnet_enhanced.jsonnet", seed=13, tolerance=1e-4
        )
        self.model.eval()
        output = self.model(**self.dataset.as_tensor_dict())
        assert is_tree(output["heads"], output["mask"], single_root=True).all()
        assert output["enhanced_edges"].shape[0] == len(self.instances)
