"""Server-side SVG charts: no JavaScript, no external library.

Each chart is a self-contained ``<svg>`` with a ``<title>`` and ``<desc>``
(announced by screen readers through ``aria-labelledby``), labelled axes and,
on every mark, a ``<title>`` tooltip holding the exact value, so the picture
never holds a figure the reader cannot get at. Values are fractions in [0, 1]
shown as percentages.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Sequence
from xml.sax.saxutils import escape

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from evaluation.results.text import decimal

# Colour-blind-safe palette (Okabe-Ito, then Tol's muted), cycled with marker shapes.
PALETTE = (
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#332288",
    "#882255", "#117733", "#999933", "#AA4499", "#44AA99", "#661100", "#6699CC",
)
MARKERS = ("circle", "square", "diamond", "triangle")

_ids = itertools.count(1)


@dataclass
class Point:
    value: float | None
    low: float | None = None
    high: float | None = None
    note: str = ""


@dataclass
class Series:
    name: str
    points: list[Point] = field(default_factory=list)


def text_width(text: str, size: float = 12) -> float:
    """A generous estimate of ``text``'s drawn width in px at ``size`` (a system sans-serif): the charts
    size their margins with it so that no label runs out of its ``<svg>``."""
    per_char = sum(8.8 if c.isupper() or c in "mw%@" else 4.2 if c in " .,;:'|!il()[]-/" else 7.5 for c in text)
    return per_char * size / 12


def fit_text(text: str, width: float, size: float = 12) -> str:
    """``text`` cut (with an ellipsis) to fit ``width`` px at ``size``."""
    if text_width(text, size) <= width:
        return text
    while text and text_width(text + "…", size) > width:
        text = text[:-1]
    return text + "…"


SEPARATORS = " _-/.:|"


def fit_labels(labels: list[str], width: float, size: float = 12) -> list[str]:
    """Each label cut to ``width`` as :func:`fit_text` does, unless two different labels would then read the
    same ("B / spaCy fr_core_news_sm" and "..._md" both "B / spaCy fr_core_…"): those are cut in the middle
    instead, keeping the end that tells them apart, from a word's start ("B / spaCy fr_core_ne…sm")."""
    cut = [fit_text(label, width, size) for label in labels]
    same: dict[str, set[str]] = {}
    for label, shown in zip(labels, cut):
        same.setdefault(shown, set()).add(label)
    for i, (label, shown) in enumerate(zip(labels, cut)):
        others = same[shown] - {label}
        if others:
            cut[i] = _fit_middle(label, others, width, size)
    return cut


def _fit_middle(text: str, others: set[str], width: float, size: float) -> str:
    """``text`` as its start, an ellipsis and the shortest end (from a word's start) that no label of ``others``
    ends with, cut to ``width``; the whole end when even that does not fit."""
    n = 1
    while n < len(text) and any(o.endswith(text[-n:]) for o in others):
        n += 1
    while n < len(text) and text[-n - 1] not in SEPARATORS:
        n += 1
    head, tail = text[:-n], text[-n:]
    while head and text_width(head + "…" + tail, size) > width:
        head = head[:-1]
    return (head + "…" + tail) if head else fit_text(tail, width, size)


def _attr(value) -> str:
    return escape(str(value), {'"': "&quot;"})


def _pct(value: float | None) -> str:
    return _("n/a") if value is None else f"{decimal(100 * value, 1)}%"


def _tooltip(series: str, category: str, point: Point, measure: str = "F") -> str:
    text = f"{series} — {category}: {measure} = {_pct(point.value)}"
    if point.low is not None and point.high is not None:
        text += " (" + _("95%% CI %(low)s–%(high)s") % {"low": _pct(point.low), "high": _pct(point.high)} + ")"
    if point.note:
        text += f"; {point.note}"
    return text


def _frame(width: int, height: int, title: str, desc: str, body: list[str]) -> SafeString:
    uid = next(_ids)
    return mark_safe(
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" '
        f'aria-labelledby="chart{uid}-title chart{uid}-desc">'
        f'<title id="chart{uid}-title">{escape(title)}</title>'
        f'<desc id="chart{uid}-desc">{escape(desc)}</desc>'
        + "".join(body)
        + "</svg>"
    )


