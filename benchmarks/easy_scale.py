"""EASY at campaign scale: parse time versus full scoring time, and peak memory.

Builds, in a temporary folder, an EASY-sized corpus made by repeating the
real reference sentences (``data/easy-ref/ref``) under fresh ids:
by default 12 copies of the 22 files, i.e. 43,020 sentences and 905,880
forms. Every 10th sentence has gold. A run covers the whole corpus with
realistic errors (shifted group boundaries, wrong group types, missing,
extra and wrong-argument relations). Then, in the same process, it times

* a bare ``lxml.etree.iterparse`` of the run files, each sentence cleared,
  in two flavours: with iterparse's default events (every element reaches
  Python) and with a ``tag="E"`` filter (only sentences reach Python: the
  cheapest possible walk), and
* the full scoring: reading the gold, streaming and validating the run,
  all 20 ways (5 for constituents, 15 for relations), without the
  bootstrap (``--bootstrap N`` adds it),
* the same full scoring with the reader's canonical-shape path turned off,
  which is how a run written in any other shape is read (lxml for every
  sentence; see ``annotations/easy/canonical.py``),

and prints the times, their ratios and the peak RSS. The measurements are
interleaved and repeated (``--repeat``); both CPU time (``time.process_time``,
robust to other load on the machine) and wall time are reported, best of the
repeats.

    .venv/bin/python -m benchmarks.easy_scale [--copies 12] [--bootstrap 1000] [--repeat 3] [--keep DIR]
"""
from __future__ import annotations

import argparse
import gc
import random
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

from lxml import etree

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from annotations.easy import reader as easy_reader  # noqa: E402
from annotations.easy.model import Document, Group, Relation, Sentence  # noqa: E402
from annotations.easy.reader import read_document  # noqa: E402
from annotations.easy.schema import DEFAULT_SCHEMA  # noqa: E402
from annotations.easy.writer import write_document  # noqa: E402
from evaluation.easy.scoring import score_corpus  # noqa: E402

DATA = REPO / "data"  # shipped with the repository
REF = DATA / "easy-ref" / "ref"


def _renamed(s: Sentence, new_sid: str) -> Sentence:
    old = s.id
    k = len(old)

    def rn(x: str) -> str:
        return new_sid + x[k:] if x.startswith(old) else x

    return Sentence(
        id=new_sid,
        forms=[type(f)(rn(f.id), f.text) for f in s.forms],
        groups=[Group(rn(g.id), g.type, g.start, g.end) for g in s.groups],
        relations=[Relation(rn(r.id), r.type, {role: rn(t) for role, t in r.args.items()}, dict(r.extras))
                   for r in s.relations],
    )


