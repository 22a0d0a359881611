"""Outside the kind packages nobody asks which kind a campaign is: they call the kind's contract.

A kind is reached through :class:`evaluation.kinds.contract.Kind` (every hook has a documented default), so
code outside ``evaluation/kinds/`` neither compares a campaign's kind with a kind name nor probes a kind
object for an optional method (``hasattr``, or ``getattr`` with a default). Both are the same question
("is this EASY?") and both mean a new kind has to edit the house.

``python tests/test_kind_contract.py`` lists what the scan finds (one line per place).
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("annotations", "campaign", "evaluation", "config")
KIND_PACKAGES = "evaluation/kinds/"
# The demo builder names the kind of each campaign it creates (a value, never a question).
NAMING_ALLOWED = ("campaign/demo_kinds.py", "campaign/models.py")


def kind_names() -> set[str]:
    """The registered kinds' names, read from the kind classes (``name = "..."``) without importing Django."""
    names = set()
    for f in (REPO / KIND_PACKAGES).rglob("*.py"):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    if (isinstance(stmt, ast.Assign) and [getattr(t, "id", None) for t in stmt.targets] == ["name"]
                            and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)
                            and stmt.value.value):
                        names.add(stmt.value.value)
    return names


def _mentions_kind(node: ast.AST) -> bool:
    """``kind``, ``campaign.kind``, ``campaign_kind``, ``kinds.for_campaign(c)``...: an expression about a kind."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and "kind" in sub.id.lower():
            return True
        if isinstance(sub, ast.Attribute) and "kind" in sub.attr.lower():
            return True
    return False


def _names_a_kind(node: ast.AST, names: set[str]) -> bool:
    if isinstance(node, ast.Constant) and node.value in names:
        return True
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "CampaignKind":
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_a_kind(e, names) for e in node.elts)
    return False


def python_findings(path: Path, names: set[str]) -> list[str]:
    rel = str(path.relative_to(REPO))
    out, inside = [], set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_names_a_kind(s, names) for s in sides) and any(_mentions_kind(s) for s in sides
                                                                  if not _names_a_kind(s, names)):
                out.append(f"{rel}:{node.lineno}: compares a kind: {ast.unparse(node)}")
                inside |= {id(sub) for sub in ast.walk(node)}  # reported once, as the comparison
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
            probe = node.func.id == "hasattr" or (node.func.id == "getattr" and len(node.args) == 3)
            if probe and _mentions_kind(node.args[0]):
                out.append(f"{rel}:{node.lineno}: probes a kind: {ast.unparse(node)}")
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "CampaignKind"
              and node.attr.isupper() and rel not in NAMING_ALLOWED and id(node) not in inside):
            out.append(f"{rel}:{node.lineno}: names a kind: {ast.unparse(node)}")
    return sorted(out, key=lambda s: (int(s.split(":")[1]), s))


TEMPLATE_CHECK = re.compile(r"\bkind(?:\.name)?\s*(?:==|!=)|(?:==|!=)\s*\S*\bkind\b")


def template_findings(path: Path) -> list[str]:
    rel = str(path.relative_to(REPO))
    return [f"{rel}:{n}: compares a kind: {line.strip()}"
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if "{%" in line and TEMPLATE_CHECK.search(line)]


def findings() -> list[str]:
    names = kind_names()
    out = []
    for package in PACKAGES:
        for f in sorted((REPO / package).rglob("*.py")):
            rel = str(f.relative_to(REPO))
            if rel.startswith(KIND_PACKAGES) or "migrations" in f.parts:
                continue
            out += python_findings(f, names)
    for f in sorted((REPO / "templates").rglob("*.html")):
        if "/kinds/" in str(f.relative_to(REPO)):  # a kind's own templates
            continue
        out += template_findings(f)
    return out


def test_no_kind_checks_outside_the_kind_packages():
    assert findings() == []


def test_the_scan_finds_what_it_is_for(tmp_path, monkeypatch):
    """The scan is not blind: each form of the question is caught, and ordinary uses of the word are not."""
    names = {"easy", "dependency"}
    code = tmp_path / "campaign" / "x.py"
    code.parent.mkdir()
    code.write_text(
        "def f(campaign, kind, run, rule):\n"
        "    a = campaign.kind == 'easy'\n"                             # 2: compares
        "    b = campaign.kind != CampaignKind.DEPENDENCY\n"           # 3: compares
        "    c = hasattr(kind, 'run_parameters')\n"                    # 4: probes
        "    d = getattr(kinds.for_campaign(campaign), 'x', False)\n"  # 5: probes
        "    e = CampaignKind.EASY\n"                                   # 6: names
        "    g = rule.kind == 'label'\n"                                # not a campaign kind
        "    h = getattr(run, 'track', '')\n"                           # not a kind object
        "    i = kind.parameters(campaign)\n",                          # the contract
        encoding="utf-8")
    monkeypatch.setattr("tests.test_kind_contract.REPO", tmp_path)
    found = python_findings(code, names)
    assert [int(f.split(":")[1]) for f in found] == [2, 3, 4, 5, 6]
    page = tmp_path / "page.html"
    page.write_text('{% if kind == "easy" %}x{% endif %}\n{% if campaign.kind != "x" %}{% endif %}\n'
                    "<p>kind == words in text</p>\n", encoding="utf-8")
    assert [int(f.split(":")[1]) for f in template_findings(page)] == [1, 2]


if __name__ == "__main__":
    found = findings()
    print("\n".join(found))
    print(f"{len(found)} kind checks and probes outside {KIND_PACKAGES}")
