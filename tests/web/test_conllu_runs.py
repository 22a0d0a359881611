"""CoNLL-U runs of an EASY campaign: the organiser's option, conversion on validation, download, signature.

The campaign is one document of three real sentences (general_elda E1-E3); the run is a hand-written UD
parse of them. Scoring runs in process (eager Celery, on commit).
"""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from django import forms
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.admin_forms import check_metrics
from campaign.models import AuditEntry, Run, RunStatus
from campaign.rules import UploadRefused
from campaign.services.runs import upload_run
from parseval.evaluation.ud2easy.convert import CONVERTER_VERSION
from tests import factories
from tests.web.helpers import stored_run

ACCEPTS = {"run_formats": ["easy-xml", "conllu"], "bootstrap": 20}


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def rows(sid: str, table: str) -> str:
    """CoNLL-U of one sentence from rows ``FORM UPOS HEAD DEPREL`` (ids are the row numbers)."""
    lines = [f"# sent_id = {sid}"]
    for k, row in enumerate(table.strip().splitlines(), 1):
        form, upos, head, deprel = row.split()
        lines.append("\t".join([str(k), form, "_", upos, "_", "_", head, deprel, "_", "_"]))
    return "\n".join(lines) + "\n\n"


E1 = rows("E1", """
Utilité NOUN 0 root
et CCONJ 3 cc
bénéfices NOUN 1 conj
""")
E2 = rows("E2", """
A ADP 2 case
quoi PRON 3 obl:arg
servent VERB 0 root
les DET 5 det
ressources NOUN 3 nsubj
linguistiques ADJ 5 amod
? PUNCT 3 punct
""")
E3 = rows("E3", """
1 NUM 4 nummod
- PUNCT 4 punct
Les DET 4 det
ressources NOUN 0 root
linguistiques ADJ 4 amod
pour ADP 8 case
l' DET 8 det
élaboration NOUN 4 nmod
de ADP 10 case
systèmes NOUN 8 nmod
: PUNCT 4 punct
""")
PARSES = (E1 + E2 + E3).encode("utf-8")


@pytest.fixture
def small_gold(tmp_path):
    """general_elda cut to its first three sentences: a one-document corpus."""
    data = factories.gold_bytes("general_elda.xml").decode("utf-8")
    cut = data[:data.index('<E id="E4">')] + "</DOCUMENT>\n"
    path = tmp_path / "gold" / "general_elda.xml"
    path.parent.mkdir()
    path.write_text(cut, encoding="utf-8")
    return path


def easy_campaign(gold, **metrics):
    from campaign.services.corpus import import_corpus

    campaign = factories.make_campaign(metrics=metrics, runs_per_team=20)
    import_corpus(campaign, [gold])
    return campaign


@pytest.fixture
def conllu_campaign(db, storage, small_gold):
    return easy_campaign(small_gold, **ACCEPTS)


@pytest.fixture
def xml_campaign(db, storage, small_gold):
    return easy_campaign(small_gold, bootstrap=20)


def conllu_run(campaign, team, user, capture, data=PARSES, filename="general_elda.conllu") -> Run:
    return stored_run(campaign, team, user, data, filename, capture=capture)


# -- the option --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value", [["easy-xml", "conllu"], ["conllu", "easy-xml"], ["easy-xml"]])
def test_run_formats_accepted(value):
    check_metrics("easy", {"run_formats": value})


@pytest.mark.parametrize("value, why", [
    ("conllu", "non-empty list"), ([], "non-empty list"), (["easy-xml", "pdf"], "drawn from easy-xml, conllu"),
    (["conllu"], "must include easy-xml"), ([1], "non-empty list"),
])
def test_run_formats_refused(value, why):
    with pytest.raises(forms.ValidationError, match=why):
        check_metrics("easy", {"run_formats": value})


def test_run_formats_is_an_easy_option_only():
    with pytest.raises(forms.ValidationError, match="Unknown option"):
        check_metrics("dependency", {"run_formats": ["easy-xml", "conllu"]})


