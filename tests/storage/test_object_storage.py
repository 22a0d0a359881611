"""Stored files in a real S3 server (SeaweedFS, started by the test set-up): upload, validation, scoring,
gold, downloads, with the same results as on the file system and nothing kept in the var folder."""
from __future__ import annotations

import io
import urllib.error
import urllib.request
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from annotations.models import GoldDocument
from campaign.models import CampaignKind, RunStatus
from campaign.services.runs import upload_run
from campaign.stored_files import stored_path
from evaluation.models import Result
from tests import factories
from tests.conftest import DATA
from tests.object_store import use_bucket

FILES = factories.SMALL_EASY_FILES
UD = DATA / "ud-french"


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def perturbed_run() -> bytes:
    text = factories.gold_bytes("general_elda.xml").decode("utf-8").replace('type="GN"', 'type="GP"', 30)
    return factories.zip_of({"general_elda.xml": text.encode("utf-8"),
                             "mail_10.xml": factories.gold_bytes("mail_10.xml"),
                             "oral_delic_2.xml": factories.gold_bytes("oral_delic_2.xml")})


def scored_easy_run(slug: str, capture, payload: bytes):
    organiser = factories.make_user(f"org-{slug}")
    campaign = factories.make_easy_campaign(FILES, slug=slug, organisers=[organiser])
    user = factories.make_user(f"team-{slug}")
    team = factories.make_team(campaign, user, name=f"Team {slug}")
    with capture(execute=True):  # validation and scoring run in process once the upload commits
        run = upload_run(campaign=campaign, team=team, user=user, name="perturbed",
                         uploaded_file=SimpleUploadedFile("run.zip", payload))
    run.refresh_from_db()
    assert run.status == RunStatus.SCORED, f"{run.status}: {run.status_reason} {run.validation_report}"
    return run, user, organiser


def test_easy_run_stored_validated_and_scored_on_s3_as_on_the_file_system(
        storage, object_store, settings, db, django_capture_on_commit_callbacks):
    payload = perturbed_run()
    fs_run, _, _ = scored_easy_run("on-disk", django_capture_on_commit_callbacks, payload)
    assert stored_path(fs_run.file) is not None and factories.files_under(storage / "media")
    fs_result = Result.objects.get(run=fs_run)

    # The same campaign and run with every stored file in the bucket (media and gold var folders emptied first).
    for path in factories.files_under(storage / "media") + factories.files_under(storage / "gold"):
        path.unlink()
    bucket = "parseval-compare"
    use_bucket(settings, object_store, bucket, storage / "cache")
    s3_run, _, _ = scored_easy_run("in-bucket", django_capture_on_commit_callbacks, payload)
    s3_result = Result.objects.get(run=s3_run)

    assert s3_result.document == fs_result.document
    assert s3_result.document["cells"] and s3_result.gold_sha256 == fs_result.gold_sha256
    assert (s3_result.signature, s3_result.scorer_version) == (fs_result.signature, fs_result.scorer_version)
    # a perturbed run, so the comparison means something
    overall = [c for c in s3_result.document["cells"] if c["layer"] == "constituents" and c["genre"] == "ALL"
               and c["type"] == "ALL" and c["match"] == "EQUAL"]
    assert overall and overall[0]["f"] < 1.0

    # Every stored file is an object of the bucket, and nothing is left in the var folder.
    with pytest.raises(NotImplementedError):
        s3_run.file.path  # noqa: B018 - no code may rely on it
    assert stored_path(s3_run.file) is None
    keys = object_store.keys(bucket)
    assert f"media/{s3_run.file.name}" in keys
    golds = GoldDocument.objects.filter(document__campaign=s3_run.campaign).order_by("document__name")
    assert [f"gold/{g.file.name}" for g in golds] == sorted(k for k in keys if k.startswith("gold/")
                                                             and "/index/" not in k)
    # the scorer's gold index is kept beside the gold, in the bucket as well
    assert len([k for k in keys if k.startswith(f"gold/{s3_run.campaign.slug}/index/")]) == len(FILES)
    assert len(golds) == len(FILES)
    corpus_texts = [k for k in keys if k.startswith("media/") and not k.startswith("media/runs/")]
    assert len(corpus_texts) >= len(FILES), keys
    assert factories.files_under(storage / "media") == []
    assert factories.files_under(storage / "gold") == []
    # The readers' local copies: the cache holds the gold files and the run under their checksums, nothing else.
    cached = {p.name for p in factories.files_under(storage / "cache")}
    assert cached == {f"{g.sha256}.gold.xml" for g in golds} | {f"{s3_run.sha256}.zip"}


