"""The publication bundle on the demo's EASY campaign: built at publication without rows, again at the gold
release with them, byte for byte the same when rebuilt, and recomputed by ``python -m evaluation reproduce``."""
from __future__ import annotations

import hashlib
import io
import json
import random
import zipfile
from io import StringIO
from pathlib import Path

import numpy as np
import pytest
import yaml
from django.core.management import call_command

from campaign import lifecycle
from campaign.subsets import released_gold_zip
from campaign.models import Campaign, CampaignState, TeamFigures
from parseval.evaluation import bundle_format as fmt
from evaluation.bundle import publication as publication_bundle
from evaluation.__main__ import main
from evaluation.models import PublicationBundle
from tests import factories

SENTENCES = 10
SLUG = "bundle-demo"


@pytest.fixture
def small_corpus(tmp_path) -> Path:
    """The first sentences of one document per genre of the shipped EASY reference corpus."""
    return factories.small_easy_corpus(tmp_path / "gold", SENTENCES)


def stored_bytes(bundle: PublicationBundle) -> bytes:
    with bundle.file.open("rb") as fh:
        return fh.read()


def members_of(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def reproduce(path: Path, capsys, *extra) -> tuple[int, str, str]:
    code = main(["reproduce", str(path), *extra])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.django_db(transaction=True)
def test_demo_bundle_round_trip_rebuild_and_tampering(small_corpus, settings, tmp_path, capsys):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("load_demo", "--data", str(small_corpus), "--bootstrap", "20", "--slug", SLUG,
                 "--no-real", "--no-kinds", "--no-open", stdout=StringIO())
    campaign = Campaign.objects.get(slug=SLUG)
    assert campaign.state == CampaignState.PUBLISHED

    # Built once the publication was committed; before the gold release: no rows, nothing recomputed.
    at_publication = publication_bundle.latest_bundle(campaign)
    assert at_publication is not None and not at_publication.with_rows and not at_publication.with_run_files
    # The demo shows full figures at once; under the default secrecy the bundle holds what anyone then sees.
    Campaign.objects.filter(pk=campaign.pk).update(team_figures=TeamFigures.POOLED)
    campaign.refresh_from_db()
    first = publication_bundle.build(campaign)
    assert first.pk != at_publication.pk
    data = stored_bytes(first)
    members = members_of(data)
    assert sorted(members) == list(members)  # members in name order
    assert not [name for name in members if name.startswith("rows/")]
    meta = json.loads(members["bundle.json"])
    # the demo's eight runs and its consensus of them, whose whole-corpus treebank is always in the bundle
    assert meta["gold_released"] is False and len(meta["runs"]) == 9
    consensus = [run for run in meta["runs"] if run.get("consensus")]
    assert len(consensus) == 1 and meta["consensus_treebank"]["run"] == consensus[0]["run"]
    treebank = members[meta["consensus_treebank"]["member"]]
    assert hashlib.sha256(treebank).hexdigest() == meta["consensus_treebank"]["sha256"]
    assert b'agreement="' in zipfile.ZipFile(io.BytesIO(treebank)).read(
        zipfile.ZipFile(io.BytesIO(treebank)).namelist()[0])
    assert all(run["rows"] is None and "gold release" in run["rows_missing"] for run in meta["runs"])
    assert all(len(run["file"]["sha256"]) == 64 and run["file"]["member"] is None for run in meta["runs"])
    assert meta["versions"]["scorer"] and meta["versions"]["converters"]["ud2easy"]
    assert meta["gold_sha256"] and all(len(g) == 64 for g in meta["gold_sha256"])
    # the figures as anyone saw them then: pooled rates rounded to 0.1 point, no counts, no result ids
    published = json.loads(members["results.json"])
    cells = [c for r in published["runs"] for c in r["cells"]]
    assert cells and all(c["fc"] is None and c["genre"] == "ALL" and c["type"] == "ALL" for c in cells)
    assert all("id" not in r["result"] and r["result"]["created_at"] is None for r in published["runs"])
    path = tmp_path / "published.zip"
    path.write_bytes(data)
    code, out, _ = reproduce(path, capsys)
    assert code == 3, out  # nothing to check: its own exit status, and said why
    assert "NOTHING CHECKED (exit status 3): the bundle was built before the gold release" in out
    assert "0 figure(s) of 0 of 9 run(s)" in out and out.count("no per-sentence rows (the per-sentence rows are "
                                                                "given out at the gold release") == 9

    # Byte for byte: built again from the same state, the same archive (and nothing new stored).
    assert publication_bundle.archive_bytes(campaign) == data
    assert publication_bundle.build(campaign).pk == first.pk

    # The gold release builds it again, with the rows; every figure recomputed from them agrees.
    lifecycle.transition(campaign, CampaignState.GOLD_RELEASED, actor=None)
    second = publication_bundle.latest_bundle(campaign)
    assert second.pk != first.pk and second.with_rows
    data = stored_bytes(second)
    assert publication_bundle.archive_bytes(campaign) == data
    members = members_of(data)
    meta = json.loads(members["bundle.json"])
    assert len([name for name in members if name.startswith("rows/")]) == 9
    path = tmp_path / "gold-released.zip"
    path.write_bytes(data)
    code, out, _ = reproduce(path, capsys)
    assert code == 0, out
    summary = json.loads(_json_report(path, capsys))
    assert summary["differences"] == []
    assert all(r["compared"] > 100 for r in summary["runs"])  # every way, type and genre of each run

    # One published figure changed (and the manifest made to match): reported, located, exit 1.
    results = json.loads(members["results.json"])
    run, cell = next((r, c) for r in results["runs"] for c in r["cells"]
                     if c["layer"] == "relations" and c["mode"] == "HYP" and c["match"] == "EQUAL"
                     and c["genre"] == "ALL" and c["type"] == "ALL" and c["aggregation"] == "micro"
                     and c["f"] is not None)
    cell["f"] += 0.0123
    tampered = dict(members, **{"results.json": fmt.json_bytes(results)})
    del tampered["MANIFEST.json"]
    path = tmp_path / "tampered.zip"
    path.write_bytes(fmt.write_archive(tampered))
    code, out, _ = reproduce(path, capsys)
    assert code == 1
    differences = [line for line in out.splitlines() if line.startswith("DIFFERENCE")]
    name = next(r["name"] for r in meta["runs"] if r["run"] == run["run"])
    assert differences == [f"DIFFERENCE {name}: micro|relations|HYP|EQUAL type ALL genre ALL (f): "
                           f"published {cell['f']:.10g}, recomputed {cell['f'] - 0.0123:.10g}"]

    # A member changed behind the manifest's back: one line, exit 2, no traceback.
    behind = dict(members, **{"results.json": fmt.json_bytes(results)})
    path = tmp_path / "behind.zip"
    _write_raw(path, behind)
    code, out, err = reproduce(path, capsys)
    assert code == 2 and err.strip() == f"error: {path}: member results.json does not match its checksum in the manifest"

    # Where the campaign publishes the runs' files, each is in the bundle under its run's name, as uploaded.
    Campaign.objects.filter(pk=campaign.pk).update(bundle_run_files=True)
    campaign.refresh_from_db()
    with_files = publication_bundle.build(campaign)
    assert with_files.with_run_files and with_files.pk != second.pk
    files_members = members_of(stored_bytes(with_files))
    # streamed member by member, the bytes the whole members written at once gave
    assert stored_bytes(with_files) == written_whole({n: d for n, d in files_members.items() if n != fmt.MANIFEST})
    out = tmp_path / "command.zip"
    call_command("build_bundle", SLUG, "--out", str(out), stdout=StringIO())
    assert out.read_bytes() == stored_bytes(with_files) and publication_bundle.latest_bundle(campaign).pk == with_files.pk
    for run in json.loads(files_members["bundle.json"])["runs"]:
        member = run["file"]["member"]
        assert member.startswith(f"runs/{run['name']}/") and fmt.sha256(files_members[member]) == run["file"]["sha256"]

    # With the released gold, every run's file is scored again: rows and figures agree with the bundle's.
    gold = tmp_path / "released"
    with zipfile.ZipFile(io.BytesIO(released_gold_zip(campaign))) as archive:
        archive.extractall(gold)
    path = tmp_path / "with-files.zip"
    path.write_bytes(stored_bytes(with_files))
    code, out, _ = reproduce(path, capsys, "--gold", str(gold))
    assert code == 0, out
    assert "9 run(s) scored again from their files and the gold" in out and "not scored again" not in out
    # A sentence's row changed in the bundle (manifest made to match): the figures from the rows no longer
    # agree with the published ones, and scoring the file again names the sentence.
    files_meta = json.loads(files_members["bundle.json"])
    changed = files_meta["runs"][0]
    lines = files_members[changed["rows"]].decode().splitlines()
    cells = lines[1].split("\t")
    cells[2] = str(int(cells[2]) + 1)
    lines[1] = "\t".join(cells)
    tampered = dict(files_members, **{changed["rows"]: ("\n".join(lines) + "\n").encode()})
    del tampered["MANIFEST.json"]
    path.write_bytes(fmt.write_archive(tampered))
    code, out, _ = reproduce(path, capsys, "--gold", str(gold))
    assert code == 1
    assert (f"DIFFERENCE {changed['name']} [run file scored again]: per-sentence rows, sentence {cells[0]}: "
            "bundle 1 sentence(s) differ") in out
    from_rows = [line for line in out.splitlines() if line.startswith(f"DIFFERENCE {changed['name']}: ")]
    assert from_rows and all(f"genre {cells[1]}" in line or "genre ALL" in line for line in from_rows)
    assert not [line for line in out.splitlines() if line.startswith("DIFFERENCE")
                and not line.startswith(f"DIFFERENCE {changed['name']}")]

    # The citation: valid YAML with CFF 1.2.0's required keys, and a BibTeX entry.
    cff = yaml.safe_load(members["CITATION.cff"].decode("utf-8"))
    assert cff["cff-version"] == "1.2.0" and cff["message"] and cff["title"].startswith(campaign.name)
    assert cff["authors"] and all(a.get("name") for a in cff["authors"])
    assert cff["type"] == "dataset" and str(cff["date-released"]) == meta["snapshot"]["published"]
    bib = members["CITATION.bib"].decode("utf-8")
    assert bib.startswith("@misc{") and "title = {{EASY reference (demo): published results}}" in bib


def _json_report(path: Path, capsys) -> str:
    assert main(["reproduce", str(path), "--json", "-"]) == 0
    return capsys.readouterr().out


def _write_raw(path: Path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in sorted(members.items()):
            archive.writestr(name, data)


@pytest.mark.parametrize("content, message", [
    (b"not a zip at all", "not a zip archive"),
    (None, "no MANIFEST.json in the archive: not a publication bundle"),
])
def test_unreadable_bundles_get_one_line(tmp_path, capsys, content, message):
    path = tmp_path / "b.zip"
    if content is None:
        _write_raw(path, {"results.json": b"{}"})
    else:
        path.write_bytes(content)
    code, out, err = reproduce(path, capsys)
    assert code == 2 and err == f"error: {path}: {message}\n" and out == ""
    code, _, err = reproduce(tmp_path / "missing.zip", capsys)
    assert code == 2 and err == f"error: {tmp_path / 'missing.zip'}: no such file\n"


def written_whole(members: dict[str, bytes]) -> bytes:
    """The archive as it was written before members were streamed: every member whole, in memory."""
    manifest = {"format": fmt.FORMAT,
                "members": {name: {"sha256": fmt.sha256(data), "bytes": len(data)} for name, data in members.items()}}
    every = dict(members, **{fmt.MANIFEST: fmt.json_bytes(manifest)})
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(every):
            info = zipfile.ZipInfo(name, date_time=fmt.STAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = fmt.MODE << 16
            archive.writestr(info, every[name], compresslevel=9)
    return buffer.getvalue()


def rows_joined(keys, strata, rows) -> bytes:
    """The rows table as it was made before it was written in parts: every line joined at once."""
    lines = ["\t".join(["sentence", "genre", *(f"c{i}" for i in range(rows.shape[1]))])]
    for i in sorted(range(len(keys)), key=lambda i: str(keys[i])):
        lines.append("\t".join([str(keys[i]), str(strata[i]), *(fmt._number(v) for v in rows[i])]))
    return ("\n".join(lines) + "\n").encode("utf-8")


def test_a_streamed_archive_is_the_archive_of_the_whole_members(tmp_path):
    """Members from files (copied in chunks, larger than one) and rows written in parts: the same bytes."""
    rnd = random.Random(3)
    words = [bytes(rnd.choice(b"abcdefgh<>/= ") for _ in range(rnd.randint(1, 8))) for _ in range(2000)]
    big = b" ".join(rnd.choice(words) for _ in range(600_000)) + rnd.randbytes(200_000)
    assert len(big) > 2 * fmt.CHUNK
    (tmp_path / "run.zip").write_bytes(big)
    keys = [f"doc_{rnd.randrange(10**6)}/E{i}" for i in range(25_000)]
    strata = [rnd.choice(["general", "mail", "oral"]) for _ in keys]
    rows = np.array([[rnd.randrange(50), rnd.random(), float("nan") if i % 997 == 0 else 2.5] for i in range(len(keys))])
    rows_member = fmt.spooled(tmp_path / "rows.tsv", lambda out: fmt.write_rows_tsv(out, keys, strata, rows,
                                                                                    lines_per_write=999))
    small = {"bundle.json": b"{}\n", "results.json": b'{"runs": []}\n', "README.md": b"# x\n"}
    streamed = tmp_path / "bundle.zip"
    with open(streamed, "wb") as out:
        fmt.write_archive_to(out, {**small, "runs/run-00001/run.zip": fmt.file_member(lambda: open(tmp_path / "run.zip", "rb")),
                                   "rows/run-00001.tsv": rows_member})
    assert (tmp_path / "rows.tsv").read_bytes() == rows_joined(keys, strata, rows) == fmt.rows_tsv(keys, strata, rows)
    assert streamed.read_bytes() == written_whole({**small, "runs/run-00001/run.zip": big,
                                                   "rows/run-00001.tsv": rows_joined(keys, strata, rows)})
    # a file that changes between its checksum and its copy is refused, not archived under the old checksum
    member = fmt.file_member(lambda: open(tmp_path / "run.zip", "rb"))
    (tmp_path / "run.zip").write_bytes(big[:-1] + b"!")
    with pytest.raises(fmt.BundleError, match="changed while the archive was written"):
        fmt.write_archive({"runs/x/run.zip": member})


def test_archives_are_the_same_bytes_whatever_the_members_order():
    a = fmt.write_archive({"b.txt": b"2", "a.txt": b"1", "rows/x.tsv": b"sentence\tgenre\n"})
    b = fmt.write_archive({"rows/x.tsv": b"sentence\tgenre\n", "a.txt": b"1", "b.txt": b"2"})
    assert a == b
    with zipfile.ZipFile(io.BytesIO(a)) as archive:
        infos = archive.infolist()
    assert [i.filename for i in infos] == ["MANIFEST.json", "a.txt", "b.txt", "rows/x.tsv"]
    assert {i.date_time for i in infos} == {fmt.STAMP} and {i.external_attr >> 16 for i in infos} == {fmt.MODE}


@pytest.fixture
def small_kind_demos(monkeypatch):
    from campaign import demo_kinds

    monkeypatch.setattr(demo_kinds, "TREES_PER_DOCUMENT", 4)
    monkeypatch.setattr(demo_kinds, "DEP_SLICES", {"sequoia": ("fr_sequoia-ud-test.conllu", 6),
                                                   "gsd": ("fr_gsd-ud-test.conllu", 6)})


@pytest.mark.django_db(transaction=True)
def test_constituency_and_dependency_bundles_are_recomputed_and_scored_again(small_corpus, small_kind_demos,
                                                                             settings, tmp_path, capsys):
    from campaign import demo_kinds

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("load_demo", "--data", str(small_corpus), "--bootstrap", "20", "--slug", SLUG,
                 "--no-real", "--no-open", stdout=StringIO())
    for slug in (demo_kinds.TREE_SLUG, demo_kinds.DEP_SLUG):
        campaign = Campaign.objects.get(slug=slug)
        Campaign.objects.filter(pk=campaign.pk).update(bundle_run_files=True)
        lifecycle.transition(campaign, CampaignState.GOLD_RELEASED, actor=None)
        bundle = publication_bundle.latest_bundle(campaign)
        assert bundle.with_rows and bundle.with_run_files
        data = stored_bytes(bundle)
        assert publication_bundle.archive_bytes(campaign) == data
        meta = json.loads(members_of(data)["bundle.json"])
        gold = tmp_path / slug
        with zipfile.ZipFile(io.BytesIO(released_gold_zip(campaign))) as archive:
            archive.extractall(gold)
        path = tmp_path / f"{slug}.zip"
        path.write_bytes(data)
        code, out, _ = reproduce(path, capsys, "--gold", str(gold))
        assert code == 0, out
        report = json.loads(_json_report_with(path, capsys, "--gold", str(gold)))
        runs = report["runs"]
        assert runs and all(r["compared"] > 0 for r in runs) and report["differences"] == []
        rescored = [r for r in runs if r.get("rescored")]
        raw_text = [r for r in meta["runs"] if r["parameters"].get("track") == "raw-text"]
        assert len(rescored) == len(runs) - len(raw_text) > 0
        assert all(r.get("rescored_compared", 0) > 0 for r in rescored)
        assert len([n for n in report["not_checked"] if "raw-text run is aligned" in n]) == len(raw_text)


def _json_report_with(path: Path, capsys, *extra) -> str:
    assert main(["reproduce", str(path), "--json", "-", *extra]) == 0
    return capsys.readouterr().out
