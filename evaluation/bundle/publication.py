"""Building a campaign's publication bundle: the citable archive of what was published.

A bundle is built from the newest published snapshot (never from live results) at publication,
again at the gold release (when the per-sentence rows may be given out) and whenever an organiser
asks (console button, ``build_bundle`` command). It holds what anyone may see at that moment, and
nothing more, so that one archive serves everyone once the campaign is published:

* the figures as the results pages serve them to an anonymous visitor (before the gold release:
  the limited figures of :mod:`evaluation.results.disclosure`, no scoring times, no result ids);
* per run: signature, parameters, scorer version, gold checksum, its file's checksum, and how its
  figures follow from its rows (:func:`parseval.evaluation.figure_sets.recipe_document`);
* the per-sentence rows only once the gold is released: their keys are the test sentences
  (docs/threat-model.md);
* each run's analysis (``analysis/``, ``docs/metrics/analysis.md``: buckets, intervals, confusions, the
  sentences behind each number) only once the gold is released, for the same reason (issue 38);
* the runs' files only where the campaign's ``bundle_run_files`` says the teams agreed to it.
  Every scored run published in the snapshot is treated alike, whoever's team it is, so a
  consensus pseudo-run, an ordinary run of the campaign, brings its treebank as its file.

Everything is read; nothing stored is written but the bundle itself (results and snapshots are
immutable), and a run's analysis when it was never computed (:mod:`evaluation.analysis.store`, kept once). The same state gives the same bytes (:mod:`parseval.evaluation.bundle_format`), so a rebuild
that changes nothing stores nothing new.

At full scale (a hundred million words, a dozen runs) the rows and the run files are GBs: no member
is held whole in memory. Rows are written to temporary files, run files and the treebank are read
from storage in chunks, the archive is written to a temporary file one member at a time and saved
to storage from that file.
"""
from __future__ import annotations

import contextlib
import logging
import tempfile
from pathlib import Path, PurePosixPath
from typing import Iterator

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.files.base import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.urls import reverse
from django.utils.text import slugify

from campaign import audit, kinds, visibility
from campaign.models import Campaign, Run
from campaign.services.runs import staging_dir
from parseval.evaluation import bundle_format as fmt
from evaluation.analysis import store as analysis_store
from evaluation.consensus import runs as consensus_runs
from evaluation.kinds.analysis import full_document
from parseval.evaluation import figure_sets
from evaluation.models import PublicationBundle, Result
from evaluation.results.sentence_rows import RowsUnavailable, rows_of
from evaluation.results.summaries import latest_snapshot, served_results, visible_results
from parseval.evaluation.bundle_format import converter_versions
from parseval.evaluation.version import SCORER_VERSION

logger = logging.getLogger(__name__)

BUNDLE_TASK = kinds.BUNDLE_TASK
NO_ROWS_BEFORE_GOLD = ("the per-sentence rows are given out at the gold release: their keys list the test "
                       "sentences")
ANALYSIS_DIR = "analysis/"
NO_ANALYSIS_BEFORE_GOLD = ("the analyses are given out at the gold release: they list the test sentences behind "
                           "every number")
NO_RUN_FILES = "the campaign does not publish the runs' files (its bundle_run_files setting)"


class BundleRefused(Exception):
    """No bundle can be built now (nothing published yet); the message says why."""


def run_member_name(entry: dict) -> str:
    """A run's stable name in the bundle: its id (never reused), then its published label and name."""
    words = slugify(f"{entry.get('label', '')} {entry.get('name', '')}")[:60].strip("-")
    return f"run-{int(entry['run']):05d}" + (f"-{words}" if words else "")


