"""An EASY corpus and a realistic run at N times the reference, for the scale benchmarks.

The gold is the real reference (``data/easy-ref/ref``, 22 files, 3,585
sentences) copied byte for byte under new names, N times: every sentence has
gold, as in a campaign scored on its whole test set. File names keep their
genre prefix (``general_elda-c03.xml``), so genres and bootstrap strata are
those of the reference.

The run is what a parser might return: the same forms with realistic errors
(wrong group types, shifted group boundaries, missing groups, missing, extra,
retyped and wrongly attached relations), and written by lxml, not by the
project's writer, in a shape other than the reference's: attributes in
another order (``id`` before ``type``), no ``xlink:type`` attributes, the
XLink namespace under another prefix (``xl:href``), lxml's indentation, and
in every other file single quotes around attribute values. Nothing in the
scorer has seen this shape before; it is the shape of a third-party writer.
"""
from __future__ import annotations

import os
import random
import re
import shutil
import sys
from pathlib import Path

from lxml import etree

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from parseval.annotations.easy.model import Group, Relation, Sentence  # noqa: E402
from parseval.annotations.easy.reader import read_document  # noqa: E402
from parseval.annotations.easy.schema import DEFAULT_SCHEMA  # noqa: E402

DATA = REPO / "data"  # shipped with the repository
REF = DATA / "easy-ref" / "ref"
XLINK = "http://www.w3.org/1999/xlink"
_TAG = re.compile(rb"<[^<>!?]*>")
_DOUBLE_QUOTED = re.compile(rb'="([^"\']*)"')


def perturb(s: Sentence, rnd: random.Random) -> Sentence:
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
        rtype = r.type
        if x < 0.16 and targets:  # a wrong argument
            role = rnd.choice(list(args))
            args[role] = rnd.choice(targets)
        elif x < 0.20:  # a wrong type with as many roles
            rtype = rnd.choice([t for t in DEFAULT_SCHEMA.relation_types
                                if len(DEFAULT_SCHEMA.roles(t)) == len(args)])
            args = dict(zip(DEFAULT_SCHEMA.roles(rtype), args.values()))
        extras = dict(r.extras) if rtype == r.type else {}
        relations.append((rtype, args, extras))
    for _ in range(int(rnd.random() < 0.3) + int(rnd.random() < 0.1)):  # extra relations
        rtype = rnd.choice(DEFAULT_SCHEMA.relation_types)
        relations.append((rtype, {role: rnd.choice(targets) for role in DEFAULT_SCHEMA.roles(rtype)}, {}))
    relations = [Relation(f"{s.id}R{k}", t, a, {x: v for x, v in e.items() if x in DEFAULT_SCHEMA.extras(t)})
                 for k, (t, a, e) in enumerate(relations, 1)]
    return Sentence(s.id, [type(f)(f.id, f.text) for f in s.forms], groups, relations)


def other_writer(sentences, name: str, single_quotes: bool) -> bytes:
    """EASY XML for ``sentences`` as lxml writes it, in a shape other than the reference's (see the module)."""
    root = etree.Element("DOCUMENT", nsmap={"xl": XLINK})
    root.set("fichier", name)
    href = f"{{{XLINK}}}href"
    for s in sentences:
        e = etree.SubElement(root, "E", id=s.id)
        groups = {g.start: g for g in s.groups}
        i = 0
        while i < len(s.forms):
            g = groups.get(i)
            if g is not None:
                ge = etree.SubElement(e, "Groupe")
                ge.set("id", g.id)  # id before type: the reference writes type first
                ge.set("type", g.type)
                for f in s.forms[g.start:g.end]:
                    etree.SubElement(ge, "F", id=f.id).text = f.text
                i = g.end
            else:
                etree.SubElement(e, "F", id=s.forms[i].id).text = s.forms[i].text
                i += 1
        if s.relations:
            rels = etree.SubElement(e, "relations")
            for r in s.relations:
                re_ = etree.SubElement(rels, "relation")
                re_.set("id", r.id)
                re_.set("type", r.type)
                for role, target in r.args.items():
                    etree.SubElement(re_, role).set(href, target)
                for tag, attrs in r.extras.items():
                    etree.SubElement(re_, tag, **attrs)
    data = etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)
    if single_quotes:
        data = _TAG.sub(lambda m: _DOUBLE_QUOTED.sub(rb"='\1'", m.group(0)), data)
    return data


