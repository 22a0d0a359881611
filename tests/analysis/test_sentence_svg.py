"""The sentence drawings on small cases worked out by hand: what is marked, and every text inside its SVG."""
from __future__ import annotations

import re

from evaluation.kinds.sentence_svg import Arc, dependency_svg, easy_svg, trees_svg
from parseval.annotations.trees.penn import parse_penn

LABELS = {"gold": "gold", "run": "run", "missing": "missing", "right": "right", "wrong": "wrong",
          "label_only": "wrong relation", "title": "t", "desc": "d"}


def states(svg: str) -> list[str]:
    return re.findall(r'data-state="([a-z]+)"', svg)


def width(svg: str) -> float:
    return float(re.search(r'<svg[^>]* width="([0-9.]+)"', svg).group(1))


def texts_inside(svg: str) -> bool:
    """Every text's estimated extent (its anchor, its width at its size) inside the drawing's width."""
    from evaluation.results.charts import text_width

    w = width(svg)
    for x, size, anchor, body in re.findall(r'<text x="([0-9.-]+)" y="[0-9.-]+" font-size="([0-9]+)"[^>]*'
                                            r'text-anchor="(\w+)"[^>]*>(?:<title>[^<]*</title>)?([^<]*)</text>', svg):
        x, half = float(x), text_width(body, float(size)) / 2
        left, right = (x - half, x + half) if anchor == "middle" else (x, x + 2 * half)
        if left < 0 or right > w:
            return False
    return True


def test_dependency_arcs_marked():
    # Le chat dort: gold le <-det- chat <-nsubj- dort (root). The run: le on dort (wrong head), chat nsubj right,
    # dort root right. So above: det missed (dashed), nsubj and root kept; below: le wrong, chat and dort right.
    words = ["Le", "chat", "dort"]
    gold = [Arc(2, 1, "det"), Arc(3, 2, "nsubj"), Arc(0, 3, "root")]
    run = [Arc(3, 1, "det"), Arc(3, 2, "nsubj"), Arc(0, 3, "root")]
    svg = dependency_svg(words, gold, run, LABELS)
    assert states(svg) == ["missing", "gold", "gold", "wrong", "right", "right"]
    assert texts_inside(svg)
    # the same head with another relation: "label", not "wrong"
    assert "label" in states(dependency_svg(words, gold, [Arc(2, 1, "amod")] + run[1:], LABELS))


def test_easy_groups_and_relations_marked():
    # Forms: Il mange une pomme. Gold: GN [0,1), NV [1,2), GN [2,4); SUJ-V(GN0, NV1), COD-V(GN2, NV1).
    # The run: GN [0,1) right, NV [1,2) right, GN [3,4) wrong (gold has [2,4)); SUJ-V right, COD-V missing.
    forms = ["Il", "mange", "une", "pomme", "."]
    gold_groups = [(0, 1, "GN"), (1, 2, "NV"), (2, 4, "GN")]
    run_groups = [(0, 1, "GN"), (1, 2, "NV"), (3, 4, "GN")]
    gold_rel = [("SUJ-V", ((0, 1), (1, 2))), ("COD-V", ((2, 4), (1, 2)))]
    run_rel = [("SUJ-V", ((0, 1), (1, 2)))]
    svg = easy_svg(forms, gold_groups, run_groups, gold_rel, run_rel, LABELS)
    # gold groups: kept, kept, missed; run groups: right, right, wrong; gold relations: kept, missed; run: right
    assert states(svg) == ["gold", "gold", "missing", "right", "right", "wrong", "gold", "missing", "right"]
    assert texts_inside(svg)


def test_trees_side_by_side_with_differing_brackets():
    # Gold (S (NP Le chat) (VP dort)); run (S (NP Le) (VP chat dort)): S [1-3] in both; gold NP [1-2] missed;
    # run VP [2-3] wrong; one-word brackets (run NP, gold VP) are not compared (evalb counts them, the drawing
    # marks the brackets of two words or more).
    gold = parse_penn("(S (NP (D Le) (N chat)) (VP (V dort)))")[0]
    run = parse_penn("(S (NP (D Le)) (VP (N chat) (V dort)))")[0]
    svg = trees_svg(gold, run, LABELS)
    assert states(svg) == ["missing", "wrong"]
    assert texts_inside(svg)


def test_long_labels_stay_inside():
    words = ["a"] * 2
    svg = dependency_svg(words, [Arc(2, 1, "nsubj:outer:very-long-relation-name"), Arc(0, 2, "root")], [], LABELS)
    assert texts_inside(svg)
