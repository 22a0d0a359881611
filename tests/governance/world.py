"""A campaign planted with recognisable secrets, for the leak tests.

Built from real EASY gold through the portal's corpus import, with a test
subset and a development sample sampled by the governance command, two teams
whose runs carry unique marker strings, and results whose figures are values
nobody would print by chance. :func:`forbidden` says which markers a role may
not see in a given life-cycle state, following the spec's visibility table.
"""
from __future__ import annotations

import hashlib
import re
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timezone as dt_timezone
from unittest import mock
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.utils import timezone

from parseval.annotations.easy import read_document
from campaign.subsets import sample_test_subset
from campaign import lifecycle
from campaign.models import Campaign, CampaignState, Membership, Run, RunStatus, Team
from evaluation.models import Result, ResultCell
from tests.factories import SMALL_EASY_FILES, easy_gold_paths

GOLD_COMMENT = "GOLD-ONLY-7Q3Z"
GOLD_WARNING = "GOLDWARN-Q8R4"
MATCHES = ("EQUAL", "FUZZY", "INCLUDE", "INTERSECTION", "BARYCENTER")
MODES = ("HYP", "DEFHYP", "REF")


@dataclass(frozen=True)
class Scores:
    f: float
    p: float
    r: float
    fc: int
    fp: int
    cr: int
    ci: tuple[float, float]

    def textual_forms(self) -> list[WholeNumber]:
        """How a page or an API may print these figures."""
        forms = []
        for v in (self.f, self.p, self.r, *self.ci):
            forms += [repr(v), f"{v:.4f}", f"{v:.3f}", f"{v * 100:.2f}"]
        forms += [str(self.fc), str(self.fp), str(self.cr)]
        return [WholeNumber(f) for f in forms]


@dataclass(frozen=True)
class WholeNumber:
    """A figure found only as a whole number, so that a timestamp's ``10.5931`` does not count as ``0.593``.

    The walk searches about a thousand pages for dozens of these: the plain substring test goes first.
    """
    text: str

    def search(self, page: str):
        if self.text not in page:
            return None
        return re.search(rf"(?<![\d.]){re.escape(self.text)}(?!\d)", page)


# When scoring "ended" for the two test runs and when a significance set was "computed": dates nobody
# prints by chance, planted so that every route is searched for them (hidden until gold release).
SCORED_AT = datetime(2031, 7, 19, 13, 57, 42, 123456, tzinfo=dt_timezone.utc)
SET_COMPUTED_AT = datetime(2031, 8, 23, 11, 46, 31, 654321, tzinfo=dt_timezone.utc)


def scoring_time_forms() -> list[str]:
    """How a page or an API may print those moments: ISO, and Django's date formats (the date is enough)."""
    return [form for t in (SCORED_AT, SET_COMPUTED_AT)
            for form in (t.date().isoformat(), t.strftime("%d/%m/%Y"), t.strftime("%B %-d, %Y"),
                         t.strftime("%b. %-d, %Y"), t.strftime("%b %-d, %Y"))]


SCORES_A = Scores(0.918273645, 0.827364519, 0.736451928, 7919, 8831, 9533, (0.901234567, 0.934567891))
SCORES_B = Scores(0.681924375, 0.592837461, 0.473829156, 6113, 7127, 8209, (0.661239847, 0.698712364))
SCORES_A_DEV = Scores(0.364519287, 0.283746519, 0.192837465, 5393, 5857, 6397, (0.342198765, 0.387654329))


@dataclass
class TeamSecrets:
    name: str
    run_name: str
    description: str
    filename: str
    content: str

    def run_markers(self) -> list[str]:
        """What nobody but the team may ever see (the run name becomes public at publication)."""
        return [self.description, self.filename, self.content]


SECRETS_A = TeamSecrets("Team Alpha", "RUNNAME-A-5KX", "RUNDESC-A-8JW", "runfile-a-3PQ.xml", "RUNCONTENT-A-2MV")
SECRETS_B = TeamSecrets("Team Bravo", "RUNNAME-B-6LY", "RUNDESC-B-9KX", "runfile-b-4QR.xml", "RUNCONTENT-B-3NW")


