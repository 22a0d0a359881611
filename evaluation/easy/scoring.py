"""Scoring an EASY run against gold: counts, micro and macro figures, bootstrap intervals.

The entry point is :func:`score_corpus`; it returns the JSON document that
the command line writes with ``--json`` and that the web app stores. All
functions are pure (no Django, no global state); run files given as paths
are streamed.
"""
from __future__ import annotations

import math
import os
import warnings as _warnings
from typing import Callable, Iterable, Mapping

import numpy as np

from annotations.easy.model import Document, Sentence
from annotations.easy.reader import (DEFAULT_MAX_PROBLEMS, ProblemSink, compare_forms, document_key, iter_sentences,
                                     source_name)
from annotations.easy.schema import DEFAULT_SCHEMA, EasySchema
from annotations.easy.validate import reference_forms
from annotations.errors import InputError, Problem
from evaluation.signature import make_signature
from evaluation.version import SCORER_VERSION

from .files import genre_of
from .matching import match_counts
from .ranges import BIT, MATCHES, MODES, HypothesisView, ReferenceView

LAYERS = ("constituents", "relations")
ALL = "ALL"
DEFAULT_SEED = 12345
DEFAULT_BOOTSTRAP = 1000
MAX_WARNINGS = 1000


def cell_signature(layer: str, mode: str | None, match: str, agg: str, bootstrap: int, seed: int) -> str:
    return make_signature(f"easy-{layer}", mode=mode, match=match, agg=agg, bs=bootstrap, seed=seed)


def corpus_signature(matches, modes, bootstrap: int, seed: int) -> str:
    return make_signature("easy", mode=list(modes), match=list(matches), agg="micro+macro", bs=bootstrap,
                          seed=seed)


def prf(fc: int, fp: int, cr: int) -> tuple[float | None, float | None, float | None]:
    """P = fc/fp, R = fc/cr, F = 2PR/(P+R) = 2fc/(fp+cr).

    P is undefined (None) when fp = 0, R when cr = 0; F is undefined only
    when both are (nothing found and nothing to find), and 0 when fc = 0.
    """
    p = fc / fp if fp else None
    r = fc / cr if cr else None
    f = 2 * fc / (fp + cr) if (fp + cr) else None
    return p, r, f


class Plan:
    """Column layout of the per-sentence count rows: one column per (way, type)."""

    def __init__(self, schema: EasySchema, matches, modes):
        self.matches = tuple(matches)
        self.modes = tuple(modes)
        self.bits = [BIT[m] for m in self.matches]
        self.cons_types = tuple(schema.group_types)
        self.rel_types = tuple(schema.relation_types)
        self.cons_index = {t: i for i, t in enumerate(self.cons_types)}
        self.rel_index = {t: i for i, t in enumerate(self.rel_types)}
        self.ways: list[tuple[str, str | None, str, int, tuple[str, ...]]] = []  # layer, mode, match, offset, types
        off = 0
        self.cons_off = []
        for m in self.matches:
            self.ways.append(("constituents", None, m, off, self.cons_types))
            self.cons_off.append(off)
            off += len(self.cons_types)
        self.rel_off = []
        for mode in self.modes:
            row = []
            for m in self.matches:
                self.ways.append(("relations", mode, m, off, self.rel_types))
                row.append(off)
                off += len(self.rel_types)
            self.rel_off.append(row)
        self.ncols = off


