"""The worker's route for one EASY upload: the kind and what it reads from the campaign are resolved once per
step (validation, scoring), and no campaign code calls back into evaluation code while a run is validated
and scored.

The route is traced with :func:`sys.setprofile`: every call entering a module of ``campaign`` or
``evaluation`` is recorded with the nearest project caller. ``pytest tests/kinds/test_worker_route.py -s``
prints the modules visited and the calls between the two packages.
"""
from __future__ import annotations

import functools
import sys
from pathlib import Path
from unittest import mock

from tests import factories
from tests.web.helpers import stored_run

REPO = Path(__file__).resolve().parents[2]


@functools.lru_cache(maxsize=None)
def _module(filename: str) -> str | None:
    try:
        rel = Path(filename).resolve().relative_to(REPO)
    except ValueError:
        return None
    if rel.parts[0] not in ("campaign", "evaluation", "annotations"):
        return None
    return ".".join(rel.with_suffix("").parts)


def trace_route(step) -> tuple[set[str], dict[str, int]]:
    """``(modules entered, {"caller module:function -> callee module:function": calls})`` of the
    calls between ``campaign`` and ``evaluation`` made while ``step()`` runs in process."""
    modules, crossings = set(), {}

    def profile(frame, event, arg):
        if event != "call":
            return
        callee = _module(frame.f_code.co_filename)
        if callee is None:
            return
        modules.add(callee)
        back = frame.f_back
        while back is not None and _module(back.f_code.co_filename) is None:
            back = back.f_back
        if back is None:
            return
        caller = _module(back.f_code.co_filename)
        if {caller.split(".")[0], callee.split(".")[0]} == {"campaign", "evaluation"}:
            key = f"{caller}:{back.f_code.co_name} -> {callee}:{frame.f_code.co_name}"
            crossings[key] = crossings.get(key, 0) + 1

    sys.setprofile(profile)
    try:
        step()
    finally:
        sys.setprofile(None)
    return modules, crossings


def test_one_easy_upload_resolves_its_kind_once_per_step_and_campaign_never_calls_back(storage, alice, tmp_path):
    import evaluation.kinds.easy as easy_kind
    from campaign.services.corpus import import_corpus
    from evaluation.pipeline.tasks import QUEUED, score_run, validate_run

    data = factories.gold_bytes("general_elda.xml").decode("utf-8")  # cut to three sentences: a quick trace
    gold = tmp_path / "general_elda.xml"
    gold.write_text(data[:data.index('<E id="E4">')] + "</DOCUMENT>\n", encoding="utf-8")
    campaign = factories.make_campaign(slug="easy-route", metrics={"bootstrap": 10})
    import_corpus(campaign, [gold])
    team = factories.make_team(campaign, alice, name="Route")
    run = stored_run(campaign, team, alice, gold.read_bytes(), "general_elda.xml")  # uploaded, not scored yet
    real_schema = easy_kind.campaign_schema
    outcomes = []
    # The two steps as the validation and scoring queues' workers run them (the scoring task is sent by name).
    with mock.patch("evaluation.pipeline.tasks.enqueue_scoring") as send_scoring, \
            mock.patch("evaluation.significance.sets.enqueue") as enqueue, \
            mock.patch("evaluation.analysis.tasks.kinds.enqueue") as ask_analysis, \
            mock.patch.object(easy_kind, "campaign_schema", side_effect=real_schema) as schema:
        modules, crossings = trace_route(lambda: outcomes.append(validate_run.apply(args=[run.pk]).get()))
        validated = schema.call_count
        scored_modules, scored = trace_route(lambda: outcomes.append(score_run.apply(args=[run.pk]).get()))
    assert outcomes == [QUEUED, "scored"]
    for key, n in scored.items():
        crossings[key] = crossings.get(key, 0) + n
    modules |= scored_modules
    for line in sorted(crossings):
        print(crossings[line], line)
    print(len(modules), "modules:", ", ".join(sorted(modules)))
    send_scoring.assert_called_once_with(run.pk)
    enqueue.assert_called_once_with(campaign.pk)  # the results table changed
    # the analysis is a step of its own (the significance queue's), asked for once and not run inside scoring
    from evaluation.analysis.tasks import ANALYSIS_TASK
    ask_analysis.assert_called_once_with(ANALYSIS_TASK, run.results.get().pk)
    lookups = {k: n for k, n in crossings.items() if k.endswith("campaign.kinds:for_campaign")}
    assert lookups == {"evaluation.pipeline.tasks:_validate -> campaign.kinds:for_campaign": 1,
                       "evaluation.pipeline.tasks:_score -> campaign.kinds:for_campaign": 1}  # once per step
    assert (validated, schema.call_count) == (1, 2)  # the guide's schema, read once per step with its setup
    assert [k for k in crossings if k.startswith("campaign.")] == []  # nothing calls back up
