"""Test and development subsets: marking, the keyed draw per genre, the command, the dev-sample download."""
from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from parseval.annotations.easy import read_document
from annotations.models import GoldSentence
from campaign.subsets import (
    SubsetRefused, draw, draw_warning, key_fingerprint, mark_subset, sample_test_subset, sentence_ids_by_document, subset_counts,
    verify_draw,
)
from campaign.models import AuditEntry, Campaign
from campaign.services.corpus import import_corpus
from tests.factories import SMALL_EASY_FILES, easy_gold_paths

from .conftest import team

pytestmark = pytest.mark.django_db


@pytest.fixture
def easy(organiser):
    c = Campaign.objects.create(name="Subsets", slug="subsets")
    c.organisers.add(organiser)
    import_corpus(c, easy_gold_paths(SMALL_EASY_FILES))
    return c


def members(c, subset):
    return set(GoldSentence.objects.filter(sentence__document__campaign=c, subset=subset).values_list("pk", flat=True))


def test_sampling_is_per_genre_keyed_and_audited(easy, organiser):
    summary = sample_test_subset(easy, ratio=0.5, dev_ratio=0.1, actor=organiser)
    total = GoldSentence.objects.filter(sentence__document__campaign=easy).count()
    assert sum(summary.totals.values()) == total
    for genre, counts in summary.per_genre.items():
        n = sum(counts.values())
        assert counts["test"] == round(n * 0.5) and counts["dev"] == round(n * 0.1), genre
    assert subset_counts(easy) == summary.totals
    easy.refresh_from_db()
    key = easy.draw_key
    assert len(key) == 64
    entry = AuditEntry.objects.get(campaign=easy, action="subset.sampled")
    assert entry.details["counts"] == summary.totals and entry.actor == organiser
    assert entry.details["key_sha256"] == key_fingerprint(key) and "seed" not in entry.details
    assert key not in json.dumps(entry.details)  # the log keeps a fingerprint, never the key
    first_test, first_dev = members(easy, "test"), members(easy, "dev")
    assert verify_draw(easy) == []
    sample_test_subset(easy, ratio=0.5, dev_ratio=0.1)  # a fresh key: another draw
    easy.refresh_from_db()
    assert easy.draw_key != key and members(easy, "test") != first_test
    sample_test_subset(easy, ratio=0.5, dev_ratio=0.1, key=key)  # the organiser's key replays the draw
    assert members(easy, "test") == first_test and members(easy, "dev") == first_dev
    GoldSentence.objects.filter(pk=min(first_test)).update(subset="unused")
    assert len(verify_draw(easy)) == 1


def test_the_draw_does_not_depend_on_sentence_order():
    by_genre = {"g": [("d1", f"E{i}") for i in range(1, 41)], "h": [("d2", f"E{i}") for i in range(1, 11)]}
    key = "ab" * 32
    one, counts = draw(key, by_genre, 0.5, 0.2)
    two, _ = draw(key, {g: list(reversed(m)) for g, m in by_genre.items()}, 0.5, 0.2)
    assert one == two and counts == {"g": {"test": 20, "dev": 8, "unused": 12},
                                     "h": {"test": 5, "dev": 2, "unused": 3}}
    assert draw("cd" * 32, by_genre, 0.5, 0.2)[0] != one


def test_test_ids_are_not_contiguous(easy):
    sample_test_subset(easy, ratio=0.5)
    for name, sids in sentence_ids_by_document(easy, "test").items():
        positions = sorted(int(s[1:]) for s in sids)
        if len(positions) < 3:
            continue
        assert positions != list(range(positions[0], positions[0] + len(positions))), name


@pytest.mark.parametrize("ratio,dev_ratio", [(0, 0), (1.5, 0), (0.6, 0.5), (0.5, -0.1)])
def test_bad_ratios_are_refused(easy, ratio, dev_ratio):
    with pytest.raises(SubsetRefused):
        sample_test_subset(easy, ratio=ratio, dev_ratio=dev_ratio)


def test_after_opening_nothing_moves_into_test_or_dev(easy):
    sample_test_subset(easy, ratio=0.5, dev_ratio=0.2)
    easy.state = "open"
    easy.save()
    with pytest.raises(SubsetRefused, match="can no longer be put into the test subset"):
        sample_test_subset(easy, ratio=0.5)
    doc = easy.documents.first()
    with pytest.raises(SubsetRefused, match="dev"):
        mark_subset(easy, "dev", documents=[doc])
    test_sentence = GoldSentence.objects.filter(sentence__document=doc, subset="test").first().sentence
    assert mark_subset(easy, "unused", sentences=[test_sentence]) == 1  # taking out of scoring stays possible


