import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"


@pytest.fixture(scope="module")
def single_thread():
    # tiny tensors: intra-op threads only add synchronisation on 2 shared cores
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="session", autouse=True)
def _command_line_defaults():
    # tests read the shipped configs in-process with the defaults that `allennlp ... --include-package
    # seqgraph_allennlp` gets (importing the package alone leaves the environment as it is)
    from seqgraph_allennlp.common.environment import default_environment

    with pytest.MonkeyPatch.context() as patch:
        for name, value in default_environment().items():
            if name not in os.environ:
                patch.setenv(name, value)
        yield


@pytest.fixture(autouse=True)
def _run_from_repository_root(monkeypatch):
    # configs name their data relative to the repository root, as a user runs them
    monkeypatch.chdir(ROOT)
    yield


@pytest.fixture(scope="session")
def tiny_transformer(tmp_path_factory):
    """
    Writes a tiny random Hugging Face model directory (weights from seed 0) that stands in for a pretrained
    transformer, without the network: `tiny_transformer(name, pieces, tokenizer_class, config_class,
    model_class, **config)` gives its path; `pieces` is its word-piece vocabulary.
    """
    import torch

    def write(name, pieces, tokenizer_class, config_class, model_class, **config) -> str:
        directory = tmp_path_factory.mktemp(name)
        (directory / "vocab.txt").write_text("\n".join(pieces) + "\n")
        tokenizer_class(str(directory / "vocab.txt")).save_pretrained(str(directory))
        torch.manual_seed(0)
        model_class(config_class(vocab_size=len(pieces), **config)).save_pretrained(str(directory))
        return str(directory)

    return write


@pytest.fixture(scope="module")
def tiny_mpnet(tiny_transformer):
    """A tiny random MPNet (4 layers of 16) standing in for all-mpnet-base-v2: its model directory's path."""
    from transformers import MPNetConfig, MPNetModel, MPNetTokenizer

    pieces = ["<s>", "<pad>", "</s>", "[UNK]", "<mask>", "the", "a", "of", "to", "and", "in", "is", "it", ".",
              ",", "i", "you", "that", "was", "for", "on", "##s", "##ed", "##ing"]
    return tiny_transformer("tiny_mpnet", pieces, MPNetTokenizer, MPNetConfig, MPNetModel, hidden_size=16,
                            num_hidden_layers=4, num_attention_heads=2, intermediate_size=32,
                            max_position_embeddings=130)


@pytest.fixture(scope="module")
def batch_and_vocab():
    """The fixture treebank as one batch of tensors, and its vocabulary."""
    from allennlp.data import Batch, Vocabulary

    from seqgraph_allennlp.dataset_readers import SeqGraphUDReader

    instances = list(SeqGraphUDReader().read(str(FIXTURES / "conllu" / "en_small.conllu")))
    # the vocabulary also has the "upos" namespace, which a config with the UPOS tagger (coach_valid) needs;
    # the batch has no gold UPOS, so that any model takes it
    tagged = SeqGraphUDReader(upos_targets=True).read(str(FIXTURES / "conllu" / "en_small.conllu"))
    vocab = Vocabulary.from_instances(tagged, non_padded_namespaces=["*labels", "head_index_tags"])
    batch = Batch(instances)
    batch.index_instances(vocab)
    return batch.as_tensor_dict(), vocab


# A tiny trained parser, shared by tests/test_predictor.py and tests/test_evaluate.py: the fixture twin of
# training_config/coach_valid.jsonnet for one epoch (a few seconds), with position embeddings for 256 words
# so that long sentences can be parsed.
TRAINED_MODEL_MAX_SENTENCE_LENGTH = 256


@pytest.fixture(scope="session")
def trained_model_archive(tmp_path_factory):
    import json

    from allennlp.commands.train import train_model_from_file

    import seqgraph_allennlp  # noqa: F401

    serialization_dir = tmp_path_factory.mktemp("trained_model") / "model"
    data = str(FIXTURES / "conllu" / "en_small.conllu")
    overrides = {
        "train_data_path": data,
        "validation_data_path": data,
        "test_data_path": data,
        "trainer.num_epochs": 1,
        "model.recurrent_weight.max_sentence_length": TRAINED_MODEL_MAX_SENTENCE_LENGTH,
        # without coach_valid's UPOS tagger: the predictor's tests read a model whose output has no
        # predicted_upos (tests/test_upos_tagger.py trains its own tagged one)
        "dataset_reader.upos_targets": False,
        "model.predict_upos": False,
    }
    train_model_from_file(
        str(FIXTURES / "configs" / "coach_valid.jsonnet"),
        str(serialization_dir),
        overrides=json.dumps(overrides),
    )
    return serialization_dir / "model.tar.gz"


# A tiny model of the enhanced graph, shared by tests/test_enhanced_rules.py and tests/test_evaluate.py: the
# fixture twin of training_config/coach_valid_enhanced.jsonnet (with its UPOS tagger) for ten epochs.
@pytest.fixture(scope="session")
def enhanced_model_archive(tmp_path_factory):
    import json

    from allennlp.commands.train import train_model_from_file

    import seqgraph_allennlp  # noqa: F401

    serialization_dir = tmp_path_factory.mktemp("enhanced_model") / "model"
    train_model_from_file(
        str(FIXTURES / "configs" / "coach_valid_enhanced.jsonnet"),
        str(serialization_dir),
        overrides=json.dumps({"trainer.num_epochs": 10, "trainer.optimizer.lr": 0.02}),
    )
    return serialization_dir / "model.tar.gz"


# A tiny trained segmenter: the fixture twin of training_config/segmenter.jsonnet (a few seconds).
@pytest.fixture(scope="session")
def segmenter_archive(tmp_path_factory):
    from allennlp.commands.train import train_model_from_file

    import seqgraph_allennlp  # noqa: F401

    serialization_dir = tmp_path_factory.mktemp("segmenter") / "model"
    train_model_from_file(str(FIXTURES / "configs" / "segmenter.jsonnet"), str(serialization_dir))
    return serialization_dir / "model.tar.gz"
