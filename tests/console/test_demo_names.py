"""Team codes hide the team: no demo run is named after the team that hands it in.

Published under codes, "A / beta-types-10" told every reader that team A was Beta."""
from __future__ import annotations

import re

from campaign import demo, demo_kinds


def team_runs():
    for team in demo.TEAMS:
        yield team["name"], team["user"], [r.name for r in team["runs"]]
    for name, user, recipes in demo_kinds.TREE_TEAMS + demo_kinds.DEP_TEAMS:
        yield name, user, [r.name for r in recipes]


def test_no_demo_run_name_names_its_team():
    for team, user, runs in team_runs():
        words = {w.lower() for w in re.findall(r"\w+", team) if len(w) > 3} | {user.lower()}
        for run in runs:
            named = {w.lower() for w in re.findall(r"[^\W_]+", run)} & words
            assert not named, f"{team}'s run {run!r} names its team ({named})"