def test_mark_subset_checks_its_input(easy, organiser):
    other = Campaign.objects.create(name="Other", slug="other")
    import_corpus(other, easy_gold_paths(SMALL_EASY_FILES[:1]))
    with pytest.raises(SubsetRefused, match="not in this campaign"):
        mark_subset(easy, "dev", sentences=[other.documents.first().sentences.first()])
    with pytest.raises(SubsetRefused, match="not a subset"):
        mark_subset(easy, "secret", documents=[easy.documents.first()])
    doc = easy.documents.first()
    assert mark_subset(easy, "dev", documents=[doc], actor=organiser) == doc.sentences.count()
    assert AuditEntry.objects.filter(campaign=easy, action="subset.marked", actor=organiser).exists()


def test_command(easy, organiser, capsys):
    call_command("sample_test_subset", easy.slug, "--ratio", "0.5", "--dev-ratio", "0.1",
                 "--actor", organiser.username)
    out = capsys.readouterr().out
    counts = subset_counts(easy)
    easy.refresh_from_db()
    assert f"key {key_fingerprint(easy.draw_key)} (fingerprint), test {counts['test']}, dev {counts['dev']}" in out
    assert easy.draw_key not in out
    call_command("sample_test_subset", easy.slug, "--verify")
    assert "every annotated sentence is where the keyed draw put it" in capsys.readouterr().out
    with pytest.raises(CommandError, match="--seed is no longer accepted"):
        call_command("sample_test_subset", easy.slug, "--ratio", "0.5", "--seed", "2006")
    with pytest.raises(CommandError, match="No campaign"):
        call_command("sample_test_subset", "nope", "--ratio", "0.5")
    with pytest.raises(CommandError, match="test ratio"):
        call_command("sample_test_subset", easy.slug, "--ratio", "0")


def _zip(response) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(response.content)) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def test_dev_sample_download_holds_only_dev_gold(easy, organiser, member_a):
    sample_test_subset(easy, ratio=0.5, dev_ratio=0.2)
    easy.state = "open"
    easy.save()
    url = f"/governance/campaigns/{easy.slug}/dev-sample.zip"
    assert Client().get(url).status_code == 404  # not public by default
    client = Client()
    client.force_login(member_a)
    assert client.get(url).status_code == 404  # not in a team yet
    team(easy, member_a)
    response = client.get(url)
    assert response.status_code == 200
    files = _zip(response)
    dev = sentence_ids_by_document(easy, "dev")
    assert sorted(files) == sorted(f"dev/{name}.xml" for name in dev)
    for name, data in files.items():
        doc = read_document(io.BytesIO(data), gold=True, strict=True, name=name)
        assert {s.id for s in doc.sentences} == dev[name.removeprefix("dev/").removesuffix(".xml")]
        assert any(s.relations or s.groups for s in doc.sentences)  # it is gold, not text
        assert b"<!--" not in data and b"/data/groups" not in data  # nothing of the source file
    assert AuditEntry.objects.filter(campaign=easy, action="dev_sample.download", actor=member_a).exists()
    easy.dev_sample_public = True
    easy.save()
    assert Client().get(url).status_code == 200


def test_no_dev_sample_is_a_clear_404(easy, organiser):
    sample_test_subset(easy, ratio=0.5)
    client = Client()
    client.force_login(organiser)
    response = client.get(f"/governance/campaigns/{easy.slug}/dev-sample.zip")
    assert response.status_code == 404


def test_gold_download_only_after_gold_release(easy, organiser, member_a):
    from campaign import lifecycle

    sample_test_subset(easy, ratio=0.5, dev_ratio=0.2)
    team(easy, member_a)
    url = f"/governance/campaigns/{easy.slug}/gold.zip"
    member = Client()
    member.force_login(member_a)
    org = Client()
    org.force_login(organiser)
    for state in ["open", "closed", "scored", "released", "published"]:
        lifecycle.transition(easy, state, actor=organiser)
        assert Client().get(url).status_code == 404 and member.get(url).status_code == 404, state
    assert org.get(url).status_code == 200
    assert AuditEntry.objects.filter(campaign=easy, action="gold.download", actor=organiser).count() == 1
    lifecycle.transition(easy, "gold_released", actor=organiser)
    files = _zip(Client().get(url))
    listing = files.pop("gold/subsets.tsv").decode().splitlines()
    expected = {(name, sid, subset) for subset in ("test", "dev")
                for name, sids in sentence_ids_by_document(easy, subset).items() for sid in sids}
    assert {tuple(line.split("\t")) for line in listing[1:]} == expected
    for name, data in files.items():
        doc = read_document(io.BytesIO(data), gold=True, strict=True, name=name)
        stem = name.removeprefix("gold/").removesuffix(".xml")
        assert {s.id for s in doc.sentences} == {sid for n, sid, _ in expected if n == stem}
    lifecycle.transition(easy, "archived", actor=organiser)
    assert Client().get(url).status_code == 200  # archiving does not hide released gold


def test_archiving_without_gold_release_keeps_gold_hidden(easy, organiser):
    from campaign import lifecycle

    sample_test_subset(easy, ratio=0.5)
    for state in ["open", "closed", "scored", "released", "published", "archived"]:
        lifecycle.transition(easy, state, actor=organiser)
    assert Client().get(f"/governance/campaigns/{easy.slug}/gold.zip").status_code == 404


