"""The consensus of a campaign's runs as a marked pseudo-run: which runs, their weights, the build, the oracle.

The engine (:mod:`parseval.evaluation.consensus`) combines files; this module decides
what it combines and stores the outcome **as an ordinary run** of the
campaign's system team (``Team.system``: no member, so nobody logs in as it or
uploads for it). The run goes through the same validation and scoring tasks
as a team's run, against the same gold, by the same scorer: its result's
signature and gold checksum are a run's, and every rule of who sees what
(:mod:`campaign.visibility`, :mod:`evaluation.results.disclosure`) applies unchanged:
organisers see it live; teams never see it (it is no team's own run); the
public sees it in the snapshot taken at publication.

* **Which runs** (:func:`chosen_runs`): one per team, by default its latest
  scored test run of the kind's consensus track (:meth:`Kind.consensus_track`);
  the organiser may pick another of the team's runs or leave the team out
  (:class:`~evaluation.models.ConsensusSetting`). Withdrawn, disqualified,
  unscored runs and consensus runs are never combined, whatever was chosen:
  a choice that is no longer eligible falls back to the team's default.
* **Weights and thresholds**: equal weights at one half, or, for the
  development weighting, **tuned on the development sample**
  (:func:`tune_on_development`, the search of
  :mod:`parseval.evaluation.consensus.tuning`): each candidate consensus of
  the development documents is scored by the kind's own scorer on the
  development gold (:class:`OnDevelopment` makes the scope ``dev`` for the
  scorer: the test subset is never read), and the setting with the best
  figure is kept, or the best run's own files when no setting beats it
  there (the fallback). A campaign without a development sample gets equal
  weights at one half.
* **The build** (:func:`build`): the runs' files unpacked, combined by the kind
  (:meth:`Kind.combine`), zipped as the pseudo-run's file (the whole corpus:
  it is the treebank too) and queued for validation and scoring. The run
  records what it was combined from (runs, results, weights, thresholds,
  development figures) so that it can be recomputed. A build whose inputs
  (the chosen runs' latest results and the weighting) are those of the current
  consensus does nothing; a new consensus withdraws the older one.
* **The oracle** (:func:`oracle`): sentence by sentence, the chosen run with the
  best value of the kind's figure (:meth:`Kind.consensus_figure`) on that
  sentence, with the gold: an upper bound of any selection of whole-sentence
  analyses, from the stored per-sentence rows. Stored with the consensus run,
  shown beside it, by the same rules.

Worker and organiser code: it reads gold (development scores, rows).
"""
from __future__ import annotations

import hashlib
import io
import logging
import shutil
import tempfile
import zipfile
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path

import numpy as np
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone

from parseval.annotations.errors import InputError, N_
from campaign import audit, kinds
from campaign.models import Campaign, Run, RunStatus, Team
from campaign.services.runs import enqueue_scoring, staging_dir, unpacked
from campaign.stored_files import local_copy
from parseval.evaluation import paired
from parseval.evaluation.consensus import tuning as consensus_tuning
from parseval.evaluation.consensus.easy import DEFAULT_GROUP_THRESHOLD, DEFAULT_RELATION_THRESHOLD
from parseval.evaluation.consensus.weights import figure_value, weights_from_development
from parseval.evaluation.stats import ALL
from evaluation.kinds import gold as kind_gold
from parseval.evaluation.figure_sets import figure_id
from evaluation.models import ConsensusSetting, Result
from evaluation.pipeline.services import NoGold, latest_result
from evaluation.results.sentence_rows import RowsUnavailable, rows_of

logger = logging.getLogger(__name__)

TEAM_NAME = "Consensus"
TEAM_SLUG = "consensus"
RUN_FILENAME = "consensus.zip"
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed: the same consensus is the same bytes


# -- which runs -------------------------------------------------------------------------------

def setting_of(campaign: Campaign) -> ConsensusSetting:
    return ConsensusSetting.objects.get_or_create(campaign=campaign)[0]


