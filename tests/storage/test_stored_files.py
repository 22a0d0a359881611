"""Local copies of stored files (campaign/stored_files.py) and the storage settings (config/storage.py)."""
from __future__ import annotations

import hashlib
import os
import time

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from campaign.stored_files import ChecksumMismatch, local_copy, read_bytes, stored_path
from config.storage import storages_from_env
from tests import factories


class Stored:
    """What local_copy takes: a storage and a name (as a FieldFile has)."""

    def __init__(self, name: str):
        self.storage, self.name = default_storage, name


def save(name: str, data: bytes) -> Stored:
    return Stored(default_storage.save(name, ContentFile(data)))


def test_on_the_file_system_the_stored_file_itself(storage, settings):
    settings.PARSEVAL_FILE_CACHE_DIR = storage / "cache"
    f = save("runs/x/one.xml", b"<x/>")
    with local_copy(f, sha256=hashlib.sha256(b"<x/>").hexdigest()) as path:
        assert path == stored_path(f) == storage / "media" / f.name
    assert factories.files_under(storage / "cache") == []


def test_on_s3_a_cached_copy_keyed_by_checksum(s3_storage, storage):
    data = b"<document>" + b"x" * 3_000_000 + b"</document>"
    digest = hashlib.sha256(data).hexdigest()
    f = save("gold/one.gold.xml", data)
    assert stored_path(f) is None
    with local_copy(f, sha256=digest) as path:
        assert path == storage / "cache" / f"{digest}.gold.xml"
        assert path.read_bytes() == data
    first = path.stat().st_mtime_ns
    # Read again: the copy is there; the object is not fetched (deleting it does not matter) and stays cached.
    f.storage.delete(f.name)
    time.sleep(0.01)
    assert read_bytes(f, sha256=digest) == data
    assert path.stat().st_mtime_ns >= first and path.exists()
    assert [p.name for p in factories.files_under(storage / "cache")] == [path.name]


def test_on_s3_a_file_that_is_not_its_checksum_is_refused_and_not_cached(s3_storage, storage):
    f = save("gold/two.gold.xml", b"what the store holds")
    wrong = hashlib.sha256(b"what the database says").hexdigest()
    with pytest.raises(ChecksumMismatch, match="SHA-256"):
        with local_copy(f, sha256=wrong):
            pass
    assert isinstance(ChecksumMismatch("x"), OSError)  # the worker retries it as a fault of the system
    assert factories.files_under(storage / "cache") == []


def test_on_s3_without_checksum_a_temporary_copy_removed_after(s3_storage, storage):
    f = save("runs/x/converted.easy.zip", b"PK not really")
    with local_copy(f) as path:
        assert path.read_bytes() == b"PK not really" and path.name.endswith(".easy.zip")
    assert not path.exists()
    assert factories.files_under(storage / "cache") == []


def test_the_cache_evicts_the_least_recently_used_beyond_its_bound_never_a_recent_one(s3_storage, storage, settings):
    settings.PARSEVAL_FILE_CACHE_BYTES = 250
    blobs = [bytes([65 + i]) * 100 for i in range(3)]
    files = [save(f"gold/{i}.xml", b) for i, b in enumerate(blobs)]
    paths = []
    for f, b in zip(files, blobs):
        with local_copy(f, sha256=hashlib.sha256(b).hexdigest()) as path:
            paths.append(path)
    assert all(p.exists() for p in paths)  # over the bound, but every copy was used within the task time limit
    old = time.time() - settings.CELERY_TASK_TIME_LIMIT - 60
    os.utime(paths[0], (old, old))
    os.utime(paths[1], (old + 1, old + 1))
    extra = save("gold/3.xml", b"D" * 100)
    with local_copy(extra, sha256=hashlib.sha256(b"D" * 100).hexdigest()):
        pass
    assert [p.exists() for p in paths] == [False, False, True]  # the oldest went until the bound held


