"""The analysis explorer on a 40,000-sentence EASY run (issue 38): computed once, then its pages in under 1 s.

Builds the 12x corpus of ``benchmarks/passage_scale.py`` (``benchmarks/easy_corpus.py``: the EASY reference 12
times, 42,000 sentences, with a perturbed run), then measures in the same run:

* the scoring, as a reference: ``python -m evaluation easy --gold G --run R --json out`` in a child process
  (all 20 ways, bootstrap 1000): CPU and wall seconds and its own peak RSS (``VmHWM``);
* the analysis, computed as the app computes it once per result (:func:`parseval.evaluation.easy.buckets.count`
  with every error, :func:`~parseval.evaluation.easy.buckets.document` with the confusions and the bootstrap 1000,
  then :func:`evaluation.kinds.analysis.split` into the stored document and index), in a child process of its
  own: CPU and wall seconds, its own peak RSS, and the sizes of what is stored (document as JSON, index
  compressed);
* the pages, once computed: a throw-away database (``parseval_bench_analysis`` on ``BENCH_POSTGRES``, default
  ``postgres://postgres@127.0.0.1:5432``) holding one EASY run whose result has that stored analysis, and with
  Django's test Client as an organiser, the server time of each page (median of ``--repeat`` requests): the
  explorer (every attribute, and one), the confusion tables, the sentences behind the largest bucket, the
  errors page and a sentence view. The database is dropped at the end.

The target: every page under 1 s; the analysis computed once (the pages read it) with a peak within the
scoring's. The load average is printed: the machine is shared.

    .venv/bin/python benchmarks/analysis_page.py [--copies 12] [--repeat 5] [--keep DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.easy_corpus import build, run_command  # noqa: E402

DB_NAME = "parseval_bench_analysis"

# The analysis as the app computes it (evaluation/kinds/easy/analysis.py: the library's count and document, then
# the compact split into document and index, packed a part at a time), in a child of its own so that its peak is
# its own (VmHWM); Django and the apps are loaded first, as in the worker, and what they hold before anything is
# computed (VmRSS) is printed beside the peak.
_ANALYSE_CHILD = r"""
import json, sys, time, zlib
gold, run, out = sys.argv[1:4]
import os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
def status(field):
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field + ":")) / 1024.0
import django
django.setup()  # as in the worker: Django and the apps loaded before anything is computed
from evaluation.kinds.analysis import split
from evaluation.analysis.store import pack
from parseval.evaluation.easy import buckets as easy_buckets
from parseval.evaluation.easy.files import list_xml
loaded = status("VmRSS")
t, c = time.perf_counter(), time.process_time()
counts = easy_buckets.count(list_xml(gold), list_xml(run), errors=True, bootstrap=1000, seed=12345)
document = easy_buckets.document(counts, bootstrap=1000, seed=12345, confusions=True)
library_peak, library_cpu = status("VmHWM"), time.process_time() - c
made = split(counts, document, compact=True)
del counts, document
index = pack(made.index)
wall, cpu = time.perf_counter() - t, time.process_time() - c
peak = status("VmHWM")
with open(out + ".index", "wb") as fh:
    fh.write(index)
with open(out, "w") as fh:
    json.dump({"document": made.document, "wall": wall, "cpu": cpu, "peak": peak, "library_peak": library_peak,
               "loaded": loaded, "library_cpu": library_cpu, "index_bytes": len(index),
               "document_bytes": len(json.dumps(made.document)), "sentences": len(made.index["keys"]),
               "errors": len(made.index["errors"])}, fh)
