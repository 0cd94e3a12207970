"""Checks of the tools' command-line arguments, shared so that every tool refuses bad input alike."""
import argparse
from pathlib import Path
from typing import Iterable


def refuse_missing_files(parser: argparse.ArgumentParser, paths: Iterable[str]) -> None:
    """`parser.error` (usage, one line, exit status 2) naming every one of `paths` that is not a file."""
    missing = [str(path) for path in paths if not Path(path).is_file()]
    if missing:
        parser.error(f"no such file: {', '.join(missing)}")