def test_gold_import_to_s3_keeps_the_files_byte_for_byte(s3_storage, db):
    server, bucket = s3_storage
    campaign = factories.make_easy_campaign(FILES, slug="gold-import")
    client = server.client()
    for gold in GoldDocument.objects.filter(document__campaign=campaign).select_related("document"):
        stored = client.get_object(Bucket=bucket, Key=f"gold/{gold.file.name}")["Body"].read()
        assert stored == factories.gold_bytes(f"{gold.document.name}.xml")
        with gold.file.open("rb") as fh:
            assert fh.read() == stored


def test_downloads_stream_from_the_store_to_those_allowed_only(s3_storage, storage, db,
                                                               django_capture_on_commit_callbacks):
    server, bucket = s3_storage
    payload = perturbed_run()
    run, member, organiser = scored_easy_run("downloads", django_capture_on_commit_callbacks, payload)
    outsider = factories.make_user("outsider")

    team_client, outsider_client, anonymous = Client(), Client(), Client()
    team_client.force_login(member)
    outsider_client.force_login(outsider)

    response = team_client.get(f"/runs/{run.pk}/file/")
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == payload
    assert outsider_client.get(f"/runs/{run.pk}/file/").status_code == 404
    assert anonymous.get(f"/runs/{run.pk}/file/").status_code in (302, 404)

    corpus = team_client.get(f"/campaigns/{run.campaign.slug}/corpus.zip")
    assert corpus.status_code == 200
    body = b"".join(corpus.streaming_content) if corpus.streaming else corpus.content
    names = zipfile.ZipFile(io.BytesIO(body)).namelist()
    assert len(names) >= len(FILES)

    # The gold: organisers only while it is not released.
    org_client = Client()
    org_client.force_login(organiser)
    gold = org_client.get(f"/governance/campaigns/{run.campaign.slug}/gold.zip")
    assert gold.status_code == 200 and zipfile.ZipFile(io.BytesIO(gold.content)).namelist()
    assert team_client.get(f"/governance/campaigns/{run.campaign.slug}/gold.zip").status_code == 404

    # The objects themselves are private: the store refuses an unsigned request for them.
    for key in (f"media/{run.file.name}", f"gold/{GoldDocument.objects.filter(document__campaign=run.campaign).first().file.name}"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{server.endpoint}/{bucket}/{key}", timeout=10)
        assert refused.value.code == 403
    # A URL made by mistake is signed and short-lived, never a plain address of the object.
    url = run.file.url
    assert "X-Amz-Signature=" in url and "X-Amz-Expires=300" in url


def test_dependency_run_scored_on_s3(s3_storage, storage, db, tmp_path, django_capture_on_commit_callbacks):
    """A sentence kind (CoNLL-U): its gold and run read through local copies of the objects."""
    from evaluation.kinds import get

    blocks = (UD / "fr_sequoia-ud-test.conllu").read_text(encoding="utf-8").strip("\n").split("\n\n")[:8]
    gold_text = "\n\n".join(blocks) + "\n\n"
    gold_dir = tmp_path / "gold-deps"
    gold_dir.mkdir()
    (gold_dir / "sequoia.conllu").write_text(gold_text, encoding="utf-8")
    campaign = factories.make_campaign(slug="deps-s3", kind=CampaignKind.DEPENDENCY)
    get("dependency").import_corpus(campaign, sorted(gold_dir.iterdir()), genres={"sequoia": "sequoia"})
    user = factories.make_user("deps-team")
    team = factories.make_team(campaign, user)
    with django_capture_on_commit_callbacks(execute=True):
        run = upload_run(campaign=campaign, team=team, user=user, name="gold",
                         uploaded_file=SimpleUploadedFile("sequoia.conllu", gold_text.encode("utf-8")))
    run.refresh_from_db()
    assert run.status == RunStatus.SCORED, f"{run.status}: {run.status_reason} {run.validation_report}"
    assert Result.objects.get(run=run).document["metrics"]["dependency"]["totals"]["las"] == 1.0
    assert factories.files_under(storage / "media") == [] and factories.files_under(storage / "gold") == []
    server, bucket = s3_storage
    assert any(k.startswith("media/runs/deps-s3/") for k in server.keys(bucket))
