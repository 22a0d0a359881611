"""The draw, attacked as a team that reads the code: replaying a seeded shuffle recovers no test sentence.

What the adversary has: the source (the old draw was ``random.Random(seed)``, one generator shuffling
each genre's annotated sentences in corpus order, test first, then development), the corpus and its
order, the genres, and the development sample it downloads as a team member. It replays the old
shuffle for every candidate seed until the public development sample comes out; the test set is then
the block before it.

The first test shows the attack is real: on a campaign drawn by the old algorithm (reimplemented
here) with the documentation's example seed 2006, the replay finds the seed and every test sentence.
The second runs the same replay over the first 10^6 seeds against the platform's draw: no seed gives
the development sample, so the attack has no candidate test set at all.
"""
from __future__ import annotations

import io
import random
import zipfile
from collections import defaultdict

import pytest
from django.test import Client

from parseval.annotations.easy import read_document
from annotations.models import GoldSentence
from campaign.models import Campaign, CampaignState, Sentence
from campaign.services.corpus import import_corpus
from campaign.subsets import Subset, sample_test_subset
from tests.factories import SMALL_EASY_FILES, easy_gold_paths

from .conftest import team

pytestmark = pytest.mark.django_db

RATIO, DEV_RATIO = 0.5, 0.1  # the documentation's example (--ratio 0.5 --dev-ratio 0.1)
SEEDS = 10 ** 6


def _counts(n: int) -> tuple[int, int]:
    n_test = max(1, round(n * RATIO))
    return n_test, min(round(n * DEV_RATIO), n - n_test)


def old_draw(by_genre: dict[str, list], seed: int) -> dict[str, dict[str, list]]:
    """The seeded draw this platform used before: one ``random.Random(seed)`` over the genres in order."""
    rng = random.Random(seed)
    out = {}
    for genre in sorted(by_genre):
        members = by_genre[genre]
        order = list(range(len(members)))
        rng.shuffle(order)
        n_test, n_dev = _counts(len(members))
        out[genre] = {"test": [members[i] for i in order[:n_test]],
                      "dev": [members[i] for i in order[n_test:n_test + n_dev]]}
    return out


def _survives_first_genre(rng: random.Random, n: int, dev: frozenset, n_test: int, n_dev: int) -> bool:
    """Python's shuffle (Fisher-Yates from the end) for one genre, stopped at the first position the
    development sample contradicts: the unused block is drawn first, then the development block."""
    order = list(range(n))
    below = rng._randbelow  # what random.shuffle calls, so the replay is the shuffle itself
    for i in range(n - 1, n_test - 1, -1):
        j = below(i + 1)
        order[i], order[j] = order[j], order[i]
        if (order[i] in dev) != (i < n_test + n_dev):
            return False
    return True


def replay(by_genre: dict[str, list], dev: set, seeds: range) -> list[tuple[int, set]]:
    """Every seed whose old draw gives exactly the development sample ``dev``, with the test set it gives."""
    first = sorted(by_genre)[0]
    members = by_genre[first]
    dev_first = frozenset(i for i, m in enumerate(members) if m in dev)
    n_test, n_dev = _counts(len(members))
    found = []
    rng = random.Random()
    seed_rng = random.Random.seed
    for seed in seeds:
        seed_rng(rng, seed)
        if not _survives_first_genre(rng, len(members), dev_first, n_test, n_dev):
            continue
        drawn = old_draw(by_genre, seed)
        if {m for g in drawn.values() for m in g["dev"]} == dev:
            found.append((seed, {m for g in drawn.values() for m in g["test"]}))
    return found


def corpus_in_order(campaign: Campaign) -> dict[str, list]:
    """The sentences of each genre in corpus order (documents by order and name, then position): public."""
    by_genre: dict[str, list] = defaultdict(list)
    for genre, document, sid in Sentence.objects.filter(document__campaign=campaign).order_by(
        "document__order", "document__name", "position"
    ).values_list("document__genre__code", "document__name", "sid"):
        by_genre[genre].append((document, sid))
    return dict(by_genre)


def adversary_view(campaign: Campaign, member) -> tuple[dict[str, list], set]:
    """What a team member knows: the annotated sentences per genre in corpus order (every sentence of
    this corpus is annotated, as in EASY) and the development sample, downloaded as the team does."""
    client = Client()
    client.force_login(member)
    response = client.get(f"/governance/campaigns/{campaign.slug}/dev-sample.zip")
    assert response.status_code == 200
    dev = set()
    with zipfile.ZipFile(io.BytesIO(response.content)) as zf:
        for name in zf.namelist():
            doc = read_document(io.BytesIO(zf.read(name)), gold=True, name=name)
            dev |= {(name.removeprefix("dev/").removesuffix(".xml"), s.id) for s in doc.sentences}
    return corpus_in_order(campaign), dev


def actual(campaign: Campaign, subset: str) -> set:
    return set(GoldSentence.objects.filter(sentence__document__campaign=campaign, subset=subset)
               .values_list("sentence__document__name", "sentence__sid"))


@pytest.fixture
def opened(organiser, member_a):
    def make(slug: str) -> Campaign:
        c = Campaign.objects.create(name=slug, slug=slug)
        c.organisers.add(organiser)
        import_corpus(c, easy_gold_paths(SMALL_EASY_FILES))
        return c

    def open_(c: Campaign) -> Campaign:
        c.state = CampaignState.OPEN
        c.save()
        team(c, member_a)
        return c

    return make, open_


def test_the_old_seeded_draw_falls_to_the_replay(opened, member_a):
    make, open_ = opened
    campaign = make("old-draw")
    drawn = old_draw(corpus_in_order(campaign), 2006)
    gold = GoldSentence.objects.filter(sentence__document__campaign=campaign)
    gold.update(subset=Subset.UNUSED)
    keys = gold.values_list("pk", "sentence__document__name", "sentence__sid")
    for subset in ("test", "dev"):
        chosen = {m for g in drawn.values() for m in g[subset]}
        gold.filter(pk__in=[pk for pk, d, s in keys if (d, s) in chosen]).update(subset=subset)
    open_(campaign)
    corpus, dev = adversary_view(campaign, member_a)
    found = replay(corpus, dev, range(3000))
    assert [seed for seed, _ in found] == [2006]
    recovered = found[0][1]
    assert recovered == actual(campaign, Subset.TEST) and len(recovered) > 50  # every test sentence, no upload


def test_no_seed_replays_the_platforms_draw(opened, member_a):
    make, open_ = opened
    campaign = make("keyed-draw")
    sample_test_subset(campaign, ratio=RATIO, dev_ratio=DEV_RATIO)
    open_(campaign)
    corpus, dev = adversary_view(campaign, member_a)
    assert dev == actual(campaign, Subset.DEV) and dev
    found = replay(corpus, dev, range(SEEDS))
    assert found == []  # no candidate seed, so no test sentence recovered
    # The documentation's seed gives a test set that is the platform's no more than chance would.
    guess = {m for g in old_draw(corpus, 2006).values() for m in g["test"]}
    test = actual(campaign, Subset.TEST)
    assert len(guess & test) < 0.75 * len(test)
