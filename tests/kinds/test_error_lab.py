"""The error-lab organiser page end to end (task in process) and its permission."""
from __future__ import annotations

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from campaign.models import AuditEntry
from parseval.evaluation.deps.errorlab import run_error_lab
from evaluation.models import ErrorLabJob
from tests import factories
from tests.conftest import sequoia_trees

from .conftest import gold_bytes


@pytest.fixture
def campaign(db, storage, organiser, shared_data):
    return factories.make_campaign(slug="lab", organisers=[organiser])


def _upload(name: str, data: bytes):
    return SimpleUploadedFile(name, data)


def _post(client, campaign, **files_and_fields):
    data = {"preset": "penn", "seed": "7", "per_type": "5"}
    data.update(files_and_fields)
    return client.post(reverse("lab:error_lab", kwargs={"slug": campaign.slug}), data)


def test_two_treebanks_side_by_side(client, campaign, organiser, django_capture_on_commit_callbacks):
    from parseval.annotations.trees.detect import read_trees

    a, b = gold_bytes("annodis") + sequoia_trees("annodis", 6, skip=6).encode(), gold_bytes("frwiki")
    client.force_login(organiser)
    with django_capture_on_commit_callbacks(execute=True):
        response = _post(client, campaign, treebank_a=_upload("small.mrg", a), treebank_b=_upload("frwiki.mrg", b))
    assert response.status_code == 302
    job = ErrorLabJob.objects.get()
    assert job.status == ErrorLabJob.Status.DONE and job.progress == 100 and job.created_by == organiser
    assert AuditEntry.objects.filter(action="errorlab.create", campaign=campaign).exists()

    # The stored document is the library's on the same trees and parameters.
    (tmp := job.treebank_a.path)
    expected = run_error_lab({"small.mrg": read_trees(job.treebank_a.path), "frwiki.mrg": read_trees(job.treebank_b.path)},
                             labels="penn", seed=7, per_type=5)
    assert json.loads(json.dumps(expected)) == job.result and tmp

    html = client.get(response["Location"]).content.decode()
    assert "small.mrg" in html and "frwiki.mrg" in html and "<svg" in html
    for t in ("ATTACH I", "LABEL II", "SPAN III", "weighted", "pooled"):
        assert f'data-type="{t}"' in html
    made = expected["treebanks"]["frwiki.mrg"]["insertions"]["LABEL I"]["made"]
    assert f'data-made="{made}"' in html
    evalb_f = expected["comparison"][0]["small.mrg"]["evalb_f"]
    assert f'data-f="{evalb_f}"' in html
    # The small treebank has two sentences: some types find no place and are said to.
    no_place = [t for t, ins in expected["treebanks"]["small.mrg"]["insertions"].items() if not ins["made"]]
    assert no_place and "no place found" in html
    assert AuditEntry.objects.filter(action="errorlab.view", campaign=campaign).count() == 1


def test_label_file_and_status_json(client, campaign, organiser, django_capture_on_commit_callbacks):
    client.force_login(organiser)
    labels = json.dumps({"pp": ["PP"], "np": ["NP", "NX"]}).encode()
    with django_capture_on_commit_callbacks(execute=True):
        _post(client, campaign, treebank_a=_upload("a.mrg", gold_bytes("frwiki")),
              labels_file=_upload("roles.json", labels))
    job = ErrorLabJob.objects.get()
    assert job.status == "done" and job.result["treebanks"]["a.mrg"]["labels"]["np"] == ["NP", "NX"]
    status = client.get(reverse("lab:error_lab_status", kwargs={"slug": campaign.slug}), {"job": job.pk}).json()
    assert status["finished"] and status["progress"] == 100


@pytest.mark.parametrize("name, data, message", [
    ("a.mrg", b"( (S (NP (DT the) (NN cat)) (VP (VBD sat))))\n( (S (NP the\n", "a.mrg, line 2"),
    ("a.xml", b"<x/>", "must be a .mrg or .tree or .txt or .penn file"),
    ("a.mrg", b"   \n", "a.mrg"),
])
def test_bad_treebank_is_refused_with_where_and_what(client, campaign, organiser, name, data, message, storage):
    client.force_login(organiser)
    response = _post(client, campaign, treebank_a=_upload(name, data))
    assert response.status_code == 400 and message in response.content.decode()
    assert not ErrorLabJob.objects.exists()
    assert not [p for p in (storage / "media").rglob("*") if p.is_file() and "error-lab" in str(p)]


def test_bad_label_file_is_refused(client, campaign, organiser):
    client.force_login(organiser)
    response = _post(client, campaign, treebank_a=_upload("a.mrg", gold_bytes("annodis")),
                     labels_file=_upload("roles.json", b'{"preps": ["PP"]}'))
    assert response.status_code == 400 and "unknown label keys" in response.content.decode()
    assert not ErrorLabJob.objects.exists()