def test_storage_settings_from_the_environment():
    fs = storages_from_env({})
    assert fs["default"]["BACKEND"].endswith("FileSystemStorage") and fs["gold"]["BACKEND"].endswith("GoldFileSystemStorage")
    s3 = storages_from_env({"PARSEVAL_STORAGE": "s3", "PARSEVAL_S3_BUCKET": "b", "PARSEVAL_S3_GOLD_BUCKET": "g",
                            "PARSEVAL_S3_ENDPOINT_URL": "http://store:8333"})
    assert s3["default"]["OPTIONS"]["bucket_name"] == "b" and s3["gold"]["OPTIONS"]["bucket_name"] == "g"
    assert (s3["default"]["OPTIONS"]["location"], s3["gold"]["OPTIONS"]["location"]) == ("media", "gold")
    options = s3["default"]["OPTIONS"]
    assert options["default_acl"] is None and options["querystring_auth"] and options["querystring_expire"] == 300
    assert options["addressing_style"] == "path" and "access_key" not in options
    assert storages_from_env({"PARSEVAL_STORAGE": "s3", "PARSEVAL_S3_BUCKET": "b"})["default"]["OPTIONS"][
        "addressing_style"] == "auto"
    for env, message in (({"PARSEVAL_STORAGE": "s3"}, "PARSEVAL_S3_BUCKET"),
                         ({"PARSEVAL_STORAGE": "nfs"}, "expected 'filesystem'"),
                         ({"PARSEVAL_STORAGE": "s3", "PARSEVAL_S3_BUCKET": "b", "PARSEVAL_S3_ACCESS_KEY_ID": "k"},
                          "both")):
        with pytest.raises(ValueError, match=message):
            storages_from_env(env)


def test_on_s3_a_missing_object_reads_as_a_missing_file(s3_storage):
    with pytest.raises(FileNotFoundError):
        with local_copy(Stored("runs/x/never-stored.zip"), sha256="a" * 64):
            pass


def test_an_unreachable_store_is_a_fault_of_the_system_upload_answers_503_and_keeps_nothing(
        storage, settings, db, alice):
    from django.utils.functional import empty

    from annotations.models import gold_storage
    from campaign.models import Run
    from botocore.config import Config
    from django.core.files.uploadedfile import SimpleUploadedFile

    from campaign.services.runs import upload_run
    from config.unavailable import TemporarilyUnavailable
    from evaluation.pipeline.worker import TRANSIENT
    from tests.object_store import free_ports

    campaign = factories.make_easy_campaign(factories.SMALL_EASY_FILES, slug="store-away")
    team = factories.make_team(campaign, alice)
    (port,) = free_ports(1)  # nothing listens there
    away = storages_from_env({"PARSEVAL_STORAGE": "s3", "PARSEVAL_S3_BUCKET": "b",
                              "PARSEVAL_S3_ENDPOINT_URL": f"http://127.0.0.1:{port}",
                              "PARSEVAL_S3_ACCESS_KEY_ID": "k", "PARSEVAL_S3_SECRET_ACCESS_KEY": "s"})
    # one attempt, not boto3's back-off over several: the test needs the failure, not the wait
    away["default"]["OPTIONS"]["client_config"] = Config(s3={"addressing_style": "path"}, signature_version="s3v4",
                                                         retries={"max_attempts": 1}, connect_timeout=2)
    settings.STORAGES = away
    gold_storage._wrapped = empty

    with pytest.raises(TemporarilyUnavailable) as raised:
        upload_run(campaign=campaign, team=team, user=alice, name="r",
                   uploaded_file=SimpleUploadedFile("run.zip", factories.gold_run_zip()))
    assert isinstance(raised.value.__cause__, TRANSIENT)  # what the worker retries, too
    assert not Run.objects.exists()
    # neither a stored run nor the staged copy is left (the corpus was stored on disk before the switch)
    assert factories.files_under(storage / "media" / "runs") == []
    assert factories.files_under(storage / "media" / ".staging") == []