def _perturb(s: Sentence, rnd: random.Random) -> Sentence:
    """A plausible parser output for ``s``: the same forms, some errors."""
    n = len(s.forms)
    groups = [Group(g.id, g.type, g.start, g.end) for g in sorted(s.groups, key=lambda g: g.start)]
    types = DEFAULT_SCHEMA.group_types
    for i, g in enumerate(groups):
        x = rnd.random()
        if x < 0.06:  # wrong type
            g.type = rnd.choice([t for t in types if t != g.type])
        elif x < 0.12:  # shifted boundary: extend over a free neighbour form, or shrink
            left_free = g.start > 0 and (i == 0 or groups[i - 1].end < g.start)
            right_free = g.end < n and (i + 1 == len(groups) or groups[i + 1].start > g.end)
            if right_free and rnd.random() < 0.5:
                g.end += 1
            elif left_free:
                g.start -= 1
            elif g.end - g.start > 1:
                g.end -= 1
    if rnd.random() < 0.05 and groups:  # a missing group
        groups.pop(rnd.randrange(len(groups)))
    # ids must stay unique and ordered
    groups = [Group(f"{s.id}G{k}", g.type, g.start, g.end) for k, g in enumerate(groups, 1)]
    old_to_new = {}
    for og in s.groups:
        for ng in groups:
            if ng.start <= og.start < ng.end:
                old_to_new[og.id] = ng.id
                break
    targets = [f.id for f in s.forms] + [g.id for g in groups]
    valid = set(targets) | {f"{s.id}F0"}
    relations = []
    for r in s.relations:
        x = rnd.random()
        if x < 0.08:  # missing relation
            continue
        args = {}
        for role, t in r.args.items():
            t = old_to_new.get(t, t) if "G" in t[len(s.id):] else t
            if t not in valid:  # group lost, or a dangling gold pointer: point to its first form
                og = next((g for g in s.groups if g.id == t), None)
                t = s.forms[og.start].id if og is not None else f"{s.id}F0"
            args[role] = t
        if x < 0.16 and targets:  # a wrong argument
            role = rnd.choice(list(args))
            args[role] = rnd.choice(targets)
        elif x < 0.20:  # a wrong type
            rtype = rnd.choice([t for t in DEFAULT_SCHEMA.relation_types if len(DEFAULT_SCHEMA.roles(t)) == len(args)])
            args = dict(zip(DEFAULT_SCHEMA.roles(rtype), args.values()))
            r = Relation(r.id, rtype, args)
        relations.append(Relation("", r.type, args, dict(r.extras) if r.type == r.type else {}))
    for _ in range(int(rnd.random() < 0.3) + int(rnd.random() < 0.1)):  # extra relations
        if targets:
            rtype = rnd.choice(DEFAULT_SCHEMA.relation_types)
            relations.append(Relation("", rtype, {role: rnd.choice(targets) for role in DEFAULT_SCHEMA.roles(rtype)}))
    relations = [Relation(f"{s.id}R{k}", r.type, r.args,
                          {t: a for t, a in r.extras.items() if t in DEFAULT_SCHEMA.extras(r.type)})
                 for k, r in enumerate(relations, 1)]
    return Sentence(s.id, [type(f)(f.id, f.text) for f in s.forms], groups, relations)


def build(folder: Path, copies: int, gold_every: int = 10, seed: int = 7) -> dict:
    rnd = random.Random(seed)
    gold_dir, run_dir = folder / "gold", folder / "run"
    gold_dir.mkdir(parents=True)
    run_dir.mkdir(parents=True)
    stats = {"sentences": 0, "forms": 0, "gold_sentences": 0, "files": 0}
    for path in sorted(REF.glob("*.xml")):
        ref = read_document(path, gold=True)
        stem = path.stem
        for c in range(copies):
            name = f"{stem}{chr(ord('a') + c)}.xml" if copies <= 26 else f"{stem}x{c}.xml"
            gold_doc = Document(name=name, attributes={"fichier": name})
            run_doc = Document(name=name, attributes={"fichier": name})
            for k, s in enumerate(ref.sentences, 1):
                s2 = _renamed(s, f"E{k}")
                stats["sentences"] += 1
                stats["forms"] += len(s2.forms)
                if (k + c) % gold_every == 0:
                    gold_doc.sentences.append(s2)
                    stats["gold_sentences"] += 1
                run_doc.sentences.append(_perturb(s2, rnd))
            write_document(gold_doc, gold_dir / name)
            write_document(run_doc, run_dir / name)
            stats["files"] += 1
    stats["run_bytes"] = sum(p.stat().st_size for p in run_dir.iterdir())
    return stats


def bare_parse(run_dir: Path, every_element: bool = True) -> float:
    """Time a bare ``iterparse`` of the run files, clearing each sentence.

    ``every_element=True`` is iterparse with its default events (every
    element reaches Python); ``False`` filters with ``tag="E"`` in C, the
    cheapest possible walk.
    """
    t = time.perf_counter()
    c = time.process_time()
    for p in sorted(run_dir.iterdir()):
        if every_element:
            context = etree.iterparse(str(p), events=("end",), resolve_entities=False, no_network=True,
                                      load_dtd=False)
        else:
            context = etree.iterparse(str(p), events=("end",), tag="E", resolve_entities=False,
                                      no_network=True, load_dtd=False)
        for _, el in context:
            if el.tag == "E":
                el.clear(keep_tail=False)
                parent = el.getparent()
                while el.getprevious() is not None:
                    del parent[0]
    return time.perf_counter() - t, time.process_time() - c