def test_size_limit(client, campaign, organiser, settings):
    settings.PARSEVAL_ERROR_LAB_MAX_BYTES = 1000
    client.force_login(organiser)
    response = _post(client, campaign, treebank_a=_upload("a.mrg", gold_bytes("frwiki")))
    assert response.status_code == 400 and "larger than" in response.content.decode()


def test_only_organisers(client, campaign, organiser, django_capture_on_commit_callbacks):
    member, stranger = factories.make_user("member"), factories.make_user("stranger")
    factories.make_team(campaign, member, name="Team M")
    client.force_login(organiser)
    with django_capture_on_commit_callbacks(execute=True):
        _post(client, campaign, treebank_a=_upload("a.mrg", gold_bytes("annodis")))
    job = ErrorLabJob.objects.get()
    url = reverse("lab:error_lab", kwargs={"slug": campaign.slug})
    status = reverse("lab:error_lab_status", kwargs={"slug": campaign.slug})
    for user in (None, member, stranger):
        client.logout()
        if user:
            client.force_login(user)
        assert client.get(url).status_code == 404
        assert client.get(url, {"job": job.pk}).status_code == 404
        assert client.get(status, {"job": job.pk}).status_code == 404
        assert _post(client, campaign, treebank_a=_upload("a.mrg", b"(S (X y))")).status_code == 404
    assert ErrorLabJob.objects.count() == 1
    # Another campaign's organiser does not see this campaign's jobs either.
    other = factories.make_campaign(slug="other", organisers=[stranger])
    client.force_login(stranger)
    assert client.get(reverse("lab:error_lab", kwargs={"slug": other.slug}), {"job": job.pk}).status_code == 404


def test_task_records_a_failure(campaign, organiser, django_capture_on_commit_callbacks):
    from unittest import mock

    from evaluation.lab import services, tasks

    with django_capture_on_commit_callbacks(execute=False):
        job = services.create_job(campaign, user=organiser,
                                  treebank_a=_upload("a.mrg", gold_bytes("annodis")))
    with mock.patch("parseval.evaluation.deps.errorlab.run_error_lab", side_effect=KeyError("boom")):
        assert tasks.run_error_lab_job.apply(args=[job.pk]).get() == "failed"
    job.refresh_from_db()
    assert job.status == "failed" and "KeyError" in job.status_reason
    assert tasks.run_error_lab_job.apply(args=[job.pk]).get() == "already failed"


def test_one_chart_per_measure(client, campaign, organiser, django_capture_on_commit_callbacks):
    # evalb F, leaf-ancestor and LAS are different measures: each has its own chart and axis.
    client.force_login(organiser)
    with django_capture_on_commit_callbacks(execute=True):
        response = _post(client, campaign, treebank_a=_upload("frwiki.mrg", gold_bytes("frwiki")))
    html = client.get(response["Location"]).content.decode()
    assert html.count("<svg") == 3
    for axis in ("evalb F (%)", "Leaf-ancestor (%)", "LAS (%)"):
        assert axis in html
    assert "F-measure (%)" not in html


def test_the_form_offers_the_preset_of_the_campaigns_gold_labels(client, storage, organiser, tree_campaign,
                                                                  shared_data, tmp_path):
    """A constituency campaign whose gold is Sequoia's trees (the tree_campaign fixture's, and one made here)
    gets the ftb preset selected on the form; one with Penn Treebank gold gets penn; a campaign of another
    kind, penn."""
    from campaign.models import CampaignKind
    from evaluation.kinds import get

    def selected(campaign) -> str:
        html = client.get(reverse("lab:error_lab", kwargs={"slug": campaign.slug})).content.decode()
        return re.search(r'<option value="(\w+)" selected>', html).group(1)

    client.force_login(organiser)
    assert selected(tree_campaign) == "ftb"
    english = tmp_path / "english"
    english.mkdir()
    (english / "wsj.mrg").write_text(
        "( (S (NP-SBJ (NNP Pierre) (NNP Vinken)) (VP (MD will) (VP (VB join) (NP (DT the) (NN board)))) (. .)) )\n"
        "( (S (NP-SBJ (PRP It)) (VP (VBD rained) (PP (IN on) (NP (NNP Monday)))) (. .)) )\n", encoding="utf-8")
    penn = factories.make_campaign(slug="penn", kind=CampaignKind.CONSTITUENCY, organisers=[organiser])
    get("constituency").import_corpus(penn, sorted(english.iterdir()), genres={"wsj": "wsj"})
    assert selected(penn) == "penn"
    gold = tmp_path / "seq"
    gold.mkdir()
    lines = (shared_data / "sequoia-const" / "sequoia-corpus+fct.mrg_strict").read_text(encoding="utf-8").splitlines()
    (gold / "news.mrg").write_text("\n".join(lines[:20]) + "\n", encoding="utf-8")
    french = factories.make_campaign(slug="seq", kind=CampaignKind.CONSTITUENCY, organisers=[organiser])
    get("constituency").import_corpus(french, sorted(gold.iterdir()), genres={"news": "news"})
    assert selected(french) == "ftb"
    assert selected(factories.make_campaign(slug="easy", organisers=[organiser])) == "penn"
