"""A dependency campaign with two teams' test runs and a development check, scored, for the explorer's tests."""
from __future__ import annotations

import pytest

from campaign.models import Campaign, CampaignState, Run, RunStatus, Sentence
from campaign.subsets import mark_subset
from tests import factories
from tests.kinds.conftest import (dep_campaign, dep_gold, fast_password_hashing, organiser, tree_campaign,  # noqa: F401
                                  tree_gold)
from tests.kinds.helpers import upload


def perturbed(text: str) -> str:
    """Every fourth attached word moved onto its sentence's root word, every fifth relation made ``dep``."""
    out = []
    for block in text.strip("\n").split("\n\n"):
        lines = block.split("\n")
        words = [line.split("\t") for line in lines if line and line[0].isdigit() and "\t" in line]
        root = next(c[0] for c in words if c[6] == "0")
        changed = []
        for line in lines:
            cols = line.split("\t")
            if len(cols) == 10 and cols[0].isdigit():
                k = int(cols[0])
                if k % 4 == 0 and cols[6] not in ("0", root) and cols[0] != root:
                    cols[6] = root
                if k % 5 == 0 and cols[7] != "root":
                    cols[7] = "dep"
                line = "\t".join(cols)
            changed.append(line)
        out.append("\n".join(changed))
    return "\n\n".join(out) + "\n\n"


@pytest.fixture
def explorer_world(dep_campaign, dep_gold, organiser, django_capture_on_commit_callbacks):  # noqa: F811
    """``(campaign, {"A": member, "B": member, "org": organiser}, {"A": run, "B": run, "A-dev": run})``: team A's
    run is the gold itself, team B's the gold perturbed; team A also checked the development sample."""
    campaign = dep_campaign
    chosen = [Sentence.objects.get(document__campaign=campaign, document__name="sequoia", position=i) for i in (0, 3)]
    Campaign.objects.filter(pk=campaign.pk).update(state=CampaignState.DRAFT)
    campaign.refresh_from_db()
    mark_subset(campaign, "dev", sentences=chosen)
    Campaign.objects.filter(pk=campaign.pk).update(state=CampaignState.OPEN, dev_sample_public=True)
    campaign.refresh_from_db()
    users = {"A": factories.make_user("alice-a"), "B": factories.make_user("bob-b"), "org": organiser}
    teams = {"A": factories.make_team(campaign, users["A"], name="Team A"),
             "B": factories.make_team(campaign, users["B"], name="Team B")}
    files = {p.name: p.read_text(encoding="utf-8") for p in dep_gold}
    runs = {"A": upload(campaign, teams["A"], users["A"], files, django_capture_on_commit_callbacks, name="perfect"),
            "B": upload(campaign, teams["B"], users["B"], {k: perturbed(v) for k, v in files.items()},
                        django_capture_on_commit_callbacks, name="perturbed")}
    dev = {"sequoia.conllu": "\n\n".join(b for i, b in enumerate(files["sequoia.conllu"].strip("\n").split("\n\n"))
                                         if i in (0, 3)) + "\n\n"}
    runs["A-dev"] = _upload_dev(campaign, teams["A"], users["A"], {"sequoia.conllu": perturbed(dev["sequoia.conllu"])},
                                django_capture_on_commit_callbacks)
    for run in runs.values():
        assert run.status == RunStatus.SCORED, (run.status, run.status_reason, run.validation_report)
    return campaign, users, runs


def _upload_dev(campaign, team, user, files, capture) -> Run:
    from django.core.files.uploadedfile import SimpleUploadedFile

    from campaign.services.runs import upload_run

    payload = factories.zip_of({k: v.encode("utf-8") for k, v in files.items()})
    with capture(execute=True):
        run = upload_run(campaign=campaign, team=team, user=user, name="dev check", scope=Run.Scope.DEV,
                         uploaded_file=SimpleUploadedFile("dev.zip", payload))
    run.refresh_from_db()
    return run


PATH = ["closed", "scored", "released", "published", "gold_released"]


def advance_to(campaign, state: str, actor) -> None:
    """Walk the campaign through the real transitions up to ``state`` (publication takes the real snapshot)."""
    from campaign import lifecycle

    for step in PATH[PATH.index(campaign.state) + 1 if campaign.state in PATH else 0:PATH.index(state) + 1]:
        lifecycle.transition(campaign, step, actor=actor)
    campaign.refresh_from_db()
    assert campaign.state == state


def easy_without_some_relations(data: bytes, every: int = 3) -> bytes:
    """An EASY file with every ``every``-th relation of each sentence left out (the run misses them)."""
    from lxml import etree

    root = etree.fromstring(data, etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True))
    for relations in root.iter("relations"):
        for k, relation in enumerate(list(relations)):
            if k % every == 0:
                relations.remove(relation)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")


@pytest.fixture
def kind_worlds(tree_campaign, organiser, tree_gold, django_capture_on_commit_callbacks):  # noqa: F811
    """``{kind: (campaign, perfect run, damaged run)}`` of an EASY and a constituency campaign, gold released."""
    from tests.kinds.helpers import damaged_trees

    out = {}
    easy = factories.make_easy_campaign(slug="easy-analysis", organisers=[organiser])
    for campaign, perfect, damaged in (
            (easy, {n: factories.gold_bytes(n) for n in factories.SMALL_EASY_FILES},
             {n: easy_without_some_relations(factories.gold_bytes(n)) for n in factories.SMALL_EASY_FILES}),
            (tree_campaign, {p.name: p.read_text() for p in tree_gold},
             {p.name: damaged_trees(p, "LABEL I", seed=5) for p in tree_gold})):
        a = factories.make_team(campaign, factories.make_user(f"{campaign.slug}-a"), name="Team A")
        b = factories.make_team(campaign, factories.make_user(f"{campaign.slug}-b"), name="Team B")
        run_a = upload(campaign, a, a.memberships.first().user, perfect, django_capture_on_commit_callbacks,
                       name="perfect")
        run_b = upload(campaign, b, b.memberships.first().user, damaged, django_capture_on_commit_callbacks,
                       name="damaged")
        assert run_a.status == run_b.status == RunStatus.SCORED, (run_b.status_reason, run_b.validation_report)
        advance_to(campaign, "gold_released", organiser)
        out["easy" if campaign is easy else "constituency"] = (campaign, run_a, run_b)
    return out
