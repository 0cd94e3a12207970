"""
Defaults for the environment variables that the shipped jsonnet configs read with `std.extVar`.

Jsonnet has no default for an undefined external variable, and AllenNLP passes the process environment as
the external variables, so importing the package (which `--include-package seqgraph_allennlp` does before
the config is read) sets each variable that the user has not set. A user changes a path with
`TRAIN_DATA_PATH=... allennlp train ...` or with `--overrides`.
"""
import os

DEFAULT_ENVIRONMENT = {
    # the project's own copies of UD English-EWT 2.16, relative to the repository root
    "TRAIN_DATA_PATH": "data/UD_English-EWT/en_ewt-ud-train.conllu",
    "VALIDATION_DATA_PATH": "data/UD_English-EWT/en_ewt-ud-dev.conllu",
    "TEST_DATA_PATH": "data/UD_English-EWT/en_ewt-ud-test.conllu",
    # training_config/oracle_rollin.jsonnet: one row of the paper's Table 3
    "ORACLE": "coaching",
    "ROLL_IN": "valid_policy",
}


def set_default_environment() -> None:
    for name, value in DEFAULT_ENVIRONMENT.items():
        os.environ.setdefault(name, value)
