"""The import graph's measures of docs/architecture.md: circles, arrows running back up, function-body imports.

    .venv/bin/python scripts/import_measures.py [-v] [PACKAGE ...]   (default: the project's five packages)

* **circles**: strongly connected sets of two or more modules (grimp's graph, imports inside functions
  and under ``TYPE_CHECKING`` included);
* **arrows running back up**: between rooms (a room is a package's module or subpackage,
  ``evaluation.results``; in the library one level deeper, ``parseval.evaluation.trees``), the arrows
  that point backwards in a greedy order of the rooms (Eades, Lin & Smyth's feedback-arc heuristic):
  how many imports would have to turn round for the rooms to stack in floors;
* **function-body imports**: ``import`` statements of a project package inside a function (``-v``
  lists them).
"""
from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

import grimp
import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("parseval", "annotations", "campaign", "evaluation", "config")


def room(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:3] if parts[0] == "parseval" and len(parts) > 2 else parts[:2])


def greedy_order(graph: nx.DiGraph) -> list[str]:
    """Eades, Lin & Smyth (1993): sinks to the end, sources to the front, else the node with the most
    out minus in arrows to the front."""
    g, front, back = graph.copy(), [], []
    while g:
        changed = True
        while changed:
            changed = False
            for n in [n for n in g if g.out_degree(n) == 0]:
                back.insert(0, n)
                g.remove_node(n)
                changed = True
            for n in [n for n in g if g.in_degree(n) == 0]:
                front.append(n)
                g.remove_node(n)
                changed = True
        if g:
            n = max(sorted(g), key=lambda n: g.out_degree(n) - g.in_degree(n))
            front.append(n)
            g.remove_node(n)
    return front + back


def function_body_imports(packages) -> list[str]:
    sites = []
    for top in packages:
        for path in sorted((ROOT / top).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for fn in ast.walk(tree):
                if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                for node in ast.walk(fn):
                    if isinstance(node, ast.Import):
                        names = [a.name for a in node.names]
                    elif isinstance(node, ast.ImportFrom):
                        names = ["." if node.level else (node.module or "")]
                    else:
                        continue
                    if any(n == "." or n.split(".")[0] in packages for n in names):
                        sites.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return sorted(set(sites))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("packages", nargs="*", default=list(PACKAGES))
    ap.add_argument("-v", action="store_true", help="list the circles, the arrows and the function-body imports")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    graph = grimp.build_graph(*args.packages, cache_dir=None)
    modules = nx.DiGraph()
    modules.add_nodes_from(graph.modules)
    for m in graph.modules:
        modules.add_edges_from((m, t) for t in graph.find_modules_directly_imported_by(m))
    circles = [sorted(c) for c in nx.strongly_connected_components(modules) if len(c) > 1]
    rooms = nx.DiGraph()
    rooms.add_edges_from((room(a), room(b)) for a, b in modules.edges if room(a) != room(b))
    order = {n: i for i, n in enumerate(greedy_order(rooms))}
    back = sorted((a, b) for a, b in rooms.edges if order[a] > order[b])
    sites = function_body_imports(args.packages)
    print(f"modules {modules.number_of_nodes()}, rooms {rooms.number_of_nodes()}")
    print(f"circles: {len(circles)}")
    print(f"arrows running back up: {len(back)}")
    print(f"function-body imports of project packages: {len(sites)}")
    if args.v:
        for c in circles:
            print("  circle:", " ".join(c))
        for a, b in back:
            print(f"  back up: {a} -> {b}")
        for s in sites:
            print("  in a function:", s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
