"""``python -m evaluation reproduce BUNDLE [--gold DIR]``: recompute a publication bundle's figures.

BUNDLE is the zip a published campaign offers (docs/bundle.md). Every member is first checked
against the manifest's checksum. Then, for every run whose per-sentence rows are in the bundle
(they are from the gold release on), each published figure the run's figure definitions give
(F of every layer, way and type, per genre and over all genres, and the macro F) is computed
again from the summed rows and compared with the figure in ``results.json``. Each difference is
printed on its own line (run, figure, genre, published, recomputed); the exit status is 1 when
there is any, 0 when every recomputed figure agrees, and 3 (``NOTHING_CHECKED``) when no figure
could be recomputed at all: a bundle built before the gold release has no per-sentence rows, so it
says so, and why, rather than reporting "no difference" after checking nothing (2 is bad input).

With ``--gold DIR`` (the campaign's released gold, unpacked) and the runs' files in the bundle,
each run is also scored again: its rows counted anew from its file and the gold, with the
ranges, modes, metrics and schema its result was made with (its ``rescoring`` in
``bundle.json``), compared row by row with the bundle's rows (the first differing sentence is
named) and, through the same figure definitions, with the published figures.

What could not be checked is said at the end: runs without rows (before the gold release),
figures hidden in the publication, intervals and counts (only the figures are recomputed),
runs without files or whose kind gives no way to score them again here.
"""
from __future__ import annotations

import importlib
import math
import sys
import tempfile
from pathlib import Path

import numpy as np

from parseval.annotations.errors import InputError
from parseval.evaluation import bundle_format as fmt
from parseval.evaluation.cli.common import write_json
from parseval.evaluation.figure_sets import from_recipe
from parseval.evaluation.stats import ALL

DEFAULT_TOLERANCE = 1e-9
# The exit status when the bundle gives nothing to recompute (no run has per-sentence rows): neither
# "agrees" (0) nor "differs" (1), and not bad input (2). docs/bundle.md documents it.
NOTHING_CHECKED = 3
# engine named by a run's ``rescoring`` -> module whose rescored_rows(gold_dir, run_file, keys, genres, spec)
# counts its rows again from files
RESCORERS = {"easy": "parseval.evaluation.easy.rescore", "trees": "parseval.evaluation.trees.rescore", "deps": "parseval.evaluation.deps.rescore"}


def add_arguments(parser) -> None:
    parser.add_argument("bundle", help="the publication bundle (.zip)")
    parser.add_argument("--gold", metavar="DIR",
                        help="the campaign's released gold, unpacked: score every run whose file is in the bundle "
                             "again and compare its rows and figures")
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


def compare_run(run: dict, entry: dict, keys, genres, rows, tolerance: float,
                source: str = "rows") -> tuple[list[dict], int, int]:
    """``(differences, figures compared, figures recomputed but not published)`` of one run; ``source`` says
    what the figures were recomputed from (the bundle's rows, or the run's file scored again)."""
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
            differences.append({"run": run["name"], "from": source,
                                "figure": "|".join((aggregation, layer, mode, match)),
                                "type": type_, "genre": genre, "field": field,
                                "published": shown, "recomputed": value})
    return differences, compared, unpublished


def reproduce(bundle: fmt.Bundle, tolerance: float = DEFAULT_TOLERANCE, gold: Path | None = None) -> dict:
    """The report: every difference, what was compared, and what could not be checked and why. With ``gold``,
    every run whose file is in the bundle is also scored again (:func:`rescore_run`)."""
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
        if gold is not None:
            rescore_run(bundle, run, entry, keys, genres, rows, gold, tolerance, summary, report)
    if any(r["compared"] for r in report["runs"]):
        report["not_checked"].append("intervals (bootstrap resamples) and counts: only the figures are recomputed")
    else:
        report["nothing_checked"] = nothing_checked_reason(bundle)
        if gold is not None:
            # --gold rescores a run to compare its rows with the bundle's: without rows there is nothing to
            # compare with, and a silent pass would read as "reproduced"
            report["not_checked"].append("--gold was given but not used: scoring the runs again compares their "
                                         "rows with the bundle's, and this bundle has none")
    return report


def nothing_checked_reason(bundle: fmt.Bundle) -> str:
    """Why no figure of ``bundle`` could be recomputed, as one sentence for the report's last line."""
    if not bundle.meta.get("runs"):
        return "the bundle lists no run"
    if bundle.meta.get("gold_released") is False:
        return ("the bundle was built before the gold release: it has no per-sentence rows, so no figure can be "
                "recomputed (the gold release builds a new bundle with them; download it then)")
    return "no run of the bundle has per-sentence rows (each run's reason is listed above)"