@dataclass
class World:
    campaign: Campaign
    organiser: object
    users: dict[str, object]
    teams: dict[str, Team]
    runs: dict[str, Run]
    results: dict[str, Result]
    test_ids_pattern: re.Pattern
    test_sequence: re.Pattern
    objects: dict[str, list] = field(default_factory=dict)


def _gold_copies(tmp: Path) -> list[Path]:
    """The real gold files, each with a comment that only the stored gold carries."""
    out = []
    for src in easy_gold_paths(SMALL_EASY_FILES):
        dest = tmp / src.name
        shutil.copyfile(src, dest)
        text = dest.read_text(encoding="utf-8")
        head, sep, rest = text.partition("?>")
        dest.write_text(f"{head}{sep}\n<!-- {GOLD_COMMENT} -->{rest}", encoding="utf-8")
        out.append(dest)
    return out


def _user(name: str):
    return get_user_model().objects.create_user(username=name, password="pw-for-tests-1")


def _team(campaign, secrets: TeamSecrets, member) -> Team:
    team = Team.objects.create(campaign=campaign, name=secrets.name, slug=secrets.name.lower().replace(" ", "-"))
    Membership.objects.create(team=team, user=member, campaign=campaign)
    return team


def _run(team: Team, secrets: TeamSecrets, scope: str, suffix: str = "") -> Run:
    content = (f'<?xml version="1.0" encoding="UTF-8"?>\n<!-- {secrets.content}{suffix} -->\n'
               f'<DOCUMENT fichier="{secrets.filename}"></DOCUMENT>\n').encode()
    sha = hashlib.sha256(content).hexdigest()
    run = Run(campaign=team.campaign, team=team, name=secrets.run_name + suffix, scope=scope,
              system_description=secrets.description + suffix, original_filename=secrets.filename,
              sha256=sha, size=len(content), status=RunStatus.SCORED,
              validation_report={"valid": True, "problem_count": 0, "problems": [], "warnings": []})
    run.file.save(secrets.filename, ContentFile(content), save=False)
    run.save()
    return run


def _result(run: Run, scores: Scores, genres: list[str], warning_sid: str) -> Result:
    cells = []
    for genre in ["ALL", *genres]:
        for match in MATCHES:
            cells.append({"layer": "constituents", "mode": None, "match": match, "genre": genre, "type": "ALL"})
            for mode in MODES:
                cells.append({"layer": "relations", "mode": mode, "match": match, "genre": genre, "type": "ALL"})
    for c in cells:
        c.update(fc=scores.fc, fp=scores.fp, cr=scores.cr, p=scores.p, r=scores.r, f=scores.f, ci=list(scores.ci))
    document = {
        "signature": f"easy|planted|{run.pk}", "scorer_version": "test", "gold_sha256": "0" * 64,
        "cells": cells, "macro": [dict(c, type="ALL") for c in cells[:2]],
        # Engines name missing gold sentences in warnings: a membership leak if shown.
        "warnings": [{"message": f"{GOLD_WARNING} gold sentence {warning_sid} has no run sentence",
                      "sentence": warning_sid}],
    }
    result = Result.objects.create(run=run, metric="easy", signature=document["signature"], scorer_version="test",
                                   gold_sha256="0" * 64, document=document)
    for aggregation, key in (("micro", "cells"), ("macro", "macro")):
        ResultCell.objects.bulk_create(ResultCell(
            result=result, aggregation=aggregation, layer=c["layer"], mode=c["mode"] or "", match=c["match"],
            genre=c["genre"], type=c["type"], fc=c["fc"], fp=c["fp"], cr=c["cr"], p=c["p"], r=c["r"], f=c["f"],
            ci_low=c["ci"][0], ci_high=c["ci"][1]) for c in document[key])
    return result


