"""Demo campaigns of the constituency and dependency kinds, for ``load_demo``.

* "French Sequoia trees (demo)": constituency trees of the Sequoia treebank
  (``DATA_DIR/sequoia-const``, LGPL-LR), the first sentences of its UD test split
  from each source, one document and one genre per source (news, Europarl,
  medical, Wikipedia); scored with evalb and leaf-ancestor. Runs are the gold
  damaged by the error lab's ``insert_errors`` (seeded), told the French
  Treebank's labels.
* "French UD (demo)": the first sentences of the Sequoia and GSD test files
  (genres sequoia and gsd); runs are the gold with heads re-attached to the root
  word at a given rate (seeded; never a cycle).

Besides the synthetic runs (which say so in their name and description and are
marked ``Run.synthetic``), the team "spaCy baseline" has real runs: spaCy's
French pipelines (:data:`campaign.demo_parses.REAL_MODELS`) on the gold tokens,
parsed once and cached (:mod:`campaign.demo_parses`); in the constituency demo
their dependency parses are converted to phrase structure
(:mod:`parseval.evaluation.deps.ud2tree`). Both read only the free data shipped in ``data/``.
"""
from __future__ import annotations

import random
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.files import File

from parseval.annotations.trees.detect import read_trees
from parseval.annotations.trees.escapes import escape_word, unescape_word
from parseval.annotations.trees.penn import write_penn
from parseval.evaluation.deps.errorlab import PRESETS, insert_errors
from parseval.evaluation.deps.ud2tree import TREE_CONVERTER_VERSION, ud_to_tree
from campaign import demo_parses, results
from campaign.kinds import get
from campaign.lifecycle import transition
from campaign.models import (
    Campaign, CampaignKind, CampaignState, Publication, Run, RunStatus, TeamAdmission, TeamFigures,
)
from campaign.services.runs import upload_run
from campaign.services.teams import create_team
from campaign.visibility import state_at_least
from config.celery import app

SYNTHETIC = "Synthetic demo run (not a parser): the gold with errors inserted on purpose. "
TREE_SLUG = "sequoia-constituency-demo"
DEP_SLUG = "ud-french-dependency-demo"
# sent_id prefix in sequoia-const/sent_ids.tsv -> document (= genre) code; trees per document.
TREE_SOURCES = {"annodis": "news", "Europar": "europarl", "emea": "medical", "frwiki": "wikipedia"}
TREES_PER_DOCUMENT = 50
# The whole Sequoia test file (456 sentences: the real runs' LAS is then the usual Sequoia test figure); GSD's first 120.
DEP_SLICES = {"sequoia": ("fr_sequoia-ud-test.conllu", 0), "gsd": ("fr_gsd-ud-test.conllu", 120)}
REAL_TEAM = ("spaCy baseline", "spacy")  # (team name, demo user) of the real parser runs in every demo campaign
REAL = "Real parser, not synthetic: "


@dataclass(frozen=True)
class TreeRecipe:
    name: str
    description: str
    errors: tuple[tuple[str, int], ...]  # (error type, insertions per document)
    seed: int


@dataclass(frozen=True)
class DepRecipe:
    name: str
    description: str
    rate: float
    seed: int


def french_labels():
    """The French Treebank's categories in the error lab's roles: the lab's ``ftb`` preset."""
    return PRESETS["ftb"]


TREE_TEAMS = [
    ("Alpha boundaries lab", "alpha", [
        TreeRecipe("attach (synthetic)", SYNTHETIC + "ATTACH I and II errors (PP and clause attachment).",
                   (("ATTACH I", 4), ("ATTACH II", 3)), 201),
        TreeRecipe("span (synthetic)", SYNTHETIC + "SPAN I, II and III errors (constituent extents).",
                   (("SPAN I", 3), ("SPAN II", 3), ("SPAN III", 3)), 202),
    ]),
    ("Beta typing group", "beta", [
        TreeRecipe("labels (synthetic)", SYNTHETIC + "LABEL I and II errors (wrong categories).",
                   (("LABEL I", 5), ("LABEL II", 5)), 203),
    ]),
]
DEP_TEAMS = [
    ("Alpha boundaries lab", "alpha", [DepRecipe("heads-10 (synthetic)", SYNTHETIC + "10% of heads moved to the root word.", 0.10, 301)]),
    ("Beta typing group", "beta", [DepRecipe("heads-25 (synthetic)", SYNTHETIC + "25% of heads moved to the root word.", 0.25, 302)]),
]
PATH = [CampaignState.OPEN, CampaignState.CLOSED, CampaignState.SCORED, CampaignState.RELEASED,
        CampaignState.PUBLISHED]


