"""Archive bombs made of many small members, and request bodies refused before they are read."""
from __future__ import annotations

import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from campaign.models import AuditEntry, Run
from campaign.services.archives import ArchiveRefused, Limits, unpack

MIB = 1024 * 1024


def _zip_of_zeros(members: int, size: int) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for i in range(members):
            zf.writestr(f"doc{i}.xml", b"<" + b"\0" * (size - 1))
    return buf.getvalue()


def _written(dest):
    return sum(p.stat().st_size for p in dest.rglob("*") if p.is_file())


@pytest.mark.parametrize("size", [MIB, 64 * 1024, 16 * 1024])
def test_the_ratio_check_holds_for_members_of_any_size(tmp_path, size):
    # 1 MiB of zeros deflates to about 1 KiB (ratio ~1000); the old check skipped members up to 1 MiB,
    # so 400 of them (a 450 KB zip) wrote 400 MB to staging before anything stopped them.
    src = tmp_path / "run.zip"
    src.write_bytes(_zip_of_zeros(3, size))
    dest = tmp_path / "out"
    with pytest.raises(ArchiveRefused, match="compression ratio above 200:1"):
        unpack(src, "run.zip", dest, Limits(max_unpacked_bytes=10**10))
    assert _written(dest) == 0  # refused from the headers, before a byte was written


def test_real_runs_are_far_below_the_ratio_limit(tmp_path):
    from tests.factories import SMALL_EASY_FILES, gold_run_zip

    src = tmp_path / "run.zip"
    src.write_bytes(gold_run_zip())
    files = unpack(src, "run.zip", tmp_path / "out", Limits(max_unpacked_bytes=10**10))
    assert len(files) == len(SMALL_EASY_FILES)


@pytest.mark.django_db
def test_an_oversized_body_is_refused_before_csrf_and_the_view(campaign, team_a, alice, settings, storage):
    settings.PARSEVAL_MAX_REQUEST_BYTES = 10_000
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    response = client.post(reverse("portal:run_upload", kwargs={"slug": campaign.slug}),
                           {"name": "big", "scope": "test", "file": SimpleUploadedFile("general_elda.xml", b"<" * 20_000)})
    # 413 and not 403: the body was not read, not even by the CSRF check.
    assert response.status_code == 413
    assert not Run.objects.exists() and not AuditEntry.objects.filter(action="run.upload").exists()
    assert not list((storage / "media").rglob("*.upload")) if (storage / "media").exists() else True


@pytest.mark.django_db
def test_a_declared_length_over_the_limit_is_refused_unread(client, settings):
    settings.PARSEVAL_MAX_REQUEST_BYTES = 10_000
    response = client.generic("POST", "/api/token/", b"x" * 10, CONTENT_TYPE="application/octet-stream",
                              CONTENT_LENGTH=str(10**12))
    assert response.status_code == 413
    assert client.post("/api/token/", {"username": "a", "password": "b"}).status_code == 400  # small bodies pass


def test_the_running_total_stops_at_the_archive_size_times_the_ratio(tmp_path):
    # Members whose headers declare a large compressed size pass the per-member ratio; the running
    # total of the whole archive still stops at its real size x 200: 1,000 bytes -> 200,000 bytes.
    from campaign.services.archives import _copy_limited

    limits = Limits(max_unpacked_bytes=10**10)
    budget = [limits.max_unpacked_bytes]
    _copy_limited(io.BytesIO(b"<" * 150_000), tmp_path / "a.xml", "a.xml", budget, limits, 10**9, archive_bytes=1000)
    with pytest.raises(ArchiveRefused, match="compression ratio above 200:1"):
        _copy_limited(io.BytesIO(b"<" * 150_000), tmp_path / "b.xml", "b.xml", budget, limits, 10**9,
                      archive_bytes=1000)
    assert _written(tmp_path) <= 200_000
