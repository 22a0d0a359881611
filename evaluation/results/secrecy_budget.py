"""The secrecy budget: how many test-set memberships a team can decode from what it reads before the gold release.

Every number shown of a test run before the gold release is a function of which sentences are scored. The
adversary of docs/threat-model.md turns that into membership with a *probe code*: it pads chosen sentences
with surely-wrong items (reversed pairs, null-argument relations, single-form groups: wrong in every way of
scoring, within the plausibility bound of :mod:`parseval.annotations.plausibility`), sentence ``i`` with ``w_i = u * 2^i``
items. The padding that counts is ``K``, the weights of the padded sentences that are test sentences; a
figure that depends on ``K`` finely enough gives ``K`` back, and ``K``'s bits give the memberships. With a
baseline run (the same run without the padding) the team knows its correct items ``c`` exactly: the pooled
precision is ``c / (T + K)``, rounded to 0.1 point, and the issue's 7 bits per run follow.

This module is that adversary, as pure functions over a description of the campaign (:class:`Shape`) and of
what its disclosure setting shows (:class:`Setting`): for every independent sum a team can read (a layer
pooled, a genre x type cell), :func:`best_code` searches the code (how many sentences, which base weight ``u``,
which baseline run) that decodes the most memberships *with certainty*: the rounded figures of any two codewords
must differ whatever the quantities the team does not know take within their range. What the team does not know:

* ``c``, its own correct items among the scored sentences, unless a second run of its own is shown (a
  calibration); its uncertainty is ``Z * SIGMA_CORRECT * sqrt(items)``, as if it knew each item's correctness
  nearly for sure;
* ``G``, the gold items of the scored sentences, which F depends on; its uncertainty is
  ``Z * SIGMA_GOLD * sqrt(T)``, as if it predicted each sentence's gold count to within one item.

Both are generous to the adversary (a real parser predicts neither that well), and ``T`` and every genre's test
count are taken as known. The figures read: P, R, F of each shown cell; counts where shown; the paired difference
of two runs of the team, rounded as rates (its interval and detectable effect are rounded alike and move with
it; its p-value, for a probe that only adds wrong items, is the same for every codeword: the probe is below its
baseline in every resample); the consensus run, counted as one more disclosed run. What is not counted: inference about groups of sentences that determines no single
sentence's membership (e.g. "about half of these 100 padded sentences are scored"); the 15 ways as separate
readings of one sum (each reads the same ``K``; they could only sharpen a rounding); deliberate errors in
chosen sentences (they move ``c`` by what the team's parser would have got right there, which it does not know).

:func:`budget` adds it up: bits per disclosed run, and the campaign's total, teams x disclosed runs x bits (the
consensus run counted as one more disclosed run), as "at most N of the T non-development sentences". A *gated*
setting (the default, ``primary``) shows nothing before the gold release where what it would show is above
1 bit per run or 1 % of the non-development sentences; its budget is then 0, with what it would have been. The console,
the state page, ``benchmarks/secrecy_budget.py`` and the tests call it; :mod:`evaluation.results.secrecy_shape` builds
the :class:`Shape` of a stored campaign.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from parseval.annotations import plausibility
from parseval.annotations.easy import read_document
from parseval.annotations.names import genre_of

Z = 3.0
SIGMA_GOLD = 1.0
SIGMA_CORRECT = 0.2
# The baselines the adversary may pair its padding with: (items per sentence, share of them right). One item
# per sentence gives the smallest denominator (the attack); a parser's whole output gives a large c.
BASELINES = ((1, 0.9), (1, 0.97), ("gold", 0.7), ("gold", 0.9))
MAX_BITS = 24  # per sum: far above any code the bound allows with a rounded figure; the search stops here


@dataclass(frozen=True)
class Setting:
    """What anyone but the organisers reads of test runs before the gold release (docs/threat-model.md)."""

    name: str
    rates: tuple[str, ...]          # of each cell shown: "p", "r", "f"
    step: float | None              # rates (and differences) rounded to this fraction; None: exact floats
    counts: bool = False            # fc, fp, cr
    genre_cells: bool = False       # cells per genre x type besides the pooled ones (genres above the minimum)
    small_genres: bool = False      # genres below the minimum too
    runs: str = "every"             # "every" test run of the team, or its "primary" one only
    gated: bool = False             # shown only while the measured budget is within 1 bit per run and 1 %
    pairs: bool = False             # paired differences between the team's own runs, rounded as rates


@dataclass(frozen=True)
class Layer:
    """A layer of figures: how many items one sentence of ``words`` words may carry beyond a baseline of
    ``base`` items (the plausibility bound), and the gold's items per word (F's denominator)."""

    name: str
    types: int                      # item types, each a cell of its own under genre x type figures
    gold_per_word: float
    kind: str = "relations"         # "relations" (bounded in total and per type), "groups" (<= one per form),
                                    # "brackets" (bounded in total), "heads" (one per word: no room in the
                                    # pooled count, but a type's cell counts the words the run labels so)

    def room(self, words: int, base: int = 1, *, one_type: bool = False) -> int:
        if self.kind == "heads":
            return max(0, words - base) if one_type else 0
        if self.kind == "groups":
            return max(0, words - base)
        if self.kind == "brackets":
            return max(0, plausibility.bound("brackets", words) - base)
        per_type = plausibility.bound("relations_of_one_type", words)
        if one_type:
            return max(0, per_type - base)
        return max(0, min(plausibility.bound("relations", words), self.types * per_type) - base)


# Measured on the EASY reference corpus (3,585 sentences): 0.52 relations and 0.46 groups per word.
EASY_LAYERS = (Layer("relations", 14, 0.52), Layer("constituents", 6, 0.46, kind="groups"))
CONSTITUENCY_LAYERS = (Layer("brackets", 1, 1.0, kind="brackets"),)
DEPENDENCY_LAYERS = (Layer("dependencies", 37, 1.0, kind="heads"),)  # UD's 37 relation labels
LAYERS = {"easy": EASY_LAYERS, "constituency": CONSTITUENCY_LAYERS, "dependency": DEPENDENCY_LAYERS}


@dataclass(frozen=True)
class Shape:
    """A campaign as the adversary meets it. ``words``: ``{genre: [words of each non-development sentence]}``
    (the sentences it may pad); ``test``: ``{genre: test sentences}``."""

    words: dict[str, list[int]]
    test: dict[str, int]
    layers: tuple[Layer, ...] = EASY_LAYERS
    teams: int = 1
    runs_per_team: int = 3
    min_genre_sentences: int = 20
    consensus: bool = True
    name: str = ""

    @property
    def non_dev(self) -> int:
        return sum(len(v) for v in self.words.values())

    @property
    def test_total(self) -> int:
        return sum(self.test.values())


SETTINGS = {
    "primary": Setting("primary", rates=("f",), step=0.001, runs="primary", gated=True),
    "pooled": Setting("pooled", rates=("p", "r", "f"), step=0.001, pairs=True),
    "rates": Setting("rates", rates=("p", "r", "f"), step=0.001, genre_cells=True, pairs=True),
    "full": Setting("full", rates=("p", "r", "f"), step=None, counts=True, genre_cells=True, small_genres=True,
                    pairs=True),
}


# -- one sum: the best code ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Sum:
    """One sum a team reads through figures: the scored sentences of a cell (a layer pooled, or a genre x type),
    ``scored`` of them, the gold's ``gold`` items there, and the padding room of the sentences it may pad."""

    scored: int
    gold: float
    rooms: tuple[int, ...]          # padding room of each candidate sentence, largest first
    base_items: int = 1             # the baseline's items per sentence that the room was computed after