def count_sentence(ref: ReferenceView, hyp: HypothesisView | None, plan: Plan):
    """fc, fp, cr rows (lists of ints, one entry per column of ``plan``) for one gold sentence."""
    n = plan.ncols
    fc = [0] * n
    fp = [0] * n
    cr = [0] * n
    bits = plan.bits
    nb = len(bits)
    empty: frozenset = frozenset()
    # constituents
    hcons = hyp.cons if hyp is not None else {}
    index = plan.cons_index
    for t in set(ref.cons).union(hcons):
        ti = index[t]
        H = hcons.get(t, empty)
        R = ref.cons.get(t, empty)
        counts = match_counts(H, R, bits, False)
        lh, lr = len(H), len(R)
        for k in range(nb):
            col = plan.cons_off[k] + ti
            fc[col] = counts[k]
            fp[col] = lh
            cr[col] = lr
    # relations
    index = plan.rel_index
    cache: dict[str, list] = {}
    for mi, mode in enumerate(plan.modes):
        hrels = hyp.rels[mode] if hyp is not None else {}
        offs = plan.rel_off[mi]
        for t in set(ref.rels).union(hrels):
            ti = index[t]
            H = hrels.get(t, empty)
            R = ref.rels.get(t, empty)
            counts = None
            seen = cache.get(t)
            if seen is None:
                seen = cache[t] = []
            else:
                for h_prev, c_prev in seen:
                    if h_prev == H:
                        counts = c_prev
                        break
            if counts is None:
                counts = match_counts(H, R, bits, True)
                seen.append((H, counts))
            lh, lr = len(H), len(R)
            for k in range(nb):
                col = offs[k] + ti
                fc[col] = counts[k]
                fp[col] = lh
                cr[col] = lr
    return fc, fp, cr


def _extend_all(x: np.ndarray, plan: Plan) -> np.ndarray:
    """Append an ALL-types column after each way's block: columns become (way, type..., ALL)."""
    blocks = []
    for _, _, _, off, types in plan.ways:
        block = x[..., off:off + len(types)]
        blocks.append(block)
        blocks.append(block.sum(axis=-1, keepdims=True))
    return np.concatenate(blocks, axis=-1)


def _f_array(fc, fp, cr):
    den = fp + cr
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, 2.0 * fc / np.where(den > 0, den, 1), np.nan)


def _nan_to_none(x) -> float | None:
    x = float(x)
    return None if math.isnan(x) else x


class _Rows:
    """Per-gold-sentence count rows, filled as run sentences stream in."""

    def __init__(self, n: int, ncols: int):
        self.fc = np.zeros((n, ncols), dtype=np.int32)
        self.fp = np.zeros((n, ncols), dtype=np.int32)
        self.cr = np.zeros((n, ncols), dtype=np.int32)
        self.done = np.zeros(n, dtype=bool)

    def set(self, i, rows):
        self.fc[i], self.fp[i], self.cr[i] = rows
        self.done[i] = True


def _as_docs(docs) -> list:
    if docs is None:
        return []
    if isinstance(docs, Mapping):
        return list(docs.items())
    out = []
    for d in docs:
        if isinstance(d, Document):
            out.append((document_key(d.name), d))
        else:
            out.append((document_key(source_name(d)), d))
    return out