def eligible_runs(campaign: Campaign) -> list[Run]:
    """Every run a consensus may combine: scored test runs of the consensus track, active, of a team's."""
    kind = kinds.for_campaign(campaign)
    track = kind.consensus_track(campaign)
    if track is None:
        return []
    runs = (Run.objects.filter(campaign=campaign, scope=Run.Scope.TEST, status=RunStatus.SCORED,
                               withdrawn_at__isnull=True, disqualified=False, team__system=False)
            .select_related("team", "campaign").order_by("team__name", "team_id", "-uploaded_at", "-pk"))
    return [r for r in runs if (kind.track_of(r) or "") == track]


def default_runs(campaign: Campaign, eligible: list[Run] | None = None) -> dict[int, Run]:
    """``{team id: its latest eligible run}``."""
    out: dict[int, Run] = {}
    for run in eligible_runs(campaign) if eligible is None else eligible:
        out.setdefault(run.team_id, run)  # newest first within a team
    return out


def chosen_runs(campaign: Campaign, setting: ConsensusSetting | None = None) -> list[Run]:
    """The runs combined, one per team, in the order of the teams' names (the engine's tie-break order).

    The organiser's choice (``setting.chosen``: team id → run id, 0 to leave the team out) wins when that run
    is still eligible; otherwise, and for a team not named, the team's default run."""
    setting = setting or setting_of(campaign)
    eligible = eligible_runs(campaign)
    by_pk = {r.pk: r for r in eligible}
    defaults = default_runs(campaign, eligible)
    chosen = []
    for team_id, default in defaults.items():
        choice = (setting.chosen or {}).get(str(team_id))
        if choice == 0:
            continue
        picked = by_pk.get(choice) if choice else None
        chosen.append(picked if picked is not None and picked.team_id == team_id else default)
    return chosen


def choose(campaign: Campaign, choices: dict[int, int | None], *, weighting: str | None, actor, request=None,
           enabled: bool | None = None) -> None:
    """The organiser's choice: ``{team id: run id, 0 (leave out) or None (the default)}``; refused for a run that
    is not one of the team's eligible runs (a withdrawn or disqualified run is never combined)."""
    eligible = {r.pk: r for r in eligible_runs(campaign)}
    stored = {}
    for team_id, run_id in choices.items():
        if run_id is None:
            continue
        if run_id != 0 and (run_id not in eligible or eligible[run_id].team_id != team_id):
            raise InputError(N_("run %(run)s cannot be combined for team %(team)s: it is not one of the team's "
                                "scored, active runs of the consensus track") % {"run": run_id, "team": team_id})
        stored[str(team_id)] = run_id
    with transaction.atomic():
        setting = setting_of(campaign)
        setting.chosen = stored
        if weighting is not None:
            if weighting not in ConsensusSetting.Weighting.values:
                raise InputError(N_("unknown weighting %(weighting)r") % {"weighting": weighting})
            setting.weighting = weighting
        if enabled is not None:
            setting.enabled = enabled
        setting.save(update_fields=["chosen", "weighting", "enabled"])
        audit.record("consensus.choose", actor=actor, campaign=campaign, target=campaign.slug,
                     details={"chosen": stored, "weighting": setting.weighting, "enabled": setting.enabled},
                     request=request)


# -- weights ----------------------------------------------------------------------------------

class OnDevelopment:
    """A run seen by its kind's scorer as a development-sample check: scored on the development sentences only.

    A test run covers the whole corpus, so its files hold the development sentences too; the scorer reads the
    gold of the run's scope (:func:`evaluation.kinds.gold.run_subset_gold`), which is then the development
    sample's. Nothing of the test subset is read."""

    scope = Run.Scope.DEV

    def __init__(self, run: Run):
        self._run = run

    def __getattr__(self, name):
        return getattr(self._run, name)