def test_the_option_is_edited_in_the_campaign_admin(client, db):
    """The admin form of a campaign checks run_formats with the other scoring options."""
    from campaign.admin_forms import CampaignAdminForm

    form = CampaignAdminForm(data={"metrics": '{"run_formats": ["conllu"]}'})
    form.is_valid()
    assert "must include easy-xml" in str(form.errors["metrics"])
    assert "run_formats" in str(CampaignAdminForm().fields["metrics"].help_text)


# -- upload, conversion, scoring -----------------------------------------------------------------------------

def test_a_ud_validation_level_adds_the_ud_validators_errors(db, storage, small_gold, alice,
                                                             django_capture_on_commit_callbacks):
    """The parses have no "# text" line: the project's converter does not need one, the UD validator's
    level 2 does (its test missing-text). With {"ud_validation": 1} the run is valid and scored; with
    2 it is refused, one problem per sentence, located at the file, the sentence's first line and id."""
    with pytest.raises(forms.ValidationError, match="ud_validation must be a UD validation level"):
        check_metrics("easy", {"ud_validation": "2"})
    campaign = easy_campaign(small_gold, **ACCEPTS, ud_validation=1)
    team = factories.make_team(campaign, alice)
    run = conllu_run(campaign, team, alice, django_capture_on_commit_callbacks)
    assert run.status == RunStatus.SCORED and run.validation_report["ud_validation"]["level"] == 1
    campaign.metrics = {**campaign.metrics, "ud_validation": 2}
    campaign.save()
    run = conllu_run(campaign, team, alice, django_capture_on_commit_callbacks)
    assert run.status == RunStatus.INVALID
    assert [(p["file"], p["line"], p["sentence"]) for p in run.validation_report["problems"]] == [
        ("general_elda.conllu", 2, "E1"), ("general_elda.conllu", 7, "E2"), ("general_elda.conllu", 16, "E3")]
    assert all("[level 2 METADATA missing-text]" in p["message"] for p in run.validation_report["problems"])

def test_a_conllu_run_is_converted_validated_and_scored(conllu_campaign, alice, django_capture_on_commit_callbacks):
    team = factories.make_team(conllu_campaign, alice)
    run = conllu_run(conllu_campaign, team, alice, django_capture_on_commit_callbacks)
    assert run.status == RunStatus.SCORED, (run.status_reason, run.validation_report)
    report = run.validation_report
    assert report["valid"] and report["format"] == "conllu" and report["converter"] == CONVERTER_VERSION
    assert (report["documents"], report["sentences"]) == (1, 3)
    # the upload is kept as sent; the converted EASY XML beside it
    assert run.file.read() == PARSES and run.original_filename == "general_elda.conllu"
    assert run.converter == CONVERTER_VERSION and run.converted_file.name.endswith(f".{CONVERTER_VERSION}.easy.zip")
    with zipfile.ZipFile(run.converted_file.open("rb")) as zf:
        assert zf.namelist() == ["general_elda.xml"]
        converted = zf.read("general_elda.xml")
    assert converted.count(b"<E ") == 3

    result = run.results.get()
    assert result.parameters["converter"] == CONVERTER_VERSION
    assert result.signature.endswith(f"|converter:{CONVERTER_VERSION}|version:{result.scorer_version}")
    assert result.document["parameters"]["converter"] == CONVERTER_VERSION
    assert all(c["signature"].endswith(f"converter:{CONVERTER_VERSION}|version:{result.scorer_version}")
               for c in result.document["cells"])

    # E1, gold GN(Utilité) GN(bénéfices); the parse gives the same two groups. E2, gold GP(A quoi) NV(servent)
    # GN(les ressources) GA(linguistiques): the same four. E3, gold GN(Les ressources) GA(linguistiques)
    # GP(pour l' élaboration) GP(de systèmes): the same four. 10 groups of 10, all found: P = R = F = 1.
    cell = result.cells.get(layer="constituents", aggregation="micro", genre="ALL", type="ALL", match="EQUAL")
    assert (cell.fc, cell.fp, cell.cr, cell.f) == (10, 10, 10, 1.0)

    # what is scored is the converted XML: uploaded as an EASY XML run, it scores the same, without the converter
    xml_run = stored_run(conllu_campaign, team, alice, converted, "general_elda.xml",
                         capture=django_capture_on_commit_callbacks, name="as xml")
    assert xml_run.status == RunStatus.SCORED and not xml_run.converter and not xml_run.converted_file
    xml_result = xml_run.results.get()
    assert "converter" not in xml_result.parameters and "converter" not in xml_result.signature
    assert result.signature == xml_result.signature.replace(
        "|version:", f"|converter:{CONVERTER_VERSION}|version:")
    figures = lambda r: sorted((c.layer, c.aggregation, c.mode, c.match, c.genre, c.type, c.fc, c.fp, c.cr, c.f)
                               for c in r.cells.all())  # noqa: E731
    assert figures(result) == figures(xml_result)


