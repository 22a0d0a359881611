"""A dependency campaign with two teams' test runs and a development check, scored, for the explorer's tests."""
from __future__ import annotations

import pytest

from campaign.models import Campaign, CampaignState, Run, RunStatus, Sentence
from campaign.subsets import mark_subset
from tests import factories
from tests.kinds.conftest import dep_campaign, dep_gold, fast_password_hashing, organiser  # noqa: F401
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