def copy_name(stem: str, c: int) -> str:
    return f"{stem}-c{c:02d}.xml"


def build(folder: Path, copies: int, seed: int = 7) -> dict:
    """Write ``folder/gold`` and ``folder/run`` (``copies`` times the reference); return counts."""
    rnd = random.Random(seed)
    gold_dir, run_dir = folder / "gold", folder / "run"
    gold_dir.mkdir(parents=True)
    run_dir.mkdir(parents=True)
    stats = {"files": 0, "sentences": 0, "words": 0}
    for path in sorted(REF.glob("*.xml")):
        ref = read_document(path, gold=True)
        for c in range(copies):
            name = copy_name(path.stem, c)
            shutil.copyfile(path, gold_dir / name)
            run = [perturb(s, rnd) for s in ref.sentences]
            (run_dir / name).write_bytes(other_writer(run, name, single_quotes=stats["files"] % 2 == 1))
            stats["files"] += 1
            stats["sentences"] += len(ref.sentences)
            stats["words"] += sum(len(s.forms) for s in ref.sentences)
    stats["gold_bytes"] = sum(p.stat().st_size for p in gold_dir.iterdir())
    stats["run_bytes"] = sum(p.stat().st_size for p in run_dir.iterdir())
    return stats


def lxml_pass(folders, every_element: bool) -> tuple[float, float]:
    """(wall, CPU) seconds of a bare ``iterparse`` over every file of ``folders``, each sentence cleared.

    ``every_element`` uses iterparse's default events (every element reaches
    Python); otherwise a ``tag='E'`` filter in C, the cheapest possible walk.
    """
    import time
    t, c = time.perf_counter(), time.process_time()
    for folder in folders:
        for p in sorted(Path(folder).iterdir()):
            kw = {} if every_element else {"tag": "E"}
            for _, el in etree.iterparse(str(p), events=("end",), resolve_entities=False, no_network=True,
                                         load_dtd=False, **kw):
                if el.tag == "E":
                    el.clear(keep_tail=False)
                    parent = el.getparent()
                    while el.getprevious() is not None:
                        del parent[0]
    return time.perf_counter() - t, time.process_time() - c


def own_peak_mb() -> float:
    """This process's own peak RSS (MB): ``VmHWM``, the high-water mark of its address space since its exec.

    Not ``ru_maxrss``: on Linux, ``exec`` keeps in it the high-water mark of the address space it
    replaces, and a child started by ``subprocess`` or multiprocessing's ``spawn`` runs in its parent's
    (``vfork``) until its exec, so a child's ``ru_maxrss`` (and ``wait4``'s) is at least its parent's peak
    so far. A worker spawned by a benchmark that had merged a large run reported that merge's peak as its
    own. ``ru_maxrss`` where ``/proc`` is missing."""
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024.0
    except (OSError, StopIteration):
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


# the command run by run_command (the package of its working folder): its own peak (VmHWM, in kB) written to
# a file when it ends, see own_peak_mb
_PEAK_CHILD = """
import atexit, runpy, sys
out = sys.argv.pop(1)

def peak():
    with open("/proc/self/status") as status, open(out, "w") as handle:
        handle.write(next(line for line in status if line.startswith("VmHWM:")).split()[1])

atexit.register(peak)
runpy.run_module("evaluation", run_name="__main__", alter_sys=True)
"""


def run_command(args: list[str], cwd: Path = REPO) -> dict:
    """Run ``python -m evaluation ARGS`` as a child; its wall and CPU seconds (from wait4) and its own peak
    RSS (MB, ``VmHWM``: see :func:`own_peak_mb`; Linux only, NaN elsewhere)."""
    import subprocess
    import tempfile
    import time
    with tempfile.NamedTemporaryFile("r", prefix="peak-") as peak:
        t = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", _PEAK_CHILD, peak.name, *args],
                                cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t
        if proc.returncode != 0:
            raise SystemExit(f"python -m evaluation {' '.join(args)} failed ({proc.returncode}):\n{err.decode()}")
        rss = float(peak.read() or "nan") / 1024.0
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mb": rss}
