"""Run indexes that no scoring will read are removed (evaluation/upkeep.py, evaluation/kinds/easy/run_index.py):
a withdrawn run's at once (a task the withdrawal sends by name), and by the sweep a deleted run's, those left
behind, those whose run file is gone, those of another key; the index of a run in play is kept, and scoring
still reads it."""
from __future__ import annotations

import posixpath
from unittest import mock

import pytest
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.utils import timezone

from campaign.models import Run
from campaign.services.runs import withdraw_run
from evaluation import upkeep
from evaluation.kinds.easy import run_index
from evaluation.kinds.easy.options import campaign_schema
from tests import factories
from tests.web.helpers import stored_run


@pytest.fixture
def campaign(db, storage):
    return factories.make_easy_campaign(metrics={"bootstrap": 20}, runs_per_team=10)


def _validated(campaign, team, user, name) -> Run:
    run = stored_run(campaign, team, user, factories.gold_run_zip(), "run.zip", name=name)
    with mock.patch("evaluation.pipeline.tasks.enqueue_scoring"):
        from evaluation.pipeline.tasks import validate_run
        assert validate_run.apply(args=[run.pk]).get() == "queued"
    run.refresh_from_db()
    assert _indexes(run) == [_current(run)]
    return run


def _current(run) -> str:
    return run_index.index_name(run, run_index.key_of(run, campaign_schema(run.campaign)))


def _indexes(run) -> list[str]:
    folder, base = posixpath.split(run.file.name)
    return sorted(posixpath.join(folder, n) for n in run.file.storage.listdir(folder)[1]
                  if n.startswith(base + ".") and n.endswith(".index.npz"))


@pytest.fixture
def campaign_on_object_storage(db, s3_storage):
    return factories.make_easy_campaign(metrics={"bootstrap": 20}, runs_per_team=10)


def test_indexes_no_scoring_reads_go_and_the_others_stay(campaign, alice, django_capture_on_commit_callbacks):
    _indexes_no_scoring_reads_go(campaign, alice, django_capture_on_commit_callbacks)


def test_on_object_storage_too(campaign_on_object_storage, alice, django_capture_on_commit_callbacks):
    from campaign.stored_files import stored_path
    run = _indexes_no_scoring_reads_go(campaign_on_object_storage, alice, django_capture_on_commit_callbacks)
    assert stored_path(run.file) is None  # the bucket's listing and deletion, not the file system's


def _indexes_no_scoring_reads_go(campaign, alice, django_capture_on_commit_callbacks) -> Run:
    team = factories.make_team(campaign, alice)
    kept, withdrawn, deleted, left, gone = (_validated(campaign, team, alice, name) for name in
                                            ("kept", "withdrawn", "deleted", "withdrawn, left", "file gone"))
    storage = kept.file.storage
    assert len({r.file.name for r in (kept, withdrawn, deleted, left, gone)}) == 5

    with django_capture_on_commit_callbacks(execute=True) as sent:
        withdraw_run(withdrawn, user=alice)  # at once, once committed
    assert len(sent) == 2  # the consensus asked for again, and the run's files forgotten
    assert _indexes(withdrawn) == []
    name = deleted.file.name
    Run.objects.filter(pk=deleted.pk).delete()  # nothing calls up from the model: the sweep removes its index
    assert _indexes(deleted) != []

    # What the sweep is for: a deleted run's index, a withdrawal recorded without the task, a run file
    # removed, an older scorer's index, an index of a run the database no longer has.
    Run.objects.filter(pk=left.pk).update(withdrawn_at=timezone.now())
    storage.delete(gone.file.name)
    with storage.open(_current(kept), "rb") as fh:
        data = fh.read()
    stale = f"{kept.file.name}.0123456789abcdef.index.npz"
    orphan = posixpath.join(posixpath.dirname(kept.file.name), "feedfacefeedface.zip.0123456789abcdef.index.npz")
    other = f"{kept.file.name}.not-an-index.npz"  # not named as an index: not the sweep's
    for planted in (stale, orphan, other):
        storage.save(planted, ContentFile(data))

    call_command("sweep_caches", "--only", "run-indexes")
    assert _indexes(kept) == [_current(kept)]
    assert _indexes(left) == [] and _indexes(gone) == [] and _indexes(deleted) == []
    assert storage.exists(name)  # the deleted run's file itself is left alone
    assert not storage.exists(stale) and not storage.exists(orphan) and storage.exists(other)
    assert storage.exists(kept.file.name) and storage.exists(left.file.name)

    assert {k: v for k, v in upkeep.sweep_run_indexes().items() if not k.startswith("gold_")} == {
        "indexes": 1, "orphaned": 0, "withdrawn": 0, "stale": 0, "conversions": 0, "superseded": 0}
    with mock.patch.object(run_index, "IndexedRun", wraps=run_index.IndexedRun) as read:
        assert run_index.load(kept, campaign_schema(campaign)) is not None  # scoring's reading of it
    assert read.call_count == 1
    return kept


