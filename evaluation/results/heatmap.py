"""Heatmaps for categories that have no order between them (runs × ways, genres × types).

A line chart joins neighbouring categories as if they were a sequence, and
hides runs whose lines overlap; a heatmap shows every value as a coloured
cell with its number written in it. The colour scale is sequential and
readable by colour-blind readers (cividis-like: dark blue to yellow, lightness
rising steadily), spans the values shown, and is explained by a legend.
Self-contained SVG in the frame of :mod:`evaluation.results.charts` (``<title>`` and
``<desc>``; each cell's ``<title>`` holds the exact value and interval).
"""
from __future__ import annotations

from typing import Sequence
from xml.sax.saxutils import escape

from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from .charts import Point, _frame, _pct, text_width
from evaluation.results.text import decimal

# Sampled from cividis (Nuñez, Anderton & Renslow 2018), designed for colour-vision deficiencies.
SCALE = ("#00224E", "#123570", "#3B496C", "#575D6D", "#707173", "#8A8779", "#A69D75", "#C4B56C", "#E4CF5B",
         "#FEE838")
CELL_W, CELL_H = 58, 24
LABEL_CHARS = 40  # a longer row label is cut with an ellipsis (whole in its tooltip)
SIN, COS = 0.643, 0.766  # of the column labels' 40 degrees


def _colour(value: float, lo: float, hi: float) -> tuple[str, str]:
    k = 0 if hi <= lo else round((value - lo) / (hi - lo) * (len(SCALE) - 1))
    k = max(0, min(len(SCALE) - 1, k))
    return SCALE[k], ("#000" if k >= 5 else "#fff")  # text dark on the light half, light on the dark half


def heatmap(rows: Sequence[str], columns: Sequence[str], values: Sequence[Sequence[Point]], *, title: str,
            desc: str, measure: str = "F") -> SafeString:
    known = [p.value for row in values for p in row if p.value is not None]
    lo, hi = (min(known), max(known)) if known else (0.0, 1.0)
    shown = [name if len(name) <= LABEL_CHARS else name[:LABEL_CHARS - 1] + "…" for name in rows]
    # Sized from the labels: the row labels' column, and the room the slanted column labels take up and right.
    LABEL_W = int(max((text_width(n) for n in shown), default=20) + 12)
    longest = max((text_width(c, 11) for c in columns), default=0)
    HEAD_H = int(SIN * longest + 16)
    width = int(LABEL_W + CELL_W * len(columns) + max(10, COS * longest - CELL_W / 2 + 6))
    width = max(width, LABEL_W + len(SCALE) * 18 + 6 + int(text_width(f"100.0 ({measure}, %)", 11)) + 4)  # legend
    height = HEAD_H + CELL_H * len(rows) + 40
    body = []
    for j, name in enumerate(columns):
        x = LABEL_W + CELL_W * j + CELL_W / 2
        body.append(f'<text transform="translate({x:.1f},{HEAD_H - 6}) rotate(-40)" font-size="11">'
                    f'{escape(name)}</text>')
    for i, (name, row) in enumerate(zip(rows, values)):
        y = HEAD_H + CELL_H * i
        body.append(f'<text x="{LABEL_W - 6}" y="{y + CELL_H / 2 + 4:.1f}" font-size="12" text-anchor="end">'
                    f'{escape(shown[i])}<title>{escape(name)}</title></text>')
        for j, point in enumerate(row):
            x = LABEL_W + CELL_W * j
            tip = f"{name} — {columns[j]}: {measure} = {_pct(point.value)}"
            if point.low is not None and point.high is not None:
                tip += " (" + _("95%% CI %(low)s–%(high)s") % {"low": _pct(point.low), "high": _pct(point.high)} + ")"
            if point.value is None:
                body.append(f'<g class="cell"><rect x="{x}" y="{y}" width="{CELL_W - 2}" height="{CELL_H - 2}" '
                            f'fill="#eee"/><text x="{x + CELL_W / 2:.1f}" y="{y + CELL_H / 2 + 4:.1f}" '
                            f'font-size="11" text-anchor="middle">–</text><title>{escape(tip)}</title></g>')
                continue
            fill, ink = _colour(point.value, lo, hi)
            body.append(f'<g class="cell" data-value="{point.value}"><rect x="{x}" y="{y}" width="{CELL_W - 2}" '
                        f'height="{CELL_H - 2}" fill="{fill}"/><text x="{x + CELL_W / 2:.1f}" '
                        f'y="{y + CELL_H / 2 + 4:.1f}" font-size="11" text-anchor="middle" fill="{ink}">'
                        f'{decimal(100 * point.value, 1)}</text><title>{escape(tip)}</title></g>')
    # legend: the scale from the lowest to the highest value shown
    y = HEAD_H + CELL_H * len(rows) + 12
    step = 18
    for k, colour in enumerate(SCALE):
        body.append(f'<rect x="{LABEL_W + k * step}" y="{y}" width="{step}" height="10" fill="{colour}"/>')
    body.append(f'<text x="{LABEL_W - 6}" y="{y + 9}" font-size="11" text-anchor="end">{decimal(100 * lo, 1)}</text>'
                f'<text x="{LABEL_W + len(SCALE) * step + 6}" y="{y + 9}" font-size="11">{decimal(100 * hi, 1)} '
                f'({escape(measure)}, %)</text>')
    return _frame(width, height, title, desc, body)
