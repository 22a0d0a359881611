"""The ranking's dot plot: one row per run, its figure as a dot and its 95% interval as a line.

Server-side SVG in the style of :mod:`evaluation.charts` (same frame, palette,
``<title>``/``<desc>``); the page puts the same numbers in a table beside it.
Rows keep the ranking's order, so neighbours whose intervals overlap are easy
to see; a dot plot joins nothing with lines.
"""
from __future__ import annotations

from typing import Sequence
from xml.sax.saxutils import escape

from django.utils.safestring import SafeString

from .charts import PALETTE, _frame, _pct

ROW = 22
LABEL_W = 230
PLOT_W = 420


def dot_plot(rows: Sequence[tuple[str, float | None, float | None, float | None]], *, title: str) -> SafeString:
    """``rows`` = (label, value, low, high), fractions; the x axis spans the data (with a margin), in percent."""
    known = [v for _, value, low, high in rows for v in (value, low, high) if v is not None]
    lo = max(0.0, min(known) - 0.02) if known else 0.0
    hi = min(1.0, max(known) + 0.02) if known else 1.0
    if hi - lo < 0.05:
        lo, hi = max(0.0, lo - 0.025), min(1.0, hi + 0.025)
    top, height = 10, 10 + ROW * len(rows) + 34
    width = LABEL_W + PLOT_W + 20

    def x_of(v: float) -> float:
        return LABEL_W + (v - lo) / (hi - lo) * PLOT_W

    body = []
    for k in range(6):
        v = lo + (hi - lo) * k / 5
        x = x_of(v)
        body.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + ROW * len(rows)}" stroke="#ddd"/>'
                    f'<text x="{x:.1f}" y="{top + ROW * len(rows) + 14}" font-size="11" text-anchor="middle">'
                    f'{100 * v:.1f}</text>')
    body.append(f'<text x="{LABEL_W + PLOT_W / 2:.1f}" y="{height - 4}" font-size="11" text-anchor="middle">'
                f'{escape(title)} (%)</text>')
    for i, (label, value, low, high) in enumerate(rows):
        y = top + ROW * i + ROW / 2
        colour = PALETTE[0]
        body.append(f'<text x="{LABEL_W - 6}" y="{y + 4:.1f}" font-size="12" text-anchor="end">'
                    f'{escape(label[:34])}</text>')
        tip = f"{label}: {_pct(value)}"
        if low is not None and high is not None:
            tip += f" (95% CI {_pct(low)}–{_pct(high)})"
            body.append(f'<line x1="{x_of(low):.1f}" y1="{y:.1f}" x2="{x_of(high):.1f}" y2="{y:.1f}" '
                        f'stroke="{colour}" stroke-width="2"/>')
        if value is not None:
            body.append(f'<circle cx="{x_of(value):.1f}" cy="{y:.1f}" r="4.5" fill="{colour}">'
                        f'<title>{escape(tip)}</title></circle>')
    desc = "; ".join(f"{label} {_pct(value)}" for label, value, _, _ in rows)
    return _frame(width, height, title, f"Dot plot, best first, with 95% intervals: {desc}", body)
