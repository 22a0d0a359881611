"""Calibration and power of the paired tests, by simulation over campaigns built from two real runs.

A *null campaign* exchanges two real runs' per-sentence rows at random,
sentence by sentence: run X takes run A's row of a sentence with probability
1/2 and run B's otherwise, run Y the other one. Neither X nor Y is better by
construction, so a test at level alpha must call the difference significant
in at most alpha of such campaigns. With probability ``share`` > 1/2 instead,
X is better than Y by a *planted* difference whose size grows with ``share``
(about (2·share − 1) times the two real runs' difference): the share of
campaigns where the test finds it is the test's power at that size.

The tests are run as implemented (:mod:`parseval.evaluation.paired`): the bootstrap's
resampling, Gram-matrix variances and normal p-value; approximate
randomisation's counted p-value. ``bootstrap-count`` is the bootstrap as it
was implemented before (the share of centred resampled differences at least
as far from 0 as the observed one, (1 + k) / (1 + B)), kept for comparison.

Campaigns are simulated in batches: the campaigns of a batch share one
bootstrap draw of sentences (a new seeded draw per batch), as the pairs of
one real campaign do.

Pure: numpy and the standard library only.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Sequence

import numpy as np

from parseval.evaluation import paired, stats

METHODS = ("bootstrap", "ar", "bootstrap-count")


@dataclass
class Rate:
    """How often the test rejected at ``alpha``, over ``campaigns`` simulated campaigns, with a 95% interval."""

    method: str
    share: float
    campaigns: int
    rejected: int
    mean_diff: float   # the mean observed difference X − Y: the planted difference (0 under the null)
    mean_se: float     # the mean standard error the bootstrap stated (NaN under approximate randomisation)

    @property
    def rate(self) -> float:
        return self.rejected / self.campaigns

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.rejected, self.campaigns)


def wilson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval for a binomial proportion k / n (Wilson 1927)."""
    z = NormalDist().inv_cdf(1 - (1 - level) / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def exchanged(a: np.ndarray, b: np.ndarray, take: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """X takes A's row where ``take`` is true and B's elsewhere; Y the other row of each sentence."""
    take = take[:, None]
    return np.where(take, a, b), np.where(take, b, a)


def simulate(a: np.ndarray, b: np.ndarray, strata: Sequence[str], figures: paired.FigureSet, key: int, *,
             method: str = "bootstrap", campaigns: int = 1000, share: float = 0.5, alpha: float = paired.ALPHA,
             resamples: int = paired.DEFAULT_RESAMPLES, seed: int = 1, batch: int = 100) -> Rate:
    """Test X against Y in ``campaigns`` campaigns exchanged from runs A and B; the figure ``key`` of
    ``figures``, over all genres. ``share`` is the chance that X takes A's row of a sentence."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}")
    rng = np.random.default_rng(seed)
    labels = np.array(list(strata), dtype=object)
    genres = sorted(set(strata))
    a = a if figures.columns is None else a[:, figures.columns]
    b = b if figures.columns is None else b[:, figures.columns]
    alone = paired.FigureSet(figures.keys, figures.compute)  # the columns are picked above
    rejected, diffs, ses = 0, [], []
    done = 0
    while done < campaigns:
        k = min(batch, campaigns - done)
        pairs = [exchanged(a, b, rng.random(len(a)) < share) for _ in range(k)]
        draw_seed = int(rng.integers(2 ** 31))
        if method == "ar":
            for x, y in pairs:
                p = paired._randomised(x, y, labels, genres, alone, resamples, draw_seed)[-1, key]
                d = (paired._figures(alone, x.sum(axis=0, dtype=np.float64))
                     - paired._figures(alone, y.sum(axis=0, dtype=np.float64)))[0, key]
                rejected += bool(p < alpha)
                diffs.append(d)
            done += k
            continue
        x = np.stack([x for x, _ in pairs] + [y for _, y in pairs])  # (2k, sentences, columns)
        point = paired._figures(alone, x.sum(axis=1, dtype=np.float64))[:, key]
        d = point[:k] - point[k:]
        draws = list(stats.resampling_weights(strata, resamples, draw_seed))
        resampled = paired._resampled(x, draws, alone)[-1:, key:key + 1]  # ALL, one key: (1, 1, 2k, B)
        if method == "bootstrap":
            ia, ib = np.arange(k), np.arange(k, 2 * k)
            se = np.sqrt(paired._pair_variances(resampled, ia, ib))[0, :, 0]
            p = paired.normal_p(d, se)
            ses += se.tolist()
        else:
            star = resampled[0, 0, :k] - resampled[0, 0, k:]  # (k, B)
            null = (star - np.nanmean(star, axis=1, keepdims=True)).T
            p = np.array([paired._p_values(null[:, [i]], d[[i]])[0] for i in range(k)])
        rejected += int((p < alpha).sum())
        diffs += d.tolist()
        done += k
    return Rate(method, share, campaigns, rejected, float(np.nanmean(diffs)),
                float(np.nanmean(ses)) if ses else math.nan)


def share_for(difference: float, full: float) -> float:
    """The share that plants ``difference`` between X and Y, when A − B = ``full`` (the exchange is linear in
    the summed rows, so to first order the planted difference is (2·share − 1)·full)."""
    return min(1.0, 0.5 * (1.0 + difference / full))


def stated_mde(a: np.ndarray, b: np.ndarray, strata: Sequence[str], figures: paired.FigureSet, key: int, *,
               alpha: float = paired.ALPHA, power: float = paired.POWER, resamples: int = paired.DEFAULT_RESAMPLES,
               seed: int = stats.DEFAULT_SEED) -> tuple[float, float]:
    """(minimum detectable effect, standard error) the platform states for runs as different as A and B are
    from each other by chance: the standard error of a null campaign's difference, through the detectable
    effect formula. The standard error is the same whatever the sentences' exchange (|X − Y| per sentence is
    |A − B|), up to the small term of the mean difference."""
    x, y = exchanged(a, b, np.random.default_rng(seed).random(len(a)) < 0.5)
    comp = paired.compare_arrays({0: x, 1: y}, strata, figures, resamples=resamples, seed=seed)
    se = float(comp.se[0, -1, key])
    return float(paired.detectable(se, alpha, power)), se


def narrowed(figures: paired.FigureSet, key: int) -> tuple[paired.FigureSet, int]:
    """``figures`` reduced to the row columns its figure ``key`` reads (found by changing each column in turn
    at two random points), so that a simulation resamples only those: the same figure, a fraction of the cost."""
    width = len(figures.columns) if figures.columns is not None else None
    if width is None:
        return figures, key
    rng = np.random.default_rng(0)
    used = np.zeros(width, dtype=bool)
    for _ in range(2):
        base = rng.integers(1, 50, size=(1, width)).astype(np.float64)
        bumped = np.repeat(base, width, axis=0) + np.eye(width) * rng.integers(1, 9)
        values = paired._figures(figures, np.vstack([base, bumped]))[:, key]
        used |= ~np.isclose(values[1:], values[0], rtol=0, atol=1e-15, equal_nan=True)
    picked = np.flatnonzero(used)

    def compute(sums: np.ndarray, _compute=figures.compute, _picked=picked, _width=width, _key=key):
        full = np.zeros((len(sums), _width))
        full[:, _picked] = sums
        return _compute(full)[:, [_key]]

    return paired.FigureSet((figures.keys[key],), compute, figures.columns[picked]), 0


def difference(a: np.ndarray, b: np.ndarray, figures: paired.FigureSet, key: int) -> float:
    """The figure ``key`` of run A minus that of run B, over every sentence."""
    def figure(rows):
        rows = rows if figures.columns is None else rows[:, figures.columns]
        return paired._figures(figures, rows.sum(axis=0, dtype=np.float64))[0, key]
    return float(figure(a) - figure(b))