def test_a_superseded_delivery_neither_replaces_nor_removes_the_conversion(
        conllu_campaign, alice, django_capture_on_commit_callbacks):
    """A validating delivery paused past its lease and taken over converts what it had read and, on resuming,
    stores it: its conversion is refused under the run's lock, as every other write of a stale holder is, and
    the current holder's file (same name: same upload, same converter) is neither deleted nor replaced."""
    from evaluation.pipeline import delivery
    from evaluation.kinds.easy import conllu as easy_conllu

    team = factories.make_team(conllu_campaign, alice)
    run = conllu_run(conllu_campaign, team, alice, django_capture_on_commit_callbacks)
    name, kept = run.converted_file.name, run.converted_file.open("rb").read()
    Run.objects.filter(pk=run.pk).update(status=RunStatus.VALIDATING, claimed_by="new-holder")  # the takeover
    stale = delivery.Claim(run.pk, "old-holder", run.scoring_round)
    token = delivery._current.set(stale)
    try:
        with pytest.raises(delivery.LostClaim):
            easy_conllu.store_converted(run, {"general_elda": b"<DOCUMENT>stale</DOCUMENT>"})
    finally:
        delivery._current.reset(token)
    run.refresh_from_db()
    assert (run.converted_file.name, run.converter) == (name, CONVERTER_VERSION)
    assert run.converted_file.open("rb").read() == kept
    assert [p.name for p in Path(run.converted_file.path).parent.glob("*.easy*.zip")] == [
        name.rsplit("/", 1)[-1]]  # and no second conversion beside it

    # the holder of the run stores its conversion (a re-validation: the same name, replaced in place)
    held = delivery.Claim(run.pk, "new-holder", run.scoring_round)
    token = delivery._current.set(held)
    try:
        easy_conllu.store_converted(run, {"general_elda": b"<DOCUMENT>new</DOCUMENT>"})
    finally:
        delivery._current.reset(token)
    run.refresh_from_db()
    assert run.converted_file.name == name
    with zipfile.ZipFile(run.converted_file.open("rb")) as zf:
        assert zf.read("general_elda.xml") == b"<DOCUMENT>new</DOCUMENT>"


def test_an_archive_of_conllu_files_is_accepted(conllu_campaign, alice, django_capture_on_commit_callbacks):
    team = factories.make_team(conllu_campaign, alice)
    run = conllu_run(conllu_campaign, team, alice, django_capture_on_commit_callbacks,
                     data=factories.zip_of({"out/general_elda.conllu": PARSES}), filename="parses.zip")
    assert run.status == RunStatus.SCORED, run.validation_report
    assert run.results.get().parameters["converter"] == CONVERTER_VERSION


# Built in the test, not in the parameters: a zip carries the time it was made, and test ids must be the
# same in every test process.
@pytest.mark.parametrize("filename", ["general_elda.conllu", "parses.zip"])
def test_refused_where_the_campaign_takes_easy_xml_only(xml_campaign, alice, filename):
    data = factories.zip_of({"general_elda.conllu": PARSES}) if filename.endswith(".zip") else PARSES
    team = factories.make_team(xml_campaign, alice)
    with pytest.raises(UploadRefused, match=r"accepts EASY XML runs only, not CoNLL-U") as refused:
        upload_run(campaign=xml_campaign, team=team, user=alice, name="r", uploaded_file=SimpleUploadedFile(filename, data))
    assert "ud2easy" in str(refused.value)
    assert not Run.objects.exists() and not AuditEntry.objects.filter(action="run.upload").exists()