def score_corpus(
    gold_docs,
    run_docs,
    genres: Mapping[str, str] | Callable[[str], str] | None = None,
    *,
    matches: Iterable[str] = MATCHES,
    modes: Iterable[str] = MODES,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
    gold_sha256: str = "",
    progress: Callable[[int, int], None] | None = None,
    schema: EasySchema = DEFAULT_SCHEMA,
    corpus=None,
    max_problems: int | None = DEFAULT_MAX_PROBLEMS,
) -> dict:
    """Score runs against gold; return the result document (see docs/metrics/easy.md).

    ``gold_docs``: :class:`Document` objects (read with ``gold=True``), as an
    iterable or a ``{key: Document}`` mapping. ``run_docs``: Documents or
    paths (streamed), iterable or mapping; documents are paired by key (the
    base file name without ``.xml``). ``genres`` maps a key to a genre
    (default: the name up to the first ``_``). ``corpus`` optionally maps a
    key to the corpus text of the document (a Document or ``{sentence id:
    ((form id, text), ...)}``) used to validate run sentences that have no
    gold. Raises :class:`InputError` listing every problem of the runs.
    ``progress(done, total)`` is called after each run document and after
    the bootstrap.
    """
    matches = tuple(matches)
    modes = tuple(modes)
    for m in matches:
        if m not in MATCHES:
            raise InputError(f"unknown range function {m!r} (expected one of {', '.join(MATCHES)})")
    for m in modes:
        if m not in MODES:
            raise InputError(f"unknown mode {m!r} (expected one of {', '.join(MODES)})")
    if not matches or not modes:
        raise InputError("at least one range function and one mode are needed")
    if bootstrap < 0:
        raise InputError("the bootstrap size must be >= 0")
    plan = Plan(schema, matches, modes)
    if genres is None:
        genre_fn = genre_of
    elif callable(genres):
        genre_fn = genres
    else:
        gmap = {document_key(k): v for k, v in genres.items()}

        def genre_fn(key, _m=gmap):
            return _m.get(key) or genre_of(key)

    warnings: list[Problem] = []
    gold_list = _as_docs(gold_docs)
    if not gold_list:
        raise InputError("no gold document")
    # -- gold: reference views, one row per gold sentence ------------------------
    relation_roles = schema.relation_roles
    gold_index: dict[str, dict[str, tuple[int, ReferenceView, tuple]]] = {}
    row_genre: list[str] = []
    documents = []
    dedup = {"gold_groups_read": 0, "gold_groups_scored": 0, "gold_relations_read": 0, "gold_relations_scored": 0}
    for key, doc in gold_list:
        if key in gold_index:
            raise InputError(f"two gold documents share the name {key}")
        if doc.problems:
            raise InputError(doc.problems)
        warnings.extend(doc.warnings)
        genre = genre_fn(key)
        sents = {}
        for s in doc.sentences:
            ref = ReferenceView(s, relation_roles)
            sents[s.id] = (len(row_genre), ref, tuple((f.id, f.text) for f in s.forms))
            row_genre.append(genre)
            dedup["gold_groups_read"] += len(s.groups)
            dedup["gold_relations_read"] += len(s.relations)
            dedup["gold_groups_scored"] += sum(len(v) for v in ref.cons.values())
            dedup["gold_relations_scored"] += sum(len(v) for v in ref.rels.values())
        gold_index[key] = sents
        documents.append({"name": key, "genre": genre, "gold_sentences": len(sents), "run": False,
                          "run_sentences": 0})
    doc_info = {d["name"]: d for d in documents}
    rows = _Rows(len(row_genre), plan.ncols)
    # -- runs: streamed, validated, counted ---------------------------------------
    sink = ProblemSink(max_problems)
    run_list = _as_docs(run_docs)
    corpus_forms = {document_key(k): reference_forms(v) for k, v in (corpus or {}).items()}
    submitted = {"constituents": False, "relations": False}
    total = len(run_list) + 1
    stats = {"run_sentences": 0, "run_sentences_without_gold": 0, "gold_sentences_missing_from_run": 0}
    run_keys = set()
    for done, (key, run) in enumerate(run_list, 1):
        if key in run_keys:
            raise InputError(f"two run documents share the name {key}")
        run_keys.add(key)
        gold_sents = gold_index.get(key)
        text = corpus_forms.get(key)
        if gold_sents is None:
            warnings.append(Problem(f"run document {key} has no gold: validated, not scored", file=key))
        gold_forms = ({sid: forms for sid, (_, _, forms) in gold_sents.items()} if gold_sents is not None
                      else None)
        expected = text if text is not None else gold_forms
        ids: list[str] = []
        if isinstance(run, Document):
            file = run.name
            for p in run.problems:
                sink.add(p)
            warnings.extend(run.warnings)
            submitted["constituents"] |= run.has_constituents
            submitted["relations"] |= run.has_relations
            info = None
            sentences = []
            for s in run.sentences:
                ids.append(s.id)
                exp = expected.get(s.id) if expected is not None else None
                if exp is None:
                    if text is not None:
                        sink.add(Problem(f"unknown sentence id {s.id}: not in the corpus", file=file,
                                         line=s.line, sentence=s.id, element="E"))
                else:
                    for p in compare_forms(s, exp, file):
                        sink.add(p)
                if gold_sents is not None and s.id in gold_sents:
                    sentences.append(s)
        else:
            file = source_name(run)
            if document_key(file) != key:
                file = f"{key}.xml"  # a copy under another name (an unpacked upload): name the document
            info = {}
            wanted = (lambda sid, _g=gold_sents: sid in _g) if gold_sents is not None else (lambda sid: False)
            sentences = iter_sentences(run, schema=schema, gold=False, problems=sink, warnings=warnings,
                                       info=info, name=file, want=wanted, expected_forms=expected,
                                       expected_complete=text is not None, seen=ids)
        for s in sentences:
            row, ref, _ = gold_sents[s.id]
            if len(sink):
                continue  # the run is invalid anyway: only keep validating
            rows.set(row, count_sentence(ref, HypothesisView(s, ref, modes), plan))
        seen = set(ids)
        n_run = len(ids)
        stats["run_sentences_without_gold"] += sum(1 for sid in ids if gold_sents is None or sid not in gold_sents)
        stats["run_sentences"] += n_run
        if info is not None:
            submitted["constituents"] |= bool(info.get("has_constituents"))
            submitted["relations"] |= bool(info.get("has_relations"))
        if gold_sents is not None:
            doc_info[key]["run"] = True
            doc_info[key]["run_sentences"] = n_run
            missing = [sid for sid in gold_sents if sid not in seen]
            if missing:
                stats["gold_sentences_missing_from_run"] += len(missing)
                shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
                warnings.append(Problem(f"{len(missing)} gold sentence(s) missing from the run (scored as empty "
                                        f"output): {shown}", file=file))
        if progress is not None:
            progress(done, total)
    if len(sink):
        raise InputError(sink.result())
    for key, d in doc_info.items():
        if not d["run"]:
            warnings.append(Problem(f"no run for gold document {key}: its sentences score as empty output",
                                    file=key))
            stats["gold_sentences_missing_from_run"] += d["gold_sentences"]
    # gold sentences the run never gave: empty hypothesis
    for key, sents in gold_index.items():
        for row, ref, _ in sents.values():
            if not rows.done[row]:
                rows.set(row, count_sentence(ref, None, plan))
    for layer in LAYERS:
        if not submitted[layer]:
            warnings.append(Problem(f"the run has no {layer}: layer reported as not submitted"))
    result = aggregate(rows.fc, rows.fp, rows.cr, row_genre, plan, submitted, bootstrap=bootstrap, seed=seed)
    if progress is not None:
        progress(total, total)
    if len(warnings) > MAX_WARNINGS:
        extra = len(warnings) - MAX_WARNINGS
        warnings = warnings[:MAX_WARNINGS] + [Problem(f"... and {extra} more warnings not shown")]
    out = {
        "signature": corpus_signature(matches, modes, bootstrap, seed),
        "scorer_version": SCORER_VERSION,
        "gold_sha256": gold_sha256,
        "cells": result["cells"],
        "macro": result["macro"],
        "warnings": [w.as_dict() for w in warnings],
        "layers_submitted": submitted,
        "parameters": {
            "matches": list(matches), "modes": list(modes), "bootstrap": bootstrap, "seed": seed,
            "schema": schema.name, "bootstrap_strata": "genre", "ci_level": 0.95,
        },
        "genres": result["genres"],
        "documents": documents,
        "counts": {"gold_sentences": len(row_genre), **stats, **dedup},
    }
    return out