@dataclass(frozen=True)
class Code:
    bits: int
    u: int = 0
    weights: tuple[int, ...] = ()
    baseline: tuple = ()


def _index(value: float, step: float | None):
    return value if step is None else math.floor(value / step + 0.5)


def _readings(setting: Setting, calibrated: bool, n0: float, c: float, gold: float, scored: int):
    """For padding ``K``: the set of what each shown figure may read, over the unknowns' range, as a function
    ``K -> tuple of (low, high) indices``. Monotone in each unknown, so the range's ends suffice."""
    step = setting.step
    if calibrated:
        if step is None:
            c_range = (c, c)
        else:  # the baseline's precision, rounded, pins c to the values that round alike
            target = _index(c / n0, step)
            lo = hi = c
            while lo > 0 and _index((lo - 1) / n0, step) == target:
                lo -= 1
            while _index((hi + 1) / n0, step) == target:
                hi += 1
            c_range = (lo, hi)
    else:
        spread = Z * SIGMA_CORRECT * math.sqrt(n0)
        c_range = (c - spread, c + spread)
    shown_r = "r" in setting.rates
    if calibrated and shown_r and "p" in setting.rates:
        g_spread = 0.0 if step is None else gold * step / max(c / gold, 1e-9) / 2  # R = c/G to the step pins G
    else:
        g_spread = Z * SIGMA_GOLD * math.sqrt(scored)
    g_range = (gold - g_spread, gold + g_spread)

    def figures(K: int):
        out = []
        if setting.counts:
            out.append((K, K))  # fp gives K itself
        if "p" in setting.rates:
            values = [_index(cc / (n0 + K), step) for cc in c_range]
            out.append((min(values), max(values)))
            if setting.pairs and calibrated:  # the difference from the baseline, rounded on its own
                values = [_index(cc / n0 - cc / (n0 + K), step) for cc in c_range]
                out.append((min(values), max(values)))
        if "f" in setting.rates:
            values = [_index(2 * cc / (n0 + K + g), step) for cc in c_range for g in g_range]
            out.append((min(values), max(values)))
        return tuple(out)

    return figures