def test_a_run_mixing_the_formats_is_refused(conllu_campaign, alice, small_gold):
    from campaign.services.corpus import import_corpus

    other = small_gold.parent / "mail_10.xml"
    other.write_bytes(factories.gold_bytes("mail_10.xml"))
    import_corpus(conllu_campaign, [other])
    team = factories.make_team(conllu_campaign, alice)
    data = factories.zip_of({"general_elda.conllu": PARSES, "mail_10.xml": factories.gold_bytes("mail_10.xml")})
    with pytest.raises(UploadRefused, match=r"mixes formats \(mail_10.xml and general_elda.conllu\)"):
        upload_run(campaign=conllu_campaign, team=team, user=alice, name="r",
                   uploaded_file=SimpleUploadedFile("run.zip", data))


def test_problems_of_the_parses_are_located_in_the_report(conllu_campaign, alice, django_capture_on_commit_callbacks):
    team = factories.make_team(conllu_campaign, alice)
    bad = E1 + E2.replace("sent_id = E2", "sent_id = E9") + E3.replace("élaboration", "elaboration")
    run = conllu_run(conllu_campaign, team, alice, django_capture_on_commit_callbacks, data=bad.encode("utf-8"))
    assert run.status == RunStatus.INVALID and not run.converted_file and not run.converter
    report = run.validation_report
    assert not report["valid"] and report["format"] == "conllu"
    problems = {(p["file"], p["line"], p["sentence"]): p["message"] for p in report["problems"]}
    e9_line = len(E1.splitlines()) + 2  # E1's lines, its blank line ending it, then E9's comment: the first word
    e3_line = len(E1.splitlines()) + len(E2.splitlines()) + 2
    assert "not a sentence of corpus document general_elda" in problems[("general_elda.conllu", e9_line, "E9")]
    # located where the file skips it: at E3, which follows E9 (not a corpus sentence)
    assert "have no parse: E2 (the file goes from sent_id E1 to E3" in problems[("general_elda.conllu", e3_line, "E2")]
    assert "not the corpus forms' text" in problems[("general_elda.conllu", e3_line, "E3")]
    assert report["problem_count"] == 3
    assert not run.results.exists()


def test_a_file_that_is_not_conllu_is_a_problem_not_a_failure(conllu_campaign, alice,
                                                               django_capture_on_commit_callbacks):
    team = factories.make_team(conllu_campaign, alice)
    run = conllu_run(conllu_campaign, team, alice, django_capture_on_commit_callbacks, data=b"just words\n")
    assert run.status == RunStatus.INVALID
    (problem,) = run.validation_report["problems"]
    assert problem["file"] == "general_elda.conllu" and problem["line"] == 1 and "10 tab-separated" in problem["message"]


def test_taking_the_option_away_keeps_accepted_runs_scorable(conllu_campaign, alice,
                                                              django_capture_on_commit_callbacks):
    """The option decides uploads: a CoNLL-U run already taken is scored again (re-score) as before."""
    from evaluation.pipeline.services import rescore

    team = factories.make_team(conllu_campaign, alice)
    run = conllu_run(conllu_campaign, team, alice, django_capture_on_commit_callbacks)
    conllu_campaign.metrics = {"bootstrap": 20}
    conllu_campaign.save()
    organiser = factories.make_user("orga")
    with django_capture_on_commit_callbacks(execute=True):
        rescore(run, organiser)
    run.refresh_from_db()
    assert run.status == RunStatus.SCORED and run.results.count() == 2
    assert {r.parameters["converter"] for r in run.results.all()} == {CONVERTER_VERSION}


# -- what the team sees and downloads ----------------------------------------------------------------------

