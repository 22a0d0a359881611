"""Tuning a consensus on the development sample: the weights and thresholds that maximise the campaign's figure.

Plain majority voting with equal weights is right for runs of equal quality
and wrong for unequal ones: with two weak voters, a correct item of the best
run needs every other voter to keep it, and the consensus falls below the
best run (issue 37). So the combination's parameters are chosen, per kind,
to maximise **the campaign's consensus figure of the consensus on the
development sample** (EASY: relations micro F in the campaign's first mode
and match, HYP EQUAL by default; dependencies: LAS; constituency: evalb F),
scored against the development gold only:

    chosen = argmax over the grid of  F_dev(consensus(runs; weights, thresholds))

and, when no setting of the grid beats the best single run on the
development sample (``F_dev(chosen) <= max_i F_dev(run_i)``), the consensus
is that run's output (the **fallback**), so that a consensus never trades a
known better run for a worse vote.

The search is small and deterministic (seconds on the demo):

* **weightings**: each run's development figure raised to a power k
  (:func:`~parseval.evaluation.consensus.weights.weights_from_development`),
  k in :data:`EXPONENTS`: 0 (equal), 1 (dev-F), 2, 4, 8 (ever closer to
  trusting the best run); weightings that come out identical are tried once;
* **thresholds** (an item is kept with more than that share of the weight),
  in :data:`THRESHOLDS`, tried nearest one half first: the first kind's
  threshold (EASY relations, constituency spans) on a grid for every
  weighting, the others at one half; then the second (EASY groups) on the
  grid with the best weighting and first threshold so far. Dependencies
  have no threshold: LAS counts every word, and the spanning tree must give
  every word a head, so there is nothing a threshold could leave out.

Candidates are compared on their figure, then on a second figure where the
kind has one (EASY: the groups' micro F, so that the group threshold is
tuned for F too); on a tie the candidate tried first wins (equal weights and
one half come first). Every candidate and its development figures is kept in
the :class:`Tuning` record.

The evaluation of a candidate is the caller's (``evaluate(setting)``): the
platform combines the runs' development documents and scores them with the
campaign's own scorer (:mod:`evaluation.consensus.runs`); the command line
and the benchmark use the in-memory scorers of this package
(:func:`easy_evaluator`, :func:`tree_evaluator`, :func:`dependency_evaluator`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from parseval.annotations.errors import InputError

from .votes import normalised
from .weights import weights_from_development

#: The powers of the development figure tried as weights (0: equal weights).
EXPONENTS = (0, 1, 2, 4, 8)
#: The thresholds tried (a share of the weight, strictly above), tried nearest one half first.
THRESHOLDS = tuple(sorted((round(0.05 * k, 2) for k in range(1, 15)), key=lambda t: (round(abs(t - 0.5), 6), -t)))
#: The thresholds each kind tunes, in the order they are searched, and their defaults (a plain majority).
SEARCH = {"easy": ("relations", "groups"), "trees": ("spans",), "deps": ()}
DEFAULTS = {"relations": 0.5, "groups": 0.5, "spans": 0.5}
#: How close to the best run a candidate may come and still not "beat" it (rounding of sums).
EPSILON = 1e-9


def weighting_name(k: float) -> str:
    return "equal" if k == 0 else "dev-F" if k == 1 else f"dev-F^{k:g}"


@dataclass(frozen=True)
class Setting:
    """One candidate: normalised weights (one per run), thresholds, or the fallback on run ``fallback``."""

    weighting: str
    weights: tuple[float, ...]
    thresholds: tuple[tuple[str, float], ...] = ()
    fallback: int | None = None

    @property
    def threshold(self) -> dict[str, float]:
        return dict(self.thresholds)

    def with_threshold(self, name: str, value: float) -> "Setting":
        return Setting(self.weighting, self.weights, tuple(sorted({**self.threshold, name: value}.items())))


@dataclass
class Candidate:
    setting: Setting
    figures: tuple[float, ...]  # the figure first, then any tie-breaking figure; NaN-free (undefined: -1)


@dataclass
class Tuning:
    """What was tried and what was chosen; :meth:`record` is its JSON form (``Run.combination["tuning"]``)."""

    kind: str
    development: list[float | None]  # each run's development figure
    chosen: Setting
    figure: float | None  # the chosen candidate's development figure (the best run's on a fallback)
    candidates: list[Candidate] = field(default_factory=list)
    tuned: bool = True  # False: no development figure, the defaults (equal weights, one half)

    @property
    def fallback(self) -> bool:
        return self.chosen.fallback is not None

    @property
    def best_run(self) -> int | None:
        known = [(f, -i) for i, f in enumerate(self.development) if f is not None]
        return -max(known)[1] if known else None

    def record(self) -> dict:
        return {
            "kind": self.kind, "tuned": self.tuned, "fallback": self.fallback, "fallback_run": self.chosen.fallback,
            "best_run": self.best_run, "weighting": self.chosen.weighting, "weights": list(self.chosen.weights),
            "thresholds": self.chosen.threshold, "figure": self.figure, "development": list(self.development),
            "candidates": [{"weighting": c.setting.weighting, "weights": [round(w, 6) for w in c.setting.weights],
                            "thresholds": c.setting.threshold, "figures": list(c.figures)}
                           for c in self.candidates],
        }


def _weightings(development: Sequence[float | None], exponents: Sequence[float]) -> list[Setting]:
    seen, out = set(), []
    for k in exponents:
        weights = normalised(weights_from_development(development, sharpness=k), len(development))
        key = tuple(round(w, 12) for w in weights)
        if key not in seen:
            seen.add(key)
            out.append(Setting(weighting_name(k), weights))
    return out


def _figures(value) -> tuple[float, ...]:
    values = value if isinstance(value, tuple) else (value,)
    return tuple(-1.0 if v is None or v != v else float(v) for v in values)


def _subset_sums(weights: Sequence[float]) -> list[float]:
    sums = [0.0]
    for w in weights:
        sums += [s + w for s in sums]
    return sums


def _outcome(setting: Setting, voters: dict) -> tuple:
    """What decides a candidate's consensus: its weights and, per threshold, which possible agreements it keeps.

    An item's agreement is the sum of the (normalised) weights of the runs that voted for it, so two thresholds
    keeping the same subset sums keep the same items and make the same consensus: the second is not scored
    again. ``voters[name]``: which runs vote on that threshold's items (the others' weights do not count, the
    rest renormalised: an EASY run without relations); None when the caller does not know (exact thresholds)."""
    key: list = [setting.weights]
    for name, value in setting.thresholds:
        flags = voters.get(name, [True] * len(setting.weights))
        if flags is None or len(setting.weights) > 12 or not any(flags):
            key.append((name, value))
            continue
        weights = [w for w, f in zip(setting.weights, flags) if f]
        total = sum(weights) or 1.0
        key.append((name, tuple(s / total > value + 1e-9 for s in _subset_sums(weights))))
    return tuple(key)


def tune(kind: str, development: Sequence[float | None], evaluate: Callable[[Setting], object], *,
         exponents: Sequence[float] = EXPONENTS, thresholds: Sequence[float] = THRESHOLDS,
         voters: dict | None = None) -> Tuning:
    """Search the grid (module docstring) with ``evaluate(setting)``: the candidate consensus's development
    figure (a number in [0, 1]), or a tuple of it and tie-breaking figures; ``development``: each run's
    figure on the same sample by the same scorer. Without any development figure nothing is tried: equal
    weights at the default thresholds, ``tuned`` False. A candidate whose thresholds keep the same agreements
    as one already scored (:func:`_outcome`; ``voters`` as there) takes its figures without being scored."""
    if kind not in SEARCH:
        raise InputError(f"unknown kind {kind!r} to tune: {', '.join(SEARCH)}")
    n = len(development)
    names = SEARCH[kind]
    defaults = tuple(sorted((name, DEFAULTS[name]) for name in names))
    if all(f is None for f in development):
        return Tuning(kind, list(development), Setting("equal", normalised(None, n), defaults), None, tuned=False)
    tried: dict[Setting, Candidate] = {}
    scored: dict[tuple, tuple] = {}
    voters = voters if voters is not None else getattr(evaluate, "voters", {})

    def trial(setting: Setting) -> Candidate:
        if setting not in tried:
            outcome = _outcome(setting, voters)
            if outcome not in scored:
                scored[outcome] = _figures(evaluate(setting))
            tried[setting] = Candidate(setting, scored[outcome])
        return tried[setting]

    best: Candidate | None = None

    def consider(candidate: Candidate) -> None:
        nonlocal best
        if best is None or candidate.figures > best.figures:
            best = candidate

    for weighting in _weightings(development, exponents):
        base = Setting(weighting.weighting, weighting.weights, defaults)
        if not names:
            consider(trial(base))
            continue
        for value in thresholds:
            consider(trial(base.with_threshold(names[0], value)))
    for name in names[1:]:
        start = best.setting
        for value in thresholds:
            consider(trial(start.with_threshold(name, value)))
    best_run = Tuning(kind, list(development), best.setting, None).best_run
    top = development[best_run]
    if best.figures[0] <= top + EPSILON:
        chosen = Setting("best run", tuple(1.0 if i == best_run else 0.0 for i in range(n)), (), best_run)
        return Tuning(kind, list(development), chosen, top, list(tried.values()))
    return Tuning(kind, list(development), best.setting, best.figures[0], list(tried.values()))


# -- in-memory evaluation: the command line's and the benchmark's -------------------------------------------

def _micro_f(fc: float, fp: float, cr: float) -> float:
    return 2 * fc / (fp + cr) if fp + cr else 0.0


def easy_figures(gold_docs, docs) -> tuple[float, float]:
    """(relations, groups) HYP EQUAL micro F of ``docs`` against ``gold_docs``, by the EASY scorer."""
    from parseval.evaluation.easy.scoring import count_sentences

    plan, _, counting = count_sentences(gold_docs, docs, matches=("EQUAL",), modes=("HYP",))
    rows = counting.rows
    rel = slice(plan.rel_off[0][0], plan.rel_off[0][0] + len(plan.rel_types))
    grp = slice(plan.cons_off[0], plan.cons_off[0] + len(plan.cons_types))
    return (_micro_f(rows.fc[:, rel].sum(), rows.fp[:, rel].sum(), rows.cr[:, rel].sum()),
            _micro_f(rows.fc[:, grp].sum(), rows.fp[:, grp].sum(), rows.cr[:, grp].sum()))


def easy_evaluator(gold_docs, run_docs: Sequence[Sequence], relations: Sequence[bool] | None = None):
    """``(each run's development figure, evaluate)`` for EASY runs read in memory (documents paired by name).

    ``relations``: which runs have a relation layer (default: any relation in their documents); a run without
    one does not vote on relations, as in :func:`~parseval.evaluation.consensus.files.combine_easy_files`."""
    from parseval.annotations.easy.model import Document
    from parseval.annotations.easy.reader import document_key

    from . import easy

    by_name = [{document_key(d.name): d.sentence_map() for d in docs} for docs in run_docs]
    sentences = []  # per gold sentence: its runs' sentences and their relations in range space, read once
    for g in gold_docs:
        for s in g.sentences:
            found = [m.get(document_key(g.name), {}).get(s.id) for m in by_name]
            sentences.append((s, found, [None if x is None else easy.relation_ranges(x) for x in found]))
    if relations is None:
        relations = [any(s.relations for d in docs for s in d.sentences) for docs in run_docs]
    development = [easy_figures(gold_docs, docs)[0] for docs in run_docs]

    def evaluate(setting: Setting) -> tuple[float, float]:
        shares = setting.weights
        relation_shares = None
        if not all(relations) and any(relations):
            relation_shares = normalised([w if has else 0.0 for w, has in zip(shares, relations)], len(shares))
        threshold = setting.threshold
        out, k = [], 0
        for g in gold_docs:
            combined = Document(name=g.name, attributes=dict(g.attributes))
            for _ in g.sentences:
                s, found, ranges = sentences[k]
                k += 1
                combined.sentences.append(easy.combine_sentence(
                    s, found, shares, relation_weights=relation_shares, ranges=ranges,
                    group_threshold=threshold.get("groups", DEFAULTS["groups"]),
                    relation_threshold=threshold.get("relations", DEFAULTS["relations"])).sentence)
            out.append(combined)
        return easy_figures(gold_docs, out)

    evaluate.voters = {"relations": list(relations) if any(relations) and not all(relations) else None}
    if evaluate.voters["relations"] is None:
        evaluate.voters = {}
    return development, evaluate


def _metric_evaluator(metric_name: str, figure: str, gold: list, runs: Sequence[list], combine_one,
                      prepare=lambda sentence_runs: sentence_runs):
    from parseval.evaluation import metrics, stats

    metric = metrics.get(metric_name)

    def value(test) -> float:
        _, rows = metric.score_with_rows(gold, test)
        return float(metric.figures(stats.column_sums(rows, metric.columns))[figure])

    for n, run in enumerate(runs, 1):
        if len(run) != len(gold):
            raise InputError(f"run {n} has {len(run)} sentences on the development sample, the gold {len(gold)}")
    development = [value(run) for run in runs]
    sentences = [prepare([run[i] for run in runs]) for i in range(len(gold))]

    def evaluate(setting: Setting) -> float:
        return value([combine_one(s, setting) for s in sentences])

    return development, evaluate


def tree_evaluator(gold_trees: list, run_trees: Sequence[list]):
    """``(each run's evalb F, evaluate)`` for bracketed runs of the development sentences, in memory."""
    from . import trees

    def combine_one(sentence_runs, setting):
        return trees.combine_sentence(sentence_runs, setting.weights,
                                      threshold=setting.threshold.get("spans", DEFAULTS["spans"])).tree

    return _metric_evaluator("evalb", "summary.all.f", gold_trees, run_trees, combine_one, trees.ballots_of)


def dependency_evaluator(gold_sentences: list, run_sentences: Sequence[list]):
    """``(each run's LAS, evaluate)`` for CoNLL-U runs of the development sentences, in memory."""
    from . import deps

    def combine_one(sentence_runs, setting):
        return deps.combine_sentence(sentence_runs[0], sentence_runs, setting.weights).sentence

    return _metric_evaluator("dependency", "totals.las", gold_sentences, run_sentences, combine_one)


def tune_files(kind: str, gold: str | Path, development: Sequence[str | Path], **grid) -> Tuning:
    """Tune on files: ``gold`` the development gold, ``development`` each run's analysis of the same sentences
    (EASY: files or folders, documents paired by name; dependencies and constituency: one file each, sentences
    paired by position)."""
    if kind == "easy":
        from parseval.annotations.easy.reader import read_document
        from parseval.evaluation.easy.files import list_xml

        golds = [read_document(p) for p in list_xml(gold)]
        runs = [[read_document(p, gold=False) for p in list_xml(r)] for r in development]
        scores, evaluate = easy_evaluator(golds, runs)
    elif kind == "deps":
        from parseval.annotations.conllu import read_conllu

        scores, evaluate = dependency_evaluator(read_conllu(gold), [read_conllu(r) for r in development])
    elif kind == "trees":
        from parseval.annotations.trees.penn import read_penn

        scores, evaluate = tree_evaluator(read_penn(gold), [read_penn(r) for r in development])
    else:
        raise InputError(f"unknown kind {kind!r} to tune: {', '.join(SEARCH)}")
    return tune(kind, scores, evaluate, **grid)
