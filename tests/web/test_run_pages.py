"""The run page, its live status, the validation report, withdrawal, download, permissions."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from campaign.models import AuditEntry, RunStatus
from tests import factories
from tests.web.helpers import stored_run, with_wrong_form


@pytest.fixture
def run_a(campaign, team_a, alice, django_capture_on_commit_callbacks):
    return stored_run(campaign, team_a, alice, capture=django_capture_on_commit_callbacks)


def run_urls(run):
    return [reverse(f"portal:{n}", kwargs={"pk": run.pk}) for n in ("run", "run_status", "run_file")]


def test_team_b_cannot_see_team_a_run(client, run_a, team_b, bob):
    client.force_login(bob)
    for url in run_urls(run_a):
        assert client.get(url).status_code == 404, url
    response = client.post(reverse("portal:run_withdraw", kwargs={"pk": run_a.pk}))
    assert response.status_code == 404
    run_a.refresh_from_db()
    assert run_a.withdrawn_at is None
    assert not AuditEntry.objects.filter(action="run.download").exists()


def test_anonymous_cannot_see_a_run(client, run_a):
    for url in run_urls(run_a):
        assert client.get(url).status_code == 404, url


def test_organiser_sees_the_run_and_its_scores(client, run_a, campaign):
    organiser = factories.make_user("orga")
    campaign.organisers.add(organiser)
    client.force_login(organiser)
    page = client.get(reverse("portal:run", kwargs={"pk": run_a.pk})).content.decode()
    assert run_a.sha256 in page and "Signature" in page


def test_status_json(client, run_a, alice):
    client.force_login(alice)
    data = client.get(reverse("portal:run_status", kwargs={"pk": run_a.pk})).json()
    # a scored test run before release: only "accepted", with no time after the upload
    assert run_a.status == "scored"
    assert data["status"] == "accepted" and data["progress"] == 100 and data["finished"] is True
    assert "status_changed_at" not in data
    run_a.campaign.state = "released"
    run_a.campaign.save()
    data = client.get(reverse("portal:run_status", kwargs={"pk": run_a.pk})).json()
    # scored, but not when: that time follows from the test sentences until the gold is released
    assert data["status"] == "scored" and "status_changed_at" not in data
    run_a.campaign.gold_released_at = timezone.now()
    run_a.campaign.save()
    assert client.get(reverse("portal:run_status", kwargs={"pk": run_a.pk})).json()["status_changed_at"]


def test_run_page_polls_while_running(client, campaign, team_a, alice):
    run = stored_run(campaign, team_a, alice)  # not committed: stays "uploaded"
    client.force_login(alice)
    page = client.get(reverse("portal:run", kwargs={"pk": run.pk})).content.decode()
    assert 'data-finished="false"' in page
    assert reverse("portal:run_status", kwargs={"pk": run.pk}) in page
    assert "js/run-status.js" in page
    assert "<progress" in page


def test_validation_report_names_file_line_sentence_element(client, campaign, team_a, alice,
                                                            django_capture_on_commit_callbacks):
    data = factories.zip_of({
        "general_elda.xml": with_wrong_form("general_elda.xml", "E2", "E2F3", "WRONG"),
        "mail_10.xml": factories.gold_bytes("mail_10.xml"),
        "oral_delic_2.xml": factories.gold_bytes("oral_delic_2.xml"),
    })
    run = stored_run(campaign, team_a, alice, data, capture=django_capture_on_commit_callbacks)
    assert run.status == RunStatus.INVALID
    assert not run.results.exists()
    report = run.validation_report
    assert report["valid"] is False and report["problem_count"] == 1
    problem = report["problems"][0]
    assert problem["file"] == "general_elda.xml" and problem["sentence"] == "E2" and problem["element"] == "E2F3"
    assert isinstance(problem["line"], int) and problem["line"] > 1
    assert "WRONG" in problem["message"]
    client.force_login(alice)
    page = client.get(reverse("portal:run", kwargs={"pk": run.pk})).content.decode()
    assert "1 problem found" in page and "E2F3" in page and "WRONG" in page and f">{problem['line']}<" in page


def test_validation_is_the_same_with_and_without_gold(db, storage, tmp_path, django_capture_on_commit_callbacks):
    """A sentence without gold gets exactly the report it would get with gold."""
    from parseval.annotations.easy import read_document, write_document
    from parseval.annotations.easy.model import Document
    from campaign.services.corpus import import_corpus

    full = factories.EASY_REF / "mail_10.xml"
    gold = read_document(full, gold=True)
    partial = tmp_path / "mail_10.xml"
    write_document(Document(name="mail_10.xml", sentences=[s for s in gold.sentences if s.id != "E2"]), partial)
    with_all = factories.make_campaign(slug="with-all")
    import_corpus(with_all, [full])
    without_e2 = factories.make_campaign(slug="without-e2")
    import_corpus(without_e2, [partial], text_paths={"mail_10": full})
    bad = with_wrong_form("mail_10.xml", "E2", "E2F1", "WRONG")
    reports = []
    for campaign in (with_all, without_e2):
        user = factories.make_user()
        team = factories.make_team(campaign, user)
        run = stored_run(campaign, team, user, bad, "mail_10.xml", capture=django_capture_on_commit_callbacks)
        report = dict(run.validation_report)
        report.pop("checked_at")
        reports.append(report)
    assert reports[0]["problems"][0]["sentence"] == "E2"
    assert reports[0] == reports[1]


def test_withdraw_before_deadline(client, run_a, alice):
    client.force_login(alice)
    response = client.post(reverse("portal:run_withdraw", kwargs={"pk": run_a.pk}), follow=True)
    assert "withdrawn" in response.content.decode()
    run_a.refresh_from_db()
    assert run_a.withdrawn_at is not None
    assert AuditEntry.objects.filter(action="run.withdraw", target=f"run {run_a.pk}", actor=alice).exists()
    # withdrawing again is refused with a message
    response = client.post(reverse("portal:run_withdraw", kwargs={"pk": run_a.pk}), follow=True)
    assert "already withdrawn" in response.content.decode()


def test_no_withdrawal_after_deadline(client, run_a, alice, campaign):
    campaign.deadline = timezone.now() - timedelta(seconds=1)
    campaign.save()
    client.force_login(alice)
    page = client.get(reverse("portal:run", kwargs={"pk": run_a.pk})).content.decode()
    assert "Withdraw this run" not in page
    response = client.post(reverse("portal:run_withdraw", kwargs={"pk": run_a.pk}), follow=True)
    assert "deadline" in response.content.decode()
    run_a.refresh_from_db()
    assert run_a.withdrawn_at is None
    assert not AuditEntry.objects.filter(action="run.withdraw").exists()


def test_download_own_run_file_is_audited(client, run_a, alice):
    client.force_login(alice)
    response = client.get(reverse("portal:run_file", kwargs={"pk": run_a.pk}))
    assert response.status_code == 200
    import hashlib

    assert hashlib.sha256(b"".join(response.streaming_content)).hexdigest() == run_a.sha256
    assert 'filename="run.zip"' in response["Content-Disposition"]
    assert AuditEntry.objects.filter(action="run.download", target=f"run {run_a.pk}", actor=alice).exists()


def test_organisers_do_not_withdraw_team_runs(client, run_a, campaign):
    organiser = factories.make_user("orga")
    campaign.organisers.add(organiser)
    client.force_login(organiser)
    page = client.get(reverse("portal:run", kwargs={"pk": run_a.pk})).content.decode()
    assert "Withdraw this run" not in page
    response = client.post(reverse("portal:run_withdraw", kwargs={"pk": run_a.pk}), follow=True)
    assert "Only a member of the team" in response.content.decode()
    run_a.refresh_from_db()
    assert run_a.withdrawn_at is None


def test_the_shipped_gold_as_a_run_is_valid_and_its_warnings_are_shown_apart(client, storage, alice,
                                                                              django_capture_on_commit_callbacks):
    # general_lemonde has two pointers to no form, oral_delic_1 a repeated relation id (E96R1-3)
    files = ("general_lemonde.xml", "oral_delic_1.xml")
    campaign = factories.make_easy_campaign(files, slug="gold-as-run")
    team = factories.make_team(campaign, alice)
    run = stored_run(campaign, team, alice, factories.gold_run_zip(files), capture=django_capture_on_commit_callbacks)
    assert run.status == RunStatus.SCORED, run.validation_report
    report = run.validation_report
    assert report["valid"] and report["problems"] == []
    messages = [w["message"] for w in report["warnings"]]
    assert sum("read as a null argument" in m for m in messages) == 2
    assert sum(m.startswith("duplicate relation id") for m in messages) == 3
    client.force_login(alice)
    page = client.get(reverse("portal:run", kwargs={"pk": run.pk})).content.decode()
    assert "Valid: 2 documents" in page and '<table class="problems">' not in page
    assert "the run is accepted, read as stated" in page and page.count("read as a null argument") == 2
    api = client.get(reverse("api:run-detail", kwargs={"pk": run.pk})).json()["validation_report"]
    assert api["problems"] == [] and len(api["warnings"]) == report["warning_count"]