def test_the_team_downloads_the_converted_xml(client, conllu_campaign, alice, bob, django_capture_on_commit_callbacks):
    team = factories.make_team(conllu_campaign, alice)
    run = conllu_run(conllu_campaign, team, alice, django_capture_on_commit_callbacks)
    url = reverse("portal:run_converted_file", kwargs={"pk": run.pk})
    client.force_login(alice)
    page = client.get(reverse("portal:run", kwargs={"pk": run.pk})).content.decode()
    assert f"converted from CoNLL-U ({CONVERTER_VERSION})" in page and url in page
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="general_elda-easy.zip"'
    body = b"".join(response.streaming_content)
    assert body == run.converted_file.open("rb").read()
    assert zipfile.ZipFile(io.BytesIO(body)).namelist() == ["general_elda.xml"]
    entry = AuditEntry.objects.get(action="run.download")
    assert entry.details == {"sha256": run.sha256, "converted": CONVERTER_VERSION}

    api = APIClient()
    api.force_authenticate(alice)
    detail = api.get(f"/api/runs/{run.pk}/").json()
    assert detail["converter"] == CONVERTER_VERSION and detail["converted_url"].endswith(f"/api/runs/{run.pk}/converted.zip")
    response = api.get(f"/api/runs/{run.pk}/converted.zip")
    assert response.status_code == 200 and b"".join(response.streaming_content) == body

    # another team's member, and anonymous users, find nothing there
    factories.make_team(conllu_campaign, bob, name="Team B")
    client.force_login(bob)
    assert client.get(url).status_code == 404
    api.force_authenticate(bob)
    assert api.get(f"/api/runs/{run.pk}/converted.zip").status_code == 404
    client.logout()
    assert client.get(url).status_code == 404


def test_an_xml_run_has_nothing_converted(client, xml_campaign, alice, django_capture_on_commit_callbacks, small_gold):
    team = factories.make_team(xml_campaign, alice)
    run = stored_run(xml_campaign, team, alice, small_gold.read_bytes(), "general_elda.xml",
                     capture=django_capture_on_commit_callbacks)
    assert run.status == RunStatus.SCORED
    assert "format" not in run.validation_report and "converter" not in run.validation_report
    client.force_login(alice)
    assert "converted from CoNLL-U" not in client.get(reverse("portal:run", kwargs={"pk": run.pk})).content.decode()
    assert client.get(reverse("portal:run_converted_file", kwargs={"pk": run.pk})).status_code == 404
    api = APIClient()
    api.force_authenticate(alice)
    assert api.get(f"/api/runs/{run.pk}/").json()["converted_url"] is None


def test_the_upload_form_says_what_the_campaign_takes(client, conllu_campaign, xml_campaign, alice):
    for campaign, says in ((conllu_campaign, True), (xml_campaign, False)):
        factories.make_team(campaign, alice, name=f"Team {campaign.slug}")
        client.force_login(alice)
        page = client.get(reverse("portal:run_upload", kwargs={"slug": campaign.slug})).content.decode()
        assert ("CoNLL-U .conllu" in page) is says


def test_diagnostics_and_paired_rows_read_the_converted_xml(conllu_campaign, alice,
                                                             django_capture_on_commit_callbacks):
    """What reads a run again after scoring (per-sentence diagnostics, the paired tests' rows) reads what was
    scored: the converted XML, not the CoNLL-U upload."""
    from evaluation.kinds import get
    from evaluation.kinds.easy.diagnostics import run_diagnostics

    team = factories.make_team(conllu_campaign, alice)
    run = conllu_run(conllu_campaign, team, alice, django_capture_on_commit_callbacks)
    (shown,) = run_diagnostics(run)["shown"]
    assert [s["id"] for s in shown["sentences"] if s["submitted"]] == ["E1", "E2", "E3"]
    keys, genres, table = get("easy").sentence_rows(run.results.get())
    assert keys == ["general_elda/E1", "general_elda/E2", "general_elda/E3"] and table.shape[0] == 3