def _test_markers(campaign: Campaign, gold_paths: list[Path]):
    """Regexes of test-subset content: the ids of the test sentences' gold groups and relations, and
    three test sentence ids listed in order with non-test sentences between them."""
    from annotations.models import GoldSentence

    rows = GoldSentence.objects.filter(sentence__document__campaign=campaign).select_related("sentence__document")
    test = {(g.sentence.document.name, g.sentence.sid) for g in rows if g.subset == GoldSentence.Subset.TEST}
    # Ids are unique within a document only: leave out a sentence id that is public (dev) in any document.
    public_sids = {g.sentence.sid for g in rows if g.subset == GoldSentence.Subset.DEV}
    ids = []
    for path in gold_paths:
        doc = read_document(path, gold=True, strict=False)
        name = path.stem
        for s in doc.sentences:
            if (name, s.id) in test and s.id not in public_sids:
                ids += [g.id for g in s.groups] + [r.id for r in s.relations]
    assert ids, "the planted world has no test gold"
    id_pattern = re.compile(r"\b(?:" + "|".join(re.escape(i) for i in sorted(set(ids), key=len, reverse=True)) + r")\b")
    # Three test sentences of one document, consecutive among the test sentences, with others between them.
    sep = r"[\s,;:'\"\[\]()|/]{1,8}"
    for doc in campaign.documents.order_by("order"):
        sids = list(doc.sentences.order_by("position").values_list("sid", flat=True))
        tests = [i for i, sid in enumerate(sids) if (doc.name, sid) in test]
        for a, b, c in zip(tests, tests[1:], tests[2:]):
            if b > a + 1 and c > b + 1:
                return id_pattern, re.compile(rf"\b{sids[a]}\b{sep}\b{sids[b]}\b{sep}\b{sids[c]}\b")
    raise AssertionError("no document has three non-adjacent test sentences")


def build_world(tmp: Path, *, slug: str = "leaky") -> World:
    from campaign.services.corpus import import_corpus

    organiser = _user("org")
    # Full figures: the walk checks the visibility table with the planted scores printed exactly; what the
    # default (pooled rates before the gold release) hides is tested in test_count_encoding.py.
    campaign = Campaign.objects.create(name="Leak campaign", slug=slug, state=CampaignState.DRAFT,
                                       corpus_public=True, dev_sample_public=True, team_figures="full")
    campaign.organisers.add(organiser)
    gold_paths = _gold_copies(tmp)
    import_corpus(campaign, gold_paths, actor=organiser)
    sample_test_subset(campaign, ratio=0.5, dev_ratio=0.2, actor=organiser)
    users = {"A": _user("alice"), "B": _user("bob"), "outsider": _user("olga"), "other organiser": _user("oscar")}
    # Staff, organiser of another campaign: the admin and console must show them nothing of this one.
    from django.contrib.auth.models import Group, Permission
    from django.db.models import Q

    organisers = Group.objects.create(name="Organisers")  # as load_demo sets organisers up
    organisers.permissions.set(Permission.objects.filter(
        Q(content_type__app_label__in=["campaign", "annotations", "evaluation"]) & ~Q(codename__startswith="delete_")))
    users["other organiser"].is_staff = True
    users["other organiser"].save()
    users["other organiser"].groups.add(organisers)
    elsewhere = Campaign.objects.create(name="Elsewhere", slug=f"{slug}-elsewhere", state=CampaignState.OPEN)
    elsewhere.organisers.add(users["other organiser"])
    teams = {"A": _team(campaign, SECRETS_A, users["A"]), "B": _team(campaign, SECRETS_B, users["B"])}
    runs = {
        "A": _run(teams["A"], SECRETS_A, Run.Scope.TEST),
        "A-dev": _run(teams["A"], SECRETS_A, Run.Scope.DEV, "-DEV"),
        "B": _run(teams["B"], SECRETS_B, Run.Scope.TEST),
    }
    id_pattern, sequence = _test_markers(campaign, gold_paths)
    genres = list(campaign.genres.values_list("code", flat=True))
    from annotations.models import GoldSentence

    warning_sid = GoldSentence.objects.filter(sentence__document__campaign=campaign, subset="test").first().sentence.sid
    with mock.patch("django.utils.timezone.now", return_value=SCORED_AT):  # results are immutable once made
        results = {
            "A": _result(runs["A"], SCORES_A, genres, warning_sid),
            "B": _result(runs["B"], SCORES_B, genres, warning_sid),
        }
    results["A-dev"] = _result(runs["A-dev"], SCORES_A_DEV, genres, warning_sid)
    Run.objects.filter(pk__in=[runs["A"].pk, runs["B"].pk]).update(status_changed_at=SCORED_AT)
    from evaluation.models import SignificanceSet

    computed = SignificanceSet.objects.create(campaign=campaign, method="bootstrap", resamples=10, seed=1, alpha=0.05,
                                              signature="planted", results=sorted(r.pk for r in results.values()))
    SignificanceSet.objects.filter(pk=computed.pk).update(created_at=SET_COMPUTED_AT)
    return World(campaign, organiser, users, teams, runs, results, id_pattern, sequence)