def damage_trees(path: Path, recipe: TreeRecipe) -> str:
    trees = read_trees(path)
    labels = french_labels()
    for error_type, count in recipe.errors:
        out = insert_errors(trees, error_type, labels, seed=recipe.seed, per_type=count)
        for i, tree in zip(out["indices"], out["damaged"]):
            trees[i] = tree
    return write_penn(trees)


def damage_heads(text: str, recipe: DepRecipe, rng: random.Random) -> str:
    """Re-attach words to the sentence's root word: wrong heads, never a cycle."""
    sentences = []
    for block in text.strip("\n").split("\n\n"):
        rows = [line.split("\t") for line in block.split("\n")]
        words = [r for r in rows if len(r) == 10 and r[0].isdigit()]
        root = next((r[0] for r in words if r[6] == "0"), None)
        for r in words:
            if root and r[6] not in ("0", root) and rng.random() < recipe.rate:
                r[6] = root
        sentences.append("\n".join("\t".join(r) for r in rows))
    return "\n\n".join(sentences) + "\n\n"


def sequoia_documents(folder: Path, out_dir: Path) -> list[Path]:
    """One bracketed file per Sequoia source: its first trees of the UD test split, one tree a line."""
    trees = (folder / "sequoia-corpus+fct.mrg_strict").read_text(encoding="utf-8").splitlines()
    ids = (folder / "sent_ids.tsv").read_text(encoding="utf-8").splitlines()[1:]  # after the header
    picked: dict[str, list[str]] = {code: [] for code in TREE_SOURCES.values()}
    for tree, row in zip(trees, ids):
        sent_id, split = row.split("\t")
        code = next((c for prefix, c in TREE_SOURCES.items() if sent_id.startswith(prefix)), None)
        if split == "test" and code and len(picked[code]) < TREES_PER_DOCUMENT:
            picked[code].append(tree)
    paths = []
    for code, lines in picked.items():
        paths.append(out_dir / f"sequoia-{code}.mrg")
        paths[-1].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths


def conllu_head(path: Path, count: int) -> str:
    """The first ``count`` sentences of a CoNLL-U file (0: all of them)."""
    blocks = path.read_text(encoding="utf-8").strip("\n").split("\n\n")
    return "\n\n".join(blocks[:count] if count else blocks) + "\n\n"


@dataclass(frozen=True)
class RealRun:
    name: str
    description: str
    seed: int  # names the upload archive, as a recipe's does


def real_tree_run(model: str) -> RealRun:
    return RealRun(f"{demo_parses.run_label(model)} (converted from UD, {TREE_CONVERTER_VERSION})",
                   REAL + f"spaCy {demo_parses.spacy_version()} pipeline {demo_parses.run_label(model)[6:]} on the gold tokens; its "
                   f"dependency parse converted to phrase structure ({TREE_CONVERTER_VERSION}: each head projects "
                   "a phrase, labels from parts of speech; see docs/conversion/ud-to-phrase-structure.md). "
                   "Unlabelled brackets and leaf-ancestor are the meaningful figures.", zlib.crc32(model.encode()))


def real_dep_run(model: str, track: str = "gold-tokens") -> RealRun:
    how = "on the gold tokens" if track == "gold-tokens" else "on the raw text, in its own tokenisation"
    suffix = "" if track == "gold-tokens" else " (raw text)"
    return RealRun(f"{demo_parses.run_label(model)}{suffix}",
                   REAL + f"spaCy {demo_parses.spacy_version()} pipeline {demo_parses.run_label(model)[6:]} {how}.", zlib.crc32(model.encode()))


def real_tree_files(cache, model: str, gold_paths: list[Path], *, unescape: bool = True) -> dict[str, str]:
    """One bracketed file per gold document: ``model``'s parse of its trees' words, converted.

    The parser gets the words as text: the Penn escapes of the trees (``-LRB-`` for a bracket) are
    undone before parsing and redone in the converted trees, so that spaCy sees a bracket and tags it
    as punctuation. ``unescape=False`` hands it the escapes, as the demo once did (kept to measure
    the difference: ``scripts/demo_tree_runs.py``).
    """
    docs = [(p, read_trees(p)) for p in gold_paths]
    words = unescape_word if unescape else str
    sentences = [(f"{p.stem}-{k}", [words(w) for w in tree.words()])
                 for p, trees in docs for k, tree in enumerate(trees, 1)]
    by_id = {s.sent_id: s for s in demo_parses.forms_parses(cache, model, sentences)}

    def converted(sent_id: str):
        tree = ud_to_tree(by_id[sent_id])
        for leaf in tree.leaves():
            leaf.word = escape_word(leaf.word)
        return tree

    return {p.name: write_penn(converted(f"{p.stem}-{k}") for k in range(1, len(trees) + 1))
            for p, trees in docs}


