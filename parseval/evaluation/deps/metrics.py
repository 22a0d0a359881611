"""Dependency metrics: Lin (1998) triples, UAS and LAS.

A parse is read as a set of triples ``(word position, POS, head position)``
(head 0 = root); an *unattached* word (HEAD ``_``) gives no triple. With
``G`` the gold triples and ``T`` the test triples of the scored words:

* precision = |G ∩ T| / |T|, recall = |G ∩ T| / |G|, F = 2PR / (P + R);
* UAS = gold words whose test word (same position) has the gold head / gold words;
* LAS = same, head and relation label both right;
* label accuracy = same, label right (whatever the head).

Precision and recall differ only when a side leaves words unattached or has
a different number of words. The POS in a triple is each side's own tag
(``pos="upos"`` or ``"xpos"``; ``pos=None`` leaves it out of the triple),
so a tagging error also makes the triple wrong, as in Lin's definition.

Punctuation (excluded by default) is decided by :class:`PunctRule`; when both
sides have the same number of words the *gold* word decides for both sides,
otherwise each side's own tag decides. All ratios are fractions in [0, 1]
(the text table prints percentages), as in the other metrics' JSON documents.
"""
from __future__ import annotations

from dataclasses import dataclass

from parseval.annotations.conllu import DepSentence, read_conllu
from parseval.annotations.errors import InputError
from parseval.evaluation.signature import make_signature

# evalb's COLLINS.prm deletes these Penn preterminals as punctuation
PENN_PUNCT = frozenset({",", ":", "``", "''", "."})


@dataclass(frozen=True)
class PunctRule:
    """Which words are punctuation (left out of every figure).

    ``mode``: ``"upos"`` (UPOS column in ``tags``, default ``{"PUNCT"}``),
    ``"xpos"`` (XPOS column in ``tags``), ``"none"`` (keep everything).
    """

    mode: str = "upos"
    tags: frozenset[str] = frozenset({"PUNCT"})

    @classmethod
    def parse(cls, spec: str) -> "PunctRule":
        """``upos`` | ``none`` | ``penn`` | ``upos:PUNCT,SYM`` | ``xpos:PONCT``."""
        spec = (spec or "upos").strip()
        if spec == "none":
            return cls("none", frozenset())
        if spec == "upos":
            return cls()
        if spec == "penn":
            return cls("xpos", PENN_PUNCT)
        mode, sep, tags = spec.partition(":")
        if mode in ("upos", "xpos") and sep and tags:
            return cls(mode, frozenset(t for t in tags.split(",") if t))
        raise InputError(f"punctuation rule {spec!r}: expected upos, xpos:TAGS, upos:TAGS, penn or none")

    def is_punct(self, word) -> bool:
        if self.mode == "none":
            return False
        tag = word.upos if self.mode == "upos" else word.xpos
        return tag in self.tags

    def describe(self) -> str:
        if self.mode == "none":
            return "none"
        return f"{self.mode}:" + ",".join(sorted(self.tags))


ROW_COLUMNS = ("gold", "test", "matched", "words", "head", "head_label", "label")


@dataclass
class _Counts:
    gold: int = 0  # gold triples
    test: int = 0  # test triples
    matched: int = 0
    words: int = 0  # gold words scored (attachment-score denominator)
    head: int = 0
    head_label: int = 0
    label: int = 0

    def figures(self) -> dict:
        p = _pct(self.matched, self.test)
        r = _pct(self.matched, self.gold)
        return {
            "gold": self.gold, "test": self.test, "matched": self.matched,
            "precision": p, "recall": r, "f": _f(p, r),
            "words": self.words,
            "uas": _pct(self.head, self.words), "las": _pct(self.head_label, self.words),
            "label_accuracy": _pct(self.label, self.words),
        }


@dataclass
class _LabelCounts:
    gold: int = 0
    test: int = 0
    correct: int = 0  # head and label right

    def figures(self) -> dict:
        p = _pct(self.correct, self.test)
        r = _pct(self.correct, self.gold)
        return {"gold": self.gold, "test": self.test, "correct": self.correct,
                "precision": p, "recall": r, "f": _f(p, r)}


def _pct(a: int, b: int) -> float:
    return a / b if b else 0.0