def test_a_converter_crash_is_a_problem_of_the_file(conllu_campaign, alice, django_capture_on_commit_callbacks,
                                                    monkeypatch):
    """Whatever goes wrong in the converter happens during validation and is said as a problem of the file:
    the run is invalid (decided by the file and the corpus), never failed after validation."""
    from evaluation.kinds.easy import conllu as easy_conllu

    def broken(*args, **kwargs):
        raise KeyError("head")

    monkeypatch.setattr(easy_conllu, "convert_document", broken)
    team = factories.make_team(conllu_campaign, alice)
    run = conllu_run(conllu_campaign, team, alice, django_capture_on_commit_callbacks)
    assert run.status == RunStatus.INVALID and not run.results.exists()
    (problem,) = run.validation_report["problems"]
    assert problem["file"] == "general_elda.conllu"
    assert problem["message"].startswith(f"the converter ({CONVERTER_VERSION}) could not convert this file (KeyError)")


def test_the_console_says_what_the_campaign_takes(client, conllu_campaign, xml_campaign):
    organiser = factories.make_user("orga", is_staff=True)
    client.force_login(organiser)
    for campaign, says in ((conllu_campaign, f"EASY XML and CoNLL-U (converted to EASY XML on validation, "
                                             f"{CONVERTER_VERSION})"), (xml_campaign, "EASY XML only")):
        campaign.organisers.add(organiser)
        page = client.get(reverse("console:dashboard", kwargs={"slug": campaign.slug})).content.decode()
        assert f"Run files taken: {says} " in page


# -- upkeep --------------------------------------------------------------------------------------------

def test_conversions_no_run_names_go_once_no_task_can_read_them(conllu_campaign, alice, settings,
                                                                  django_capture_on_commit_callbacks):
    """The hourly sweep deletes a conversion of an older converter version (what a re-score with a newer
    converter leaves) and a deleted run's, once it and the run's current conversion were written more than the
    task time limit ago; a run's current conversion, and its upload, stay."""
    import os
    from datetime import timedelta

    from django.core.files.base import ContentFile
    from django.utils import timezone

    from evaluation import upkeep
    from evaluation.kinds.easy import run_index

    settings.CELERY_TASK_TIME_LIMIT = 3600
    team = factories.make_team(conllu_campaign, alice)
    run = conllu_run(conllu_campaign, team, alice, django_capture_on_commit_callbacks)
    storage, current = run.converted_file.storage, run.converted_file.name
    folder = current.rsplit("/", 1)[0]
    older = f"{folder}/{run.sha256[:16]}.ud2easy-1.easy.zip"  # the conversion a newer converter replaced
    deleted = f"{folder}/{'f' * 16}.{CONVERTER_VERSION}.easy.zip"  # a deleted run's
    renamed = f"{folder}/{'e' * 16}.{CONVERTER_VERSION}.easy_AbC1234.zip"  # as the storage names a second copy
    for planted in (older, deleted, renamed):
        storage.save(planted, ContentFile(run.converted_file.open("rb").read()))
    now = timezone.now()
    hours_ago = (now - timedelta(hours=5)).timestamp()
    os.utime(storage.path(older), (hours_ago, hours_ago))
    os.utime(storage.path(deleted), (hours_ago, hours_ago))

    # the run was converted anew just now: a task that loaded it before may still read the older one; the
    # file just written may be a validation's that has not named it yet
    found = upkeep.sweep_run_indexes()
    assert (found["conversions"], found["superseded"]) == (4, 1)  # the deleted run's, written 5 h ago
    assert storage.exists(older) and storage.exists(renamed) and not storage.exists(deleted)
    found = run_index.sweep_stored(now + timedelta(seconds=3600 + 60))
    assert (found["conversions"], found["superseded"]) == (3, 2) and found["stale"] == 0
    assert not storage.exists(older) and not storage.exists(renamed)
    assert storage.exists(current) and storage.exists(run.file.name)
    with zipfile.ZipFile(run.converted_file.open("rb")) as zf:
        assert zf.namelist() == ["general_elda.xml"]  # what scoring reads again