def aggregate(fc, fp, cr, row_genre: list[str], plan: Plan, submitted: Mapping[str, bool], *,
              bootstrap: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED) -> dict:
    """Cells and macro rows from per-sentence count rows (numpy, rows = gold sentences)."""
    genres = sorted(set(row_genre))
    genre_arr = np.array(row_genre, dtype=object) if row_genre else np.array([], dtype=object)
    strata = [np.flatnonzero(genre_arr == g) for g in genres]
    fc_e = _extend_all(fc, plan)
    fp_e = _extend_all(fp, plan)
    cr_e = _extend_all(cr, plan)
    # point estimates per genre and ALL (exact integer sums)
    sums = {}
    for g, idx in zip(genres, strata):
        sums[g] = tuple(x[idx].sum(axis=0, dtype=np.int64) for x in (fc_e, fp_e, cr_e))
    sums[ALL] = tuple(x.sum(axis=0, dtype=np.int64) for x in (fc_e, fp_e, cr_e))
    # bootstrap: resample sentences with replacement within each genre
    boot_f = {}
    if bootstrap > 0 and len(row_genre):
        # Resampling counts (multinomial = sentences drawn with replacement) times per-sentence counts:
        # one matrix product per genre. float32 is exact here (integer sums far below 2**24).
        rng = np.random.default_rng(seed)
        acc = None
        for g, idx in zip(genres, strata):
            n = len(idx)
            weights = rng.multinomial(n, np.full(n, 1.0 / n), size=bootstrap).astype(np.float32)
            part = tuple((weights @ x[idx].astype(np.float32)).astype(np.float64) for x in (fc_e, fp_e, cr_e))
            del weights
            boot_f[g] = _f_array(*part)
            acc = part if acc is None else tuple(a + b for a, b in zip(acc, part))
        boot_f[ALL] = _f_array(*acc)
    # assemble
    cells, macro = [], []
    width = {}
    col = 0
    layout = []
    for layer, mode, match, _, types in plan.ways:
        layout.append((layer, mode, match, types, col))
        col += len(types) + 1
    genre_order = [ALL] + genres
    sig_cache = {}
    for layer, mode, match, types, base in layout:
        if not submitted.get(layer, True):
            continue
        for g in genre_order:
            sfc, sfp, scr = sums[g]
            bf = boot_f.get(g)
            sig = sig_cache.setdefault((layer, mode, match, "micro"),
                                       cell_signature(layer, mode, match, "micro", bootstrap, seed))
            ps, rs, fs = [], [], []
            for k, t in enumerate(list(types) + [ALL]):
                c = base + k
                a, b, d = int(sfc[c]), int(sfp[c]), int(scr[c])
                p, r, f = prf(a, b, d)
                ci = None
                if bf is not None and f is not None:
                    with _warnings.catch_warnings():
                        _warnings.simplefilter("ignore", RuntimeWarning)
                        lo, hi = np.nanpercentile(bf[:, c], [2.5, 97.5])
                    if not (math.isnan(lo) or math.isnan(hi)):
                        ci = [float(lo), float(hi)]
                cells.append({"layer": layer, "mode": mode, "match": match, "genre": g, "type": t,
                              "fc": a, "fp": b, "cr": d, "p": p, "r": r, "f": f, "ci": ci, "signature": sig})
                if t != ALL and f is not None:
                    fs.append(f)
                    if p is not None:
                        ps.append(p)
                    if r is not None:
                        rs.append(r)
            c_all = base + len(types)
            mci = None
            if bf is not None and fs:
                with _warnings.catch_warnings():
                    _warnings.simplefilter("ignore", RuntimeWarning)
                    per_resample = np.nanmean(bf[:, base:base + len(types)], axis=1)
                    lo, hi = np.nanpercentile(per_resample, [2.5, 97.5])
                if not (math.isnan(lo) or math.isnan(hi)):
                    mci = [float(lo), float(hi)]
            macro.append({
                "layer": layer, "mode": mode, "match": match, "genre": g, "type": ALL,
                "fc": int(sfc[c_all]), "fp": int(sfp[c_all]), "cr": int(scr[c_all]),
                "p": sum(ps) / len(ps) if ps else None,
                "r": sum(rs) / len(rs) if rs else None,
                "f": sum(fs) / len(fs) if fs else None,
                "ci": mci,
                "types_averaged": len(fs),
                "signature": sig_cache.setdefault((layer, mode, match, "macro"),
                                                  cell_signature(layer, mode, match, "macro", bootstrap, seed)),
            })
    return {"cells": cells, "macro": macro, "genres": genres}
