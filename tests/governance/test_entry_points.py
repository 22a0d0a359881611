"""Every entry point goes through the one upload gate: page, API and command line refuse late
uploads (with the deadline in the message), runs over the limit and invalid uploads over the cap,
and leave nothing behind. Validation reports look the same whether a sentence has gold or not."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.utils import timezone

from campaign.subsets import sample_test_subset
from campaign.models import Campaign, Run, RunStatus
from campaign.services.corpus import import_corpus
from tests.factories import SMALL_EASY_FILES, easy_gold_paths, gold_run_zip

from .conftest import run, team, user

pytestmark = pytest.mark.django_db

FILE = SMALL_EASY_FILES[0]


@pytest.fixture
def easy(organiser, member_a):
    c = Campaign.objects.create(name="Gate", slug="gate", state="open")
    c.organisers.add(organiser)
    import_corpus(c, easy_gold_paths(SMALL_EASY_FILES))
    team(c, member_a, name="Alpha")
    return c


def page_upload(user_, c, data=None):
    client = Client()
    client.force_login(user_)
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("run.zip", data or gold_run_zip())
    response = client.post(f"/campaigns/{c.slug}/upload/", {"name": "late", "system_description": "", "scope": "test",
                                                           "file": upload})
    return response.status_code, response.content.decode()


def api_upload(user_, c, data=None):
    client = Client()
    client.force_login(user_)
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("run.zip", data or gold_run_zip())
    response = client.post(f"/api/campaigns/{c.slug}/runs/", {"name": "late", "scope": "test", "file": upload})
    return response.status_code, response.content.decode()


def command_upload(user_, c, tmp_path):
    path = tmp_path / "run.zip"
    path.write_bytes(gold_run_zip())
    try:
        call_command("submit_run", c.slug, str(path), "--user", user_.username, "--name", "late")
    except CommandError as refused:
        return 400, str(refused)
    return 201, ""


ENTRY_POINTS = {"page": page_upload, "api": api_upload}


def upload_through(entry, user_, c, tmp_path):
    if entry == "command":
        return command_upload(user_, c, tmp_path)
    return ENTRY_POINTS[entry](user_, c)


@pytest.mark.parametrize("entry", ["page", "api", "command"])
def test_late_upload_is_refused_with_the_deadline(entry, easy, member_a, tmp_path):
    deadline = timezone.now() - timedelta(minutes=3)
    easy.deadline = deadline
    easy.save()
    status, text = upload_through(entry, member_a, easy, tmp_path)
    assert status == 400
    assert "deadline" in text and f"{deadline:%Y-%m-%d %H:%M} UTC" in text
    assert not Run.objects.filter(campaign=easy).exists()


@pytest.mark.parametrize("entry", ["page", "api", "command"])
def test_upload_to_a_closed_campaign_is_refused(entry, easy, member_a, tmp_path):
    easy.state = "closed"
    easy.save()
    status, text = upload_through(entry, member_a, easy, tmp_path)
    assert status == 400 and "does not accept runs" in text
    assert not Run.objects.filter(campaign=easy).exists()


@pytest.mark.parametrize("entry", ["page", "api", "command"])
def test_run_over_the_limit_is_refused(entry, easy, member_a, tmp_path):
    easy.runs_per_team = 1
    easy.save()
    run(easy.teams.get(), status=RunStatus.SCORED)
    status, text = upload_through(entry, member_a, easy, tmp_path)
    assert status == 400 and "the campaign&#x27;s limit of 1" in text or "the campaign's limit of 1" in text
    assert Run.objects.filter(campaign=easy).count() == 1


@pytest.mark.parametrize("entry", ["page", "api", "command"])
def test_invalid_upload_cap_is_refused(entry, easy, member_a, tmp_path):
    easy.invalid_uploads_per_day = 2
    easy.save()
    for _ in range(2):
        run(easy.teams.get(), status=RunStatus.INVALID)
    status, text = upload_through(entry, member_a, easy, tmp_path)
    assert status == 400 and "2 invalid uploads in the last 24 hours" in text
    assert Run.objects.filter(campaign=easy).count() == 2


def test_command_upload_goes_through_and_gives_the_receipt(easy, member_a, tmp_path, capsys):
    status, _ = command_upload(member_a, easy, tmp_path)
    assert status == 201
    stored = Run.objects.get(campaign=easy)
    assert f"SHA-256 {stored.sha256}" in capsys.readouterr().out


# -- validation reports do not depend on gold ---------------------------------------------------

def _report(c, member, data, capture):
    from tests.web.helpers import stored_run

    r = stored_run(c, c.teams.get(), member, data, filename=f"{FILE}", capture=capture)
    report = dict(r.validation_report)
    report.pop("checked_at", None)
    return report


def _wrong_form(data: bytes, sentence: str) -> bytes:
    text = data.decode("utf-8")
    start = text.index(f'<F id="{sentence}F1">')
    end = text.index("</F>", start)
    return (text[:start] + f'<F id="{sentence}F1">WRONGWORD' + text[end:]).encode("utf-8")


def _shape(report: dict) -> dict:
    """The report with sentence ids, form ids, lines and the expected words blanked out."""
    text = repr(report)
    text = re.sub(r"E\d+F\d+", "FORM", text)
    text = re.sub(r"E\d+", "SENT", text)
    text = re.sub(r"'line': \d+", "'line': N", text)
    return re.sub(r"'[^']*' expected|expected '[^']*'|«[^»]*»", "EXPECTED", text)


def test_validation_report_is_the_same_with_and_without_gold(member_a, tmp_path, django_capture_on_commit_callbacks):
    """The same run on two campaigns whose test subsets differ gets the same report; an error in a test
    sentence and the same error in a sentence without gold give reports of the same shape."""
    from .test_corpus_structure import fuller_texts

    texts = fuller_texts(tmp_path)
    reports = {}
    for slug in ("with-a", "with-b"):
        c = Campaign.objects.create(name=slug, slug=slug, state="draft")
        import_corpus(c, easy_gold_paths(SMALL_EASY_FILES), text_paths=texts)
        sample_test_subset(c, ratio=0.5)  # a fresh secret key each: two different test sets
        c.state = "open"
        c.invalid_uploads_per_day = 10
        c.save()
        team(c, user(f"m-{slug}"), name=f"T {slug}")
        member = c.teams.get().members.get()
        doc = c.documents.get(name=FILE.removesuffix(".xml"))
        with doc.text_file.open("rb") as fh:
            data = fh.read()  # the corpus text as teams download it: a valid run with no annotation
        test_sid = doc.sentences.filter(gold_membership__subset="test").order_by("position").first().sid
        no_gold_sid = doc.sentences.filter(gold_membership__isnull=True).order_by("position").first().sid
        reports[slug] = {
            "valid": _report(c, member, data, django_capture_on_commit_callbacks),
            "error in a test sentence": _report(c, member, _wrong_form(data, test_sid), django_capture_on_commit_callbacks),
            "error in a sentence without gold": _report(c, member, _wrong_form(data, no_gold_sid),
                                                        django_capture_on_commit_callbacks),
        }
    a, b = reports["with-a"], reports["with-b"]
    for same_run in ("valid", "error in a sentence without gold"):
        assert a[same_run] == b[same_run]  # same run, other test subsets: the very same report
    assert a["valid"]["problem_count"] > 0  # a single-document run misses the other documents
    bad_test, bad_other = a["error in a test sentence"], a["error in a sentence without gold"]
    assert bad_test["problem_count"] == bad_other["problem_count"] == a["valid"]["problem_count"] + 1
    assert set(bad_test) == set(bad_other)
    assert _shape(bad_test) == _shape(bad_other)
    assert bad_test != bad_other  # the reports do name the sentence: the shapes match, the places differ


def test_a_run_set_frozen_while_the_file_is_staged_refuses_the_upload(easy, member_a, organiser):
    """The gate is checked again under the campaign row lock, just before the run is stored."""
    from unittest import mock

    from django.core.files.uploadedfile import SimpleUploadedFile

    from campaign import lifecycle
    from campaign.rules import UploadRefused
    from campaign.services import runs

    real_unpacked = runs.unpacked

    def closing_meanwhile(*args, **kwargs):
        lifecycle.transition(easy, "closed", actor=organiser)
        return real_unpacked(*args, **kwargs)

    stale = Campaign.objects.get(pk=easy.pk)
    with mock.patch.object(runs, "unpacked", closing_meanwhile), pytest.raises(UploadRefused, match="closed"):
        runs.upload_run(campaign=stale, team=easy.teams.get(), user=member_a, name="racing",
                        uploaded_file=SimpleUploadedFile("run.zip", gold_run_zip()))
    assert not Run.objects.filter(campaign=easy).exists()
