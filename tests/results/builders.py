"""Builders for results tests: campaigns with teams, runs and stored cells.

Cells are written directly as the scoring service would store them, with
distinct values per run, so a page that shows the wrong run's figure fails.
"""
from __future__ import annotations

import hashlib
import itertools

from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile

from campaign.models import Campaign, CampaignState, CorpusDocument, Genre, Membership, Run, RunStatus, Sentence, Team
from evaluation.models import Result, ResultCell

GENRES = ("general", "litteraire", "oral")
REL_TYPES = ("SUJ-V", "COD-V", "MOD-N")
CONST_TYPES = ("GN", "NV", "GP")
MODES = ("HYP", "DEFHYP", "REF")
MATCHES = ("EQUAL", "FUZZY", "INCLUDE", "INTERSECTION", "BARYCENTER")

_seq = itertools.count(1)


def user(name: str, password: str = "pw-secret-123", **extra):
    return get_user_model().objects.create_user(name, password=password, **extra)


def campaign(state: str = CampaignState.OPEN, *, organiser=None, slug: str | None = None, **extra) -> Campaign:
    n = next(_seq)
    # These pages are checked against the exact stored figures; what teams see under the default
    # (rates only before the gold release) is tested in tests/governance/test_count_encoding.py.
    extra.setdefault("team_figures", "full")
    c = Campaign.objects.create(name=f"Campaign {n}", slug=slug or f"camp-{n}", state=state, **extra)
    for i, code in enumerate(GENRES):
        Genre.objects.create(campaign=c, code=code, name=code.capitalize(), order=i)
    if organiser is not None:
        c.organisers.add(organiser)
    return c


def corpus(c: Campaign, sentences_per_genre: int = 3, words: int = 7) -> list[Sentence]:
    out = []
    for genre in c.genres.all():
        doc = CorpusDocument.objects.create(
            campaign=c, genre=genre, name=f"{genre.code}_1", sha256="0" * 64,
            sentence_count=sentences_per_genre, word_count=sentences_per_genre * words,
        )
        doc.text_file.save(f"{genre.code}_1.xml", ContentFile(b"<DOCUMENT/>"), save=True)
        for i in range(sentences_per_genre):
            out.append(Sentence.objects.create(document=doc, sid=f"E{i + 1}", position=i, word_count=words))
    return out


def team(c: Campaign, name: str, *members, code: str = "") -> Team:
    t = Team.objects.create(campaign=c, name=name, slug=name.lower().replace(" ", "-"), code=code or name[:1].upper())
    for m in members:
        Membership.objects.create(team=t, user=m)
    return t


def value_for(run_index: int, *key) -> float:
    """A distinct, reproducible F in (0, 1) for each run and cell key."""
    digest = hashlib.sha256(repr((run_index, key)).encode()).digest()
    return round(0.05 + 0.9 * int.from_bytes(digest[:4], "big") / 2**32, 6)


def scored_run(c: Campaign, t: Team, name: str = "run", *, index: int | None = None, status=RunStatus.SCORED,
               scope=Run.Scope.TEST, layers=("relations", "constituents")) -> Run:
    index = next(_seq) if index is None else index
    run = Run.objects.create(
        campaign=c, team=t, name=name, scope=scope, status=status, file=f"runs/{c.slug}/{t.slug}/{index}.xml",
        original_filename=f"{name}.xml", sha256=f"{index:064x}", size=10,
    )
    if status == RunStatus.SCORED:
        add_result(run, index, layers=layers)
    return run


def add_result(run: Run, index: int, *, layers=("relations", "constituents")) -> Result:
    # Each result closes a scoring round of its own, as a re-score does (one result per round and version).
    scoring_round = run.results.count() + 1
    Run.objects.filter(pk=run.pk).update(scoring_round=scoring_round)
    result = Result.objects.create(
        run=run, metric="easy", signature=f"metric:easy|bs:1000|seed:1|version:1.0.0|run:{index}",
        scorer_version="1.0.0", gold_sha256="a" * 64, document={"cells": []}, scoring_round=scoring_round,
    )
    cells = []
    for layer in layers:
        modes = MODES if layer == "relations" else ("",)
        types = (REL_TYPES if layer == "relations" else CONST_TYPES) + ("ALL",)
        for mode in modes:
            for match in MATCHES:
                for genre in GENRES + ("ALL",):
                    for type_ in types:
                        f = value_for(index, layer, mode, match, genre, type_)
                        cells.append(ResultCell(
                            result=result, layer=layer, mode=mode, match=match, genre=genre, type=type_,
                            fc=int(f * 100), fp=100, cr=100, p=f, r=f, f=f, ci_low=max(0.0, f - 0.03), ci_high=min(1.0, f + 0.03),
                        ))
                    cells.append(ResultCell(
                        result=result, aggregation="macro", layer=layer, mode=mode, match=match, genre=genre, type="ALL",
                        f=value_for(index, "macro", layer, mode, match, genre),
                    ))
    ResultCell.objects.bulk_create(cells)
    return result
