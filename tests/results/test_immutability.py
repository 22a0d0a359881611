"""Stored results, their cells and publication snapshots are immutable.

The rule (docs/governance.md): nothing in the application updates or deletes them.
Re-scoring adds a result; a run, team or campaign that holds results cannot be
deleted (the foreign keys PROTECT); on PostgreSQL a trigger refuses UPDATE and
DELETE of their rows from any client, raw SQL included.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.core.exceptions import PermissionDenied
from django.db import DatabaseError, connection, transaction
from django.db.models import ProtectedError

from campaign.models import CampaignState
from evaluation.models import PublishedSnapshot, Result, ResultCell
from tests.conftest import REPO_ROOT
from tests.results import builders as b

pytestmark = pytest.mark.django_db


@pytest.fixture
def stored():
    c = b.campaign(CampaignState.PUBLISHED)
    t = b.team(c, "Alpha")
    run = b.scored_run(c, t, "alpha-1", index=1)
    snapshot = PublishedSnapshot.objects.create(campaign=c, data={"runs": []}, sha256="0" * 64)
    return {"campaign": c, "team": t, "run": run, "result": run.results.get(), "snapshot": snapshot}


@pytest.mark.parametrize("model", [Result, ResultCell, PublishedSnapshot])
def test_queryset_update_delete_and_bulk_update_are_refused(stored, model):
    rows = model.objects.all()
    count = rows.count()
    with pytest.raises(PermissionDenied):
        rows.update(pk=-1) if model is not ResultCell else rows.update(f=0.0)
    with pytest.raises(PermissionDenied):
        rows.delete()
    with pytest.raises(PermissionDenied):
        model.objects.bulk_update(list(rows), ["pk"] if model is not ResultCell else ["f"])
    assert model.objects.count() == count


def test_saving_or_deleting_a_stored_row_is_refused(stored):
    result, snapshot = stored["result"], stored["snapshot"]
    cell = result.cells.first()
    for obj, field, value in ((result, "signature", "forged"), (cell, "f", 1.0), (snapshot, "data", {})):
        setattr(obj, field, value)
        with pytest.raises(PermissionDenied):
            obj.save()
        with pytest.raises(PermissionDenied):
            obj.delete()
    result.refresh_from_db()
    assert result.signature.startswith("metric:easy")


def test_rescoring_adds_a_result(stored):
    newer = b.add_result(stored["run"], 2)
    assert list(stored["run"].results.values_list("pk", flat=True)) == [newer.pk, stored["result"].pk]


def test_cascades_cannot_reach_results(stored):
    # A run, or the team holding it, is evidence once scored: deleting it is refused, not cascaded.
    with pytest.raises(ProtectedError):
        type(stored["run"]).objects.filter(pk=stored["run"].pk).delete()
    with pytest.raises(ProtectedError):
        stored["team"].delete()
    assert Result.objects.filter(pk=stored["result"].pk).exists()


def test_a_run_without_results_can_still_be_deleted():
    # Nothing is lost: what PROTECT guards is the score, not every run row.
    c = b.campaign()
    run = b.scored_run(c, b.team(c, "Beta"), "unscored", status="failed")
    run.delete()
    assert not type(run).objects.filter(pk=run.pk).exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the test suite runs on PostgreSQL")
@pytest.mark.parametrize("table", ["evaluation_result", "evaluation_resultcell", "evaluation_publishedsnapshot"])
@pytest.mark.parametrize("statement", ["UPDATE {t} SET id = id", "DELETE FROM {t}"])
def test_postgresql_refuses_raw_updates_and_deletes(stored, table, statement):
    with pytest.raises(DatabaseError, match="immutable"):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement.format(t=table))
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {table}")
        assert cursor.fetchone()[0] > 0


SQLITE_CHECK = """
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from django.core.exceptions import PermissionDenied
from django.db import connection
from campaign.models import Campaign
from evaluation.models import PublishedSnapshot
c = Campaign.objects.create(name="c", slug="c")
s = PublishedSnapshot.objects.create(campaign=c, data={}, sha256="0" * 64)
for attempt in (lambda: PublishedSnapshot.objects.all().delete(), lambda: PublishedSnapshot.objects.update(sha256="1"),
                lambda: s.save()):
    try:
        attempt()
        print("allowed")
    except PermissionDenied:
        print("refused")
with connection.cursor() as cursor:
    cursor.execute("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'")
    print("triggers", cursor.fetchone()[0])
"""


def test_sqlite_migrates_and_the_orm_guards_hold(tmp_path):
    # The one-machine default: the migration skips the PostgreSQL trigger, the ORM guards still refuse.
    env = {"PATH": os.environ.get("PATH", ""), "PARSEVAL_DEVELOPMENT": "1", "PARSEVAL_VAR_DIR": str(tmp_path),
           "DJANGO_SETTINGS_MODULE": "config.settings", "HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", SQLITE_CHECK], cwd=REPO_ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["refused", "refused", "refused", "triggers", "0"]