# The route to each state: (target, whether to release gold before archiving).
STATE_PATHS = {
    "draft": [],
    "open": ["open"],
    "closed": ["open", "closed"],
    "scored": ["open", "closed", "scored"],
    "released": ["open", "closed", "scored", "released"],
    "published": ["open", "closed", "scored", "released", "published"],
    "gold_released": ["open", "closed", "scored", "released", "published", "gold_released"],
    "archived": ["open", "closed", "scored", "released", "published", "archived"],
    "archived_after_gold": ["open", "closed", "scored", "released", "published", "gold_released", "archived"],
}


def advance(world: World, case: str) -> None:
    """Walk the campaign through the real transitions (publication takes the real snapshot)."""
    for state in STATE_PATHS[case]:
        lifecycle.transition(world.campaign, state, actor=world.organiser)
    assert world.campaign.state == STATE_PATHS[case][-1] if STATE_PATHS[case] else "draft"


def forbidden(world: World, role: str) -> dict[str, list]:
    """``{what: [markers]}`` that ``role`` (anonymous, outsider, A, B) may not see in the campaign's state.

    Markers are plain strings, compiled regexes or :class:`WholeNumber`.
    """
    from campaign.visibility import gold_is_released, state_at_least

    c = world.campaign
    released = state_at_least(c, CampaignState.RELEASED)
    published = state_at_least(c, CampaignState.PUBLISHED)
    gold_out = gold_is_released(c)
    out: dict[str, list] = {}
    # The draw's key replays the draw: never shown to anyone but the organisers, not even its fingerprint.
    from campaign.subsets import key_fingerprint

    assert c.draw_key
    out["the draw key"] = [c.draw_key, key_fingerprint(c.draw_key)]
    if not gold_out:
        out["gold content"] = [GOLD_COMMENT, world.test_ids_pattern]
        out["test-subset membership"] = [
            world.test_sequence, GOLD_WARNING,
            re.compile(r"""["']?subset["']?\s*[:=]\s*["']?(?:test|dev|unused)\b"""),
            "gold_membership",
        ]
    for team in ("A", "B"):
        if role == team:
            continue
        secrets = SECRETS_A if team == "A" else SECRETS_B
        markers = secrets.run_markers() + [world.runs[team].sha256]
        if team == "A":
            markers.append(world.runs["A-dev"].sha256)
        if not published:
            markers.append(secrets.run_name)
        out[f"team {team}'s run"] = markers
    # Scores: own test scores from the results release, everyone's from publication; dev checks stay private.
    if not (published or (role == "A" and released)):
        out["team A's scores before release"] = SCORES_A.textual_forms()
    if not (published or (role == "B" and released)):
        out["team B's scores before release"] = SCORES_B.textual_forms()
    if not gold_out:
        out["when scoring ended"] = scoring_time_forms()
    if role != "A":
        out["team A's development-check scores"] = SCORES_A_DEV.textual_forms()
        out["team A's development run"] = [SECRETS_A.run_name + "-DEV", SECRETS_A.content + "-DEV"]
    return out


def now_iso() -> str:
    return timezone.now().isoformat()
