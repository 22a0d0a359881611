"""``python -m evaluation reproduce BUNDLE [--gold DIR]``: recompute a publication bundle's figures.

BUNDLE is the zip a published campaign offers (docs/bundle.md). Every member is first checked
against the manifest's checksum. Then, for every run whose per-sentence rows are in the bundle
(they are from the gold release on), each published figure the run's figure definitions give
(F of every layer, way and type, per genre and over all genres, and the macro F) is computed
again from the summed rows and compared with the figure in ``results.json``. Each difference is
printed on its own line (run, figure, genre, published, recomputed); the exit status is 1 when
there is any, 0 when every recomputed figure agrees. What could not be checked is said at the
end: runs without rows (before the gold release), figures hidden in the publication, intervals
(resampled, not recomputed here), and re-scoring the runs' files against a gold folder, which
this version does not do (``--gold`` is accepted and reported as not used).
"""
from __future__ import annotations

import math
import sys

import numpy as np

from annotations.errors import InputError
from evaluation import bundle_format as fmt
from evaluation.cli.common import write_json
from evaluation.figure_sets import from_recipe
from evaluation.stats import ALL

DEFAULT_TOLERANCE = 1e-9


def add_arguments(parser) -> None:
    parser.add_argument("bundle", help="the publication bundle (.zip)")
    parser.add_argument("--gold", metavar="DIR",
                        help="the released gold (not used by this version: the figures are recomputed from the rows)")
    parser.add_argument("--tolerance", type=float, default=DEFAULT_TOLERANCE,
                        help=f"largest difference taken as agreement (default {DEFAULT_TOLERANCE}: sums in another "
                             "order differ in the last bits)")
    parser.add_argument("--json", dest="json_out", metavar="OUT",
                        help="also write the report as JSON to this file ('-' = standard output, instead of the text)")


def _figure_key(aggregation, layer, mode, match, type_) -> tuple:
    return (aggregation, layer, mode or "", match or "", type_)


def published_figures(entry: dict) -> dict[tuple, dict]:
    """``{(aggregation, layer, mode, match, type, genre): cell}`` of one run of ``results.json``."""
    out = {}
    for cell in entry.get("cells", []):
        key = _figure_key(cell.get("aggregation", "micro"), cell["layer"], cell.get("mode"), cell.get("match"),
                          cell.get("type", ALL))
        out[key + (cell.get("genre", ALL),)] = cell
    return out


def recomputed_figures(run: dict, keys: list[str], genres: list[str], rows: np.ndarray) -> dict[tuple, tuple]:
    """``{(figure key..., genre): (value, cell field)}`` from the run's rows, per genre and over all genres."""
    strata = {ALL: rows.sum(axis=0)}
    genre_array = np.asarray(genres, dtype=str)
    for genre in sorted(set(genres)):
        strata[genre] = rows[genre_array == genre].sum(axis=0)
    out = {}
    for document in run.get("figures", []):
        figures = from_recipe(document)
        fields = figures.recipe[2] or ("f",) * len(figures.keys)
        for genre, sums in strata.items():
            picked = sums if figures.columns is None else sums[figures.columns]
            with np.errstate(divide="ignore", invalid="ignore"):
                values = np.asarray(figures.compute(np.atleast_2d(picked.astype(np.float64))), dtype=np.float64)[0]
            for key, field, value in zip(figures.keys, fields, values):
                out[tuple(key) + (genre,)] = (None if math.isnan(value) else float(value), field)
    return out


