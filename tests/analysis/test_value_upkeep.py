"""The analysis pages' kept values (evaluation.analysis.precomputed) are removed by the upkeep once no page has
read them for PARSEVAL_ANALYSIS_VALUE_IDLE_SECONDS: a value a page reads stays (the reading marks it, at most
once an hour), one read by no page goes, and a page that finds its value gone asks a worker again."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from evaluation import upkeep
from evaluation.analysis import precomputed
from evaluation.models import AnalysisValue
from tests.results import builders

HOUR = timedelta(hours=1)


@pytest.fixture
def result(db, settings):
    settings.PARSEVAL_ANALYSIS_VALUE_IDLE_SECONDS = 48 * 3600
    settings.CELERY_TASK_TIME_LIMIT = 3600
    c = builders.campaign()
    return builders.scored_run(c, builders.team(c, "t")).results.get()


def _kept(result, name: str, read_at) -> list:
    """A kept errors value under the arguments ``[result, name]``, last read at ``read_at``."""
    arguments = [result.pk, name]
    AnalysisValue.objects.create(result=result, page=precomputed.ERRORS, key=precomputed.key_of("errors", arguments),
                                 data=json.dumps({"name": name}))
    AnalysisValue.objects.filter(key=precomputed.key_of("errors", arguments)).update(read_at=read_at)
    return arguments


def _left() -> set[str]:
    return {json.loads(d)["name"] for d in AnalysisValue.objects.values_list("data", flat=True)}


def test_values_in_use_stay_and_values_no_page_reads_go(result):
    now = timezone.now()
    used = _kept(result, "stored ten days ago, read now", now - 240 * HOUR)
    lately = _kept(result, "read half an hour ago", now - HOUR / 2)
    _kept(result, "read three days ago", now - 72 * HOUR)
    _kept(result, "read 48 h and a minute ago", now - 48 * HOUR - timedelta(minutes=1))
    new = precomputed.key_of("errors", [result.pk, "stored now"])
    AnalysisValue.objects.create(result=result, page="errors", key=new, data=json.dumps({"name": "stored now"}))

    # A page reads two of them: the one marked read ten days ago is marked read now (one UPDATE); the one marked
    # half an hour ago is left as it is (no write: at most one an hour per value)
    with CaptureQueriesContext(connection) as queries:
        assert precomputed.read("errors", used) == {"name": "stored ten days ago, read now"}
    assert sum(q["sql"].startswith("UPDATE") for q in queries.captured_queries) == 1
    assert AnalysisValue.objects.get(key=precomputed.key_of("errors", used)).read_at >= now
    with CaptureQueriesContext(connection) as queries:
        assert precomputed.read("errors", lately) == {"name": "read half an hour ago"}
    assert not any(q["sql"].startswith("UPDATE") for q in queries.captured_queries)

    assert precomputed.sweep(now) == {"values": 5, "idle": 2}
    assert _left() == {"stored ten days ago, read now", "read half an hour ago", "stored now"}

    # 47 h later: the value read half an hour before is 47.5 h idle (< 48), kept, as are the others
    assert precomputed.sweep(now + 47 * HOUR) == {"values": 3, "idle": 0}
    # 48.5 h later: every value is past 48 h without a reading
    assert precomputed.sweep(now + 48 * HOUR + HOUR / 2 + timedelta(minutes=1)) == {"values": 3, "idle": 3}
    assert _left() == set()
    assert precomputed.read("errors", used) is None  # the page says "being computed" and asks a worker again


def test_a_value_a_worker_just_stored_is_kept_whatever_the_idle_time(result, settings):
    """A value stored for a page that asked is that page's to read: never removed within the task time limit,
    even with an idle time set below it."""
    settings.PARSEVAL_ANALYSIS_VALUE_IDLE_SECONDS = 60
    now = timezone.now()
    _kept(result, "stored now", now)
    _kept(result, "stored two hours ago", now - 2 * HOUR)
    assert precomputed.sweep(now + HOUR / 2) == {"values": 2, "idle": 1}
    assert _left() == {"stored now"}


def test_the_upkeep_and_the_command_sweep_them(result, capsys):
    _kept(result, "read three days ago", timezone.now() - 72 * HOUR)
    _kept(result, "read an hour ago", timezone.now() - HOUR)
    call_command("sweep_caches", "--only", "analysis-values")
    assert "analysis values: 2 kept; removed 1 no page read lately" in capsys.readouterr().out
    _kept(result, "read four days ago", timezone.now() - 96 * HOUR)
    assert upkeep.sweep()["analysis_values"] == {"values": 2, "idle": 1}
    assert _left() == {"read an hour ago"}
