"""The development sample's round trip for the tree and dependency kinds: the zip a team downloads is a
valid development-scope run as it is, checked against the development sentences only."""
from __future__ import annotations

import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from campaign.models import Campaign, CampaignState, Run, RunStatus, Sentence
from campaign.services.runs import upload_run
from campaign.subsets import mark_subset
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)

# Development sentences chosen apart from each other, so that a file of them is not a prefix of any document.
DEV = {
    "trees": {"annodis": [1], "frwiki": [0, 3, 6]},  # 1 + 3 = 4 sentences, over both documents
    "deps": {"sequoia": [0, 3, 5]},  # 3 sentences; gsd has none, so no file is asked for it
}


def with_dev_sample(campaign: Campaign) -> dict[str, list[str]]:
    """Mark the sentences of ``DEV`` as the development sample and open the campaign; their ids by document."""
    chosen = {name: [Sentence.objects.get(document__campaign=campaign, document__name=name, position=i)
                     for i in positions] for name, positions in DEV[campaign.slug].items()}
    Campaign.objects.filter(pk=campaign.pk).update(state=CampaignState.DRAFT)
    campaign.refresh_from_db()
    mark_subset(campaign, "dev", sentences=[s for ss in chosen.values() for s in ss])
    Campaign.objects.filter(pk=campaign.pk).update(state=CampaignState.OPEN, dev_sample_public=True)
    campaign.refresh_from_db()
    return {name: [s.sid for s in ss] for name, ss in chosen.items()}


def download_dev_sample(campaign: Campaign, member) -> dict[str, bytes]:
    client = Client()
    client.force_login(member)
    response = client.get(f"/governance/campaigns/{campaign.slug}/dev-sample.zip")
    assert response.status_code == 200
    data = b"".join(response.streaming_content) if response.streaming else response.content
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {info.filename: zf.read(info) for info in zf.infolist()}


def upload_dev(campaign, team, member, files: dict[str, bytes], capture) -> Run:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    with capture(execute=True):
        run = upload_run(campaign=campaign, team=team, user=member, name="dev check", scope=Run.Scope.DEV,
                         uploaded_file=SimpleUploadedFile(f"{campaign.slug}-dev-sample.zip", buf.getvalue()))
    run.refresh_from_db()
    return run


def sentences_of(slug: str, data: bytes) -> list[str]:
    """The sentences of a downloaded gold file: one Penn tree a line, or one CoNLL-U block each."""
    text = data.decode("utf-8")
    if slug == "trees":
        return [line for line in text.splitlines() if line.strip()]
    return [block for block in text.strip("\n").split("\n\n")]


def join(slug: str, sentences: list[str]) -> bytes:
    return ("\n".join(sentences) + "\n" if slug == "trees" else "\n\n".join(sentences) + "\n\n").encode("utf-8")


@pytest.fixture(params=["tree_campaign", "dep_campaign"])
def campaign(request):
    return request.getfixturevalue(request.param)


@pytest.fixture
def sample(campaign, alice):
    """``(development sentence ids by document, Alice's team, the files of the downloaded dev sample)``."""
    dev = with_dev_sample(campaign)
    team = factories.make_team(campaign, alice, name="Team A")
    return dev, team, download_dev_sample(campaign, alice)


def test_the_downloaded_dev_sample_uploads_back_unchanged_and_scores_1(campaign, alice, sample,
        django_capture_on_commit_callbacks):
    dev, team, files = sample
    kind_suffix = ".mrg" if campaign.slug == "trees" else ".conllu"
    assert sorted(files) == sorted(f"dev/{name}{kind_suffix}" for name in dev)
    # the zip holds the development sentences only: 4 trees (1 + 3), or 3 CoNLL-U sentences
    assert sum(len(sentences_of(campaign.slug, data)) for data in files.values()) == sum(map(len, dev.values()))

    run = upload_dev(campaign, team, alice, files, django_capture_on_commit_callbacks)

    assert run.status == RunStatus.SCORED, (run.status, run.status_reason, run.validation_report)
    report = run.validation_report
    assert report["valid"] and report["problem_count"] == 0
    assert report["documents"] == len(dev) and report["sentences"] == sum(map(len, dev.values()))
    result = run.results.get()
    # scored on exactly the development sentences, in corpus order
    assert [(s["document"], s["sid"]) for s in result.document["sentences"]] == [
        (name, sid) for name in sorted(dev, key=lambda n: campaign.documents.get(name=n).order) for sid in dev[name]]
    cells = list(result.cells.filter(genre="ALL", type="ALL"))
    figures = [c.f for c in cells if c.f is not None]
    assert figures and all(f == pytest.approx(1.0) for f in figures), [(c.layer, c.f) for c in cells]
    deps = {"deps-lin", "deps-uas", "deps-las"}  # the tree campaign also scores dependencies via head rules
    conll18 = {"conll18-upos", "conll18-las", "conll18-clas", "conll18-mlas", "conll18-blex"}
    expected = ({"evalb", "evalb-exact", "leaf-ancestor", "la-sentence"} | deps if campaign.slug == "trees"
                else deps | conll18)
    assert {c.layer for c in cells} == expected


def test_a_dev_file_missing_a_dev_sentence_is_invalid_where_it_is(campaign, alice, sample,
        django_capture_on_commit_callbacks):
    dev, team, files = sample
    name = "frwiki" if campaign.slug == "trees" else "sequoia"
    member = next(f for f in files if f.startswith(f"dev/{name}."))
    sentences = sentences_of(campaign.slug, files[member])
    del sentences[1]  # the second development sentence of the document (corpus position 3) is left out
    files[member] = join(campaign.slug, sentences)

    run = upload_dev(campaign, team, alice, files, django_capture_on_commit_callbacks)

    assert run.status == RunStatus.INVALID
    assert not run.results.exists()
    problems = run.validation_report["problems"]
    display = member.split("/", 1)[1]
    assert all(p["file"] == display for p in problems)  # the other document is complete
    # 2 sentences where the development sample has 3: the run's 2nd sentence has the words of the 3rd
    # development sentence, so it is read as that one, shifted; the missing one is named, and nothing else
    [missing] = problems
    assert missing["message"].startswith("2 sentences where the document's development sample has 3")
    assert f"sentence {dev[name][1]} (sentence 2 of the document's development sample) is missing" in missing["message"]
    assert missing["sentence"] == dev[name][1] and missing["line"] is not None