def _y_axis(left: int, top: int, plot_h: int, plot_w: int, label: str, y_min: float, y_max: float) -> list[str]:
    out = []
    steps = 5
    for i in range(steps + 1):
        v = y_min + (y_max - y_min) * i / steps
        y = top + plot_h - plot_h * i / steps
        out.append(f'<line class="grid" x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#d9dee4"/>')
        out.append(f'<text class="tick" x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">{100 * v:.0f}</text>')
    out.append(
        f'<text class="axis-label" transform="translate(14 {top + plot_h / 2:.1f}) rotate(-90)" '
        f'text-anchor="middle" font-size="12">{escape(label)}</text>'
    )
    out.append(f'<line class="axis" x1="{left}" x2="{left}" y1="{top}" y2="{top + plot_h}" stroke="#5b6672"/>')
    return out


def _marker(shape: str, x: float, y: float, colour: str) -> str:
    if shape == "square":
        return f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" fill="{colour}"/>'
    if shape == "diamond":
        return f'<path d="M{x:.1f} {y - 5:.1f} L{x + 5:.1f} {y:.1f} L{x:.1f} {y + 5:.1f} L{x - 5:.1f} {y:.1f} Z" fill="{colour}"/>'
    if shape == "triangle":
        return f'<path d="M{x:.1f} {y - 5:.1f} L{x + 5:.1f} {y + 4:.1f} L{x - 5:.1f} {y + 4:.1f} Z" fill="{colour}"/>'
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}"/>'


def _scale(y_min: float, y_max: float, top: int, plot_h: int):
    span = (y_max - y_min) or 1.0

    def y_of(v: float) -> float:
        v = min(max(v, y_min), y_max)
        return top + plot_h - plot_h * (v - y_min) / span

    return y_of


