"""
The treebanks that `scripts/run_experiments.py --treebank` names, and their train/dev/test files: the
shipped ones under data/, the others from ../shared/ud/ beside the repository.
"""
import sys
from pathlib import Path
from typing import Dict

from seqgraph_experiments import ROOT

SHARED = ROOT.parent / "shared" / "ud"

# train/dev/test of each treebank; where UD gives no train split here, the model trains on dev and is
# selected on dev (there is nothing else), and only its test score means anything
TREEBANKS = {
    "ewt": ("data/UD_English-EWT/en_ewt-ud-{}.conllu", ("train", "dev", "test")),
    "welsh": ("data/UD_Welsh-CCG/cy_ccg-ud-{}.conllu", ("train", "dev", "test")),
    "grc": (str(SHARED / "UD_Ancient_Greek-Perseus" / "grc_perseus-ud-{}.conllu"), ("dev", "dev", "test")),
    "de": (str(SHARED / "UD_German-GSD" / "de_gsd-ud-{}.conllu"), ("dev", "dev", "test")),
    "zh": (str(SHARED / "UD_Chinese-GSD" / "zh_gsd-ud-{}.conllu"), ("dev", "dev", "test")),
}

# each treebank's language (ISO 639), which the runner gives the reader (`dataset_reader.language`): the
# model's archive records it, so that the model tokenises raw text (`{"text": ...}`) by its language's rules
LANGUAGES = {"ewt": "en", "welsh": "cy", "grc": "grc", "de": "de", "zh": "zh"}


def treebank_files(treebank: str) -> Dict[str, Path]:
    """The absolute train, dev and test files of a treebank; exits when one is missing."""
    pattern, splits = TREEBANKS[treebank]
    files = {name: Path(pattern.format(split)) for name, split in zip(("train", "dev", "test"), splits)}
    files = {name: (path if path.is_absolute() else ROOT / path).resolve() for name, path in files.items()}
    for path in files.values():
        if not path.exists():
            sys.exit(f"{treebank}: missing {path}")
    return files
