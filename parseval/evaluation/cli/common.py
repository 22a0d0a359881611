"""Output helpers shared by the CLI commands, so every command writes files and JSON the same way."""
from __future__ import annotations

import json
import sys
from typing import Callable

from parseval.annotations.errors import InputError
from parseval.evaluation import stats


def write_text(text: str, output: str | None) -> None:
    """``text`` to the file ``output``, or to standard output when no file is named."""
    if output:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)


def write_json(doc: dict, target: str, *, indent: int = 2) -> None:
    """The one JSON writer of every command: ``target`` is a file name, or '-' for standard output."""
    text = json.dumps(doc, indent=indent, ensure_ascii=False) + "\n"
    if target == "-":
        sys.stdout.write(text)
    else:
        with open(target, "w", encoding="utf-8") as fh:
            fh.write(text)


def add_bootstrap_arguments(parser) -> None:
    parser.add_argument("--bootstrap", type=int, default=0, metavar="N",
                        help="the 95%% bootstrap interval over N resamples of the sentences of every ratio figure: "
                             "printed after the report, and as X_ci: [low, high] beside every figure X of the JSON "
                             "document (default 0: none)")
    parser.add_argument("--seed", type=int, default=stats.DEFAULT_SEED, metavar="S",
                        help=f"seed of the bootstrap resampling (default {stats.DEFAULT_SEED})")


def bootstrap_intervals(doc: dict, metric, rows, bootstrap: int, seed: int, strata=None) -> dict:
    """``doc`` with ``X_ci`` beside every ratio figure of ``metric`` (one stratum unless ``strata`` are given)."""
    from parseval.evaluation.metrics.base import value_at, with_intervals  # the metric registry: `easy` needs none

    if bootstrap < 0:
        raise InputError("--bootstrap must be >= 0")
    strata = strata if strata is not None else ["all"] * len(rows)
    intervals = stats.bootstrap_intervals(rows, metric.columns, strata, metric.figures, bootstrap=bootstrap,
                                          seed=seed, ratios=metric.ratios)
    doc.setdefault("bootstrap", {"resamples": bootstrap, "seed": seed, "ci_level": stats.CI_LEVEL,
                                 "strata": "genre" if len(set(strata)) > 1 else "none"})
    return with_intervals(doc, {key: intervals.get(stats.ALL, {}).get(key) for key in metric.ratios
                                if value_at(doc, key) is not None})


def intervals_report(doc: dict, metric) -> str:
    """The bootstrap intervals :func:`bootstrap_intervals` put in ``doc``, as text (percentages, as the
    reports print their figures); "" when there are none."""
    from parseval.evaluation.metrics.base import value_at  # the metric registry: `easy` needs none

    boot = doc.get("bootstrap")
    rows = [(key, value_at(doc, key), value_at(doc, f"{key}_ci")) for key in metric.ratios]
    rows = [r for r in rows if r[1] is not None]
    if not boot or not rows:
        return ""
    level = round(100 * boot.get("ci_level", stats.CI_LEVEL))
    lines = [f"=== {level}% bootstrap intervals ({boot['resamples']} resamples of the sentences, "
             f"seed {boot['seed']}) ===\n"]
    names = [key.split(".", 1)[1] if key.startswith(("summary.", "totals.")) else key for key, _, _ in rows]
    width = max(25, *map(len, names))
    for name, (key, value, ci) in zip(names, rows):
        shown = "undefined" if ci is None or ci[0] is None else f"[{100 * ci[0]:6.2f}, {100 * ci[1]:6.2f}]"
        lines.append(f"{name:<{width}} = {100 * value:6.2f}  {shown}\n")
    return "".join(lines)


def write_result(result: dict, json_target: str | None, format_table: Callable[[dict], str]) -> int:
    """The JSON result to ``json_target`` ('-' = standard output) and the table to standard output.

    With '-' the table is left out (and not even formatted) so that standard output stays valid JSON.
    """
    if json_target:
        write_json(result, json_target)
    if json_target == "-":
        return 0
    sys.stdout.write(format_table(result))
    return 0