def build_members(campaign: Campaign, *, spool: Path, base_url: str = "") -> tuple[dict, dict]:
    """``({member name: bytes or bundle_format.FileMember}, bundle.json)`` of ``campaign`` as published now, the
    rows written into the folder ``spool`` (the caller's, removed by it). BundleRefused before publication."""
    snapshot = latest_snapshot(campaign)
    if snapshot is None or not visibility.can_see_published_results(AnonymousUser(), campaign):
        raise BundleRefused(f"Campaign {campaign.name!r} is not published yet: a bundle is built from the "
                            "published snapshot.")
    snapshot = type(snapshot).objects.get(pk=snapshot.pk)  # with its data
    anyone = AnonymousUser()
    public = served_results(anyone, campaign, visible_results(anyone, campaign).data) or {"runs": []}
    gold_released = visibility.gold_is_released(campaign)
    kind = kinds.for_campaign(campaign)
    result_of = {entry["run"]: entry["result"]["id"] for entry in snapshot.data.get("runs", [])}
    results = Result.objects.in_bulk([result_of[e["run"]] for e in public["runs"] if e["run"] in result_of])
    runs = Run.objects.in_bulk([e["run"] for e in public["runs"]])

    members: dict[str, bytes | fmt.FileMember] = {}
    run_docs = []
    for entry in sorted(public["runs"], key=lambda e: e["run"]):
        run, result = runs[entry["run"]], results.get(result_of.get(entry["run"]))
        if result is None:
            continue
        name = run_member_name(entry)
        doc = {
            "name": name,
            "run": run.pk,
            "label": entry.get("label"),
            "run_name": entry.get("name"),
            "track": entry.get("track") or "",
            "synthetic": bool(entry.get("synthetic")),
            "metric": result.metric,
            "signature": result.signature,
            "scorer_version": result.scorer_version,
            "gold_sha256": result.gold_sha256,
            "parameters": result.parameters,
            "file": {"sha256": run.sha256, "name": PurePosixPath(run.original_filename).name,
                     "converter": run.converter or None, "member": None},
            "figures": [figure_sets.recipe_document(f) for f in kind.paired_figures(result)],
            "rescoring": kind.rescoring(result),
            "rows": None,
            **({"consensus": entry["consensus"]} if entry.get("consensus") else {}),
        }
        if gold_released:
            try:
                rows = rows_of(result)
            except RowsUnavailable as exc:
                doc["rows_missing"] = str(exc)
            else:
                doc["rows"] = f"{fmt.ROWS_DIR}{name}.tsv"
                members[doc["rows"]] = fmt.spooled(spool / f"{name}.tsv", lambda out: fmt.write_rows_tsv(
                    out, list(rows.keys), list(rows.strata), rows.rows))
        else:
            doc["rows_missing"] = NO_ROWS_BEFORE_GOLD
        _analysis_member(doc, result, members, spool, gold_released)
        if campaign.bundle_run_files:
            member = f"{fmt.RUNS_DIR}{name}/{doc['file']['name']}"
            try:
                members[member] = _stored_file(run.file)
                doc["file"]["member"] = member
            except (FileNotFoundError, ValueError) as exc:
                doc["file"]["missing"] = f"the run's file is gone ({exc})"
        else:
            doc["file"]["missing"] = NO_RUN_FILES
        run_docs.append(doc)
    treebank = _consensus_treebank(campaign, {d["run"] for d in run_docs})
    if treebank:
        members[treebank["member"]] = treebank.pop("file")

    published = snapshot.created_at.date().isoformat()
    url = base_url.rstrip("/") + reverse("results:campaign", args=[campaign.slug]) if base_url else ""
    citation = {
        "title": f"{campaign.name}: published results",
        "authors": [f"The organisers of {campaign.name}"],
        "date": published,
        "version": snapshot.sha256[:12] + ("-gold" if gold_released else ""),
        "url": url,
        "abstract": campaign.description.strip(),
        "keywords": ["parser evaluation", "syntactic parsing", kind.label],
        "key": slugify(campaign.slug).replace("-", "_") + "_" + published[:4],
    }
    meta = {
        "format": fmt.FORMAT,
        "campaign": {"slug": campaign.slug, "name": campaign.name, "kind": campaign.kind, "language": campaign.language},
        "snapshot": {"sha256": snapshot.sha256, "published": published},
        "gold_released": gold_released,
        "versions": {"scorer": SCORER_VERSION, "converters": converter_versions()},
        "gold_sha256": sorted({d["gold_sha256"] for d in run_docs}),
        "run_files": bool(campaign.bundle_run_files),
        "runs": run_docs,
        "consensus_treebank": treebank,
        "citation": citation,
    }
    members[fmt.BUNDLE] = fmt.json_bytes(meta)
    members[fmt.RESULTS] = fmt.json_bytes(public)
    members["CITATION.cff"] = fmt.citation_cff(citation).encode("utf-8")
    members["CITATION.bib"] = fmt.bibtex(citation).encode("utf-8")
    members["README.md"] = _readme(campaign, meta).encode("utf-8")
    return members, meta


def _analysis_member(doc: dict, result: Result, members: dict, spool: Path, gold_released: bool) -> None:
    """The run's analysis document as a member (after the gold release), its name in ``doc["analysis"]``; else
    why there is none in ``doc["analysis_missing"]``."""
    doc["analysis"] = None
    if not gold_released:
        doc["analysis_missing"] = NO_ANALYSIS_BEFORE_GOLD
        return
    kept = analysis_store.analysis_of(result)
    if kept is None:
        doc["analysis_missing"] = "the run has no analysis (its kind or track gives none, or its files are gone)"
        return
    name = f"{ANALYSIS_DIR}{doc['name']}.json"
    document = full_document(kept.document, kept.index)
    members[name] = fmt.spooled(spool / f"{doc['name']}.analysis.json", lambda out: out.write(fmt.json_bytes(document)))
    doc["analysis"] = name


