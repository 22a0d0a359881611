"""The heatmap: a cell per value with its number, an accessible title and description, undefined cells marked."""
from __future__ import annotations

import re

from evaluation.results.charts import Point, text_width
from evaluation.results.heatmap import SCALE, heatmap


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
    assert re.search(rf'data-value="0.5"><rect x="\d+" y="\d+" width="56" height="22" fill="{SCALE[0]}"', svg)
    assert f'fill="{SCALE[-1]}"/><text' in svg


def test_the_frame_makes_room_for_long_labels():
    """Row labels right-aligned at the label column's edge and column labels slanted up-right: the svg is
    sized from their lengths, so neither runs out of it (the browser tests measure the drawn boxes)."""
    row = "gamma / arguments-15 (synthetic)"
    svg = str(heatmap([row, "b"], ["HYP INTERSECTION", "REF BARYCENTER"], [[Point(0.5), Point(0.6)]] * 2,
                      title="t", desc="d"))
    width, height = map(float, re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg).groups())
    label_x = float(re.search(r'<text x="([\d.]+)" y="[\d.]+" font-size="12" text-anchor="end">gamma', svg).group(1))
    assert label_x >= text_width(row)  # the whole label fits left of its anchor
    head_y = float(re.search(r'translate\([\d.]+,([\d.]+)\) rotate\(-40\)', svg).group(1))
    assert head_y >= 0.643 * text_width("HYP INTERSECTION", 11)  # the slanted label's rise fits above
    last_x = float(re.findall(r'translate\(([\d.]+),[\d.]+\) rotate\(-40\)', svg)[-1])
    assert width >= last_x + 0.766 * text_width("REF BARYCENTER", 11)
