"""Fixtures of the governance tests: a small campaign built directly from models, so that
life-cycle and rule tests do not depend on the corpus importer."""
from __future__ import annotations

import hashlib
import itertools

import pytest
from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.utils import timezone

from campaign.models import Campaign, CampaignState, CorpusDocument, Genre, Membership, Run, RunStatus, Sentence, Team

_n = itertools.count(1)


@pytest.fixture(autouse=True)
def _private_media(settings, tmp_path):
    from django.utils.functional import empty

    from annotations.models import gold_storage
    from tests.factories import use_storage

    use_storage(settings, tmp_path)
    # Hashing test passwords at full strength costs a second per user.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    yield
    gold_storage._wrapped = empty


def user(name=None, **fields):
    return get_user_model().objects.create_user(username=name or f"u{next(_n)}", password="pw-for-tests-1", **fields)


def campaign(state=CampaignState.DRAFT, *, organiser=None, documents=1, **fields) -> Campaign:
    slug = fields.pop("slug", f"gov-{next(_n)}")
    c = Campaign.objects.create(name=f"Campaign {slug}", slug=slug, state=state, **fields)
    if organiser is not None:
        c.organisers.add(organiser)
    genre = Genre.objects.create(campaign=c, code="general", name="General")
    for d in range(documents):
        data = b'<?xml version="1.0"?><DOCUMENT><E id="E1"><F id="E1F1">x</F></E></DOCUMENT>'
        doc = CorpusDocument(campaign=c, genre=genre, name=f"general_{d}", sha256=hashlib.sha256(data).hexdigest(),
                             sentence_count=1, order=d)
        doc.text_file.save(f"general_{d}.xml", ContentFile(data), save=False)
        doc.save()
        Sentence.objects.create(document=doc, sid="E1", position=0, word_count=1)
    return c


def team(c: Campaign, *members, name=None) -> Team:
    name = name or f"Team {next(_n)}"
    t = Team.objects.create(campaign=c, name=name, slug=name.lower().replace(" ", "-"))
    for m in members:
        Membership.objects.create(team=t, user=m, campaign=c)
    return t


def run(t: Team, *, status=RunStatus.SCORED, scope=Run.Scope.TEST, content=b"<DOCUMENT/>", name=None, **fields) -> Run:
    sha = hashlib.sha256(content).hexdigest()
    r = Run(campaign=t.campaign, team=t, name=name or f"run {next(_n)}", scope=scope, status=status,
            original_filename="run.xml", sha256=sha, size=len(content), **fields)
    r.file.save("run.xml", ContentFile(content), save=False)
    r.save()
    return r


@pytest.fixture
def organiser(db):
    return user("organiser")


@pytest.fixture
def member_a(db):
    return user("alice")


@pytest.fixture
def member_b(db):
    return user("bob")


@pytest.fixture
def now():
    return timezone.now()
