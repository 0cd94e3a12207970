"""
A parser archive that carries its segmenter: the segmenter's own `model.tar.gz`, stored inside the parser's
archive as `segmenter.tar.gz` beside `weights.th` and `config.json`. A parser model loaded from such an
archive has it as `segmenter` (`CarriesSegmenter`), and the parser's predictor, `Parser` and the service
then split raw text with it instead of spaCy's rules. Nothing of the parser changes: its config and weights
are copied as they are.

    python -m seqgraph_allennlp.segmentation.attach PARSER.tar.gz SEGMENTER.tar.gz [-o OUT.tar.gz]
"""
import os
import shutil
import tarfile
import tempfile
from pathlib import Path
from typing import Optional, Union

from seqgraph_allennlp.common.errors import SeqGraphError

SEGMENTER_NAME = "segmenter.tar.gz"


class SegmenterArchiveError(SeqGraphError, ValueError):
    """A file that is not the model archive it should be."""


def _check_archive(path: Path, what: str) -> None:
    if not path.is_file():
        raise SegmenterArchiveError(f"{path}: no such file (expected {what})")
    try:
        with tarfile.open(path, "r:gz") as archive:
            names = set(archive.getnames())
    except (tarfile.TarError, OSError, EOFError) as error:
        raise SegmenterArchiveError(f"{path}: not a model archive (tar.gz): {error}") from None
    if "config.json" not in names or "weights.th" not in names:
        raise SegmenterArchiveError(f"{path}: not a model archive (no config.json or weights.th): {what} expected")


def _carried_bytes(parser_archive: Path) -> Optional[bytes]:
    """The segmenter archive that `parser_archive` carries, as bytes, else `None`."""
    with tarfile.open(parser_archive, "r:gz") as archive:
        if SEGMENTER_NAME not in archive.getnames():
            return None
        return archive.extractfile(SEGMENTER_NAME).read()  # type: ignore[union-attr]


def attach_segmenter(
    parser_archive: Union[str, Path], segmenter_archive: Union[str, Path], output: Optional[Union[str, Path]] = None
) -> Path:
    """
    Writes the parser archive with the segmenter archive inside it (replacing one it carried), to `output`
    (default: over the parser archive, through a temporary file, so a failure leaves it as it was). Over a
    parser archive that carries that very segmenter already, it writes nothing.
    """
    parser_archive, segmenter_archive = Path(parser_archive), Path(segmenter_archive)
    _check_archive(parser_archive, "a parser's model.tar.gz")
    _check_archive(segmenter_archive, "a segmenter's model.tar.gz")
    with tarfile.open(segmenter_archive, "r:gz") as archive:
        config = archive.extractfile("config.json").read().decode("utf-8")  # type: ignore[union-attr]
    if '"segmenter"' not in config:
        raise SegmenterArchiveError(f"{segmenter_archive}: not a segmenter (its model is not of type \"segmenter\")")
    output = Path(output) if output is not None else parser_archive
    if output == parser_archive and _carried_bytes(parser_archive) == segmenter_archive.read_bytes():
        return output
    handle, temporary = tempfile.mkstemp(suffix=".tar.gz", dir=output.parent)
    os.close(handle)
    try:
        with tarfile.open(parser_archive, "r:gz") as source, tarfile.open(temporary, "w:gz") as target:
            for member in source.getmembers():
                if member.name == SEGMENTER_NAME:
                    continue
                target.addfile(member, source.extractfile(member) if member.isfile() else None)
            target.add(segmenter_archive, arcname=SEGMENTER_NAME)
        shutil.move(temporary, output)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return output


def carried_segmenter(serialization_dir: Union[str, Path]):
    """The segmenter model a parser's (extracted) archive carries, else `None`."""
    path = Path(serialization_dir) / SEGMENTER_NAME
    if not path.is_file():
        return None
    from allennlp.models.archival import load_archive

    return load_archive(str(path)).model.eval()


class CarriesSegmenter:
    """
    For a parser `Model`: when it is loaded from an archive (or serialization directory) that carries a
    segmenter, that segmenter is its `segmenter` (`None` otherwise). It is kept beside the model, not in its
    modules: the parser's weights and `state_dict` stay as trained.
    """

    segmenter = None

    @classmethod
    def _load(cls, config, serialization_dir, weights_file=None, cuda_device=-1):  # type: ignore[no-untyped-def]
        model = super()._load(config, serialization_dir, weights_file, cuda_device)  # type: ignore[misc]
        object.__setattr__(model, "segmenter", carried_segmenter(serialization_dir))
        return model

