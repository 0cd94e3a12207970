import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"


# `make test` runs the suite in two processes (pytest-xdist, `-n 2 --dist loadfile`), a test file at a time to
# each, so that a module's fixtures are built once; here the files that read the enhanced twin's run
# (`enhanced_twin_run`, three cold starts of `allennlp`) are one unit, so that it is built once a run, and the
# units go in the order of the files' names (rather than xdist's, the most tests first, which would leave the
# files of one long test, such as test_english_model.py, to the end).
ENHANCED_TWIN_FILES = {"test_enhanced_rules.py", "test_evaluate.py", "test_graph.py", "test_initialization.py",
                       "test_raw_text_eval.py"}


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class FileScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return "enhanced_twin" if Path(path).name in ENHANCED_TWIN_FILES else path

    config.option.loadscopereorder = False
    return FileScheduling(config, log)


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


# One torch thread for the tests and for the commands they start (unless the caller set OMP_NUM_THREADS or
# MKL_NUM_THREADS): the models are tiny, and a second intra-op thread only adds OpenMP's synchronisation,
# which on 2 busy cores spins for most of the suite's CPU time (the fixture twin of coach_valid_enhanced
# trained 3 epochs in 41 s of CPU with 2 threads, 1.4 s with 1).
@pytest.fixture(scope="session", autouse=True)
def _one_torch_thread():
    import torch

    threads = torch.get_num_threads()
    with pytest.MonkeyPatch.context() as patch:
        for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            if name not in os.environ:
                patch.setenv(name, "1")
        if os.environ["OMP_NUM_THREADS"] == "1":
            torch.set_num_threads(1)
        yield
    torch.set_num_threads(threads)


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


ENHANCED_TWIN_OVERRIDES = {"trainer.num_epochs": 10, "trainer.optimizer.lr": 0.02}


def fixture_twin_run(config: str, directory: Path):
    """
    `allennlp train` of a fixture twin (10 epochs at lr 0.02) into `directory`/model, then `allennlp predict` of
    its file (fixtures/conllu/en_small.conllu) into CoNLL-U (checked by `udvalidate --level 2`) beside `allennlp
    evaluate` on it (the two at once): the predicted file, its sentences, the validation's result and evaluate's
    metrics.
    """
    import json
    import subprocess
    import sys

    from seqgraph_allennlp.common.conllu import read_sentences

    env_bin = Path(sys.executable).parent
    data = FIXTURES / "conllu" / "en_small.conllu"
    serialization = directory / "model"
    subprocess.run(
        [str(env_bin / "allennlp"), "train", str(FIXTURES / "configs" / config), "-s", str(serialization),
         "--include-package", "seqgraph_allennlp", "-o", json.dumps(ENHANCED_TWIN_OVERRIDES)],
        check=True, capture_output=True, cwd=ROOT,
    )
    metrics_path = directory / "metrics.json"
    evaluating = subprocess.Popen(
        [str(env_bin / "allennlp"), "evaluate", str(serialization / "model.tar.gz"), str(data), "--output-file",
         str(metrics_path), "--include-package", "seqgraph_allennlp"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT,
    )
    predicted = directory / "predicted.conllu"
    subprocess.run(
        [str(env_bin / "allennlp"), "predict", str(serialization / "model.tar.gz"), str(data), "--use-dataset-reader",
         "--predictor-args", '{"output_format": "conllu"}', "--include-package", "seqgraph_allennlp", "--silent",
         "--output-file", str(predicted)],
        check=True, capture_output=True, cwd=ROOT,
    )
    validation = subprocess.run(
        [str(env_bin / "udvalidate"), "--lang", "en", "--level", "2", str(predicted)],
        capture_output=True, text=True,
    )
    _, evaluate_errors = evaluating.communicate(timeout=300)
    assert evaluating.returncode == 0, evaluate_errors[-3000:]
    return predicted, list(read_sentences(str(predicted))), validation, json.loads(metrics_path.read_text())


# The fixture twin of training_config/coach_valid_enhanced.jsonnet (with its UPOS tagger) trained by `allennlp
# train` for ten epochs, predicted and evaluated on its file (`fixture_twin_run`), once a run: tests/test_graph.py
# checks the run, tests/test_evaluate.py reads its metrics (ENHANCED_TWIN_FILES name every file that reads it).
@pytest.fixture(scope="session")
def enhanced_twin_run(tmp_path_factory):
    return fixture_twin_run("coach_valid_enhanced.jsonnet", tmp_path_factory.mktemp("enhanced_twin"))


# Its model, shared by tests/test_enhanced_rules.py, tests/test_evaluate.py, tests/test_initialization.py and
# tests/test_raw_text_eval.py.
@pytest.fixture(scope="session")
def enhanced_model_archive(enhanced_twin_run):
    predicted, _, _, _ = enhanced_twin_run
    return predicted.parent / "model" / "model.tar.gz"


# A tiny trained segmenter: the fixture twin of training_config/segmenter.jsonnet (a few seconds).
@pytest.fixture(scope="session")
def segmenter_archive(tmp_path_factory):
    from allennlp.commands.train import train_model_from_file

    import seqgraph_allennlp  # noqa: F401

    serialization_dir = tmp_path_factory.mktemp("segmenter") / "model"
    train_model_from_file(str(FIXTURES / "configs" / "segmenter.jsonnet"), str(serialization_dir))
    return serialization_dir / "model.tar.gz"
