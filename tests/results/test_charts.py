"""Server-side SVG charts: well-formed, accessible, one mark per value."""
from __future__ import annotations

from lxml import etree

from evaluation.results import charts

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str):
    return etree.fromstring(svg.encode())


def test_line_chart_has_one_point_per_value_with_exact_tooltips():
    cats = ["HYP EQUAL", "HYP FUZZY", "REF EQUAL"]
    series = [
        charts.Series("A / run-1", [charts.Point(0.5, 0.45, 0.55), charts.Point(0.61), charts.Point(0.7)]),
        charts.Series("B <&> run", [charts.Point(0.25), charts.Point(None), charts.Point(1.0, 0.98, 1.0)]),
    ]
    root = parse(charts.line_chart(cats, series, title="Pooled F", x_label="Way", desc="two runs"))
    assert root.tag == SVG + "svg" and root.get("role") == "img"
    labelled = root.get("aria-labelledby").split()
    assert root.find(SVG + "title").text == "Pooled F" and root.find(SVG + "title").get("id") == labelled[0]
    assert root.find(SVG + "desc").text == "two runs"
    groups = root.findall(f".//{SVG}g[@class='series']")
    assert [g.get("data-series") for g in groups] == ["A / run-1", "B <&> run"]
    points = [[p for p in g.findall(f"{SVG}g[@class='point']")] for g in groups]
    assert [len(p) for p in points] == [3, 2]  # a missing value draws nothing
    assert [float(p.get("data-value")) for p in points[0]] == [0.5, 0.61, 0.7]
    tip = points[0][0].find(SVG + "title").text
    assert "A / run-1" in tip and "HYP EQUAL" in tip and "50.0%" in tip and "45.0%–55.0%" in tip
    assert len(points[0][0].findall(SVG + "line")) == 1 and not points[0][1].findall(SVG + "line")
    texts = [t.text for t in root.iter(SVG + "text")]
    assert "Way" in texts and "F-measure (%)" in texts and all(c in texts for c in cats)
    # the gap splits the second series' line
    assert len(groups[1].findall(SVG + "polyline")) == 0 and len(groups[0].findall(SVG + "polyline")) == 1


def test_line_chart_places_higher_values_higher():
    series = [charts.Series("r", [charts.Point(0.2), charts.Point(0.9)])]
    root = parse(charts.line_chart(["a", "b"], series, title="t", x_label="x"))
    ys = [float(p.find(SVG + "circle").get("cy")) for p in root.iter(SVG + "g") if p.get("class") == "point"]
    assert ys[0] > ys[1]  # SVG y grows downwards


def test_bar_chart_one_bar_per_value_and_heights_proportional():
    root = parse(charts.bar_chart(["g1", "g2", "g3"], [charts.Point(0.5), charts.Point(None), charts.Point(1.0)],
                                  title="Per genre", x_label="Genre"))
    bars = [g for g in root.iter(SVG + "g") if g.get("class") == "bar"]
    assert len(bars) == 2
    heights = [float(b.find(SVG + "rect").get("height")) for b in bars]
    assert abs(heights[1] - 2 * heights[0]) < 0.2
    assert "Per genre" in bars[0].find(SVG + "title").text


def test_many_series_get_distinct_styles():
    series = [charts.Series(f"run {i}", [charts.Point(i / 40)]) for i in range(20)]
    svg = str(charts.line_chart(["only"], series, title="t", x_label="x"))
    root = parse(svg)
    styles = set()
    for g in root.iter(SVG + "g"):
        if g.get("class") == "point":
            mark = g[-2]
            styles.add((etree.QName(mark).localname, mark.get("fill")))
    assert len(styles) == 20


def test_the_dot_plot_never_cuts_two_run_names_to_the_same_label():
    """spaCy's sm and md runs both read "B / spaCy fr_core_…" once cut: cut in the middle, they stay apart."""
    import re

    from evaluation.results.charts import text_width
    from evaluation.results.ranking_chart import dot_plot

    names = ["B / spaCy fr_core_news_md", "B / spaCy fr_core_news_sm", "A / gold copy"]
    svg = str(dot_plot([(n, 0.8 - k / 100, None, None) for k, n in enumerate(names)], title="LAS"))
    labels = re.findall(r'text-anchor="end">([^<]*)<title>', svg)
    assert len(labels) == 3 and len(set(labels)) == 3, labels
    assert labels[0].endswith("md") and labels[1].endswith("sm") and labels[2] == "A / gold copy"
    assert all(text_width(label) <= 0.42 * 350 for label in labels)
    # the whole names stay in the tooltips
    assert all(f"<title>{n}: " in svg for n in names)