def development_score(run: Run) -> float | None:
    """The run's value of its kind's consensus figure on the development sample (None: no development gold)."""
    kind = kinds.for_campaign(run.campaign)
    setup = kind.setup(run)
    key = kind.consensus_figure(setup.parameters)
    if key is None:
        return None
    with local_copy(run.file, sha256=run.sha256) as path, \
            unpacked(run.campaign, path, run.original_filename, stored=True, suffixes=setup.suffixes,
                     kind=kind) as files:
        try:
            document = kind.score_run_files(OnDevelopment(run), files, setup)
        except NoGold:
            return None
    cells = document.get("cells", []) if key[0] == "micro" else document.get("macro", [])
    return figure_value(cells, key)


def weights_for(runs: list[Run], weighting: str) -> tuple[list[float], list[float | None] | None]:
    """``(weights, development scores or None)``: equal, or learned from the development sample only."""
    if weighting != ConsensusSetting.Weighting.DEVELOPMENT:
        return [1.0] * len(runs), None
    scores = [development_score(r) for r in runs]
    return weights_from_development(scores), scores


#: The tuning search of each kind (:data:`parseval.evaluation.consensus.tuning.SEARCH`); other kinds tune weights only.
ENGINES = {"easy": "easy", "constituency": "trees", "dependency": "deps"}


def _development_documents(run: Run) -> set[str]:
    """The names of the documents that hold development sentences (read as the development scorer reads them)."""
    _subset, _wanted, golds = kind_gold.run_subset_gold(OnDevelopment(run))
    return {g.document.name for g in golds}


def tune_on_development(kind, runs: list[Run], unpacked_runs: list, work: Path) -> consensus_tuning.Tuning | None:
    """The weights and thresholds that maximise the kind's consensus figure of the consensus on the development
    sample, or the fallback on the best run (:func:`parseval.evaluation.consensus.tuning.tune`); None when the
    campaign has no development sample or the kind no figure. Every score here is a development check's: the
    runs' and the candidates' files scored by :meth:`Kind.score_run_files` with the scope ``dev``, without
    bootstrap (only the point value is read)."""
    setup = kind.setup(runs[0])
    key = kind.consensus_figure(setup.parameters)
    if key is None:
        return None
    names = _development_documents(runs[0])
    if not names:
        return None
    quick = replace(setup, parameters={**setup.parameters, "bootstrap": 0})
    # the tie-break of an EASY-like figure (relations): the groups' F in the same match (the group threshold)
    second = ("micro", "constituents", "", key[3], ALL) if key[1] == "relations" else None

    def figures(document: dict) -> tuple:
        cells = document.get("cells", []) if key[0] == "micro" else document.get("macro", [])
        first = figure_value(cells, key)
        return (first,) if second is None else (first, figure_value(document.get("cells", []), second))

    try:
        documents = [kind.score_run_files(OnDevelopment(run), files, quick) for run, files in unpacked_runs]
    except NoGold:
        return None
    development = [figures(d)[0] for d in documents]
    # EASY: a run without relations does not vote on them; the search then scores every relation threshold
    voters = {} if all((d.get("layers_submitted") or {}).get("relations", True) for d in documents) else \
        {"relations": None}
    on_development = [(run, {name: path for name, path in files.items() if name in names})
                      for run, files in unpacked_runs]
    trials = iter(range(1_000_000))

    def evaluate(setting: consensus_tuning.Setting) -> tuple:
        folder = work / f"tuning-{next(trials)}"
        try:
            made = kind.combine(on_development, list(setting.weights), folder, thresholds=setting.threshold)
            return figures(kind.score_run_files(OnDevelopment(runs[0]), made.files, quick))
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    return consensus_tuning.tune(ENGINES.get(kind.name, "deps"), development, evaluate, voters=voters)


# -- the oracle -------------------------------------------------------------------------------

