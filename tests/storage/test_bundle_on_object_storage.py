"""A publication bundle built with every stored file in the S3 test server: the archive is an object of the
bucket (nothing on the var folder), the permission-checked view streams it from there, and
``python -m evaluation reproduce`` verifies the downloaded archive against the gold released from the bucket."""
from __future__ import annotations

import io
import json
import zipfile
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from campaign import lifecycle
from campaign.models import Campaign, CampaignState, TeamFigures
from campaign.subsets import released_gold_zip
from parseval.evaluation import bundle_format as fmt
from evaluation.bundle import publication as publication_bundle
from evaluation.__main__ import main
from tests import factories

SENTENCES = 10
SLUG = "bundle-bucket"


@pytest.mark.django_db(transaction=True)
def test_bundle_built_in_the_bucket_downloaded_and_reproduced(s3_storage, settings, tmp_path, capsys):
    server, bucket = s3_storage
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    corpus = factories.small_easy_corpus(tmp_path / "corpus", SENTENCES)  # not the var folder's gold/
    call_command("load_demo", "--data", str(corpus), "--bootstrap", "20", "--slug", SLUG,
                 "--no-real", "--no-kinds", "--no-open", stdout=StringIO())
    Campaign.objects.filter(pk=Campaign.objects.get(slug=SLUG).pk).update(team_figures=TeamFigures.POOLED,
                                                                         bundle_run_files=True)
    campaign = Campaign.objects.get(slug=SLUG)
    # The gold release builds the bundle with the rows, and (as the campaign asks) the runs' files, read
    # from the bucket.
    lifecycle.transition(campaign, CampaignState.GOLD_RELEASED, actor=None)
    bundle = publication_bundle.latest_bundle(campaign)
    assert bundle is not None and bundle.with_rows and bundle.with_run_files

    # An object of the bucket, with the bytes and checksum the database names; no stored file on disk.
    key = f"media/{bundle.file.name}"
    assert key in server.keys(bucket)
    stored = server.client().get_object(Bucket=bucket, Key=key)["Body"].read()
    assert fmt.sha256(stored) == bundle.sha256 and len(stored) == bundle.size
    for var in ("media", "gold"):
        assert factories.files_under(tmp_path / var) == [], var
    # Built again from the same state: the same archive, nothing new stored.
    assert publication_bundle.build(campaign).pk == bundle.pk

    # The download view checks who asks (the campaign is published: anyone) and streams the object itself,
    # never a storage URL.
    response = Client().get(reverse("results:bundle", args=[campaign.slug]))
    assert response.status_code == 200 and response.streaming
    downloaded = b"".join(response.streaming_content)
    assert downloaded == stored and response["X-Content-SHA256"] == bundle.sha256
    assert server.endpoint not in response.get("Location", "")
    meta = json.loads(zipfile.ZipFile(io.BytesIO(downloaded)).read("bundle.json"))
    assert len(meta["runs"]) == 9 and all(run["file"]["member"] for run in meta["runs"])

    # The downloaded archive verifies: every figure from its rows, and every run's file scored again with the
    # gold as released (its zip, too, made from the bucket's gold).
    path = tmp_path / "download" / publication_bundle.download_name(campaign, bundle.sha256)
    path.parent.mkdir()
    path.write_bytes(downloaded)
    gold = tmp_path / "released"
    with zipfile.ZipFile(io.BytesIO(released_gold_zip(campaign))) as archive:
        archive.extractall(gold)
    code = main(["reproduce", str(path), "--gold", str(gold)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "9 run(s) scored again from their files and the gold" in out and "DIFFERENCE" not in out