"""


# The scoring as the scoring worker runs it, like for like with the analysis child: Django and the apps loaded
# first, then the same command's code in the process (the worker and the command share the engine).
_SCORE_CHILD = r"""
import json, os, sys
gold, run, out = sys.argv[1:4]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
def status(field):
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field + ":")) / 1024.0
import django
django.setup()
loaded = status("VmRSS")
from parseval.__main__ import main
main(["easy", "--gold", gold, "--run", run, "--json", out])
print(json.dumps({"loaded": loaded, "peak": status("VmHWM")}))
"""


def score_child(gold: Path, run: Path, out: Path) -> dict:
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="config.settings", PARSEVAL_DEVELOPMENT="1",
               DATABASE_URL=f"{SERVER}/{DB_NAME}", PARSEVAL_VAR_DIR=str(out.parent / "var"), PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-c", _SCORE_CHILD, str(gold), str(run), str(out)], cwd=REPO, env=env,
                          capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"the scoring failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])

def analyse_child(gold: Path, run: Path, out: Path) -> dict:
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="config.settings", PARSEVAL_DEVELOPMENT="1",
               DATABASE_URL=f"{SERVER}/{DB_NAME}", PARSEVAL_VAR_DIR=str(out.parent / "var"))
    proc = subprocess.run([sys.executable, "-c", _ANALYSE_CHILD, str(gold), str(run), str(out)], cwd=REPO, env=env,
                          capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"the analysis failed:\n{proc.stderr[-3000:]}")
    return json.loads(out.read_text())


SERVER = os.environ.get("BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432")


def timed(client, url: str, params: dict, repeat: int) -> tuple[float, int]:
    times, size = [], 0
    for _ in range(repeat):
        t = time.perf_counter()
        response = client.get(url, params)
        times.append(time.perf_counter() - t)
        assert response.status_code == 200, (url, response.status_code)
        size = len(response.content)
    return statistics.median(times), size


def pages(stored: dict, index_bytes: bytes, repeat: int, var_dir: str) -> list[tuple[str, float, int]]:
    from benchmarks.web_results import _admin_sql, _setup_django

    _admin_sql(f"DROP DATABASE IF EXISTS {DB_NAME}")
    _admin_sql(f"CREATE DATABASE {DB_NAME}")
    try:
        _setup_django(var_dir, DB_NAME)
        from django.test import Client
        from django.urls import reverse

        from campaign.models import CampaignState
        from evaluation.analysis import store
        from evaluation.models import RunAnalysis
        from tests.results import builders as b

        organiser = b.user("organiser")
        campaign = b.campaign(CampaignState.SCORED, organiser=organiser, slug="bench-analysis")
        team = b.team(campaign, "Team A", code="A")
        run = b.scored_run(campaign, team, "perturbed", index=1, layers=("relations",))
        result = run.results.get()
        RunAnalysis.objects.create(result=result, schema=store.SCHEMA, document=stored["document"],
                                   index=index_bytes, seconds=stored["wall"])
        index = store.unpack(index_bytes)
        largest = max(((a, bucket, len(entry["s"])) for a, buckets in index["buckets"].items()
                       for bucket, entry in buckets.items()), key=lambda x: x[2])
        key = index["errors"][0][0]
        client = Client()
        client.force_login(organiser)
        base = [campaign.slug, run.pk]
        out = []
        for label, url, params in (
                ("explorer, every attribute", reverse("results:analysis", args=base), {}),
                ("explorer, one attribute (relation)", reverse("results:analysis", args=base), {"by": "relation"}),
                ("confusion tables", reverse("results:analysis-confusions", args=base), {}),
                (f"sentences of the largest bucket ({largest[0]} = {largest[1]}: {largest[2]:,})",
                 reverse("results:analysis-sentences", args=base), {"by": largest[0], "bucket": largest[1]}),
                ("errors (one run)", reverse("results:analysis-errors", args=base), {}),
                ("analysis JSON", reverse("results:analysis-json", args=base), {})):
            seconds, size = timed(client, url, params, repeat)
            out.append((label, seconds, size))
        # the sentence view reads the run's file and the gold: not in this database (the page's other costs are
        # the drawing's, measured by tests/browser/test_analysis_views.py); here only the index lookup is timed
        t = time.perf_counter()
        kept = store.stored(result)
        assert key in set(kept.index["keys"])
        out.append(("sentence view's index lookup (document and index read)", time.perf_counter() - t, 0))
        from django.db import connections

        connections.close_all()
        return out
    finally:
        _admin_sql(f"DROP DATABASE IF EXISTS {DB_NAME}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=12)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="keep the corpus and outputs in this folder")
    args = parser.parse_args(argv)
    folder = args.keep or Path(tempfile.mkdtemp(prefix="analysis-bench-"))
    try:
        if not (folder / "gold").exists():
            corpus = build(folder, args.copies)
        else:
            corpus = {"sentences": "(kept)", "words": "(kept)"}
        gold, run = folder / "gold", folder / "run"
        print(f"corpus: {args.copies}x the EASY reference: {corpus['sentences']} sentences, {corpus['words']} words; "
              f"load average {os.getloadavg()[0]:.1f}")
        scoring = run_command(["easy", "--gold", str(gold), "--run", str(run), "--json", str(folder / "score.json")])
        print(f"scoring (python -m evaluation easy, 20 ways, bootstrap 1000): {scoring['cpu']:.1f} CPU s, "
              f"{scoring['wall']:.1f} s wall, peak {scoring['rss_mb']:.0f} MB")
        in_django = score_child(gold, run, folder / "score-django.json")
        print(f"scoring in a process with Django and the apps loaded, as the scoring worker: peak "
              f"{in_django['peak']:.0f} MB (Django and the apps: {in_django['loaded']:.0f} MB before scoring)")
        stored = analyse_child(gold, run, folder / "analysis.json")
        print(f"analysis (computed once per result: counts, errors, confusions, bootstrap 1000, split): "
              f"{stored['cpu']:.1f} CPU s, {stored['wall']:.1f} s wall, peak {stored['peak']:.0f} MB "
              f"({stored['peak'] / scoring['rss_mb']:.2f}x the scoring command's, "
              f"{stored['peak'] / in_django['peak']:.2f}x the scoring's with Django loaded; Django and the apps loaded before computing: "
              f"{stored['loaded']:.0f} MB, so the computing adds {stored['peak'] - stored['loaded']:.0f} MB; the "
              f"library's counts and document: {stored['library_cpu']:.1f} CPU s, peak {stored['library_peak']:.0f} "
              f"MB); stored: document "
              f"{stored['document_bytes'] / 1e6:.2f} MB of JSON, index {stored['index_bytes'] / 1e6:.2f} MB compressed "
              f"({stored['sentences']:,} sentences, {stored['errors']:,} errors)")
        index_bytes = (folder / "analysis.json.index").read_bytes()
        with tempfile.TemporaryDirectory() as var_dir:
            results = pages(stored, index_bytes, args.repeat, var_dir)
        print(f"pages, server time (median of {args.repeat}; target < 1 s), load average {os.getloadavg()[0]:.1f}:")
        for label, seconds, size in results:
            mark = "" if seconds < 1 else "  ABOVE 1 s"
            print(f"  {label:<70} {seconds * 1000:8.1f} ms  {size / 1e3:8.1f} kB{mark}")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
