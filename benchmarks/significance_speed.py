"""The paired significance tests of a whole campaign, at 20 and at 100 runs, on PostgreSQL.

Creates a dedicated database (``parseval_bench_significance`` on the server of ``BENCH_POSTGRES``, default
``postgres://postgres@127.0.0.1:5432``), scores ONE real run with the engine (the whole EASY reference
corpus, gold perturbed as in the demo) and gives N synthetic runs its per-sentence rows with found-correct
counts thinned at a random rate of 0.7 to 1 (as ``benchmarks/web_results.py`` does). Then it times
:func:`evaluation.significance.sets.compute` (every pair, every figure: 40 EASY figures, 1,000 paired bootstrap
resamples, Holm across pairs, Benjamini–Hochberg across each table, agreement across genres, stored) for
20 runs (190 pairs) and for 100 runs (4,950 pairs), with the part spent in the tests alone, and the peak
memory. It checks that the same seed gives the same stored p-values. The database is dropped at the end.

    .venv/bin/python benchmarks/significance_speed.py [--runs 20 100]
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks import web_results  # noqa: E402  (after the path is set)

web_results.DB_NAME = "parseval_bench_significance"


def per_pair_reference(runs: dict, strata: list, figures) -> None:
    """The reference point: the tests as computed before, pair by pair after each run is resampled once (the
    percentile interval and the counted p-value of the centred resampled differences of every pair)."""
    import warnings

    import numpy as np

    from parseval.evaluation import paired, stats

    draws = [(g, idx, w.astype(np.float32)) for g, idx, w in stats.resampling_weights(strata, 1000, 12345)]
    names = list(runs)
    for part in figures:
        x = np.stack([runs[n][:, part.columns] for n in names])
        f = paired._resampled(x, draws, part)  # (strata, keys, runs, B): the same resampling as before
        for i in range(len(names)):
            for j in range(i + 1, len(names)):
                d = (f[:, :, i] - f[:, :, j]).transpose(0, 2, 1)  # (strata, B, keys)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    for s in range(d.shape[0]):
                        null = d[s] - np.nanmean(d[s], axis=0)
                        percentile = np.nanpercentile if np.isnan(d[s]).any() else np.percentile
                        percentile(d[s], stats.CI_PERCENTILES, axis=0)
                        paired._p_values(null, np.nanmean(d[s], axis=0))


def tests_alone(campaign, reference: bool = False) -> tuple[float, int, float | None]:
    """The time of the tests without reading rows or storing: (seconds, pairs, reference seconds)."""
    from campaign import kinds
    from parseval.evaluation import paired
    from evaluation.significance import sets as significance
    from evaluation.results.sentence_rows import rows_of
    from evaluation.results.summaries import latest_result_ids, scored_runs

    ids = sorted(latest_result_ids(list(scored_runs(campaign))).values())
    from evaluation.models import Result

    results = list(Result.objects.filter(pk__in=ids).order_by("pk"))
    rows = {r.pk: rows_of(r) for r in results}
    figures = kinds.get(results[0].metric).paired_figures(results[0])
    runs, strata = {pk: r.rows for pk, r in rows.items()}, list(rows[ids[0]].strata)
    t0 = time.perf_counter()
    compared = paired.compare_arrays(runs, strata, figures)  # as compute() calls it
    significance._pair_rows(compared, paired.ALPHA)
    seconds = time.perf_counter() - t0
    if not reference:
        return seconds, len(compared.pairs), None
    t0 = time.perf_counter()
    per_pair_reference(runs, strata, figures)
    return seconds, len(compared.pairs), time.perf_counter() - t0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, nargs="+", default=[20, 100])
    args = parser.parse_args(argv)
    web_results._admin_sql(f"DROP DATABASE IF EXISTS {web_results.DB_NAME}")
    web_results._admin_sql(f"CREATE DATABASE {web_results.DB_NAME}")
    failed = False
    try:
        with tempfile.TemporaryDirectory(prefix="significance-bench-") as tmp:
            web_results._setup_django(str(Path(tmp) / "var"))
            from django.contrib.auth import get_user_model
            from django.db import connections

            from evaluation.significance import sets as significance

            t0 = time.perf_counter()
            document, rows = web_results.engine_output(0, Path(tmp))
            print(f"one real engine output in {time.perf_counter() - t0:.1f} s; per-sentence rows: "
                  f"{rows[2].shape[0]:,} gold sentences x {rows[2].shape[1]} columns")
            organiser = get_user_model().objects.create_user("organiser", password=None)
            campaign = web_results.build_campaign(document, organiser)
            have, table = 0, []
            for n in sorted(args.runs):
                web_results.keep_rows(web_results.add_runs(campaign, document, n - have, have), rows, have)
                have = n
                first = n == min(args.runs)
                alone, pairs, before = tests_alone(campaign, reference=True) if first else (None, None, None)
                t0, c0 = time.perf_counter(), time.process_time()
                computed = significance.compute(campaign)
                seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
                pairs = n * (n - 1) // 2
                stored = computed.pairs.count()
                table.append((n, pairs, stored, cpu, seconds))
                print(f"{n} runs, {pairs} pairs, {stored} stored differences: compute() (reading the rows, every "
                      f"test, storing) {seconds:.1f} s wall, {cpu:.1f} s CPU of this process", flush=True)
                if alone is not None:
                    print(f"    the tests alone (no reading, no storing): {alone:.1f} s", flush=True)
                if before is not None:
                    print(f"    the same tests pair by pair, as before (percentile intervals, counted p): {before:.1f} s;"
                          f" before / now = {before / alone:.1f}", flush=True)
                if n == min(args.runs):
                    again = significance.compute(campaign)  # seeded: the same p-values

                    def stored_p(computed_set):
                        return {(a, b, f): p for a, b, f, p in computed_set.pairs.values_list(
                            "result_a", "result_b", "figure", "p_holm")}

                    first, second = stored_p(computed), stored_p(again)
                    failed |= first != second
                    print(f"recomputed with the same seed: {'the same' if first == second else 'DIFFERENT'} p-values")
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"\n{'runs':>5}{'pairs':>7}{'stored':>9}{'wall (s)':>10}{'CPU (s)':>9}")
            for n, pairs, stored, cpu, seconds in table:
                print(f"{n:>5}{pairs:>7}{stored:>9}{seconds:>10.1f}{cpu:>9.1f}")
            if len(table) >= 2:
                (n0, p0, _, c0, s0), (n1, p1, _, c1, s1) = table[0], table[-1]
                print(f"{n1} vs {n0} runs: {p1 / p0:.1f}x the pairs, {s1 / s0:.1f}x the wall time, "
                      f"{c1 / c0:.1f}x the CPU time")
            print(f"load average over the last 15 minutes: {os.getloadavg()[2]:.1f} on {os.cpu_count()} cores")
            print(f"peak memory (RSS) {peak:.0f} MiB")
            connections.close_all()
    finally:
        web_results._admin_sql(f"DROP DATABASE IF EXISTS {web_results.DB_NAME}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