def _legend(series: Sequence[Series], left: int, top: int, width: int) -> tuple[list[str], int]:
    """Legend entries in equal columns; returns the marks and the height used."""
    names = [s.name if len(s.name) <= 48 else s.name[:47] + "…" for s in series]
    col_w = 28 + 7.4 * max((len(n) for n in names), default=0)
    columns = max(1, int(width // col_w))
    out, row_h = [], 18
    for i, name in enumerate(names):
        x = left + (i % columns) * col_w
        y = top + (i // columns) * row_h
        colour, shape = PALETTE[i % len(PALETTE)], MARKERS[(i // len(PALETTE)) % len(MARKERS)]
        out.append(f'<g class="legend-item">{_marker(shape, x + 6, y - 4, colour)}'
                   f'<text x="{x + 16:.1f}" y="{y}" font-size="12">{escape(name)}</text></g>')
    rows = (len(names) + columns - 1) // columns
    return out, rows * row_h


def _tick_depth(categories: Sequence[str]) -> int:
    """Vertical room taken by the category labels, drawn at -40 degrees."""
    return int(14 + 0.64 * 6.6 * max((len(c) for c in categories), default=0))


def _tick_reach(categories: Sequence[str], step: float) -> int:
    """The left margin the first category's slanted label needs (it ends at its tick and runs down-left)."""
    return int(0.77 * 6.6 * len(categories[0]) - step / 2 + 6) if categories else 0


def line_chart(
    categories: Sequence[str],
    series: Sequence[Series],
    *,
    title: str,
    x_label: str,
    y_label: str = "F-measure (%)",
    y_min: float = 0.0,
    y_max: float = 1.0,
    desc: str = "",
    measure: str = "F",
) -> SafeString:
    """One point per (series, category), joined by a line, with interval whiskers.

    Missing values (``None``) leave a gap: a layer not submitted is not zero.
    """
    step = 46
    left, right, top = max(48, _tick_reach(categories, step)), 12, 12
    plot_w = max(320, step * len(categories))
    plot_h = 260
    width = left + plot_w + right
    body = _y_axis(left, top, plot_h, plot_w, y_label, y_min, y_max)
    y_of = _scale(y_min, y_max, top, plot_h)

    def x_of(i: int) -> float:
        return left + step / 2 + i * (plot_w - step) / max(1, len(categories) - 1) if len(categories) > 1 else left + plot_w / 2

    base = top + plot_h
    for i, cat in enumerate(categories):
        x = x_of(i)
        body.append(
            f'<text class="tick" font-size="11" text-anchor="end" '
            f'transform="translate({x:.1f} {base + 12}) rotate(-40)">{escape(cat)}</text>'
        )
    label_y = base + _tick_depth(categories) + 16
    body.append(f'<text class="axis-label" x="{left + plot_w / 2:.1f}" y="{label_y}" text-anchor="middle" font-size="12">{escape(x_label)}</text>')
    for si, s in enumerate(series):
        colour, shape = PALETTE[si % len(PALETTE)], MARKERS[(si // len(PALETTE)) % len(MARKERS)]
        group = [f'<g class="series" data-series="{_attr(s.name)}">']
        segment: list[str] = []
        for i, p in enumerate(s.points):
            if p.value is None:
                if len(segment) > 1:
                    group.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{" ".join(segment)}"/>')
                segment = []
                continue
            segment.append(f"{x_of(i):.1f},{y_of(p.value):.1f}")
        if len(segment) > 1:
            group.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{" ".join(segment)}"/>')
        for i, p in enumerate(s.points):
            if p.value is None:
                continue
            x, y = x_of(i), y_of(p.value)
            whisker = ""
            if p.low is not None and p.high is not None:
                whisker = (f'<line class="ci" x1="{x:.1f}" x2="{x:.1f}" y1="{y_of(p.low):.1f}" '
                           f'y2="{y_of(p.high):.1f}" stroke="{colour}" stroke-width="1"/>')
            group.append(
                f'<g class="point" data-value="{p.value!r}">{whisker}{_marker(shape, x, y, colour)}'
                f'<title>{escape(_tooltip(s.name, categories[i], p, measure))}</title></g>'
            )
        group.append("</g>")
        body.extend(group)
    legend_w = max(plot_w, 560)
    width = max(width, left + legend_w + right)
    legend, legend_h = _legend(series, left, label_y + 24, legend_w)
    body.extend(legend)
    height = label_y + 24 + legend_h
    return _frame(width, height, title, desc or _("%(series)s series over %(categories)s categories") % {
        "series": len(series), "categories": len(categories)}, body)


def bar_chart(
    categories: Sequence[str],
    points: Sequence[Point],
    *,
    title: str,
    x_label: str,
    y_label: str = "F-measure (%)",
    series_name: str = "",
    y_min: float = 0.0,
    y_max: float = 1.0,
    desc: str = "",
    measure: str = "F",
) -> SafeString:
    """One bar per category, with its interval; ``None`` draws no bar. ``measure`` names the value in tooltips."""
    step = 40
    left, right, top = max(48, _tick_reach(categories, step)), 12, 12
    plot_w = max(240, step * len(categories))
    plot_h = 220
    width = left + plot_w + right
    body = _y_axis(left, top, plot_h, plot_w, y_label, y_min, y_max)
    y_of = _scale(y_min, y_max, top, plot_h)
    base = top + plot_h
    slot = plot_w / max(1, len(categories))
    for i, (cat, p) in enumerate(zip(categories, points)):
        cx = left + slot * (i + 0.5)
        body.append(
            f'<text class="tick" font-size="11" text-anchor="end" '
            f'transform="translate({cx:.1f} {base + 12}) rotate(-40)">{escape(cat)}</text>'
        )
        if p.value is None:
            continue
        y = y_of(p.value)
        bw = slot * 0.6
        whisker = ""
        if p.low is not None and p.high is not None:
            whisker = (f'<line class="ci" x1="{cx:.1f}" x2="{cx:.1f}" y1="{y_of(p.low):.1f}" '
                       f'y2="{y_of(p.high):.1f}" stroke="#1d232a" stroke-width="1"/>')
        body.append(
            f'<g class="bar" data-value="{p.value!r}"><rect x="{cx - bw / 2:.1f}" y="{y:.1f}" width="{bw:.1f}" '
            f'height="{base - y:.1f}" fill="{PALETTE[0]}"/>{whisker}'
            f'<title>{escape(_tooltip(series_name or title, cat, p, measure))}</title></g>'
        )
    label_y = base + _tick_depth(categories) + 16
    body.append(f'<text class="axis-label" x="{left + plot_w / 2:.1f}" y="{label_y}" text-anchor="middle" font-size="12">{escape(x_label)}</text>')
    return _frame(width, label_y + 10, title, desc or _("%(count)s bars") % {"count": len(categories)}, body)