def _f(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def _pos(word, pos: str | None) -> str:
    if pos is None:
        return ""
    return word.upos if pos == "upos" else word.xpos


def _check_options(punct, pos, labels) -> tuple[PunctRule, str | None, bool | str]:
    if isinstance(punct, str):
        punct = PunctRule.parse(punct)
    if pos not in (None, "upos", "xpos"):
        raise InputError(f"pos must be upos, xpos or none, not {pos!r}")
    if labels == "full":
        labels = True
    if labels not in (True, False, "universal"):
        raise InputError(f"labels must be full, universal or none, not {labels!r}")
    return punct, pos, labels


def _pair(gold: list[DepSentence], test: list[DepSentence]):
    """Gold and test sentences paired by order (the counts must agree)."""
    if len(gold) != len(test):
        raise InputError(
            f"gold has {len(gold)} sentences, test has {len(test)}: cannot pair them",
            file=(test[0].file if test else None),
        )
    return zip(gold, test)


def punct_skips(punct: PunctRule, gs: DepSentence, ts: DepSentence) -> tuple[list[bool], list[bool]]:
    """Which words of each side are left out as punctuation: the gold word decides for both sides when
    they have the same number of words, each side's own tag otherwise."""
    if len(gs.words) == len(ts.words):
        skip = [punct.is_punct(g) for g in gs.words]
        return skip, skip
    return [punct.is_punct(g) for g in gs.words], [punct.is_punct(t) for t in ts.words]


def attachment(g, t, rel) -> tuple[bool, bool]:
    """Whether the test word ``t`` has the gold word ``g``'s head, and its relation (compared through
    ``rel``): the one judgement UAS, LAS and the bucket analysis count."""
    return g.head is not None and t.head == g.head, rel(g) == rel(t)


class _Tally:
    """The running counts of one scoring: corpus totals, per POS, per label, per sentence."""

    def __init__(self, punct: PunctRule, pos: str | None, universal: bool):
        self.punct, self.pos, self.universal = punct, pos, universal
        self.total = _Counts()
        self.per_pos: dict[str, _Counts] = {}
        self.per_label: dict[str, _LabelCounts] = {}
        self.excluded = {"gold": 0, "test": 0}
        self.unattached = {"gold": 0, "test": 0}
        self.mismatched: list[dict] = []

    def rel(self, word) -> str:
        return word.deprel.split(":", 1)[0] if self.universal else word.deprel

    def pos_counts(self, word) -> _Counts:
        return self.per_pos.setdefault(_pos(word, self.pos) or "_", _Counts())

    def add(self, gs: DepSentence, ts: DepSentence) -> _Counts:
        """Count one sentence pair into the tally; returns the sentence's own counts."""
        gskip, tskip = self._skips(gs, ts)
        sc = _Counts()
        self._count_triples(gs, ts, gskip, tskip, sc)
        self._count_attachments(gs, ts, gskip, tskip, sc)
        for k in ROW_COLUMNS:
            setattr(self.total, k, getattr(self.total, k) + getattr(sc, k))
        return sc

    def _skips(self, gs, ts) -> tuple[list[bool], list[bool]]:
        aligned = len(gs.words) == len(ts.words)
        if not aligned or any(g.form != t.form for g, t in zip(gs.words, ts.words)):
            self.mismatched.append({
                "sentence": gs.name, "gold_words": len(gs.words), "test_words": len(ts.words),
                "gold_line": gs.line, "test_line": ts.line,
            })
        gskip, tskip = punct_skips(self.punct, gs, ts)
        self.excluded["gold"] += sum(gskip)
        self.excluded["test"] += sum(tskip)
        return gskip, tskip

    def _triples(self, words, skip, side: str) -> dict:
        trip = {}
        for w, sk in zip(words, skip):
            if sk:
                continue
            if w.head is None:
                self.unattached[side] += 1
                continue
            trip[(w.id, _pos(w, self.pos), w.head)] = w
        return trip

    def _count_triples(self, gs, ts, gskip, tskip, sc: _Counts) -> None:
        gtrip = self._triples(gs.words, gskip, "gold")
        ttrip = self._triples(ts.words, tskip, "test")
        common = gtrip.keys() & ttrip.keys()
        for key, g in gtrip.items():
            c = self.pos_counts(g)
            c.gold += 1
            sc.gold += 1
            if key in common:
                c.matched += 1
                sc.matched += 1
        for key, t in ttrip.items():
            self.pos_counts(t).test += 1
            sc.test += 1

    def _count_attachments(self, gs, ts, gskip, tskip, sc: _Counts) -> None:
        # every scored gold word, against the test word at the same position
        rel = self.rel
        for i, (g, sk) in enumerate(zip(gs.words, gskip)):
            if sk:
                continue
            t = ts.words[i] if i < len(ts.words) else None
            c = self.pos_counts(g)
            lc = self.per_label.setdefault(rel(g), _LabelCounts())
            lc.gold += 1
            for cnt in (c, sc):
                cnt.words += 1
            if t is None:
                continue
            head_ok, label_ok = attachment(g, t, rel)
            if head_ok:
                c.head += 1
                sc.head += 1
            if label_ok:
                c.label += 1
                sc.label += 1
            if head_ok and label_ok:
                c.head_label += 1
                sc.head_label += 1
                lc.correct += 1
        for t, sk in zip(ts.words, tskip):
            if not sk:
                self.per_label.setdefault(rel(t), _LabelCounts()).test += 1


def _finish(tally: _Tally, sentences: int, labels: bool | str) -> dict:
    """The JSON document of a finished tally (without ``sentence_scores``)."""
    figures = tally.total.figures()
    if not labels:
        figures.pop("las")
        figures.pop("label_accuracy")
    per_pos, per_label = tally.per_pos, tally.per_label
    return {
        "signature": make_signature(
            "deps-lin1998", pos=tally.pos or "none", punct=tally.punct.describe(), labels=labels),
        "metric": "dependency",
        "sentences": sentences,
        "totals": figures,
        "per_pos": {k: per_pos[k].figures() for k in sorted(per_pos)},
        "per_label": {k: per_label[k].figures() for k in sorted(per_label)} if labels else {},
        "excluded_punct": tally.excluded,
        "unattached": tally.unattached,
        "mismatched_sentences": tally.mismatched,
    }


def score_dependencies(
    gold: list[DepSentence],
    test: list[DepSentence],
    *,
    punct: PunctRule | str = "upos",
    pos: str | None = "upos",
    labels: bool | str = True,
    per_sentence: bool = False,
    rows: list | None = None,
) -> dict:
    """Score ``test`` against ``gold`` (paired by order). JSON-serialisable result.

    ``rows``: a list that receives, per sentence, the counts :data:`ROW_COLUMNS` (what the statistics
    layer sums per genre and resamples for intervals).

    Returns ``{"signature", "sentences", "totals": {precision, recall, f, uas,
    las, label_accuracy, gold, test, matched, words}, "per_pos": {POS: {...}},
    "per_label": {LABEL: {gold, test, correct, precision, recall, f}},
    "excluded_punct": {"gold", "test"}, "unattached": {"gold", "test"},
    "mismatched_sentences": [...], "sentence_scores": [...]?}``.

    ``labels``: ``True`` / ``"full"`` compares relation labels whole;
    ``"universal"`` drops subtypes on both sides first (``nmod:poss`` ->
    ``nmod``, as CoNLL 2018 does); ``False`` leaves LAS and labels out.
    """
    punct, pos, labels = _check_options(punct, pos, labels)
    tally = _Tally(punct, pos, labels == "universal")
    sentence_scores: list[dict] = []
    for gs, ts in _pair(gold, test):
        sc = tally.add(gs, ts)
        if rows is not None:
            rows.append(tuple(getattr(sc, k) for k in ROW_COLUMNS))
        if per_sentence:
            sentence_scores.append({"sentence": gs.name, **sc.figures()})
    result = _finish(tally, len(gold), labels)
    if per_sentence:
        result["sentence_scores"] = sentence_scores
    return result


def format_table(result: dict) -> str:
    """A readable text report of :func:`score_dependencies`' result."""
    t = result["totals"]
    lines = [
        f"signature: {result['signature']}",
        f"sentences: {result['sentences']}   scored gold words: {t['words']}   "
        f"punctuation excluded: gold {result['excluded_punct']['gold']}, test {result['excluded_punct']['test']}   "
        f"unattached: gold {result['unattached']['gold']}, test {result['unattached']['test']}",
        "",
        f"Lin triples: precision {100 * t['precision']:6.2f}  recall {100 * t['recall']:6.2f}  F {100 * t['f']:6.2f}"
        f"   (matched {t['matched']} / test {t['test']} / gold {t['gold']})",
        f"UAS {100 * t['uas']:6.2f}" + (f"   LAS {100 * t['las']:6.2f}   label accuracy {100 * t['label_accuracy']:6.2f}" if "las" in t else ""),
    ]
    if result["mismatched_sentences"]:
        lines.append(f"warning: {len(result['mismatched_sentences'])} sentence(s) with different words in gold and test "
                     "(a parse in its own tokenisation is scored with --preset conll18)")
    lines += ["", "per part of speech (gold words; P over test triples)",
              f"{'POS':<10}{'gold':>7}{'test':>7}{'P':>8}{'R':>8}{'UAS':>8}{'LAS':>8}"]
    for k, v in result["per_pos"].items():
        lines.append(f"{k:<10}{v['gold']:>7}{v['test']:>7}{100 * v['precision']:>8.2f}{100 * v['recall']:>8.2f}"
                     f"{100 * v['uas']:>8.2f}{100 * v['las']:>8.2f}")
    if result["per_label"]:
        lines += ["", "per relation label (head and label right)",
                  f"{'label':<16}{'gold':>7}{'test':>7}{'correct':>9}{'P':>8}{'R':>8}{'F':>8}"]
        for k, v in result["per_label"].items():
            lines.append(f"{k:<16}{v['gold']:>7}{v['test']:>7}{v['correct']:>9}{100 * v['precision']:>8.2f}"
                         f"{100 * v['recall']:>8.2f}{100 * v['f']:>8.2f}")
    return "\n".join(lines) + "\n"


def score_files(gold_path, test_path, *, check_cycles: bool = True, **options) -> dict:
    """Read two CoNLL-U / CoNLL-X files and :func:`score_dependencies` them (``files`` added)."""
    gold = read_conllu(gold_path, check_cycles=check_cycles)
    test = read_conllu(test_path, check_cycles=check_cycles)
    result = score_dependencies(gold, test, **options)
    result["files"] = {"gold": str(gold_path), "test": str(test_path)}
    return result