def oracle(results: list[Result]) -> dict | None:
    """The per-sentence oracle of ``results`` (one per chosen run) on the kind's consensus figure.

    Sentence by sentence, the run whose rows give the best value of the figure (NaN, an undefined figure such
    as F of a sentence with nothing to find, counts as the worst; ties go to the first run); the chosen rows are
    summed and the figure read from the sums, over all genres and per genre. None when the kind names no figure
    or the runs were not scored on the same sentences."""
    if not results:
        return None
    kind = kinds.get(results[0].metric)
    key = kind.consensus_figure(results[0].parameters or results[0].document.get("parameters") or {})
    if key is None:
        return None
    figure_set = next((fs for fs in kind.paired_figures(results[0]) if key in fs.keys), None)
    if figure_set is None:
        return None
    try:
        loaded = [rows_of(r) for r in results]
    except RowsUnavailable:
        return None
    if any(len(r.keys) != len(loaded[0].keys) or not np.array_equal(r.keys, loaded[0].keys) for r in loaded):
        return None
    index = figure_set.keys.index(key)
    columns = figure_set.columns if figure_set.columns is not None else slice(None)
    stacked = np.stack([np.asarray(r.rows, dtype=np.float64)[:, columns] for r in loaded])  # runs × sentences × cols
    values = np.stack([paired._figures(figure_set, s)[:, index] for s in stacked])  # runs × sentences
    picked = np.argmax(np.where(np.isnan(values), -np.inf, values), axis=0)
    best = stacked[picked, np.arange(stacked.shape[1])]
    strata = loaded[0].strata

    def value(mask) -> float | None:
        v = paired._figures(figure_set, best[mask].sum(axis=0))[0, index]
        return None if np.isnan(v) else float(v)

    return {"figure": figure_id(*key[:4]), "type": key[4], "value": value(slice(None)),
            "genres": {g: value(strata == g) for g in sorted(set(strata.tolist()))},
            "sentences": int(stacked.shape[1]),
            "picked": [int((picked == i).sum()) for i in range(len(results))]}


# -- the build --------------------------------------------------------------------------------

def consensus_team(campaign: Campaign) -> Team:
    team = Team.objects.filter(campaign=campaign, system=True).first()
    if team is not None:
        return team
    name, slug, n = TEAM_NAME, TEAM_SLUG, 1
    while Team.objects.filter(campaign=campaign, name=name).exists() or \
            Team.objects.filter(campaign=campaign, slug=slug).exists():
        n += 1
        name, slug = f"{TEAM_NAME} {n}", f"{TEAM_SLUG}-{n}"
    return Team.objects.create(campaign=campaign, name=name, slug=slug, system=True, admitted=True,
                               code="", show_name=True)


def current(campaign: Campaign) -> Run | None:
    """The campaign's consensus run (the newest, not withdrawn), whatever its status."""
    return (Run.objects.filter(campaign=campaign, team__system=True, withdrawn_at__isnull=True)
            .order_by("-uploaded_at", "-pk").first())


def _zip(files: dict[str, Path]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, files[name].read_bytes())
    return buffer.getvalue()


def inputs(campaign: Campaign) -> dict | None:
    """What a consensus would be combined from now: the chosen runs and their latest results, the weighting."""
    setting = setting_of(campaign)
    if not setting.enabled:
        return None
    runs = chosen_runs(campaign, setting)
    results = [latest_result(r) for r in runs]
    if len(runs) < 2 or any(r is None for r in results):
        return None
    return {"setting": setting, "runs": runs, "results": results,
            "key": {"runs": [[run.pk, result.pk] for run, result in zip(runs, results)],
                    "weighting": setting.weighting}}