def _consensus_treebank(campaign: Campaign, published_runs: set[int]) -> dict | None:
    """The whole-corpus consensus treebank of the published consensus run, always in the bundle (it is the
    platform's product, not a team's file): ``{member, run, sha256, file}``, or None."""
    found = consensus_runs.treebank_file(campaign)
    if found is None or found[0].pk not in published_runs:
        return None
    run, name = found
    member = fmt.file_member(lambda: default_storage.open(name, "rb"))
    return {"member": f"consensus/{PurePosixPath(name).name}", "run": run.pk, "sha256": member.sha256,
            "file": member}


def _stored_file(field) -> fmt.FileMember:
    """A stored file (a ``FieldFile``) as a member: hashed now, through the field as any reader opens it,
    and copied later straight from its storage."""
    with field.open("rb") as fh:
        checksum, size = fmt.digest(fh)
    storage, name = field.storage, field.name
    return fmt.FileMember(lambda: storage.open(name, "rb"), checksum, size)


def _readme(campaign: Campaign, meta: dict) -> str:
    rows = ("Per-sentence rows: rows/ (one table per run); analyses: analysis/ (one document per run, "
            "docs/metrics/analysis.md)." if meta["gold_released"]
            else f"No per-sentence rows: {NO_ROWS_BEFORE_GOLD}; no analyses: {NO_ANALYSIS_BEFORE_GOLD}.")
    files = "The runs' files: runs/." if meta["run_files"] else f"No run files: {NO_RUN_FILES}."
    return (f"# {campaign.name}: publication bundle\n\n"
            f"The results of the campaign as published on {meta['snapshot']['published']} "
            f"(snapshot {meta['snapshot']['sha256']}), scorer {meta['versions']['scorer']}.\n\n"
            "* results.json: the published figures; bundle.json: per run its signature, parameters, gold and file "
            "checksums and how its figures follow from its rows;\n"
            f"* {rows}\n* {files}\n"
            + (f"* {meta['consensus_treebank']['member']}: the consensus treebank of the whole corpus, each item "
               "with its agreement (docs/consensus.md).\n" if meta["consensus_treebank"] else "") +
            "* CITATION.cff and CITATION.bib: how to cite it; MANIFEST.json: the checksum of every member.\n\n"
            "Recompute the figures: python -m evaluation reproduce THIS.zip [--gold GOLD_DIR]\n")


@contextlib.contextmanager
def archive_file(campaign: Campaign, *, base_url: str = "") -> Iterator[tuple[Path, dict]]:
    """The campaign's bundle written to a temporary file, and its ``bundle.json``; both go afterwards."""
    with tempfile.TemporaryDirectory(prefix="bundle-", dir=staging_dir()) as tmp:
        rows = Path(tmp) / "rows"
        rows.mkdir()
        members, meta = build_members(campaign, spool=rows, base_url=base_url)
        path = Path(tmp) / "bundle.zip"
        with open(path, "wb") as out:
            fmt.write_archive_to(out, members)
        yield path, meta


def archive_bytes(campaign: Campaign, *, base_url: str = "") -> bytes:
    """The bundle's bytes, in memory: for small campaigns and tests (:func:`build` streams)."""
    with archive_file(campaign, base_url=base_url) as (path, _):
        return path.read_bytes()


def build(campaign: Campaign, *, actor=None, base_url: str = "", request=None) -> PublicationBundle:
    """Build and store the campaign's bundle (or return the stored one when nothing changed)."""
    base_url = base_url or settings.PARSEVAL_PUBLIC_URL
    with archive_file(campaign, base_url=base_url) as (path, meta), open(path, "rb") as fh:
        checksum, size = fmt.digest(fh)
        newest = latest_bundle(campaign)
        if newest is not None and newest.sha256 == checksum:
            return newest
        snapshot = latest_snapshot(campaign)
        bundle = PublicationBundle(campaign=campaign, snapshot=snapshot, sha256=checksum, size=size,
                                   with_rows=meta["gold_released"], with_run_files=meta["run_files"])
        fh.seek(0)
        bundle.file.save(download_name(campaign, checksum), File(fh), save=False)
    with transaction.atomic():
        bundle.save()
        audit.record("bundle.build", actor=actor, campaign=campaign, target=campaign.slug,
                     details={"sha256": checksum, "rows": meta["gold_released"], "run_files": meta["run_files"],
                              "runs": len(meta["runs"])}, request=request)
    return bundle


def download_name(campaign: Campaign, checksum: str) -> str:
    return f"{campaign.slug}-bundle-{checksum[:12]}.zip"


def latest_bundle(campaign: Campaign) -> PublicationBundle | None:
    return PublicationBundle.objects.filter(campaign=campaign).order_by("-created_at", "-pk").first()


def can_download(user, campaign: Campaign) -> bool:
    """Organisers any time; everyone once the campaign is published (a bundle holds only what is public)."""
    return visibility.is_organiser(user, campaign) or visibility.can_see_published_results(user, campaign)
