"""Bad uploads: each is refused with a clear message and leaves no file and no Run row."""
from __future__ import annotations

import io
import tarfile
import zipfile
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from campaign.models import AuditEntry, Run
from tests import factories


@pytest.fixture
def member(client, campaign, team_a, alice):
    client.force_login(alice)
    return client


def refused(client, campaign, data: bytes, filename: str, storage, django_capture_on_commit_callbacks) -> str:
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.post(reverse("portal:run_upload", kwargs={"slug": campaign.slug}),
                               {"name": "bad", "scope": "test", "file": SimpleUploadedFile(filename, data)})
    assert response.status_code == 400
    assert callbacks == []
    assert not Run.objects.exists()
    assert not AuditEntry.objects.filter(action="run.upload").exists()
    assert factories.files_under(storage / "media" / "runs") == []
    assert factories.files_under(storage / "media" / ".staging") == []
    if response.context.get("closed"):  # a campaign taking no run: the page says why, with no form
        assert "form" not in response.context
        return response.context["closed"]
    return response.context["form"].errors["file"][0]


def gold_files(**overrides) -> dict[str, bytes]:
    files = {n: factories.gold_bytes(n) for n in factories.SMALL_EASY_FILES}
    files.update(overrides)
    return files


def test_not_xml(member, campaign, storage, django_capture_on_commit_callbacks):
    message = refused(member, campaign, b"\x89PNG\r\n\x1a\n\x00\x00binary", "general_elda.xml", storage,
                      django_capture_on_commit_callbacks)
    assert "general_elda.xml" in message and "not an XML file" in message


def test_not_xml_inside_an_archive(member, campaign, storage, django_capture_on_commit_callbacks):
    data = factories.zip_of(gold_files(**{"mail_10.xml": b"just some text, no markup"}))
    message = refused(member, campaign, data, "run.zip", storage, django_capture_on_commit_callbacks)
    assert "mail_10.xml" in message and "not an XML file" in message


def test_unsupported_file_type(member, campaign, storage, django_capture_on_commit_callbacks):
    message = refused(member, campaign, b"<DOCUMENT/>", "run.docx", storage, django_capture_on_commit_callbacks)
    assert "unsupported file type" in message


def test_wrong_document_names(member, campaign, storage, django_capture_on_commit_callbacks):
    data = factories.zip_of({"general_elda.xml": factories.gold_bytes("general_elda.xml"),
                             "not_in_corpus.xml": factories.gold_bytes("mail_10.xml")})
    message = refused(member, campaign, data, "run.zip", storage, django_capture_on_commit_callbacks)
    assert "not_in_corpus.xml" in message and "unknown document name" in message
    assert "general_elda.xml" in message  # the expected names are listed


def test_zip_bomb_by_ratio(member, campaign, storage, django_capture_on_commit_callbacks):
    # 20 MB of one byte repeated compresses about a thousand times.
    data = factories.zip_of({"general_elda.xml": b"<" + b" " * (20 * 1024 * 1024)})
    message = refused(member, campaign, data, "run.zip", storage, django_capture_on_commit_callbacks)
    assert "compression ratio" in message and "general_elda.xml" in message


def test_zip_over_the_unpacked_limit(member, campaign, storage, settings, django_capture_on_commit_callbacks):
    settings.PARSEVAL_MAX_UNPACKED_BYTES = 100_000
    message = refused(member, campaign, factories.gold_run_zip(), "run.zip", storage, django_capture_on_commit_callbacks)
    assert "100,000" in message and "unpacked" in message


def test_zip_whose_header_lies_about_sizes(member, campaign, storage, settings, django_capture_on_commit_callbacks):
    """A declared size below the real one: zipfile reads no further than declared, the CRC then fails."""
    settings.PARSEVAL_MAX_UNPACKED_BYTES = 2 * 1024 * 1024
    body = b"<DOCUMENT>" + b"<E id='E1'/>" * 400_000  # ~4.8 MB, stored uncompressed: no ratio to catch
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("general_elda.xml", body)
    raw = bytearray(buf.getvalue())
    # Patch the uncompressed size in the central directory to 1 KB (the local header is not used for it).
    cd = raw.rfind(b"PK\x01\x02")
    raw[cd + 24:cd + 28] = (1024).to_bytes(4, "little")
    message = refused(member, campaign, bytes(raw), "run.zip", storage, django_capture_on_commit_callbacks)
    assert "general_elda.xml" in message and "cannot be unpacked" in message


