"""
Where `make install` writes the pretrained assets: inside the environment, beside its other data
(`.venv/share/seqgraph_allennlp/`). Only paths: `seqgraph_allennlp.common.environment` reads them at every
command-line start, so this module imports nothing heavy.
"""
import sys
from pathlib import Path


def asset_directory() -> Path:
    """The environment's folder for this project's data (`sys.prefix` read at each call)."""
    return Path(sys.prefix) / "share" / "seqgraph_allennlp"


def default_glove_path() -> Path:
    """GloVe 6B 50d as the text file AllenNLP reads (`python -m seqgraph_assets.glove`)."""
    return asset_directory() / "glove.6B.50d.txt"


def default_multilingual_e5_directory() -> Path:
    """multilingual-e5-small as a Hugging Face model directory (`python -m seqgraph_assets.multilingual_e5`)."""
    return asset_directory() / "multilingual-e5-small"


def default_mpnet_directory() -> Path:
    """all-mpnet-base-v2 as a Hugging Face model directory (`make english`: `python -m seqgraph_assets.mpnet`)."""
    return asset_directory() / "all-mpnet-base-v2"
