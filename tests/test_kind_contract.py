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
# The pure engines, formats and command line never see a campaign (tests/test_import_directions.py keeps Django
# out of them): their "kind" is a file format chosen on the command line (``combine --kind easy``).
PURE = ["parseval/annotations/easy", "parseval/annotations/trees", "parseval/annotations/conllu.py", "parseval/annotations/errors.py",
        "parseval/annotations/names.py", "parseval/evaluation/easy", "parseval/evaluation/trees", "parseval/evaluation/deps", "parseval/evaluation/metrics",
        "parseval/evaluation/cli", "parseval/evaluation/consensus", "parseval/evaluation/stats.py", "parseval/evaluation/signature.py",
        "parseval/evaluation/version.py", "parseval/__main__.py", "parseval/evaluation/paired.py", "parseval/evaluation/figure_sets.py",
        "parseval/evaluation/bundle_format.py", "parseval/evaluation/sentence_rescore.py"]
# The demo builder names the kind of each campaign it creates (a value, never a question).
NAMING_ALLOWED = ("campaign/demo_kinds.py", "campaign/demo_open.py", "campaign/models.py")


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
            if rel.startswith(KIND_PACKAGES) or "migrations" in f.parts or any(
                    rel == p or rel.startswith(p + "/") for p in PURE):
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


# -- the contract itself: a new kind needs no edit outside its package -----------------------------------

GOLD = """\
# sent_id = a1
1\tIl\til\tPRON\t_\t_\t2\tnsubj\t_\t_
2\tdort\tdormir\tVERB\t_\t_\t0\troot\t_\t_
3\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_

# sent_id = a2
1\tElle\telle\tPRON\t_\t_\t2\tnsubj\t_\t_
2\tlit\tlire\tVERB\t_\t_\t0\troot\t_\t_
3\tun\tun\tDET\t_\t_\t4\tdet\t_\t_
4\tlivre\tlivre\tNOUN\t_\t_\t2\tobj\t_\t_

"""


def _toy_kind():
    """The worked example of docs/architecture.md, on an existing metric: a sentence kind and nothing else."""
    from parseval.annotations.conllu import parse_conllu, write_conllu
    from parseval.evaluation import metrics
    from evaluation.kinds.sentence import Parsed, SentenceKind, bootstrap_parameters

    class ToyKind(SentenceKind):
        name = "toy"
        label = "Toy dependencies"
        suffixes = (".conllu",)
        file_label = "CoNLL-U file"
        file_help = "One CoNLL-U file per corpus document."
        option_keys = ("bootstrap", "seed")

        def read(self, path, display):
            sentences = parse_conllu(Path(path).read_text(encoding="utf-8"), file=display)
            return [Parsed(s, [w.form for w in s.words], s.sent_id or str(i), s.line)
                    for i, s in enumerate(sentences, 1)]

        def write(self, units):
            return write_conllu(units).encode("utf-8")

        def parameters(self, campaign, run=None):
            return {"metrics": ["dependency"], "punct": "upos", "pos": "upos",
                    **bootstrap_parameters(campaign.metrics or {})}

        def score_metric(self, metric, gold, test, params):
            return metrics.get(metric).score_with_rows(gold, test, punct=params["punct"], pos=params["pos"])

    return ToyKind()


def test_a_kind_must_give_every_abstract_hook():
    from evaluation.kinds.contract import Kind

    class Half(Kind):
        name = "half"

        def parameters(self, campaign, run=None):
            return {}

    try:
        Half()
    except TypeError as exc:
        assert "score_run_files" in str(exc) and "import_corpus" in str(exc)
    else:
        raise AssertionError("an incomplete kind was instantiated")


def test_the_defaults_are_the_contracts():
    import pytest
    from django.http import Http404

    toy = _toy_kind()
    assert (toy.tracks(None), toy.all_tracks(), toy.track_note("x"), toy.run_formats_label(None)) == ({}, {}, "", "")
    assert toy.file_help_for(None) == toy.file_help and toy.run_suffixes(None) == (".conllu",)
    assert toy.has_diagnostics is False and toy.figure_help_template([]) == ""
    # no error lab, no corpus contents said, the upload page names a run file by the kind's file label
    assert toy.has_error_lab is False and toy.corpus_contents == "" and toy.run_file_label(None) == toy.file_label
    assert toy.figure_help_template(["x"]) == "results/_figure_help.html"
    with pytest.raises(Http404):
        toy.diagnostics_page(None, None)
    # A kind that says nothing of a consensus cannot combine: no track to combine, combine refuses.
    assert toy.consensus_track(None) is None
    with pytest.raises(NotImplementedError, match="cannot combine"):
        toy.combine([], [], None)


def test_a_registered_kind_is_a_campaign_kind_and_scores_runs_without_any_other_edit(
        monkeypatch, storage, alice, tmp_path, django_capture_on_commit_callbacks):
    """Registered, the toy kind is a choice of Campaign.kind with no migration, imports its corpus, takes an
    upload and is scored by the worker's path: 2 sentences, 7 words, punctuation left out, every head right
    but "livre" attached to "Elle" instead of "lit": UAS = 5 of 6 scored words."""
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command

    from campaign import kinds
    from campaign.models import Campaign, RunStatus
    from campaign.services.runs import upload_run
    from evaluation.models import ResultCell
    from tests import factories

    toy = _toy_kind()
    monkeypatch.setitem(kinds._KINDS, toy.name, toy)
    assert ("toy", "Toy dependencies") in kinds.choices()
    Campaign._meta.get_field("kind").clean("toy", None)  # a valid choice
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)  # and no migration for it

    campaign = factories.make_campaign(kind="toy", metrics={"bootstrap": 10})
    gold = tmp_path / "doc.conllu"
    gold.write_text(GOLD, encoding="utf-8")
    summary = toy.import_corpus(campaign, [gold], genres={"doc": "news"})
    assert (summary.documents, summary.sentences) == (1, 2)
    team = factories.make_team(campaign, alice)
    run_text = GOLD.replace("4\tlivre\tlivre\tNOUN\t_\t_\t2\tobj", "4\tlivre\tlivre\tNOUN\t_\t_\t1\tobj")
    with django_capture_on_commit_callbacks(execute=True):
        run = upload_run(campaign=campaign, team=team, user=alice, name="toy run",
                         uploaded_file=SimpleUploadedFile("doc.conllu", run_text.encode("utf-8")))
    run.refresh_from_db()
    assert run.status == RunStatus.SCORED, (run.status, run.status_reason, run.validation_report["problems"])
    uas = ResultCell.objects.get(result__run=run, layer="deps-uas", genre="ALL")
    assert abs(uas.f - 5 / 6) < 1e-9


if __name__ == "__main__":
    found = findings()
    print("\n".join(found))
    print(f"{len(found)} kind checks and probes outside {KIND_PACKAGES}")