def _undefined(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def compare_run(run: dict, entry: dict, keys, genres, rows, tolerance: float) -> tuple[list[dict], int, int]:
    """``(differences, figures compared, figures recomputed but not published)`` of one run."""
    published = published_figures(entry)
    differences, compared, unpublished = [], 0, 0
    for where, (value, field) in sorted(recomputed_figures(run, keys, genres, rows).items(), key=lambda kv: str(kv[0])):
        cell = published.get(where)
        if cell is None or field not in cell:
            unpublished += 1
            continue
        shown = cell[field]
        compared += 1
        if _undefined(shown) and value is None:
            continue
        if _undefined(shown) != (value is None) or abs(float(shown) - value) > tolerance:
            aggregation, layer, mode, match, type_, genre = where
            differences.append({"run": run["name"], "figure": "|".join((aggregation, layer, mode, match)),
                                "type": type_, "genre": genre, "field": field,
                                "published": shown, "recomputed": value})
    return differences, compared, unpublished


def reproduce(bundle: fmt.Bundle, tolerance: float = DEFAULT_TOLERANCE) -> dict:
    """The report: every difference, what was compared, and what could not be checked and why."""
    entries = {e.get("run"): e for e in bundle.results.get("runs", [])}
    report = {"campaign": bundle.meta.get("campaign", {}).get("slug"),
              "snapshot": bundle.meta.get("snapshot", {}).get("sha256"),
              "scorer_version": bundle.meta.get("versions", {}).get("scorer"),
              "runs": [], "differences": [], "not_checked": []}
    for run in bundle.meta.get("runs", []):
        entry = entries.get(run.get("run"))
        summary = {"run": run["name"], "signature": run.get("signature"), "compared": 0, "differences": 0}
        report["runs"].append(summary)
        if entry is None:
            report["not_checked"].append(f"{run['name']}: not in results.json")
            continue
        if not run.get("rows"):
            report["not_checked"].append(f"{run['name']}: no per-sentence rows ({run.get('rows_missing') or 'none given'})")
            continue
        if run["rows"] not in bundle.members:
            raise fmt.BundleError(f"{run['rows']}: named by bundle.json but not in the archive")
        keys, genres, rows = fmt.read_rows(run["rows"], bundle.members[run["rows"]])
        try:
            differences, compared, unpublished = compare_run(run, entry, keys, genres, rows, tolerance)
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise fmt.BundleError(f"{run['name']}: its figure definitions do not fit its rows ({exc})") from None
        summary.update(compared=compared, differences=len(differences))
        report["differences"] += differences
        if unpublished:
            report["not_checked"].append(f"{run['name']}: {unpublished} recomputed figure(s) not in the publication "
                                         "(hidden before the gold release, or not published)")
    if any(r["compared"] for r in report["runs"]):
        report["not_checked"].append("intervals (bootstrap resamples) and counts: only the figures are recomputed")
    return report


def _shown(value) -> str:
    return "undefined" if _undefined(value) else f"{value:.10g}"


def text_report(report: dict) -> str:
    lines = []
    for d in report["differences"]:
        lines.append(f"DIFFERENCE {d['run']}: {d['figure']} type {d['type']} genre {d['genre']} ({d['field']}): "
                     f"published {_shown(d['published'])}, recomputed {_shown(d['recomputed'])}")
    compared = sum(r["compared"] for r in report["runs"])
    checked = sum(1 for r in report["runs"] if r["compared"])
    lines.append(f"{report['campaign']}: {compared} figure(s) of {checked} of {len(report['runs'])} run(s) recomputed "
                 f"from the per-sentence rows; {len(report['differences'])} difference(s)")
    lines += [f"not checked: {reason}" for reason in report["not_checked"]]
    return "\n".join(lines) + "\n"


def run(args) -> int:
    try:
        bundle = fmt.read_archive(args.bundle)
        report = reproduce(bundle, args.tolerance)
    except fmt.BundleError as exc:
        raise InputError(str(exc)) from None
    if args.gold:
        report["not_checked"].append(f"re-scoring the runs' files against {args.gold}: not done by this version "
                                     "(the figures are recomputed from the rows)")
    if args.json_out:
        write_json(report, args.json_out)
    if args.json_out != "-":
        sys.stdout.write(text_report(report))
    return 1 if report["differences"] else 0
