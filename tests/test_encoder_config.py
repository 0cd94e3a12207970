"""
training_config/coach_valid_encoder.jsonnet: any Hugging Face encoder named by TRANSFORMER_MODEL (here a tiny random
BERT directory built by the test, offline), frozen and cached by default, fine-tuned with TRANSFORMER_FINE_TUNE,
trained and used by `allennlp train` and `allennlp predict` as a user runs them; a missing or unreadable model is
one line.
"""
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import torch

from seqgraph_allennlp.common.conllu import find_tree_problem, read_sentences
from seqgraph_allennlp.common.environment import transformer_hidden_size

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "training_config" / "coach_valid_encoder.jsonnet"
DATA = ROOT / "fixtures" / "conllu" / "en_small.conllu"
ALLENNLP = str(Path(sys.executable).parent / "allennlp")
ONE_EPOCH = json.dumps({"trainer.num_epochs": 1, "trainer.patience": None})


@pytest.fixture(scope="module")
def tiny_bert(tiny_transformer):
    from transformers import BertConfig, BertModel, BertTokenizer

    pieces = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a", "of", "to", "and", "in", "is", "it", ".",
              ",", "i", "we", "that", "was", "for", "on", "##s", "##ed", "##ing"]
    return tiny_transformer("tiny_bert", pieces, BertTokenizer, BertConfig, BertModel, hidden_size=24,
                            num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                            max_position_embeddings=130)


def environment(**variables: str) -> dict:
    return {**os.environ, "TRAIN_DATA_PATH": str(DATA), "VALIDATION_DATA_PATH": str(DATA), **variables}


def train(directory: Path, **variables: str) -> subprocess.CompletedProcess:
    return subprocess.run([ALLENNLP, "train", str(CONFIG), "-s", str(directory), "--include-package",
                           "seqgraph_allennlp", "-o", ONE_EPOCH], cwd=ROOT, capture_output=True, text=True,
                          env=environment(**variables), timeout=600)


def archived_weights(archive: Path) -> dict:
    with tarfile.open(archive) as tar:
        return torch.load(tar.extractfile("weights.th"), map_location="cpu", weights_only=True)


def test_the_hidden_size_is_read_from_the_model_directory(tiny_bert, tmp_path):
    assert transformer_hidden_size(tiny_bert) == "24"
    assert transformer_hidden_size("") == ""
    assert transformer_hidden_size(str(tmp_path / "no_such_model")) == ""


def test_a_frozen_encoder_by_name_trains_and_parses(tiny_bert, tmp_path):
    completed = train(tmp_path / "frozen", TRANSFORMER_MODEL=tiny_bert)
    assert completed.returncode == 0, completed.stderr[-3000:]
    used = json.loads((tmp_path / "frozen" / "config.json").read_text())
    embedder = used["model"]["text_field_embedder"]["token_embedders"]["transformer"]
    assert embedder["type"] == "cached_pretrained_transformer_mismatched" and embedder["model_name"] == tiny_bert
    assert embedder["train_parameters"] is False and embedder["last_layer_only"] is False
    # the config's own embeddings (100 + 100) and the model's 24
    assert used["model"]["encoder"]["input_size"] == 224
    assert "learning_rate_scheduler" not in used["trainer"]
    # the frozen transformer's weights stay out of the archive (a digest of them only)
    assert not any("transformer_model" in name for name in archived_weights(tmp_path / "frozen" / "model.tar.gz"))

    predicted = tmp_path / "predicted.conllu"
    completed = subprocess.run(
        [ALLENNLP, "predict", str(tmp_path / "frozen" / "model.tar.gz"), str(DATA), "--use-dataset-reader",
         "--include-package", "seqgraph_allennlp", "--predictor", "seqgraph_parser", "--predictor-args",
         '{"output_format": "conllu"}', "--output-file", str(predicted), "--silent"],
        cwd=ROOT, capture_output=True, text=True, env=environment(), timeout=600)
    assert completed.returncode == 0, completed.stderr[-3000:]
    sentences = list(read_sentences(str(predicted)))
    assert len(sentences) == len(list(read_sentences(str(DATA))))
    assert all(find_tree_problem(sentence.heads) is None for sentence in sentences)


def test_a_fine_tuned_encoder_trains_at_its_own_learning_rate(tiny_bert, tmp_path):
    from transformers import BertModel

    completed = train(tmp_path / "tuned", TRANSFORMER_MODEL=tiny_bert, TRANSFORMER_FINE_TUNE="true",
                      TRANSFORMER_LEARNING_RATE="1e-3")
    assert completed.returncode == 0, completed.stderr[-3000:]
    used = json.loads((tmp_path / "tuned" / "config.json").read_text())
    embedder = used["model"]["text_field_embedder"]["token_embedders"]["transformer"]
    assert embedder["type"] == "pretrained_transformer_mismatched" and embedder["train_parameters"] is True
    assert used["trainer"]["optimizer"]["parameter_groups"] == [
        [["text_field_embedder\\.token_embedders\\.transformer\\."], {"lr": 1e-3}]]
    assert used["trainer"]["learning_rate_scheduler"] == {"type": "linear_with_warmup", "warmup_steps": 100}
    # the archive holds the trained encoder, moved from the weights it started from
    weights = archived_weights(tmp_path / "tuned" / "model.tar.gz")
    prefix = "text_field_embedder.token_embedder_transformer._matched_embedder.transformer_model."
    trained = {name[len(prefix):]: value for name, value in weights.items() if name.startswith(prefix)}
    start = BertModel.from_pretrained(tiny_bert).state_dict()
    assert trained.keys() & start.keys()
    moved = [name for name in trained.keys() & start.keys() if not torch.equal(trained[name], start[name])]
    assert "encoder.layer.0.attention.self.query.weight" in moved


@pytest.mark.parametrize("variables, message", [
    ({}, "coach_valid_encoder.jsonnet needs TRANSFORMER_MODEL: a Hugging Face model name"),
    ({"TRANSFORMER_MODEL": "/no/such/model"}, "TRANSFORMER_MODEL=/no/such/model: its config could not be read"),
    ({"TRANSFORMER_MODEL": "{tiny_bert}", "TRANSFORMER_FINE_TUNE": "yes"},
     "TRANSFORMER_FINE_TUNE must be true or false, got yes"),
])
def test_a_missing_or_unreadable_model_is_one_line(tiny_bert, tmp_path, variables, message):
    variables = {name: value.format(tiny_bert=tiny_bert) for name, value in variables.items()}
    completed = train(tmp_path / "refused", **variables)
    assert completed.returncode != 0
    assert message in completed.stderr and "Traceback" not in completed.stderr, completed.stderr[-3000:]
