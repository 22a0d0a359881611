"""The ranking's dot plot: one row per run, its figure as a dot and its 95% interval as a line.

Server-side SVG in the style of :mod:`evaluation.results.charts` (same frame, palette,
``<title>``/``<desc>``); the page puts the same numbers in a table beside it.
Rows keep the ranking's order, so neighbours whose intervals overlap are easy
to see; a dot plot joins nothing with lines.

The x axis spans the data with a margin, not 0-100: 98.9 and 98.7 must look
apart. The chart is drawn at the width it is shown at (:data:`WIDTH` fits a
phone's screen, and several sit side by side as small multiples on a wide
one), so its labels keep their size: a label too long for its column is cut
with an ellipsis, the whole of it in the row's tooltip and in the table; two
labels that would then read the same are cut in the middle, keeping the ends
that tell them apart (:func:`evaluation.results.charts.fit_labels`).
"""
from __future__ import annotations

from typing import Sequence
from xml.sax.saxutils import escape

from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from .charts import PALETTE, _frame, _pct, fit_labels, fit_text, text_width
from evaluation.results.text import decimal

ROW = 22
WIDTH = 350  # px: fits a 390 px phone screen with the page's margins


def dot_plot(rows: Sequence[tuple[str, float | None, float | None, float | None]], *, title: str,
             width: int = WIDTH) -> SafeString:
    """``rows`` = (label, value, low, high), fractions; the x axis spans the data (with a margin), in percent."""
    known = [v for _, value, low, high in rows for v in (value, low, high) if v is not None]
    lo = max(0.0, min(known) - 0.02) if known else 0.0
    hi = min(1.0, max(known) + 0.02) if known else 1.0
    if hi - lo < 0.05:
        lo, hi = max(0.0, lo - 0.025), min(1.0, hi + 0.025)
    label_w = min(0.42 * width, max((text_width(label) for label, *_ in rows), default=20) + 10)
    pad = 16  # half a tick label beyond the plot's ends
    plot_w = width - label_w - 2 * pad
    left = label_w + pad
    top, height = 10, 10 + ROW * len(rows) + 34

    def x_of(v: float) -> float:
        return left + (v - lo) / (hi - lo) * plot_w

    body = []
    ticks = 4
    for k in range(ticks + 1):
        v = lo + (hi - lo) * k / ticks
        x = x_of(v)
        body.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + ROW * len(rows)}" stroke="#ddd"/>'
                    f'<text x="{x:.1f}" y="{top + ROW * len(rows) + 14}" font-size="11" text-anchor="middle">'
                    f'{decimal(100 * v, 1)}</text>')
    body.append(f'<text x="{width / 2:.1f}" y="{height - 4}" font-size="11" text-anchor="middle">'
                f'{escape(fit_text(f"{title} (%)", width - 8, 11))}</text>')
    shown = fit_labels([label for label, *_ in rows], label_w - 8)
    for i, (label, value, low, high) in enumerate(rows):
        y = top + ROW * i + ROW / 2
        colour = PALETTE[0]
        tip = f"{label}: {_pct(value)}"
        if low is not None and high is not None:
            tip += " (" + _("95%% CI %(low)s–%(high)s") % {"low": _pct(low), "high": _pct(high)} + ")"
        body.append(f'<text x="{label_w - 4:.1f}" y="{y + 4:.1f}" font-size="12" text-anchor="end">'
                    f'{escape(shown[i])}<title>{escape(tip)}</title></text>')
        if low is not None and high is not None:
            body.append(f'<line x1="{x_of(low):.1f}" y1="{y:.1f}" x2="{x_of(high):.1f}" y2="{y:.1f}" '
                        f'stroke="{colour}" stroke-width="2"/>')
        if value is not None:
            body.append(f'<circle cx="{x_of(value):.1f}" cy="{y:.1f}" r="4.5" fill="{colour}">'
                        f'<title>{escape(tip)}</title></circle>')
    desc = "; ".join(f"{label} {_pct(value)}" for label, value, _, _ in rows)
    return _frame(width, height, title, _("Dot plot, best first, with 95%% intervals: %(points)s") % {"points": desc}, body)
