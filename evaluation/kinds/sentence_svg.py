"""One sentence drawn as server-side SVG, gold and run together, for the analysis explorer (issue 38).

Three drawings, each a self-contained ``<svg>`` with a ``<title>`` and ``<desc>`` (as the results charts,
:mod:`evaluation.results.charts`), every mark with a ``<title>`` tooltip, its width computed from its text so
that no label runs out of it (a wide sentence scrolls inside its container, ``.chart-wrap``):

* :func:`dependency_svg`: the words on one line, the gold arcs above, the run's below; a run arc with the wrong
  head is red, with the right head and a wrong relation orange, a gold arc the run missed dashed red;
* :func:`easy_svg`: EASY groups as brackets over the forms (gold above, run below) and relations as arcs
  between their arguments; a gold group or relation the run does not have is dashed red (missing), a run's the
  gold does not have red (wrong);
* :func:`trees_svg`: the gold tree and the run's side by side, each bracket (phrasal node) the other tree does
  not have red.

Every drawn item carries ``data-state``: ``gold`` (a gold item the run has), ``missing`` (one it does not),
``right``, ``label`` (right head, wrong relation) or ``wrong`` (a run's item); a tree's differing brackets
``missing`` (gold) or ``wrong`` (run).

Plain data in, a string out: what each side holds is given as tuples, the captions (translated by the caller)
in ``labels``; nothing here reads a file or a model.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from xml.sax.saxutils import escape

from evaluation.results.charts import text_width

WORD_SIZE = 13
LABEL_SIZE = 11
RIGHT, WRONG, LABEL, MISSING, PLAIN = "#1d6b35", "#D55E00", "#B06A00", "#D55E00", "#555"
LEVEL = 18  # px per arc level


@dataclass(frozen=True)
class Arc:
    head: int  # 1-based, 0 for the root
    dependent: int
    label: str


def _attr(value) -> str:
    return escape(str(value), {'"': "&quot;"})


def _text(x, y, text, size=LABEL_SIZE, colour="#222", anchor="middle", weight="normal", tooltip="",
          state: str = "") -> str:
    tip = f"<title>{_attr(tooltip)}</title>" if tooltip else ""
    marked = f' data-state="{state}"' if state else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" fill="{colour}" text-anchor="{anchor}" '
            f'font-weight="{weight}"{marked}>{tip}{_attr(text)}</text>')


def _frame(width: float, height: float, title: str, desc: str, body: list[str]) -> str:
    n = abs(hash((title, desc, width, height))) % 10**8
    return (f'<svg class="chart sentence-view" xmlns="http://www.w3.org/2000/svg" role="img" width="{width:.0f}" '
            f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" aria-labelledby="sv{n}t sv{n}d" '
            f'font-family="system-ui, sans-serif"><title id="sv{n}t">{_attr(title)}</title>'
            f'<desc id="sv{n}d">{_attr(desc)}</desc>' + "".join(body) + "</svg>")


def _positions(words: list[str], margin: float, extra: list[float] | None = None) -> tuple[list[float], float]:
    """Centre x of each word (``extra``: a wider slot for a word, e.g. its group's label) and the line's end."""
    xs, x = [], margin
    for i, word in enumerate(words):
        w = max(text_width(word, WORD_SIZE) + 14, 34, (extra[i] if extra else 0))
        xs.append(x + w / 2)
        x += w
    return xs, x


def _levels(spans: list[tuple[int, int]]) -> list[int]:
    """Each span's level: one above the highest span it holds (shorter spans lower), so that arcs nest."""
    order = sorted(range(len(spans)), key=lambda k: spans[k][1] - spans[k][0])
    level = [1] * len(spans)
    for pos, k in enumerate(order):
        a, b = spans[k]
        inside = [level[j] for j in order[:pos] if spans[j][0] >= a and spans[j][1] <= b and spans[j] != (a, b)]
        same = [level[j] for j in order[:pos] if spans[j] == (a, b)]
        level[k] = max(inside + same, default=0) + 1
    return level


def _state(colour: str, dashed: bool) -> str:
    """What a mark says, as a ``data-state`` attribute: the tests and the reader's tools find the marked items."""
    if dashed:
        return "missing"
    return {WRONG: "wrong", LABEL: "label", RIGHT: "right"}.get(colour, "gold")


def _arc(x1, x2, y, height, up: bool, colour, dashed=False, tooltip="", width=1.4) -> str:
    sign = -1 if up else 1
    top = y + sign * height
    dash = ' stroke-dasharray="4 3"' if dashed else ""
    tip = f"<title>{_attr(tooltip)}</title>" if tooltip else ""
    return (f'<path d="M{x1:.1f},{y:.1f} C{x1:.1f},{top:.1f} {x2:.1f},{top:.1f} {x2:.1f},{y:.1f}" fill="none" '
            f'stroke="{colour}" stroke-width="{width}"{dash} data-state="{_state(colour, dashed)}">{tip}</path>'
            f'<circle cx="{x2:.1f}" cy="{y:.1f}" r="2.5" fill="{colour}"/>')


def _without(labels: dict, key: str) -> dict:
    return {k: v for k, v in labels.items() if k != key}


def _legend(labels: dict, y: float) -> str:
    items = [(PLAIN, False, labels.get("gold_arc", "gold")), (MISSING, True, labels.get("missing", "missing")),
             (RIGHT, False, labels.get("right", "right")), (WRONG, False, labels.get("wrong", "wrong"))]
    if "label_only" in labels:
        items.insert(3, (LABEL, False, labels["label_only"]))
    out, x = [], 6.0
    for colour, dashed, text in items:
        dash = ' stroke-dasharray="4 3"' if dashed else ""
        out.append(f'<line x1="{x:.1f}" y1="{y - 4:.1f}" x2="{x + 18:.1f}" y2="{y - 4:.1f}" stroke="{colour}" '
                   f'stroke-width="2"{dash}/>')
        out.append(_text(x + 22, y, text, anchor="start"))
        x += 22 + text_width(text, LABEL_SIZE) + 14
    return "".join(out), x


# -- dependencies ---------------------------------------------------------------------------------

def dependency_svg(words: list[str], gold: list[Arc], run: list[Arc], labels: dict) -> str:
    """Gold arcs above the words, the run's below (see the module)."""
    label_room = max([text_width(a.label, LABEL_SIZE) for a in gold + run] + [30])
    margin = label_room / 2 + 6
    xs, end = _positions(words, margin)
    run_by_dep = {a.dependent: a for a in run}
    gold_by_dep = {a.dependent: a for a in gold}

    def span(a: Arc) -> tuple[int, int]:
        return (0, 0) if a.head == 0 else (min(a.head, a.dependent), max(a.head, a.dependent))

    gold_levels = _levels([span(a) for a in gold])
    run_levels = _levels([span(a) for a in run])
    gold_h = (max(gold_levels, default=0) + 1) * LEVEL + 14
    run_h = (max(run_levels, default=0) + 1) * LEVEL + 14
    legend, legend_end = _legend(labels, 14)
    top = 24 + gold_h
    base_gold, base_run = top, top + WORD_SIZE + 10
    body = [legend, _text(4, 38, labels.get("gold", "gold"), anchor="start", weight="600"),
            _text(4, base_run + run_h - 4, labels.get("run", "run"), anchor="start", weight="600")]
    for a, level in zip(gold, gold_levels):
        theirs = run_by_dep.get(a.dependent)
        missed = theirs is None or theirs.head != a.head
        colour = MISSING if missed else PLAIN
        tip = f"{labels.get('gold', 'gold')}: {words[a.dependent - 1]} ← {a.label}" + (
            f" ({labels.get('missing', 'missing')})" if missed else "")
        body.append(_dep_arc(a, level, xs, base_gold - 4, True, colour, missed, tip))
    for a, level in zip(run, run_levels):
        theirs = gold_by_dep.get(a.dependent)
        if theirs is None or theirs.head != a.head:
            colour, state = WRONG, labels.get("wrong", "wrong")
        elif theirs.label != a.label:
            colour, state = LABEL, labels.get("label_only", "wrong relation")
        else:
            colour, state = RIGHT, labels.get("right", "right")
        tip = f"{labels.get('run', 'run')}: {words[a.dependent - 1] if a.dependent <= len(words) else a.dependent}" \
              f" ← {a.label} ({state})"
        body.append(_dep_arc(a, level, xs, base_run + 4, False, colour, False, tip))
    for x, word in zip(xs, words):
        body.append(_text(x, base_gold + WORD_SIZE, word, size=WORD_SIZE))
    width = max(end + margin, legend_end + 4, 60 + text_width(labels.get("gold", "gold"), LABEL_SIZE))
    height = base_run + run_h + 4
    return _frame(width, height, labels.get("title", ""), labels.get("desc", ""), body)


def _dep_arc(a: Arc, level: int, xs: list[float], y: float, up: bool, colour: str, dashed: bool, tip: str) -> str:
    if not 0 < a.dependent <= len(xs) or not 0 <= a.head <= len(xs):
        return ""
    x2 = xs[a.dependent - 1]
    h = level * LEVEL
    sign = -1 if up else 1
    label_y = y + sign * (h * 0.75 + 4) + (0 if up else LABEL_SIZE - 2)
    if a.head == 0:
        dash = ' stroke-dasharray="4 3"' if dashed else ""
        line = (f'<line x1="{x2:.1f}" y1="{y + sign * h:.1f}" x2="{x2:.1f}" y2="{y:.1f}" stroke="{colour}" '
                f'stroke-width="1.4"{dash} data-state="{_state(colour, dashed)}"><title>{_attr(tip)}</title></line>'
                f'<circle cx="{x2:.1f}" cy="{y:.1f}" r="2.5" fill="{colour}"/>')
        return line + _text(x2, y + sign * h + (-2 if up else LABEL_SIZE), a.label, colour=colour, tooltip=tip)
    x1 = xs[a.head - 1]
    return _arc(x1, x2, y, h, up, colour, dashed, tip) + _text((x1 + x2) / 2, label_y, a.label, colour=colour,
                                                              tooltip=tip)


# -- EASY -------------------------------------------------------------------------------------------

Target = tuple[int, int] | None  # a group's or a form's range of forms [start, end), or the null argument


def easy_svg(forms: list[str], gold_groups: list[tuple[int, int, str]], run_groups: list[tuple[int, int, str]],
             gold_relations: list[tuple[str, tuple[Target, ...]]],
             run_relations: list[tuple[str, tuple[Target, ...]]], labels: dict) -> str:
    """Groups as brackets over the forms and relations as arcs between their first two arguments; gold above,
    the run's below (see the module). A relation is the run's right one when its type and argument ranges are
    the gold's, a group when its range and type are."""
    label_room = max([text_width(t, LABEL_SIZE) for t, _ in gold_relations + run_relations] + [30])
    margin = label_room / 2 + 6
    slot = [0.0] * len(forms)
    for start, end, kind in gold_groups + run_groups:  # a one-form group's label must fit over its form
        if end - start == 1 and 0 <= start < len(forms):
            slot[start] = max(slot[start], text_width(kind, LABEL_SIZE) + 10)
    xs, end_x = _positions(forms, margin, slot)
    half = [max(text_width(f, WORD_SIZE) + 14, 34, slot[i]) / 2 for i, f in enumerate(forms)]

    def centre(target: Target) -> float | None:
        if target is None or not 0 <= target[0] < target[1] <= len(forms):
            return None
        return (xs[target[0]] + xs[target[1] - 1]) / 2

    def spans(relations):
        out = []
        for _, args in relations:
            xs_ = [t for t in args[:2] if t is not None]
            out.append((min(t[0] for t in xs_), max(t[1] for t in xs_)) if len(xs_) == 2 else (0, 0))
        return out

    gold_rel_levels, run_rel_levels = _levels(spans(gold_relations)), _levels(spans(run_relations))
    group_band = LABEL_SIZE + 14
    gold_h = (max(gold_rel_levels, default=0) + 1) * LEVEL + group_band + 8
    run_h = (max(run_rel_levels, default=0) + 1) * LEVEL + group_band + 8
    legend, legend_end = _legend(_without(labels, "label_only"), 14)  # no relation to get half right
    base = 24 + gold_h
    words_bottom = base + WORD_SIZE + 4
    body = [legend, _text(4, 38, labels.get("gold", "gold"), anchor="start", weight="600"),
            _text(4, words_bottom + run_h - 4, labels.get("run", "run"), anchor="start", weight="600")]
    gold_set, run_set = Counter(gold_groups), Counter(run_groups)
    gold_rel_set, run_rel_set = Counter(gold_relations), Counter(run_relations)

    def bracket(group, y, up, colour, dashed, tip):
        start, end, kind = group
        if not 0 <= start < end <= len(forms):
            return ""
        x1, x2 = xs[start] - half[start] + 3, xs[end - 1] + half[end - 1] - 3
        tick = 5 if up else -5
        dash = ' stroke-dasharray="4 3"' if dashed else ""
        path = (f'<path d="M{x1:.1f},{y + tick:.1f} L{x1:.1f},{y:.1f} L{x2:.1f},{y:.1f} L{x2:.1f},{y + tick:.1f}" '
                f'fill="none" stroke="{colour}" stroke-width="1.6"{dash} data-state="{_state(colour, dashed)}">'
                f'<title>{_attr(tip)}</title></path>')
        ty = y - 3 if up else y + LABEL_SIZE + 1
        return path + _text((x1 + x2) / 2, ty, kind, colour=colour, tooltip=tip)

    gold_bracket_y, run_bracket_y = base - WORD_SIZE - 6, words_bottom + 6
    for group in gold_groups:
        missed = run_set[group] == 0
        tip = f"{labels.get('gold', 'gold')}: {group[2]} " + " ".join(forms[group[0]:group[1]]) + (
            f" ({labels.get('missing', 'missing')})" if missed else "")
        body.append(bracket(group, gold_bracket_y, True, MISSING if missed else PLAIN, missed, tip))
    for group in run_groups:
        right = gold_set[group] > 0
        tip = f"{labels.get('run', 'run')}: {group[2]} " + " ".join(forms[group[0]:group[1]]) + \
              f" ({labels.get('right' if right else 'wrong', '')})"
        body.append(bracket(group, run_bracket_y, False, RIGHT if right else WRONG, False, tip))

    def relation(rel, level, y, up, colour, dashed, tip):
        kind, args = rel
        a, b = (centre(t) for t in (list(args) + [None, None])[:2])
        if a is None and b is None:
            return ""
        if a is None or b is None:  # a null argument: a short stub over the one that is there
            x = a if a is not None else b
            sign = -1 if up else 1
            return (f'<line x1="{x:.1f}" y1="{y:.1f}" x2="{x:.1f}" y2="{y + sign * LEVEL:.1f}" stroke="{colour}" '
                    f'stroke-width="1.4" data-state="{_state(colour, dashed)}"><title>{_attr(tip)}</title></line>'
                    + _text(x, y + sign * LEVEL + (-2 if up else LABEL_SIZE), kind, colour=colour, tooltip=tip))
        h = level * LEVEL
        label_y = y + (-1 if up else 1) * (h * 0.75 + 4) + (0 if up else LABEL_SIZE - 2)
        return _arc(a, b, y, h, up, colour, dashed, tip) + _text((a + b) / 2, label_y, kind, colour=colour,
                                                                tooltip=tip)

    def describe(rel):
        kind, args = rel
        return kind + " " + " / ".join("∅" if t is None else " ".join(forms[t[0]:t[1]]) for t in args)

    rel_gold_y, rel_run_y = gold_bracket_y - group_band, run_bracket_y + group_band
    for rel, level in zip(gold_relations, gold_rel_levels):
        missed = run_rel_set[rel] == 0
        tip = f"{labels.get('gold', 'gold')}: {describe(rel)}" + (f" ({labels.get('missing', 'missing')})" if missed else "")
        body.append(relation(rel, level, rel_gold_y, True, MISSING if missed else PLAIN, missed, tip))
    for rel, level in zip(run_relations, run_rel_levels):
        right = gold_rel_set[rel] > 0
        tip = f"{labels.get('run', 'run')}: {describe(rel)} ({labels.get('right' if right else 'wrong', '')})"
        body.append(relation(rel, level, rel_run_y, False, RIGHT if right else WRONG, False, tip))
    for x, form in zip(xs, forms):
        body.append(_text(x, base, form, size=WORD_SIZE))
    width = max(end_x + margin, legend_end + 4)
    return _frame(width, words_bottom + run_h + 4, labels.get("title", ""), labels.get("desc", ""), body)


# -- trees ------------------------------------------------------------------------------------------

def _tree_layout(tree, x0: float) -> tuple[list, list, float, int]:
    """Nodes ``(x, depth, label, span, is_word)`` and edges of ``tree`` (any object with ``label``, ``children``
    and ``word``), its leaves from ``x0``; returns also the right end and the depth."""
    nodes, edges = [], []
    position = [0]
    x = [x0]

    def walk(node, depth):  # iterative would be longer; trees past the recursion limit are refused at validation
        if node.word is not None:
            w = max(text_width(node.word, WORD_SIZE) + 12, 30)
            cx = x[0] + w / 2
            x[0] += w
            position[0] += 1
            nodes.append((cx, depth, node.word, (position[0] - 1, position[0]), True))
            return len(nodes) - 1
        start = position[0]
        kids = [walk(child, depth + 1) for child in node.children]
        if kids:
            cx = (nodes[kids[0]][0] + nodes[kids[-1]][0]) / 2
        else:
            cx = x[0] + 15
            x[0] += 30
        nodes.append((cx, depth, node.label, (start, position[0]), False))
        me = len(nodes) - 1
        edges.extend((me, k) for k in kids)
        return me

    walk(tree, 0)
    depth = max(n[1] for n in nodes) if nodes else 0
    return nodes, edges, x[0], depth


def _labels(tree) -> list[str]:
    out, stack = [], [tree]
    while stack:
        node = stack.pop()
        if node.word is None:
            out.append(node.label)
            stack.extend(node.children)
    return out


def _brackets(nodes) -> Counter:
    return Counter((label, span) for _, _, label, span, word in nodes if not word and span[1] - span[0] > 1)


def trees_svg(gold, run, labels: dict) -> str:
    """The gold tree (left) and the run's (right), each bracket of more than one word the other tree does not have
    red (see the module)."""
    row = 30
    pad = max([text_width(label, LABEL_SIZE) / 2 for tree in (gold, run) for label in _labels(tree)] + [10]) + 4
    gold_nodes, gold_edges, gold_end, gold_depth = _tree_layout(gold, pad)
    run_nodes, run_edges, run_end, run_depth = _tree_layout(run, gold_end + 2 * pad + 10)
    gold_b, run_b = _brackets(gold_nodes), _brackets(run_nodes)
    legend, legend_end = _legend(_without(labels, "label_only"), 14)  # no relation to get half right
    top = 50
    body = [legend, _text(8, 36, labels.get("gold", "gold"), anchor="start", weight="600"),
            _text(gold_end + 2 * pad + 10, 36, labels.get("run", "run"), anchor="start", weight="600")]
    depth = max(gold_depth, run_depth)
    for nodes, edges, other, side in ((gold_nodes, gold_edges, run_b, "gold"), (run_nodes, run_edges, gold_b, "run")):
        leaf_y = top + depth * row

        def y_of(n):
            return leaf_y if n[4] else top + n[1] * row

        for parent, child in edges:
            p, c = nodes[parent], nodes[child]
            body.append(f'<line x1="{p[0]:.1f}" y1="{y_of(p) + 3:.1f}" x2="{c[0]:.1f}" y2="{y_of(c) - 12:.1f}" '
                        f'stroke="#999" stroke-width="1"/>')
        for n in nodes:
            x, _, label, span, word = n
            if word:
                body.append(_text(x, y_of(n), label, size=WORD_SIZE))
                continue
            differs = span[1] - span[0] > 1 and other[(label, span)] == 0
            if differs:
                state = labels.get("missing", "missing") if side == "gold" else labels.get("wrong", "wrong")
                colour = MISSING if side == "gold" else WRONG
            else:
                state, colour = "", PLAIN
            tip = f"{labels.get(side, side)}: {label} [{span[0] + 1}–{span[1]}]" + (f" ({state})" if state else "")
            body.append(_text(x, y_of(n), label or "∅", colour=colour, weight="700" if differs else "normal",
                              tooltip=tip, state=("missing" if side == "gold" else "wrong") if differs else ""))
    width = max(run_end + pad, legend_end + 4)
    return _frame(width, top + depth * row + 12, labels.get("title", ""), labels.get("desc", ""), body)
