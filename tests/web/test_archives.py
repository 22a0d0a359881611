"""The archive unpacker on its own: limits hold even when sizes are not declared."""
from __future__ import annotations

import io
import tarfile
import zipfile

import pytest

from campaign.services.archives import ArchiveRefused, Limits, unpack


def tar_gz_stream_without_sizes_checked(member: str, size: int) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        info = tarfile.TarInfo(member)
        info.size = size
        tf.addfile(info, io.BytesIO(b"<" + b"a" * (size - 1)))
    return buf.getvalue()


def test_tar_gz_bomb_is_stopped_while_copying(tmp_path):
    data = tar_gz_stream_without_sizes_checked("general_elda.xml", 30 * 1024 * 1024)
    src = tmp_path / "run.tar.gz"
    src.write_bytes(data)
    dest = tmp_path / "out"
    with pytest.raises(ArchiveRefused, match="compression ratio"):
        unpack(src, "run.tar.gz", dest, Limits(max_unpacked_bytes=10**10))
    # it stopped early: not the whole 30 MB on disk
    assert sum(p.stat().st_size for p in dest.rglob("*") if p.is_file()) < 30 * 1024 * 1024


def test_tar_over_the_unpacked_limit(tmp_path):
    src = tmp_path / "run.tar.gz"
    src.write_bytes(tar_gz_stream_without_sizes_checked("a.xml", 300_000))
    with pytest.raises(ArchiveRefused, match="300,000|100,000"):
        unpack(src, "run.tar.gz", tmp_path / "out", Limits(max_unpacked_bytes=100_000))


def test_files_are_named_by_document(tmp_path):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name in ("dir/general_elda.xml", "mail_10.xml"):
            info = tarfile.TarInfo(name)
            info.size = 3
            tf.addfile(info, io.BytesIO(b"<a>"))
    src = tmp_path / "run.tgz"
    src.write_bytes(buf.getvalue())
    files = unpack(src, "run.tgz", tmp_path / "out", Limits(max_unpacked_bytes=10_000))
    assert sorted(files) == ["general_elda", "mail_10"]
    assert all(p.read_bytes() == b"<a>" for p in files.values())


def test_two_files_for_one_document(tmp_path):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name in ("a/mail_10.xml", "b/mail_10.xml"):
            info = tarfile.TarInfo(name)
            info.size = 3
            tf.addfile(info, io.BytesIO(b"<a>"))
    src = tmp_path / "run.tar.gz"
    src.write_bytes(buf.getvalue())
    with pytest.raises(ArchiveRefused, match="second file for document 'mail_10'"):
        unpack(src, "run.tar.gz", tmp_path / "out", Limits(max_unpacked_bytes=10_000))


@pytest.mark.parametrize("filename", ["run.tgz", "run.zip"])
def test_only_the_files_of_some_documents(tmp_path, filename):
    """A shard of a stored run writes only its documents' files; every member is still checked."""
    members = {"dir/general_elda.xml": b"<a>", "mail_10.xml": b"<b>", "oral_delic_2.xml": b"<c>"}
    buf = io.BytesIO()
    if filename.endswith(".zip"):
        with zipfile.ZipFile(buf, "w") as zf:
            for name, data in members.items():
                zf.writestr(name, data)
    else:
        with tarfile.open(fileobj=buf, mode="w:gz") as tf:
            for name, data in members.items():
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
    src = tmp_path / filename
    src.write_bytes(buf.getvalue())
    dest = tmp_path / "out"
    files = unpack(src, filename, dest, Limits(max_unpacked_bytes=10_000), documents={"general_elda", "oral_delic_2"})
    assert {name: path.read_bytes() for name, path in files.items()} == {"general_elda": b"<a>",
                                                                        "oral_delic_2": b"<c>"}
    assert sorted(p.name for p in dest.iterdir()) == sorted(p.name for p in files.values())
    assert unpack(src, filename, tmp_path / "none", Limits(max_unpacked_bytes=10_000), documents={"x"}) == {}