def full_score(gold_dir: Path, run_dir: Path, bootstrap: int, canonical: bool = True
               ) -> tuple[tuple[float, float], dict]:
    real = easy_reader._canonical_scanner
    if not canonical:
        easy_reader._canonical_scanner = lambda source, fastpath: None
    try:
        t = time.perf_counter()
        c = time.process_time()
        gold = [read_document(p, gold=True) for p in sorted(gold_dir.iterdir())]
        runs = {p.stem: p for p in sorted(run_dir.iterdir())}
        result = score_corpus(gold, runs, bootstrap=bootstrap, seed=12345)
        return (time.perf_counter() - t, time.process_time() - c), result
    finally:
        easy_reader._canonical_scanner = real


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=12, help="copies of the reference corpus (default 12)")
    ap.add_argument("--bootstrap", type=int, default=0, help="bootstrap resamples (default 0; target with 1000)")
    ap.add_argument("--repeat", type=int, default=1, help="time each side this many times, keep the best")
    ap.add_argument("--keep", help="build the corpus in this folder and keep it")
    ap.add_argument("--profile", action="store_true", help="profile the scoring with cProfile")
    args = ap.parse_args(argv)
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="easy-scale-"))
    try:
        if not (folder / "run").is_dir():
            t = time.perf_counter()
            stats = build(folder, args.copies)
            print(f"built {stats['files']} files, {stats['sentences']:,} sentences, {stats['forms']:,} forms, "
                  f"{stats['gold_sentences']:,} with gold, run {stats['run_bytes'] / 1e6:.1f} MB "
                  f"in {time.perf_counter() - t:.1f} s")
        gc.collect()
        rss_before = peak_rss_mb()
        # interleave the measurements so that a change in machine load hits both sides alike
        parse_all, parse_e, score, other = [], [], [], []
        if args.profile:
            import cProfile
            import pstats
            prof = cProfile.Profile()
            prof.enable()
        for _ in range(args.repeat):
            parse_all.append(bare_parse(folder / "run", True))
            parse_e.append(bare_parse(folder / "run", False))
            elapsed, result = full_score(folder / "gold", folder / "run", args.bootstrap)
            score.append(elapsed)
            elapsed, result_other = full_score(folder / "gold", folder / "run", args.bootstrap, canonical=False)
            other.append(elapsed)
            if result_other != result:
                raise SystemExit("the two reading paths gave different results")
        if args.profile:
            prof.disable()
            pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
        relf = {(c["mode"], c["match"]): c["f"] for c in result["cells"]
                if c["layer"] == "relations" and c["genre"] == "ALL" and c["type"] == "ALL"}
        consf = {c["match"]: c["f"] for c in result["cells"]
                 if c["layer"] == "constituents" and c["genre"] == "ALL" and c["type"] == "ALL"}
        ways = len({(c["layer"], c["mode"], c["match"]) for c in result["cells"]})
        print(f"scored {result['counts']['gold_sentences']:,} gold sentences of "
              f"{result['counts']['run_sentences']:,} run sentences in {ways} ways "
              f"(constituents F EQUAL {consf['EQUAL']:.3f}, relations F HYP/EQUAL {relf[('HYP', 'EQUAL')]:.3f}, "
              f"REF/INTERSECTION {relf[('REF', 'INTERSECTION')]:.3f})")
        best = lambda xs, k: min(x[k] for x in xs)  # noqa: E731
        for label, k in (("CPU time", 1), ("wall time", 0)):
            pa, pe, sc, ot = best(parse_all, k), best(parse_e, k), best(score, k), best(other, k)
            print(f"[{label}, best of {args.repeat}] bare iterparse of the run: {pa:.2f} s (every element, "
                  f"default events), {pe:.2f} s (tag='E' filter); full scoring (bootstrap {args.bootstrap}): "
                  f"{sc:.2f} s; ratio {sc / pa:.2f} (vs every-element), {sc / pe:.2f} (vs tag='E'); "
                  f"canonical path off (a run in another shape): {ot:.2f} s, ratio {ot / pa:.2f}")
        print(f"peak RSS: {peak_rss_mb():.0f} MB (before timing: {rss_before:.0f} MB)")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
