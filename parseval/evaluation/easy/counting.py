"""Counting one gold sentence against its run sentence: the count row of every (way, type).

A way is a layer (constituents, or relations in one of the three modes)
under one range function; :class:`Plan` lays the ways' columns out, and
:func:`count_sentence_compact` fills one sentence's row from its reference
and hypothesis views. It runs once for every gold sentence of a corpus: the
module is compiled where a compiler is (see ``parseval/annotations/compiled.py``),
so it holds nothing else.
"""
from __future__ import annotations

from array import array

import numpy as np

from parseval.annotations.easy.schema import EasySchema

from .matching import match_counts
from .ranges import BIT, HypothesisView, ReferenceView


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
        # the columns of each type, one per match function: constituents, and relations per mode
        self.cons_columns = {t: [o + i for o in self.cons_off] for i, t in enumerate(self.cons_types)}
        self.rel_columns = [{t: [o + i for o in offs] for i, t in enumerate(self.rel_types)} for offs in self.rel_off]
        # the hypothesis and reference sizes (fp, cr) of a (layer or mode, type) are the same for every match
        # function: they are kept once, in compact columns; expand[c] is the compact column of column c
        nc, nr = len(self.cons_types), len(self.rel_types)
        expand = []
        for layer, mode, _, _, types in self.ways:
            base = 0 if layer == "constituents" else nc + self.modes.index(mode) * nr
            expand.extend(range(base, base + len(types)))
        self.expand = np.array(expand, dtype=np.intp)
        self.ncompact = nc + len(self.modes) * nr
        self.expand_list = expand
        # the compact column of each constituent type, and of each relation type per mode
        self.cons_compact = {t: i for i, t in enumerate(self.cons_types)}
        self.rel_compact = [{t: nc + j * nr + i for i, t in enumerate(self.rel_types)} for j in range(len(self.modes))]
        # a sentence's rows start as copies of these: int16 arrays, which numpy copies into its rows as they are
        # (a list's items would each be converted); a count beyond int16 raises, as numpy's conversion does
        self.zero_row = array("h", bytes(2 * self.ncols))
        self.zero_compact = array("h", bytes(2 * self.ncompact))


def count_sentence(ref: ReferenceView, hyp: HypothesisView | None, plan: Plan):
    """fc, fp, cr rows (lists of ints, one entry per column of ``plan``) for one gold sentence."""
    fc, fp, cr = count_sentence_compact(ref, hyp, plan)
    expand = plan.expand_list
    return list(fc), [fp[k] for k in expand], [cr[k] for k in expand]


def count_sentence_compact(ref: ReferenceView, hyp: HypothesisView | None, plan: Plan):
    """fc (one entry per column of ``plan``), fp and cr (one per compact column, see ``Plan.expand``: the
    sizes are the same for every range function) for one gold sentence, as int16 arrays: what the count rows
    keep."""
    fc = plan.zero_row.__copy__()
    fp = plan.zero_compact.__copy__()
    cr = plan.zero_compact.__copy__()
    bits = plan.bits
    empty: frozenset = frozenset()
    # constituents
    hcons = hyp.cons if hyp is not None else {}
    rcons = ref.cons
    columns, compact = plan.cons_columns, plan.cons_compact
    for t in (rcons.keys() | hcons.keys()) if hcons else rcons:
        H = hcons.get(t, empty)
        R = rcons.get(t, empty)
        k = compact[t]
        fp[k] = len(H)
        cr[k] = len(R)
        for col, c in zip(columns[t], match_counts(H, R, bits, False)):
            fc[col] = c
    # relations: a mode often gives a type the same items as another mode, whose counts then serve
    rrels = ref.rels
    done: dict[str, list] = {}
    for mode, columns, compact in zip(plan.modes, plan.rel_columns, plan.rel_compact):
        hrels = hyp.rels[mode] if hyp is not None else {}
        for t in (rrels.keys() | hrels.keys()) if hrels else rrels:
            H = hrels.get(t, empty)
            R = rrels.get(t, empty)
            counts = None
            seen = done.get(t)
            if seen is None:
                seen = done[t] = []
            else:
                for h_prev, c_prev in seen:
                    if h_prev is H or h_prev == H:
                        counts = c_prev
                        break
            if counts is None:
                counts = match_counts(H, R, bits, True)
                seen.append((H, counts))
            k = compact[t]
            fp[k] = len(H)
            cr[k] = len(R)
            for col, c in zip(columns[t], counts):
                fc[col] = c
    return fc, fp, cr