def _separated(a, b) -> bool:
    """Two codewords are told apart when some figure's possible readings do not overlap."""
    return any(x[1] < y[0] or y[1] < x[0] for x, y in zip(a, b))


def _decodes(figures, weights: tuple[int, ...]) -> bool:
    sums = sorted({0})
    for w in weights:
        sums = sorted(set(sums) | {s + w for s in sums})
    if len(sums) < 2 ** len(weights):
        return False
    readings = [figures(K) for K in sums]
    # Figures are monotone in K: neighbours are the hardest to tell apart; any overlap among neighbours
    # (and, for safety, any pair) makes the code ambiguous.
    for i in range(len(readings) - 1):
        if not _separated(readings[i], readings[i + 1]):
            return False
    if len(readings) <= 256:
        return all(_separated(readings[i], readings[j])
                   for i in range(len(readings)) for j in range(i + 2, len(readings)))
    return True


def best_code(s: Sum, setting: Setting, *, calibrated: bool, baselines=BASELINES) -> Code:
    """The code that decodes the most memberships of one sum with certainty: ``m`` sentences padded with
    ``u * 2^i`` items, the largest weights in the roomiest sentences, searched over ``u``, ``m`` and the
    baseline run (items per sentence, share right)."""
    if not setting.rates and not setting.counts:
        return Code(0)
    best = Code(0)
    for items, right in baselines:
        per_sentence = s.gold / s.scored if items == "gold" and s.scored else (items if items != "gold" else 1)
        n0 = max(1, round(per_sentence * s.scored))
        c = round(right * min(n0, s.gold))
        shift = max(0, math.ceil(per_sentence) - s.base_items)
        rooms = tuple(max(0, r - shift) for r in s.rooms)
        figures = _readings(setting, calibrated, n0, c, s.gold, s.scored)
        m = best.bits + 1
        while m <= min(MAX_BITS, len(rooms)):
            u_max = min(rooms[j] // 2 ** (m - 1 - j) for j in range(m))
            found = None
            for u in range(1, u_max + 1) if u_max <= 400 else _spread(u_max):
                weights = tuple(u * 2 ** i for i in range(m))
                if _decodes(figures, weights):
                    found = u
                    break
            if found is None:
                break
            best = Code(m, found, tuple(found * 2 ** i for i in range(m)), (items, right))
            m += 1
    return best


def _spread(u_max: int):
    """Base weights to try when the room is large: every small one, then a geometric sweep."""
    yield from range(1, 101)
    u = 100.0
    while u < u_max:
        u *= 1.15
        yield min(int(u), u_max)


# -- the campaign: every sum, every disclosed run --------------------------------------------------------

@dataclass(frozen=True)
class Budget:
    setting: str
    bits_per_run: int
    runs_per_team: int              # disclosed runs a team reads
    teams: int
    total_bits: int                 # teams x disclosed runs x bits, the consensus counted as one more run
    decodable: int                  # sentences: at most the total, at most the non-development sentences
    non_dev: int
    sums: list[tuple[str, Code]] = field(default_factory=list)
    withheld: "Budget | None" = None  # a gated setting over the limit shows nothing: what it would have allowed

    @property
    def per_team(self) -> int:
        """Sentences one more admitted team could decode."""
        return self.bits_per_run * self.runs_per_team

    @property
    def over(self) -> bool:
        """Above what the default promises: 1 bit per disclosed run, 1 % of the non-development sentences."""
        return self.bits_per_run > 1 or self.share > 0.01

    @property
    def share(self) -> float:
        return self.decodable / self.non_dev if self.non_dev else 0.0


def _rooms(words: list[int], layer: Layer, *, one_type: bool) -> list[int]:
    return sorted((layer.room(w, one_type=one_type) for w in words), reverse=True)


def sums_of(shape: Shape, setting: Setting) -> list[tuple[str, Sum]]:
    """The independent sums a team reads, each with the sentences only it pads (a sentence carries one bit)."""
    out = []
    shown = [g for g, n in shape.test.items() if setting.small_genres or n >= shape.min_genre_sentences]
    if shape.test_total < shape.min_genre_sentences and not setting.small_genres:
        return []
    for layer in shape.layers:
        if setting.genre_cells:
            for genre in shown:
                words = sorted(shape.words.get(genre, []), reverse=True)
                per_cell = max(1, len(words) // max(1, layer.types))
                # each type's cell pads its own sentences: the genre's sentences dealt out, roomiest first
                for t in range(layer.types):
                    mine = words[t::layer.types][:per_cell]
                    gold = layer.gold_per_word * sum(words) / max(1, len(words)) * shape.test[genre] / layer.types
                    out.append((f"{layer.name} {genre} type {t + 1}",
                                Sum(shape.test[genre], max(gold, 1.0),
                                    tuple(_rooms(mine, layer, one_type=layer.kind in ("relations", "heads"))))))
        else:
            words = [w for ws in shape.words.values() for w in ws]
            gold = layer.gold_per_word * sum(words) / max(1, len(words)) * shape.test_total
            out.append((f"{layer.name} pooled", Sum(shape.test_total, max(gold, 1.0),
                                                    tuple(_rooms(words, layer, one_type=False)))))
    return out


def bits_per_run(shape: Shape, setting: Setting) -> tuple[int, list[tuple[str, Code]]]:
    calibrated = setting.runs == "every" and shape.runs_per_team >= 2
    codes = []
    cache: dict[tuple, Code] = {}
    for name, s in sums_of(shape, setting):
        key = (s.scored, round(s.gold, 3), s.rooms[:MAX_BITS])
        if key not in cache:
            cache[key] = best_code(Sum(s.scored, s.gold, s.rooms[:MAX_BITS], s.base_items), setting,
                                   calibrated=calibrated)
        codes.append((name, cache[key]))
    return sum(c.bits for _, c in codes), codes


def budget(shape: Shape, setting: Setting | str) -> Budget:
    if isinstance(setting, str):
        setting = SETTINGS[setting]
    bits, codes = bits_per_run(shape, setting)
    runs = 1 if setting.runs == "primary" else shape.runs_per_team
    # every disclosed run counted as a probe (one of them may have to be the baseline: a generous count)
    total = bits * (shape.teams * runs + (1 if shape.consensus else 0))
    measured = Budget(setting.name, bits, runs, shape.teams, total, min(total, shape.non_dev), shape.non_dev, codes)
    if setting.gated and measured.over:
        return Budget(setting.name, 0, runs, shape.teams, 0, 0, shape.non_dev, [], withheld=measured)
    return measured


# -- shapes: the demo's EASY campaign from its files, a larger campaign like it ---------------------------

def easy_shape(paths, *, test_ratio: float, dev_ratio: float, teams: int, runs_per_team: int = 3,
               name: str = "") -> Shape:
    """The shape of an EASY campaign built from gold files as the demo builds it: per genre, ``dev_ratio`` of the
    sentences drawn as the development sample (left out: the team knows they are not scored), ``test_ratio`` as
    the test set. The development sample is taken from the shortest sentences, so that the longest (the roomiest
    for padding) stay for the adversary: the worst case."""
    words: dict[str, list[int]] = {}
    for path in paths:
        document = read_document(path, gold=True)
        words.setdefault(genre_of(document.name or path.stem), []).extend(len(s.forms) for s in document.sentences)
    return scaled_shape(words, sentences=sum(map(len, words.values())), test_ratio=test_ratio, dev_ratio=dev_ratio,
                        teams=teams, runs_per_team=runs_per_team, name=name, resample=False)


def scaled_shape(words: dict[str, list[int]], *, sentences: int, test_ratio: float, dev_ratio: float, teams: int,
                 runs_per_team: int = 3, name: str = "", resample: bool = True) -> Shape:
    """A campaign of ``sentences`` sentences whose genres and sentence lengths are those of ``words`` (drawn
    with replacement, by a fixed generator, when ``resample``)."""
    import random

    rng = random.Random(sentences)
    total = sum(map(len, words.values()))
    non_dev, test = {}, {}
    for genre, lengths in sorted(words.items()):
        n = round(sentences * len(lengths) / total)
        pool = [rng.choice(lengths) for _ in range(n)] if resample else list(lengths)
        dev = round(dev_ratio * n)
        non_dev[genre] = sorted(pool, reverse=True)[: n - dev] if not resample else pool[: n - dev]
        test[genre] = round(test_ratio * n)
    return Shape(non_dev, test, teams=teams, runs_per_team=runs_per_team, name=name)