def rescore_run(bundle: fmt.Bundle, run: dict, entry: dict, keys, genres, rows, gold: Path, tolerance: float,
                summary: dict, report: dict) -> None:
    """Score ``run``'s file again against ``gold``: its rows against the bundle's, its figures against the published."""
    spec = run.get("rescoring") or {}
    member = (run.get("file") or {}).get("member")
    if not member:
        reason = (run.get("file") or {}).get("missing") or "not in the bundle"
        report["not_checked"].append(f"{run['name']}: not scored again: no run file ({reason})")
        return
    if spec.get("engine") not in RESCORERS:
        why = spec.get("note") or "its kind gives no way to score it without the platform"
        report["not_checked"].append(f"{run['name']}: not scored again: {why} (its figures are recomputed from "
                                     "its rows)")
        return
    if spec.get("converter"):
        report["not_checked"].append(f"{run['name']}: not scored again: its file was converted ({spec['converter']}) "
                                     "before scoring")
        return
    if member not in bundle.members:
        raise fmt.BundleError(f"{member}: named by bundle.json but not in the archive")
    with tempfile.TemporaryDirectory(prefix="reproduce-") as tmp:
        path = Path(tmp) / Path(member).name
        path.write_bytes(bundle.members[member])
        engine = importlib.import_module(RESCORERS[spec["engine"]])
        try:
            new_keys, new_genres, new_rows = engine.rescored_rows(gold, path, list(keys), list(genres), spec)
        except InputError as exc:
            raise InputError(f"{run['name']}: scoring it again: {exc}") from None
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise fmt.BundleError(f"{run['name']}: its rescoring in bundle.json cannot be used ({exc!r})") from None
    order = sorted(range(len(new_keys)), key=lambda i: new_keys[i])
    new_keys = [new_keys[i] for i in order]
    new_genres = [new_genres[i] for i in order]
    new_rows = np.asarray(new_rows, dtype=np.float64)[order] if len(order) else np.zeros_like(rows)
    summary["rescored"] = True
    if new_keys != list(keys) or new_rows.shape != rows.shape:
        report["differences"].append({"run": run["name"], "from": "run file", "figure": "rows", "type": "", "genre": "",
                                      "field": "sentences", "published": len(keys), "recomputed": len(new_keys)})
        return
    differing = np.flatnonzero(np.any(np.abs(new_rows - rows) > tolerance, axis=1))
    if len(differing):
        first = int(differing[0])
        report["differences"].append({"run": run["name"], "from": "run file", "figure": "rows", "type": "",
                                      "genre": genres[first], "field": f"sentence {keys[first]}",
                                      "published": f"{len(differing)} sentence(s) differ",
                                      "recomputed": None})
    differences, compared, _ = compare_run(run, entry, new_keys, new_genres, new_rows, tolerance, source="run file")
    summary["rescored_compared"] = compared
    report["differences"] += differences


def _shown(value) -> str:
    if isinstance(value, str):
        return value
    return "undefined" if _undefined(value) else f"{value:.10g}"


def text_report(report: dict) -> str:
    lines = []
    for d in report["differences"]:
        source = "" if d.get("from", "rows") == "rows" else f" [{d['from']} scored again]"
        if d["figure"] == "rows":
            lines.append(f"DIFFERENCE {d['run']}{source}: per-sentence rows, {d['field']}: bundle "
                         f"{_shown(d['published'])}" + ("" if d["recomputed"] is None
                                                        else f", scored again {_shown(d['recomputed'])}"))
            continue
        lines.append(f"DIFFERENCE {d['run']}{source}: {d['figure']} type {d['type']} genre {d['genre']} ({d['field']}): "
                     f"published {_shown(d['published'])}, recomputed {_shown(d['recomputed'])}")
    compared = sum(r["compared"] for r in report["runs"])
    checked = sum(1 for r in report["runs"] if r["compared"])
    lines.append(f"{report['campaign']}: {compared} figure(s) of {checked} of {len(report['runs'])} run(s) recomputed "
                 f"from the per-sentence rows; {len(report['differences'])} difference(s)")
    rescored = [r for r in report["runs"] if r.get("rescored")]
    if rescored:
        lines.append(f"{len(rescored)} run(s) scored again from their files and the gold: "
                     f"{sum(r.get('rescored_compared', 0) for r in rescored)} figure(s) compared")
    lines += [f"not checked: {reason}" for reason in report["not_checked"]]
    if report.get("nothing_checked"):
        lines.append(f"NOTHING CHECKED (exit status {NOTHING_CHECKED}): {report['nothing_checked']}")
    return "\n".join(lines) + "\n"


def run(args) -> int:
    try:
        gold = None
        if args.gold:
            gold = Path(args.gold)
            if not gold.is_dir():
                raise InputError(f"{gold}: not a folder (give the released gold, unpacked)")
        bundle = fmt.read_archive(args.bundle)
        report = reproduce(bundle, args.tolerance, gold)
    except fmt.BundleError as exc:
        raise InputError(str(exc)) from None
    if args.json_out:
        write_json(report, args.json_out)
    if args.json_out != "-":
        sys.stdout.write(text_report(report))
    if report["differences"]:
        return 1
    return NOTHING_CHECKED if report.get("nothing_checked") else 0
