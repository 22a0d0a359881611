"""THE leak test: every URL and API route, in every life-cycle state, as anyone, as a logged-in
outsider, as a member of team A and of team B. No response may show gold content, test-subset
membership, another team's run, or a score before its release.

Routes come from the URL configuration (see walker.py), so a new endpoint is covered the day it
is added; one whose parameters the walker cannot fill makes this test fail.
"""
from __future__ import annotations

import pytest
from django.http import HttpResponse
from django.test import Client, override_settings
from django.urls import include, path

from annotations.models import GoldSentence
from campaign.models import Invitation, Run
from evaluation.models import PublishedSnapshot

from . import walker
from .world import SECRETS_A, STATE_PATHS, advance, build_world, forbidden

pytestmark = pytest.mark.django_db(transaction=False)

URLCONF = "config.urls"  # the project's own URLs: every route it serves is walked


@pytest.fixture
def world(tmp_path):
    (tmp_path / "src").mkdir()
    return build_world(tmp_path / "src")


def objects_of(world) -> dict[str, list]:
    c = world.campaign
    test_sentence = GoldSentence.objects.filter(sentence__document__campaign=c, subset="test").first().sentence
    doc = test_sentence.document
    snapshots = list(PublishedSnapshot.objects.filter(campaign=c).values_list("pk", flat=True)) or [1]
    return {
        "campaign": [c.slug],
        "campaign_pk": [c.pk],
        "run": [r.pk for r in world.runs.values()],
        "team": [t.pk for t in world.teams.values()],
        "team_slug": [t.slug for t in world.teams.values()],
        "invitation": list(Invitation.objects.filter(team__campaign=c).values_list("pk", flat=True)) or [1],
        "document": [doc.pk],
        "document_name": [doc.name],
        "result": [r.pk for r in world.results.values()],
        "snapshot": snapshots,
        "sentence": [test_sentence.pk],
        "genre": [doc.genre.pk],
        "genre_code": [doc.genre.code],
        "user": [u.pk for u in world.users.values()],
        # Admin change, delete and history pages of these ids, for every model (as a staff organiser of another campaign).
        "admin_object_id": sorted({c.pk, world.runs["A"].pk, world.teams["A"].pk, world.results["A"].pk}),
    }


def clients(world) -> dict[str, Client]:
    out = {"anonymous": Client()}
    for role in ("A", "B", "outsider", "other organiser"):
        out[role] = Client()
        out[role].force_login(world.users[role])
    return out


@pytest.mark.parametrize("case", list(STATE_PATHS))
def test_no_route_leaks_in_any_state(world, case):
    advance(world, case)
    objects = objects_of(world)
    problems = []
    for role, client in clients(world).items():
        problems += walker.walk(client, objects, forbidden(world, role), urlconf=URLCONF, who=f"{role} [{case}]",
                                staff=role == "other organiser")
    assert not problems, f"{len(problems)} problem(s):\n" + "\n".join(problems[:60])


def test_the_walker_reaches_the_pages_that_matter():
    """If the walk silently covered nothing, every leak test would pass: check it sees the known faces."""
    names = {f"{e.namespace}:{e.name}" for e in walker.endpoints(URLCONF)}
    for expected in ["portal:run_file", "portal:corpus_download", "api:run-detail", "api:campaign-runs",
                     "results:campaign", "governance:dev_sample", "governance:gold", "governance:diagnostics", "governance:audit_csv"]:
        assert expected in names, f"{expected} is not among the walked routes"


def test_markers_are_visible_where_allowed(world):
    """The markers are real: team A sees its own run content and, once released, its scores."""
    advance(world, "released")
    client = clients(world)["A"]
    text = walker.body_text(client.get(f"/runs/{world.runs['A'].pk}/file/"))
    assert SECRETS_A.content in text
    rules_for_a = walker.find_markers(text, forbidden(world, "B"))
    assert rules_for_a, "team B's rules must flag team A's run content"
    api = walker.body_text(client.get(f"/api/runs/{world.runs['A'].pk}/results/", {"format": "json"}))
    assert "0.918273645" in api
    # The other campaign's organiser really uses the admin (so its pages are walked, not just refused).
    staff = clients(world)["other organiser"]
    assert staff.get("/admin/campaign/run/").status_code == 200
    assert staff.get(f"/admin/campaign/run/{world.runs['A'].pk}/change/").status_code in (302, 404)


# -- the walker catches a leaking view: a self-test with a temporary URLconf --------------------------

def leaky_run_file(request, pk):
    """The classic mistake: a download route with no permission check."""
    run = Run.objects.get(pk=pk)
    return HttpResponse(run.file.open("rb").read(), content_type="application/xml")


def leaky_gold(request, slug):
    from annotations.models import GoldDocument

    gold = GoldDocument.objects.filter(document__campaign__slug=slug).first()
    return HttpResponse(gold.file.open("rb").read(), content_type="application/xml")


def leaky_scores(request, slug):
    from evaluation.models import ResultCell

    return HttpResponse(", ".join(f"{c.f:.4f}" for c in ResultCell.objects.all()[:5]))


def leaky_membership(request, slug):
    ids = GoldSentence.objects.filter(subset="test").order_by("sentence__document", "sentence__position")
    return HttpResponse(" ".join(g.sentence.sid for g in ids))


leaky_patterns = [
    path("leak/runs/<int:pk>/raw/", leaky_run_file, name="leak-run"),
    path("leak/<slug:slug>/gold.xml", leaky_gold, name="leak-gold"),
    path("leak/<slug:slug>/scores.txt", leaky_scores, name="leak-scores"),
    path("leak/<slug:slug>/test-ids.txt", leaky_membership, name="leak-membership"),
]
urlpatterns = [path("", include(URLCONF))] + leaky_patterns  # this module is also a URLconf


def test_self_test_walker_catches_a_leaking_view(world):
    advance(world, "open")
    with override_settings(ROOT_URLCONF=__name__):
        problems = walker.walk(clients(world)["B"], objects_of(world), forbidden(world, "B"), urlconf=__name__,
                               who="B [open]")
    leaks = "\n".join(problems)
    assert f"/leak/runs/{world.runs['A'].pk}/raw/ as B" in leaks and "team A's run" in leaks
    assert "/leak/leaky/gold.xml as B" in leaks and "gold content" in leaks
    assert "/leak/leaky/scores.txt as B" in leaks and "scores before release" in leaks
    assert "/leak/leaky/test-ids.txt as B" in leaks and "test-subset membership" in leaks
    assert all("/leak/" in p for p in problems), "the project's own routes must be clean:\n" + leaks


def unfillable(request, widget_id):
    return HttpResponse("")


class _UnfillableConf:
    urlpatterns = [path("widgets/<int:widget_id>/", unfillable, name="widget")]


def test_self_test_a_route_it_cannot_fill_fails_loudly():
    problems = walker.walk(Client(), {}, {}, urlconf=_UnfillableConf, who="anyone")
    assert len(problems) == 1 and "cannot fill parameter 'widget_id'" in problems[0]