def build(campaign: Campaign, *, force: bool = False, actor=None) -> Run | None:
    """Combine the chosen runs into a new consensus run and queue it for scoring; the current one when nothing
    it was combined from has changed (unless ``force``); None when there is nothing to combine (the organiser
    did not ask for a consensus, fewer than two runs, or a kind that cannot combine)."""
    kind = kinds.for_campaign(campaign)
    track = kind.consensus_track(campaign)
    if track is None:
        return None
    wanted = inputs(campaign)
    if wanted is None:
        return None
    existing = current(campaign)
    if existing is not None and not force and existing.combination.get("key") == wanted["key"]:
        return existing
    runs, results, setting = wanted["runs"], wanted["results"], wanted["setting"]
    weights, development, tuned = [1.0] * len(runs), None, None
    thresholds = {"groups": DEFAULT_GROUP_THRESHOLD, "relations": DEFAULT_RELATION_THRESHOLD, "spans": 0.5}
    work = Path(tempfile.mkdtemp(prefix="consensus-", dir=staging_dir()))
    try:
        with ExitStack() as stack:
            unpacked_runs = []
            for run in runs:
                setup_suffixes = kind.run_suffixes(campaign, stored=True)
                path = stack.enter_context(local_copy(run.file, sha256=run.sha256))
                files = stack.enter_context(unpacked(campaign, path, run.original_filename,
                                                     stored=True, suffixes=setup_suffixes, kind=kind))
                unpacked_runs.append((run, files))
            if setting.weighting == ConsensusSetting.Weighting.DEVELOPMENT:
                tuned = tune_on_development(kind, runs, unpacked_runs, work)
            if tuned is not None:
                weights, development = list(tuned.chosen.weights), tuned.development
                thresholds.update(tuned.chosen.threshold)
            made = kind.combine(unpacked_runs, weights, work / "out", thresholds=thresholds,
                                fallback=None if tuned is None else tuned.chosen.fallback)
        payload = _zip({p.name: p for p in made.files.values()})
        treebank = _zip({p.name: p for p in made.treebank})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sha256 = hashlib.sha256(payload).hexdigest()
    treebank_name = default_storage.save(f"consensus/{campaign.slug}/treebank-{sha256[:16]}.zip",
                                         ContentFile(treebank))
    total = float(sum(weights))
    fallback = None if tuned is None else tuned.chosen.fallback
    combination = {
        "key": wanted["key"],
        "runs": [{"run": run.pk, "result": result.pk, "team": run.team_id, "name": run.name,
                  "weight": w / total, "development": None if development is None else development[i]}
                 for i, (run, result, w) in enumerate(zip(runs, results, weights))],
        "weighting": setting.weighting,
        "thresholds": thresholds,
        "tuned": tuned is not None,
        "fallback": fallback is not None,
        "fallback_run": None if fallback is None else runs[fallback].pk,
        "development_figure": None if tuned is None else tuned.figure,
        "tuning": None if tuned is None else tuned.record(),
        "engine": kind.name,
        "sentences": made.sentences, "items": made.items, "mean_agreement": made.mean_agreement,
        "treebank": treebank_name, "treebank_sha256": hashlib.sha256(treebank).hexdigest(),
        "oracle": oracle(results),
    }
    team = consensus_team(campaign)
    with transaction.atomic():
        run = Run(campaign=campaign, team=team, uploaded_by=None, name=f"Consensus of {len(runs)} runs",
                  system_description=(f"The output of {runs[fallback].name}, the best of {len(runs)} runs on the "
                                      f"development sample: no tuned consensus beat it there."
                                      if fallback is not None else
                                      f"The {setting.get_weighting_display().lower()} consensus of "
                                      f"{len(runs)} runs, one per team."),
                  scope=Run.Scope.TEST, track=track, original_filename=RUN_FILENAME, sha256=sha256,
                  size=len(payload), status=RunStatus.UPLOADED, dispatch_pending=True, combination=combination)
        run.file.save(RUN_FILENAME, ContentFile(payload), save=False)
        run.save()
        Run.objects.filter(campaign=campaign, team__system=True, withdrawn_at__isnull=True).exclude(pk=run.pk) \
            .update(withdrawn_at=timezone.now())
        audit.record("consensus.build", actor=actor, campaign=campaign, target=f"run {run.pk}",
                     details={"runs": [r.pk for r in runs], "weighting": setting.weighting, "sha256": sha256})
        transaction.on_commit(lambda: enqueue_scoring(run.pk))
    return run


def treebank_file(campaign: Campaign) -> tuple[Run, str] | None:
    """The scored consensus run and its treebank's storage name, or None."""
    run = (Run.objects.filter(campaign=campaign, team__system=True, withdrawn_at__isnull=True,
                              status=RunStatus.SCORED).order_by("-uploaded_at", "-pk").first())
    if run is None or not run.combination.get("treebank"):
        return None
    return run, run.combination["treebank"]