def test_a_schema_that_cannot_be_read_keeps_every_key(campaign, alice):
    run = _validated(campaign, factories.make_team(campaign, alice), alice, "kept")
    storage = run.file.storage
    with storage.open(_current(run), "rb") as fh:
        storage.save(f"{run.file.name}.0123456789abcdef.index.npz", ContentFile(fh.read()))
    with mock.patch("evaluation.kinds.easy.options.campaign_schema", side_effect=ValueError("malformed")):
        assert upkeep.sweep_run_indexes()["stale"] == 0
    assert len(_indexes(run)) == 2
    assert upkeep.sweep_run_indexes()["stale"] == 1
    assert _indexes(run) == [_current(run)]


def _gold_indexes(campaign) -> list[str]:
    from annotations.models import gold_storage

    return sorted(gold_storage.listdir(f"{campaign.slug}/index")[1])


def _gold_sweep(campaign, settings, storage_is_files: bool):
    """The gold's indexes of another key, or of a document or campaign the database no longer has, go once
    they and the document's current index were written more than the task time limit ago; the current ones
    stay and scoring reads them (no XML parsed)."""
    from datetime import timedelta

    from annotations.models import GoldDocument, gold_storage
    from evaluation.kinds.easy import gold as easy_gold

    settings.CELERY_TASK_TIME_LIMIT = 3600
    schema = campaign_schema(campaign)
    golds = list(GoldDocument.objects.filter(document__campaign=campaign).select_related("document__campaign"))
    for gold in golds:
        easy_gold.gold_index(gold, schema)  # what the first scoring stores
    current = _gold_indexes(campaign)
    assert len(current) == len(golds) >= 2
    first = golds[0].document.name
    with gold_storage.open(f"{campaign.slug}/index/{current[0]}", "rb") as fh:
        data = fh.read()
    older = f"{campaign.slug}/index/{first}.{'0' * 32}.npz"  # an older scorer's key
    gone_document = f"{campaign.slug}/index/no-such-document.{'1' * 32}.npz"
    gone_campaign = f"no-such-campaign/index/{first}.{'2' * 32}.npz"
    not_an_index = f"{campaign.slug}/index/{first}.notes.npz"
    for planted in (older, gone_document, gone_campaign, not_an_index):
        gold_storage.save(planted, ContentFile(data))
    now = timezone.now()

    # all written just now: a scoring of the previous version may be reading them
    assert easy_gold.sweep_stored(now) == {"gold_indexes": len(golds) + 3, "gold_stale": 0}
    if storage_is_files:  # the older key written long ago, but its document's current index lately: kept
        import os
        old = (now - timedelta(hours=5)).timestamp()
        for planted in (older, gone_document, gone_campaign):
            os.utime(gold_storage.path(planted), (old, old))
        assert easy_gold.sweep_stored(now)["gold_stale"] == 2  # the two without a current index beside them
        assert gold_storage.exists(older)
    later = now + timedelta(seconds=3600 + 60)
    assert easy_gold.sweep_stored(later)["gold_stale"] == (1 if storage_is_files else 3)
    for planted in (older, gone_document, gone_campaign):
        assert not gold_storage.exists(planted)
    assert gold_storage.exists(not_an_index)
    assert [n for n in _gold_indexes(campaign) if n != not_an_index.rsplit("/", 1)[-1]] == current
    assert all(gold_storage.exists(g.file.name) for g in golds)  # the gold itself is never touched
    with mock.patch.object(easy_gold, "_build", side_effect=AssertionError("the XML parsed again")):
        for gold in golds:
            easy_gold.gold_index(gold, schema)
    assert easy_gold.sweep_stored(later) == {"gold_indexes": len(golds), "gold_stale": 0}


def test_gold_indexes_of_other_keys_go_once_no_scoring_can_read_them(campaign, settings):
    _gold_sweep(campaign, settings, storage_is_files=True)


def test_gold_indexes_on_object_storage_too(campaign_on_object_storage, settings):
    from annotations.models import GoldDocument
    from campaign.stored_files import stored_path

    _gold_sweep(campaign_on_object_storage, settings, storage_is_files=False)
    gold = GoldDocument.objects.filter(document__campaign=campaign_on_object_storage).first()
    assert stored_path(gold.file) is None  # the bucket's listing, dates and deletion


def test_a_schema_that_cannot_be_read_keeps_every_gold_key(campaign, settings):
    from datetime import timedelta

    from annotations.models import GoldDocument, gold_storage
    from evaluation.kinds.easy import gold as easy_gold

    settings.CELERY_TASK_TIME_LIMIT = 3600
    gold = GoldDocument.objects.filter(document__campaign=campaign).select_related("document__campaign").first()
    easy_gold.gold_index(gold, campaign_schema(campaign))
    older = f"{campaign.slug}/index/{gold.document.name}.{'0' * 32}.npz"
    gold_storage.save(older, ContentFile(b"an older index"))
    later = timezone.now() + timedelta(hours=2)
    with mock.patch("evaluation.kinds.easy.options.campaign_schema", side_effect=ValueError("malformed")):
        assert easy_gold.sweep_stored(later)["gold_stale"] == 0
    assert easy_gold.sweep_stored(later)["gold_stale"] == 1 and not gold_storage.exists(older)
