"""Who may read a run's analysis: the results' own rules (:mod:`campaign.visibility`,
:func:`evaluation.results.summaries.visible_run_result` and its disclosure), one more condition on top.

An analysis lists sentences and counts item by item, so for a test run it says which sentences are test
sentences and gives the counts the rounded rates hide (:mod:`evaluation.results.disclosure`): like the
per-sentence diagnostics (:func:`campaign.visibility.can_see_diagnostics`), it waits for the gold release.

* organisers: any run's, at any time;
* a development check: its team at once (scored on public gold), as its scores are;
* a test run: from the gold release, to whoever the results pages show its figures to then (its team; everyone
  once published), the analysis of the result they show (the publication snapshot's for the public).
"""
from __future__ import annotations

from campaign import visibility
from campaign.models import Run
from evaluation.models import Result
from evaluation.results import summaries


# The engine's whole output (megabytes of JSON each): what reads an analysis needs the result's id and kind, and
# the errors page reads one result per run of the campaign.
_UNREAD = ("document",)


def may_see_analysis(user, run: Run) -> bool:
    """Whether ``user`` may read an analysis of ``run`` at all, before the results' own rule says which result."""
    campaign = run.campaign
    if visibility.is_organiser(user, campaign):
        return True
    if run.scope == Run.Scope.DEV:
        return run.team is not None and visibility.is_member(user, run.team)
    return visibility.gold_is_released(campaign)


def visible_result(user, run: Run) -> Result | None:
    """The result of ``run`` whose analysis ``user`` may read now (the one the results pages show them), or None."""
    if not may_see_analysis(user, run):
        return None
    if visibility.can_see_all_live_results(user, run.campaign) or visibility.can_see_own_scores(user, run):
        # the organisers' and the run's team's pages show its latest result (live): no results table to build
        return (Result.objects.filter(run=run).order_by("-created_at", "-pk")
                .select_related("run__campaign", "run__team").defer(*_UNREAD).first())
    visible = summaries.visible_run_result(user, run)
    if visible is None or visible.empty:
        return None
    entries = [e for e in visible.data.get("runs", []) if e.get("run") == run.pk]
    if not entries or not entries[0].get("cells"):
        return None
    rid = (entries[0].get("result") or {}).get("id")
    return (Result.objects.filter(pk=rid, run=run).select_related("run__campaign", "run__team").defer(*_UNREAD).first()
            if rid else None)


def visible_runs(user, campaign, scope: str) -> list[Run]:
    """The runs of ``scope`` whose analyses ``user`` may read (the errors shared across runs count these only)."""
    if scope == Run.Scope.DEV:
        runs = visibility.visible_runs(user, campaign).filter(scope=Run.Scope.DEV)
    else:
        runs = summaries.scored_runs(campaign)
    return [run for run in runs.select_related("team", "campaign") if may_see_analysis(user, run)]