@pytest.mark.parametrize("member_name", ["../general_elda.xml", "/etc/general_elda.xml", "a/../../general_elda.xml"])
def test_zip_with_path_traversal(member, campaign, storage, django_capture_on_commit_callbacks, member_name):
    data = factories.zip_of({member_name: factories.gold_bytes("general_elda.xml")})
    message = refused(member, campaign, data, "run.zip", storage, django_capture_on_commit_callbacks)
    assert "unsafe path" in message
    assert not (storage / "general_elda.xml").exists() and not (storage / "media" / "general_elda.xml").exists()


def test_tar_with_path_traversal(member, campaign, storage, django_capture_on_commit_callbacks):
    data = factories.tar_gz_of({"../../general_elda.xml": factories.gold_bytes("general_elda.xml")})
    message = refused(member, campaign, data, "run.tar.gz", storage, django_capture_on_commit_callbacks)
    assert "unsafe path" in message


def test_zip_with_symlink(member, campaign, storage, django_capture_on_commit_callbacks):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        info = zipfile.ZipInfo("general_elda.xml")
        info.external_attr = (0o120777 << 16)
        zf.writestr(info, "/etc/passwd")
    message = refused(member, campaign, buf.getvalue(), "run.zip", storage, django_capture_on_commit_callbacks)
    assert "symbolic links" in message


def test_tar_with_symlink(member, campaign, storage, django_capture_on_commit_callbacks):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        info = tarfile.TarInfo("general_elda.xml")
        info.type = tarfile.SYMTYPE
        info.linkname = "/etc/passwd"
        tf.addfile(info)
    message = refused(member, campaign, buf.getvalue(), "run.tar.gz", storage, django_capture_on_commit_callbacks)
    assert "links are not accepted" in message


def test_nested_archive(member, campaign, storage, django_capture_on_commit_callbacks):
    inner = factories.gold_run_zip()
    data = factories.zip_of({"inner.zip": inner})
    message = refused(member, campaign, data, "run.zip", storage, django_capture_on_commit_callbacks)
    assert "nested archives" in message


def test_damaged_zip(member, campaign, storage, django_capture_on_commit_callbacks):
    message = refused(member, campaign, b"PK\x03\x04 not really a zip", "run.zip", storage,
                      django_capture_on_commit_callbacks)
    assert "not a readable zip" in message


def test_file_over_the_campaign_limit(member, campaign, storage, django_capture_on_commit_callbacks):
    campaign.max_upload_bytes = 1000
    campaign.save()
    message = refused(member, campaign, factories.gold_run_zip(), "run.zip", storage, django_capture_on_commit_callbacks)
    assert "larger than" in message and "1,000 bytes" in message


def test_file_over_the_site_limit(member, campaign, storage, settings, django_capture_on_commit_callbacks):
    settings.PARSEVAL_MAX_UPLOAD_BYTES = 2000
    message = refused(member, campaign, factories.gold_run_zip(), "run.zip", storage, django_capture_on_commit_callbacks)
    assert "2,000 bytes" in message


def test_run_for_a_closed_campaign(member, campaign, storage, django_capture_on_commit_callbacks):
    campaign.state = "closed"
    campaign.save()
    message = refused(member, campaign, factories.gold_run_zip(), "run.zip", storage, django_capture_on_commit_callbacks)
    assert "closed" in message and ("does not accept runs" in message or "no longer accepts runs" in message)


def test_run_after_the_deadline(member, campaign, storage, django_capture_on_commit_callbacks):
    campaign.deadline = timezone.now() - timedelta(minutes=1)
    campaign.save()
    message = refused(member, campaign, factories.gold_run_zip(), "run.zip", storage, django_capture_on_commit_callbacks)
    assert "deadline" in message


def test_run_limit(member, campaign, team_a, storage, django_capture_on_commit_callbacks):
    campaign.runs_per_team = 1
    campaign.save()
    with django_capture_on_commit_callbacks(execute=True):
        ok = member.post(reverse("portal:run_upload", kwargs={"slug": campaign.slug}),
                         {"name": "first", "scope": "test", "file": SimpleUploadedFile("run.zip", factories.gold_run_zip())})
    assert ok.status_code == 302
    response = member.post(reverse("portal:run_upload", kwargs={"slug": campaign.slug}),
                           {"name": "second", "scope": "test", "file": SimpleUploadedFile("run.zip", factories.gold_run_zip())})
    assert response.status_code == 400
    assert "limit of 1" in response.context["form"].errors["file"][0]
    assert Run.objects.count() == 1