def test_mark_subset_command(easy, organiser, capsys):
    doc = easy.documents.order_by("order").first()
    call_command("mark_subset", easy.slug, "dev", "--documents", doc.name, "--actor", organiser.username)
    assert subset_counts(easy)["dev"] == doc.sentences.count()
    sid = doc.sentences.order_by("position").first().sid
    call_command("mark_subset", easy.slug, "unused", "--sentences", f"{doc.name}:{sid}")
    assert GoldSentence.objects.get(sentence__document=doc, sentence__sid=sid).subset == "unused"
    assert "1 sentence(s) moved to unused" in capsys.readouterr().out
    with pytest.raises(CommandError, match="No sentence E99999"):
        call_command("mark_subset", easy.slug, "test", "--sentences", f"{doc.name}:E99999")
    with pytest.raises(CommandError, match="DOCUMENT:ID"):
        call_command("mark_subset", easy.slug, "test", "--sentences", "E3")
    with pytest.raises(CommandError, match="No document named nope"):
        call_command("mark_subset", easy.slug, "test", "--documents", "nope")
    easy.state = "open"
    easy.save()
    with pytest.raises(CommandError, match="can no longer be put into the test subset"):
        call_command("mark_subset", easy.slug, "test", "--documents", doc.name)


def test_state_page_draws_and_warns_of_a_seeded_draw(easy, organiser, member_a):
    from campaign import audit

    client = Client()
    client.force_login(organiser)
    url = f"/governance/campaigns/{easy.slug}/state/"
    assert "Guessable draw" not in client.get(url).content.decode()
    # A campaign drawn by the old seeded draw (its audit entry names the seed) warns its organisers.
    audit.record(audit.SUBSET_SAMPLED, campaign=easy, target=easy.slug,
                 details={"seed": 2006, "ratio": 0.5, "dev_ratio": 0.1})
    page = client.get(url).content.decode()
    assert "Guessable draw" in page and "seed 2006" in page and "Draw the subsets" in page
    assert "Guessable draw" in client.get(f"/console/{easy.slug}/").content.decode()
    response = client.post(url, {"ratio": "0.5", "dev_ratio": "0.1"})
    assert response.status_code == 302
    easy.refresh_from_db()
    assert len(easy.draw_key) == 64 and subset_counts(easy)["dev"] > 0
    page = client.get(url).content.decode()
    assert "Guessable draw" not in page and easy.draw_key not in page
    easy.state = "open"
    easy.save()
    assert "Draw the subsets" not in client.get(url).content.decode()  # only while a draft
    member = Client()
    member.force_login(member_a)
    assert member.post(url, {"ratio": "0.5", "dev_ratio": "0.1"}).status_code == 404


# -- the open demo's published key (issue 34) ------------------------------------------------------------

def test_the_practice_key_is_refused_outside_the_practice_campaign(easy, organiser):
    from campaign.demo_open import DRAW_KEY

    sample_test_subset(easy, ratio=0.5, dev_ratio=0.1, actor=organiser)
    easy.refresh_from_db()
    key, test = easy.draw_key, members(easy, "test")
    # the adversary's hope: an organiser copies the demo's key, and the draw is then anyone's to replay
    with pytest.raises(SubsetRefused, match=r"open demo's practice key .* draw without a key") as refused:
        sample_test_subset(easy, ratio=0.5, dev_ratio=0.1, key=DRAW_KEY, actor=organiser)
    assert key_fingerprint(DRAW_KEY) in str(refused.value) and DRAW_KEY not in str(refused.value)
    easy.refresh_from_db()
    assert easy.draw_key == key and members(easy, "test") == test
    assert AuditEntry.objects.filter(campaign=easy, action="subset.sampled").count() == 1


def test_the_practice_campaign_still_draws_with_its_key(organiser):
    from campaign.demo_open import DRAW_KEY, OPEN_SLUG

    practice = Campaign.objects.create(name="Practice", slug=OPEN_SLUG)
    import_corpus(practice, easy_gold_paths(SMALL_EASY_FILES))
    summary = sample_test_subset(practice, ratio=0.5, dev_ratio=0.1, key=DRAW_KEY, actor=organiser)
    assert summary.key_fingerprint == key_fingerprint(DRAW_KEY)
    assert draw_warning(practice) is None


def test_a_campaign_drawn_with_the_practice_key_before_is_warned_of(organiser):
    from campaign.demo_open import DRAW_KEY, OPEN_SLUG

    # drawn under the practice slug, then renamed: what a campaign drawn before the refusal looks like
    c = Campaign.objects.create(name="Renamed", slug=OPEN_SLUG)
    import_corpus(c, easy_gold_paths(SMALL_EASY_FILES))
    sample_test_subset(c, ratio=0.5, dev_ratio=0.1, key=DRAW_KEY, actor=organiser)
    Campaign.objects.filter(pk=c.pk).update(slug="a-real-campaign")
    c.refresh_from_db()
    assert "practice key" in draw_warning(c) and "Draw the subsets again" in draw_warning(c)