def real_dep_files(cache, model: str, slices: dict[str, Path], track: str = "gold-tokens") -> dict[str, str]:
    """One CoNLL-U file per gold slice: ``model`` on its gold words, or on its raw text (``track="raw-text"``)."""
    parse = demo_parses.gold_word_parses if track == "gold-tokens" else demo_parses.raw_text_parses
    return {p.name: parse(cache, model, p.read_text(encoding="utf-8")) for p in slices.values()}


def has_scored_run(team, name: str) -> bool:
    """Whether the team's demo run ``name`` is there and scored; an unfinished one is removed to be made again.

    A first ``load_demo`` stopped midway (interrupted, or a failure while scoring) leaves a run queued,
    scoring or failed; the next call starts that run over instead of refusing to close the campaign.
    """
    team.runs.filter(name=name).exclude(status=RunStatus.SCORED).delete()
    return team.runs.filter(name=name).exists()


def _campaign(slug, name, kind, description, metrics, organiser, out, runs_per_team: int = 3) -> tuple[Campaign, bool]:
    campaign, created = Campaign.objects.get_or_create(slug=slug, defaults={
        "name": name, "kind": kind, "description": description, "language": "fr",
        "publication": Publication.CODED, "corpus_public": True, "runs_per_team": runs_per_team,
        "metrics": metrics, "team_figures": TeamFigures.FULL,  # a demonstration shows every figure
        "team_admission": TeamAdmission.OPEN})  # and admits its synthetic teams without an organiser's approval
    campaign.organisers.add(organiser)
    out(f"{'Created' if created else 'Found'} campaign {campaign.name!r} ({campaign.state}).")
    return campaign, created


def _advance(campaign, organiser, until, out) -> None:
    for state in PATH[: PATH.index(until) + 1]:
        if not state_at_least(campaign, state):
            transition(campaign, state, actor=organiser)
            out(f"{campaign.name}: moved to {campaign.state}.")


def _teams(campaign, specs, users):
    teams = []
    for name, username, recipes in specs:
        user = users[username]
        team = campaign.teams.filter(name=name).first()
        if team is None and campaign.state == CampaignState.OPEN:
            affiliation = "Demo (real parser)" if (name, username) == REAL_TEAM else "Demo (synthetic)"
            team = create_team(campaign, user, name=name, affiliation=affiliation)
        if team is not None:
            teams.append((team, user, recipes))
    return teams


def _upload(campaign, team, user, recipe, files: dict[str, str], tmp: Path, out, *, synthetic: bool = True,
            track: str = "") -> None:
    archive = tmp / f"{team.slug}-{recipe.seed}.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    out(f"Scoring {campaign.name} / {team.name} / {recipe.name} ...")
    with archive.open("rb") as fh:
        extra = {"track": track} if track else {}  # the dependency tracks' upload option, where it is used
        run = upload_run(campaign=campaign, team=team, user=user, name=recipe.name,
                         uploaded_file=File(fh, name=archive.name), system_description=recipe.description, **extra)
    Run.objects.filter(pk=run.pk).update(synthetic=synthetic)
    run.refresh_from_db()
    if run.status != RunStatus.SCORED:
        raise RuntimeError(f"the demo run {recipe.name!r} ended {run.status}: {run.status_reason}")


def _real_runs(campaign, team_spec, users, runs_and_files, tmp: Path, out, track: str = "") -> None:
    """Upload ``(RealRun, files thunk)`` pairs for the real team, each unless already scored (in ``track``)."""
    if campaign.state != CampaignState.OPEN:
        return
    for team, user, _ in _teams(campaign, [(*team_spec, [])], users):
        for run, files in runs_and_files:
            if not has_scored_run(team, run.name):
                _upload(campaign, team, user, run, files(), tmp, out, synthetic=False, track=track)


def build_consensus(campaign, out) -> None:
    """The consensus of the demo's runs (one per team, equal weights), built and scored in process before the
    publication takes it in (docs/consensus.md); nothing is done again when it is already there."""
    if campaign.state not in (CampaignState.OPEN, CampaignState.CLOSED, CampaignState.SCORED):
        return

    results.model("ConsensusSetting").objects.update_or_create(campaign=campaign, defaults={"enabled": True})
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True  # scored here and now, as the demo's runs are
    try:
        run = results.build_consensus(campaign)
    finally:
        app.conf.task_always_eager = eager
    if run is not None:
        run.refresh_from_db()
        out(f"{campaign.name}: {run.name.lower()}, {run.get_status_display().lower()}.")


