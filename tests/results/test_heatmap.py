"""The heatmap: a cell per value with its number, an accessible title and description, undefined cells marked."""
from __future__ import annotations

from evaluation.charts import Point
from evaluation.heatmap import SCALE, heatmap


def test_cells_numbers_colours_and_titles():
    svg = str(heatmap(["run A", "run B"], ["EQUAL", "FUZZY"],
                      [[Point(0.5, 0.45, 0.55), Point(None)], [Point(0.9), Point(0.7)]],
                      title="Pooled F", desc="two runs, two ways"))
    assert "<title id=" in svg and "<desc id=" in svg and 'aria-labelledby="' in svg
    assert svg.count('class="cell"') == 4
    # numbers written in the cells, as percentages with one decimal; the undefined one as "–"
    for text in (">50.0<", ">90.0<", ">70.0<", ">–<"):
        assert text in svg
    assert "run A — EQUAL: F = 50.0% (95% CI 45.0%–55.0%)" in svg
    # the scale spans the values shown: the lowest (0.5) darkest, the highest (0.9) lightest
    assert f'data-value="0.5"><rect x="200" y="64" width="56" height="22" fill="{SCALE[0]}"' in svg
    assert f'fill="{SCALE[-1]}"/><text' in svg
