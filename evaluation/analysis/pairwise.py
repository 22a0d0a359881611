"""Two runs compared bucket by bucket (issue 38), by the library (:func:`parseval.evaluation.bucket_pairs.compare`:
the campaign's paired test in every bucket of an attribute, Benjamini–Hochberg across its buckets, each bucket's
minimum detectable effect and its reading), on the two stored indexes.

The rows are the sentences both runs have, in the order of their keys with their genres, as the paired
significance layer lines them up (:func:`evaluation.results.sentence_rows.sorted_rows`), and the test takes the
campaign's method, resamples, seed and alpha (:func:`evaluation.significance.sets.settings_of`): a bucket holding
every item, or every item of one genre, is exactly the comparison page's test of the same figure (LAS for
dependencies, F for EASY and trees), overall or in that genre.
"""
from __future__ import annotations

from parseval.evaluation import bucket_pairs

from evaluation.kinds.analysis import counts_of

NO_DIFFERENCE_MDE = bucket_pairs.DEFAULT_EFFECT  # 2 points: "no difference" when the bucket would have seen that
READINGS = {bucket_pairs.A_BETTER: "better_a", bucket_pairs.B_BETTER: "better_b",
            bucket_pairs.NO_DIFFERENCE: "no_difference", bucket_pairs.TOO_FEW: "too_few"}


def compare(index_a: dict, index_b: dict, attribute: str, settings: dict) -> dict:
    """``{"rows": [...], "sentences": n, "figure": name}``: per bucket (both runs' buckets, in the attribute's
    order) the two figures, A − B, its interval, p, BH-adjusted p, the detectable effect and the reading
    (``better_a``, ``better_b``, ``no_difference``, ``too_few``)."""
    common = sorted(set(index_a["keys"]) & set(index_b["keys"]))
    out = {"rows": [], "sentences": len(common), "figure": bucket_pairs.PAIR_FIGURES[index_a["kind"]][0]}
    if not common or attribute not in index_a["buckets"] or attribute not in index_b["buckets"]:
        return out
    section = bucket_pairs.compare(counts_of(index_a, attribute, common), counts_of(index_b, attribute, common),
                                   method=settings["method"], resamples=settings["resamples"], seed=settings["seed"],
                                   alpha=settings["alpha"], effect=NO_DIFFERENCE_MDE)
    for bucket in section["attributes"][0]["buckets"] if section["attributes"] else []:
        row = {k: bucket[k] for k in ("bucket", "a", "b", "diff", "se", "ci", "p", "p_bh", "mde")}
        row["reading"] = "undefined" if bucket["diff"] is None else READINGS[bucket["verdict"]]
        out["rows"].append(row)
    return out


def sentences_behind(index_a: dict, index_b: dict, attribute: str, bucket: str) -> list[str]:
    """The keys of the sentences with an item in ``bucket`` in either run, in the first run's corpus order."""
    keys = set()
    for index in (index_a, index_b):
        entry = index["buckets"].get(attribute, {}).get(bucket) or {"s": []}
        keys |= {index["keys"][s] for s in entry["s"]}
    return [k for k in index_a["keys"] if k in keys]