def load_kind_demos(organiser, users: dict, out, cache=None) -> list[Campaign]:
    """Build (or complete) both demo campaigns; ``users`` maps the demo user names to users.

    ``cache`` is the parse cache of the real runs (default: ``VAR_DIR/demo-parses``); without a
    ``spacy`` user in ``users`` no real run is made.
    """
    cache = cache or demo_parses.default_cache()
    real = REAL_TEAM[1] in users

    data = Path(settings.DATA_DIR)
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True  # score here and now, whatever broker is configured
    built = []
    try:
        with tempfile.TemporaryDirectory(prefix="demo-kinds-") as tmp_name:
            tmp = Path(tmp_name)
            # Constituency.
            campaign, _ = _campaign(
                TREE_SLUG, "French Sequoia trees (demo)", CampaignKind.CONSTITUENCY,
                "Constituency demo on the Sequoia treebank (LGPL-LR): the first test sentences of each of its "
                "four sources. Runs marked synthetic are the gold damaged by the error lab's controlled "
                "insertions; the spaCy baseline's runs are real dependency parses converted to phrase structure.",
                # converted dependency parses label phrases by another scheme: the unlabelled brackets are the figure
                {"tree_metrics": ["evalb", "evalb-unlabelled", "leaf-ancestor"]}, organiser, out)
            gold = sequoia_documents(data / "sequoia-const", tmp)
            if not campaign.documents.exists():
                get("constituency").import_corpus(campaign, gold, genres={p.stem: p.stem.split("-", 1)[1] for p in gold},
                                                  actor=organiser)
            _advance(campaign, organiser, CampaignState.OPEN, out)
            for team, user, recipes in _teams(campaign, TREE_TEAMS, users):
                for recipe in recipes:
                    if campaign.state == CampaignState.OPEN and not has_scored_run(team, recipe.name):
                        _upload(campaign, team, user, recipe, {p.name: damage_trees(p, recipe) for p in gold}, tmp, out)
            if real:
                _real_runs(campaign, REAL_TEAM, users, [
                    (real_tree_run(m), lambda m=m: real_tree_files(cache, m, gold)) for m in demo_parses.REAL_MODELS], tmp, out)
            build_consensus(campaign, out)
            _advance(campaign, organiser, CampaignState.PUBLISHED, out)
            built.append(campaign)

            # Dependency.
            campaign, _ = _campaign(
                DEP_SLUG, "French UD (demo)", CampaignKind.DEPENDENCY,
                "Dependency demo on the UD French-Sequoia test file (LGPL-LR) and the first sentences of the "
                "UD French-GSD test file (CC BY-SA 4.0). Runs marked synthetic are the gold with heads moved "
                "on purpose; the spaCy baseline's runs are real parses, on the gold tokens and on the raw text "
                "(the raw-text track, scored with the CoNLL 2018 definitions).",
                {"punct": "upos", "tracks": ["gold-tokens", "raw-text"]}, organiser, out,
                runs_per_team=4)  # room for the raw-text runs (one limit for both tracks)
            slices = {}
            for genre, (filename, count) in DEP_SLICES.items():
                slices[genre] = tmp / f"{genre}.conllu"
                slices[genre].write_text(conllu_head(data / "ud-french" / filename, count), encoding="utf-8")
            if not campaign.documents.exists():
                get("dependency").import_corpus(campaign, list(slices.values()), genres={g: g for g in slices},
                                                actor=organiser)
            _advance(campaign, organiser, CampaignState.OPEN, out)
            for team, user, recipes in _teams(campaign, DEP_TEAMS, users):
                for recipe in recipes:
                    if campaign.state == CampaignState.OPEN and not has_scored_run(team, recipe.name):
                        rng = random.Random(recipe.seed)
                        files = {p.name: damage_heads(p.read_text(encoding="utf-8"), recipe, rng)
                                 for p in slices.values()}
                        _upload(campaign, team, user, recipe, files, tmp, out)
            if real:
                _real_runs(campaign, REAL_TEAM, users, [
                    (real_dep_run(m), lambda m=m: real_dep_files(cache, m, slices)) for m in demo_parses.REAL_MODELS], tmp, out)
                _real_runs(campaign, REAL_TEAM, users, [
                    (real_dep_run(m, "raw-text"), lambda m=m: real_dep_files(cache, m, slices, "raw-text"))
                    for m in demo_parses.REAL_MODELS], tmp, out, track="raw-text")
            build_consensus(campaign, out)
            _advance(campaign, organiser, CampaignState.PUBLISHED, out)
            built.append(campaign)
    finally:
        app.conf.task_always_eager = eager
    return built
