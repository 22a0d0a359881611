"""Plain-text tables: per-genre x per-type F for one way, and the 15-way relation table."""
from __future__ import annotations

from .ranges import MATCHES, MODES


def _fmt(f) -> str:
    return "   -  " if f is None else f"{100 * f:6.2f}"


def genre_type_table(result: dict, layer: str, mode: str | None, match: str) -> str:
    """F (in %) per genre (rows) and type (columns) for one way, with the pooled ALL column and macro."""
    cells = [c for c in result["cells"] if c["layer"] == layer and c["mode"] == mode and c["match"] == match]
    if not cells:
        return f"{layer}: not submitted\n"
    macro = {c["genre"]: c for c in result["macro"]
             if c["layer"] == layer and c["mode"] == mode and c["match"] == match}
    genres, types = [], []
    for c in cells:
        if c["genre"] not in genres:
            genres.append(c["genre"])
        if c["type"] not in types:
            types.append(c["type"])
    by = {(c["genre"], c["type"]): c for c in cells}
    gw = max(10, *(len(g) for g in genres)) + 1
    cw = max(7, *(len(t) + 1 for t in types))
    title = f"{layer} F (%)" + (f", mode {mode}" if mode else "") + f", {match}"
    head = "genre".ljust(gw) + "".join(t.rjust(cw) for t in types) + "macro".rjust(cw)
    lines = [title, head]
    for g in genres[1:] + genres[:1]:
        line = g.ljust(gw) + "".join(_fmt(by[(g, t)]["f"]).rjust(cw) for t in types)
        line += _fmt(macro.get(g, {}).get("f")).rjust(cw)
        lines.append(line)
    return "\n".join(lines) + "\n"


def ways_table(result: dict, genre: str = "ALL") -> str:
    """Pooled relation F (in %) for each mode (rows) and range function (columns), as the paper's figure 3."""
    cells = {(c["mode"], c["match"]): c for c in result["cells"]
             if c["layer"] == "relations" and c["genre"] == genre and c["type"] == "ALL"}
    if not cells:
        return "relations: not submitted\n"
    matches = [m for m in MATCHES if any((mo, m) in cells for mo in MODES)]
    modes = [mo for mo in MODES if any((mo, m) in cells for m in matches)]
    cw = max(len(m) for m in matches) + 2
    lines = ["relations F (%), all types pooled" + (f", genre {genre}" if genre != "ALL" else ""),
             "mode".ljust(8) + "".join(m.rjust(cw) for m in matches)]
    for mo in modes:
        line = mo.ljust(8)
        for m in matches:
            c = cells.get((mo, m))
            line += (_fmt(c["f"]) if c else "").rjust(cw)
        lines.append(line)
    cons = {c["match"]: c for c in result["cells"]
            if c["layer"] == "constituents" and c["genre"] == genre and c["type"] == "ALL"}
    if cons:
        lines.append("")
        lines.append("constituents F (%), all types pooled")
        lines.append(" " * 8 + "".join(m.rjust(cw) for m in matches if m in cons))
        lines.append(" " * 8 + "".join(_fmt(cons[m]["f"]).rjust(cw) for m in matches if m in cons))
    return "\n".join(lines) + "\n"


def _interval(c) -> str:
    ci = c.get("ci") if c else None
    return "" if not ci or ci[0] is None else f"{_fmt(c['f']).strip()} [{100 * ci[0]:.2f}, {100 * ci[1]:.2f}]"


def intervals_table(result: dict, genre: str = "ALL") -> str:
    """The pooled F of each way with its bootstrap interval (in %), or "" when none was computed."""
    params = result.get("parameters", {})
    cells = [c for c in result["cells"] if c["genre"] == genre and c["type"] == "ALL" and c.get("ci")]
    if not params.get("bootstrap") or not cells:
        return ""
    cw = max(len(_interval(c)) for c in cells) + 2
    level = round(100 * params.get("ci_level", 0.95))
    lines = [f"F (%) with its {level}% bootstrap interval, all types pooled ({params['bootstrap']} resamples of "
             f"the sentences within each genre, seed {params.get('seed')})",
             "".ljust(14) + "".join(m.rjust(cw) for m in MATCHES)]
    by = {(c["layer"], c["mode"], c["match"]): c for c in cells}
    for layer, mode in [("constituents", None)] + [("relations", mo) for mo in MODES]:
        if any((layer, mode, m) in by for m in MATCHES):
            lines.append((mode or "constituents").ljust(14)
                         + "".join(_interval(by.get((layer, mode, m))).rjust(cw) for m in MATCHES))
    return "\n".join(lines) + "\n"
