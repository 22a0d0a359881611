"""The ``evalb`` preset: PARSEVAL exactly as Sekine & Collins' evalb computes it.

Parameters come from an evalb ``.prm`` file (:func:`parse_prm`,
:func:`load_prm`); :data:`COLLINS` holds COLLINS.prm. The behaviour follows
evalb.c (version of 2003 with Mark Johnson's QUOTE_LABEL fix) bullet by bullet;
the differences are documented in ``docs/metrics/constituency.md``: no size
limits, one error counted per bad sentence, and ``MAX_ERROR`` stops *after*
printing the summary of the sentences scored so far.

All ratios in the returned documents are fractions in [0, 1]; the text report
(:func:`format_evalb`) prints them as evalb does, in percent with two decimals.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from annotations.errors import InputError, Problem
from annotations.trees.penn import BadSentence, Forest
from annotations.trees.tree import Tree
from evaluation.signature import make_signature

STATUS_OK, STATUS_ERROR, STATUS_SKIP = 0, 1, 2
STATUS_NAMES = {STATUS_OK: "ok", STATUS_ERROR: "error", STATUS_SKIP: "skip"}
QUOTE_WORDS = frozenset({"'", '"', "/"})


@dataclass
class EvalbParams:
    """evalb's parameters. Defaults are evalb's built-in defaults (no .prm)."""

    labeled: bool = True
    delete_labels: tuple[str, ...] = ()
    delete_labels_for_length: tuple[str, ...] = ()
    quote_labels: tuple[str, ...] = ()
    eq_labels: tuple[tuple[str, str], ...] = ()
    eq_words: tuple[tuple[str, str], ...] = ()
    cutoff_len: int = 40
    max_error: int = 10
    debug: int = 0
    warnings: list[Problem] = field(default_factory=list, compare=False, repr=False)

    def signature_params(self) -> dict:
        return {
            "labeled": self.labeled,
            # space-separated: labels such as "," would clash with the list separator
            "delete": " ".join(self.delete_labels) or None,
            "delete_len": " ".join(self.delete_labels_for_length) or None,
            "quote": " ".join(self.quote_labels) or None,
            "eq_label": " ".join("=".join(p) for p in self.eq_labels) or None,
            "eq_word": " ".join("=".join(p) for p in self.eq_words) or None,
            "cutoff": self.cutoff_len,
            "max_error": self.max_error,
        }

    def as_dict(self) -> dict:
        return {
            "LABELED": int(self.labeled),
            "DELETE_LABEL": list(self.delete_labels),
            "DELETE_LABEL_FOR_LENGTH": list(self.delete_labels_for_length),
            "QUOTE_LABEL": list(self.quote_labels),
            "EQ_LABEL": [list(p) for p in self.eq_labels],
            "EQ_WORD": [list(p) for p in self.eq_words],
            "CUTOFF_LEN": self.cutoff_len,
            "MAX_ERROR": self.max_error,
        }


def parse_prm(text: str, *, file: str | None = None) -> EvalbParams:
    """Read an evalb parameter file the way evalb.c does.

    Lines starting with ``#`` and lines shorter than 3 characters are ignored;
    the keyword is the first word, the value the rest of the line. Unknown
    keywords and malformed ``EQ_*`` lines are kept as warnings (evalb prints
    them on stderr and goes on); a non-numeric value for a numeric keyword is
    an :class:`InputError`.
    """
    p = EvalbParams()
    delete, delete_len, quote, eq_l, eq_w = [], [], [], [], []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if line.startswith("#") or len(line) < 3:
            continue
        key = line.split()[0]
        value = line[len(key):].strip()
        if not value:
            p.warnings.append(Problem(f"empty value for {key}", file=file, line=lineno))
            continue
        if key in ("DEBUG", "MAX_ERROR", "CUTOFF_LEN", "LABELED"):
            try:
                number = int(value.split()[0])
            except ValueError:
                raise InputError(f"{key} needs an integer, got {value!r}", file=file, line=lineno) from None
            if key == "DEBUG":
                p.debug = number
            elif key == "MAX_ERROR":
                p.max_error = number
            elif key == "CUTOFF_LEN":
                p.cutoff_len = number
            else:
                p.labeled = number != 0
        elif key == "DELETE_LABEL":
            delete.append(value)
        elif key == "DELETE_LABEL_FOR_LENGTH":
            delete_len.append(value)
        elif key == "QUOTE_LABEL":
            quote.append(value)
        elif key in ("EQ_LABEL", "EQ_WORD"):
            parts = value.split()
            if len(parts) != 2:
                p.warnings.append(Problem(f"{key} requires two values", file=file, line=lineno))
                continue
            (eq_l if key == "EQ_LABEL" else eq_w).append((parts[0], parts[1]))
        else:
            p.warnings.append(Problem(f"unknown keyword {key!r} in parameter file", file=file, line=lineno))
    p.delete_labels = tuple(delete)
    p.delete_labels_for_length = tuple(delete_len)
    p.quote_labels = tuple(quote)
    p.eq_labels = tuple(eq_l)
    p.eq_words = tuple(eq_w)
    return p


def load_prm(path) -> EvalbParams:
    with open(path, encoding="utf-8") as handle:
        return parse_prm(handle.read(), file=os.fspath(path))


COLLINS = EvalbParams(
    labeled=True,
    delete_labels=("TOP", "-NONE-", ",", ":", "``", "''", "."),
    delete_labels_for_length=("-NONE-",),
    eq_labels=(("ADVP", "PRT"),),
    cutoff_len=40,
    max_error=10,
)


# -- one sentence ---------------------------------------------------------
class _Side:
    """One file's view of a sentence after evalb's reading (terminals, brackets, quote terms)."""

    __slots__ = ("words", "tags", "brackets", "quotes", "length")

    def __init__(self) -> None:
        self.words: list[str] = []
        self.tags: list[str] = []
        self.brackets: list[list] = []  # [label, start, end], in opening order (evalb's bid)
        self.quotes: list[list] = []  # [word, tag, index, bid, open bracket ids]
        self.length = 0  # evalb's r_wn1


def _read(tree: Tree, delete: frozenset, delete_len: frozenset, quote_labels: frozenset) -> _Side:
    side = _Side()
    words, tags, brackets = side.words, side.tags, side.brackets
    stack: list[int] = []

    def walk(node: Tree) -> None:
        if node.word is not None:  # a bare word under a phrasal node (square brackets): tag ''
            if "" not in delete_len:
                side.length += 1
            words.append(node.word)
            tags.append("")
            return
        children = node.children
        if len(children) == 1 and children[0].word is not None:  # preterminal
            tag = node.label
            word = children[0].word
            if tag not in delete_len:
                side.length += 1
            if quote_labels and tag in quote_labels and word in QUOTE_WORDS:
                side.quotes.append([word, tag, len(words), len(brackets), list(stack)])
            if tag in delete:
                return
            words.append(word)
            tags.append(tag)
            return
        if type(node) is Forest:
            for child in children:
                walk(child)
            return
        bracket = [node.label, len(words), 0]
        stack.append(len(brackets))
        brackets.append(bracket)
        for child in children:
            walk(child)
        stack.pop()
        bracket[2] = len(words)

    walk(tree)
    return side


# preterminal "(TAG word)" | opening "(LABEL" | ")" | bare word
_LINE_TOKEN = re.compile(r"\(([^\s()]*)\s+([^\s()]+)\s*\)|\(([^\s()]*)|(\))|([^\s()]+)")


def _read_text(line: str, delete: frozenset, delete_len: frozenset, quote_labels: frozenset) -> _Side:
    """evalb's own reading of one line, straight from the text (no Tree objects).

    Gives exactly what :func:`_read` gives for ``parse_penn_lines`` of the same
    line (outer pair kept, several top-level trees = no container bracket);
    raises ``ValueError`` on a malformed line.
    """
    side = _Side()
    words, tags, brackets = side.words, side.tags, side.brackets
    stack: list[int] = []
    length = 0
    for tag, word, label, close, bare in _LINE_TOKEN.findall(line):
        if word:
            if tag not in delete_len:
                length += 1
            if quote_labels and tag in quote_labels and word in QUOTE_WORDS:
                side.quotes.append([word, tag, len(words), len(brackets), list(stack)])
            if tag in delete:
                continue
            words.append(word)
            tags.append(tag)
        elif close:
            if not stack:
                raise ValueError("unbalanced brackets: too many ')'")
            brackets[stack.pop()][2] = len(words)
        elif bare:
            if not stack:
                raise ValueError(f"word {bare!r} outside any bracket")
            if "" not in delete_len:
                length += 1
            words.append(bare)
            tags.append("")
        else:
            stack.append(len(brackets))
            brackets.append([label, len(words), 0])
    if stack:
        raise ValueError(f"unbalanced brackets: {len(stack)} '(' never closed")
    side.length = length
    return side


def read_evalb_text(text: str, params: EvalbParams | None = None, *, file: str | None = None,
                    lenient: bool = True) -> list:
    """evalb's fast path: one pre-read sentence per line (``BadSentence`` for a malformed line when lenient).

    The result goes to :func:`score_evalb` like trees read by ``parse_penn_lines``
    and gives the same figures; it cannot be transformed (use trees for that).
    """
    p = params or EvalbParams()
    delete = frozenset(p.delete_labels)
    delete_len = frozenset(p.delete_labels_for_length)
    quote = frozenset(p.quote_labels)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise InputError("empty input: no sentence found", file=file)
    out: list = []
    for lineno, line in enumerate(lines, 1):
        try:
            out.append(_read_text(line, delete, delete_len, quote))
        except ValueError as exc:
            problem = Problem(str(exc), file=file, line=lineno, sentence=str(lineno))
            if not lenient:
                raise InputError(problem) from None
            out.append(BadSentence(problem))
    return out


def _reinsert(side: _Side, quote: list) -> None:
    word, tag, index, bid, open_ids = quote
    side.words.insert(index, word)
    side.tags.insert(index, tag)
    for k in range(bid, len(side.brackets)):
        side.brackets[k][1] += 1
        side.brackets[k][2] += 1
    for k in open_ids:
        side.brackets[k][2] += 1


def _fix_quote(gold: _Side, test: _Side, delete: frozenset) -> None:
    """evalb's fix_quote: re-insert a quote-like word deleted on one side only."""
    for tq in test.quotes:
        for j, gq in enumerate(gold.quotes):
            if gq[2] == tq[2] and gq[1] != tq[1]:
                if gq[1] in delete and tq[1] not in delete:
                    _reinsert(gold, gq)
                    for later in gold.quotes[j:]:
                        later[2] += 1
                elif tq[1] in delete and gq[1] not in delete:
                    _reinsert(test, tq)
                    for later in test.quotes[test.quotes.index(tq):]:
                        later[2] += 1


def _cut(label: str) -> str:
    for i, ch in enumerate(label):
        if ch == "-" or ch == "=":
            return label[:i]
    return label


class EvalbScorer:
    """Scores sentence pairs with fixed parameters (tables precomputed once)."""

    def __init__(self, params: EvalbParams | None = None) -> None:
        self.params = p = params or EvalbParams()
        self.delete = frozenset(p.delete_labels)
        self.delete_len = frozenset(p.delete_labels_for_length)
        self.quote_labels = frozenset(p.quote_labels)
        self.eq_labels = frozenset(p.eq_labels) | frozenset((b, a) for a, b in p.eq_labels)
        self.eq_words = frozenset(p.eq_words) | frozenset((b, a) for a, b in p.eq_words)
        # a phrasal label is deleted when label_comp(label, D) holds for some DELETE_LABEL D
        self.delete_phrasal = self.delete | {a for a, b in self.eq_labels if b in self.delete}
        self._cut_cache: dict[str, str] = {}

    def label_eq(self, a: str, b: str) -> bool:
        return a == b or (a, b) in self.eq_labels

    def sentence(self, gold: Tree | BadSentence | None, test: Tree | BadSentence | None) -> dict:
        """One sentence pair -> evalb's per-sentence figures (ratios as fractions)."""
        row = {
            "length": 0, "status": "ok", "recall": 0.0, "precision": 0.0, "matched": 0,
            "gold_brackets": 0, "test_brackets": 0, "crossing": 0, "words": 0,
            "correct_tags": 0, "tagging_accuracy": 0.0,
        }
        if gold is None or isinstance(gold, BadSentence):
            row["status"] = "error"
            row["message"] = gold.problem.message if gold is not None else "missing gold sentence"
            return row
        g = gold if type(gold) is _Side else _read(gold, self.delete, self.delete_len, self.quote_labels)
        row["length"] = g.length
        if test is None or isinstance(test, BadSentence):
            row["status"] = "error"
            row["message"] = test.problem.message if test is not None else "missing test sentence"
            return row
        t = test if type(test) is _Side else _read(test, self.delete, self.delete_len, self.quote_labels)
        if not t.words:
            row["status"] = "skip"
            return row
        if len(g.words) != len(t.words):
            if self.quote_labels:
                _fix_quote(g, t, self.delete)
            if len(g.words) != len(t.words):
                row["status"] = "error"
                row["message"] = f"Length unmatch ({len(g.words)}|{len(t.words)})"
                return row
        eq_words = self.eq_words
        for a, b in zip(g.words, t.words):
            if a != b and (a, b) not in eq_words:
                row["status"] = "error"
                row["message"] = f"Words unmatch ({a}|{b})"
                return row
        return self._score(g, t, row)

    def _kept(self, side: _Side) -> list[tuple[str, int, int]]:
        cache = self._cut_cache
        delete = self.delete_phrasal
        out = []
        for label, start, end in side.brackets:
            if start == end:
                continue
            cut = cache.get(label)
            if cut is None:
                cut = cache[label] = _cut(label)
            if cut in delete:
                continue
            out.append((cut, start, end))
        return out

    def _score(self, g: _Side, t: _Side, row: dict) -> dict:
        gold = self._kept(g)
        test = self._kept(t)
        labeled = self.params.labeled
        eq = self.eq_labels
        by_span: dict[tuple[int, int], list[str]] = {}
        for label, s, e in test:
            by_span.setdefault((s, e), []).append(label)
        match = 0
        for label, s, e in gold:  # evalb: each gold bracket takes the first free test bracket that fits
            cands = by_span.get((s, e))
            if not cands:
                continue
            if not labeled:
                cands.pop(0)
                match += 1
                continue
            for k, other in enumerate(cands):
                if other == label or (other, label) in eq:
                    del cands[k]
                    match += 1
                    break
        # crossing: test brackets crossing at least one gold bracket. Gold spans come from one
        # tree, so they never cross each other: a test span equal to a gold span crosses nothing.
        gold_spans = {(s, e) for _, s, e in gold}
        crossing = 0
        for _, s, e in test:
            if (s, e) in gold_spans:
                continue
            for _, a, b in gold:
                if (a < s < b < e) or (s < a < e < b):
                    crossing += 1
                    break
        correct = 0
        for a, b in zip(g.tags, t.tags):
            if a == b or (a, b) in eq:
                correct += 1
        n_words = len(g.words)
        row.update(
            matched=match, gold_brackets=len(gold), test_brackets=len(test), crossing=crossing,
            recall=match / len(gold) if gold else 0.0,
            precision=match / len(test) if test else 0.0,
            words=n_words, correct_tags=correct,
            tagging_accuracy=correct / n_words if n_words else 0.0,
        )
        return row


# -- a corpus ---------------------------------------------------------------
def _block() -> dict:
    return {
        "sentences": 0, "errors": 0, "skipped": 0, "valid": 0, "matched": 0, "gold_brackets": 0,
        "test_brackets": 0, "crossing": 0, "words": 0, "correct_tags": 0, "complete": 0,
        "no_crossing_count": 0, "two_or_less_count": 0,
    }


def _add(block: dict, row: dict) -> None:
    block["sentences"] += 1
    if row["status"] == "error":
        block["errors"] += 1
        return
    if row["status"] == "skip":
        block["skipped"] += 1
        return
    block["valid"] += 1
    for key in ("matched", "gold_brackets", "test_brackets", "crossing", "words", "correct_tags"):
        block[key] += row[key]
    if row["gold_brackets"] == row["test_brackets"] == row["matched"]:
        block["complete"] += 1
    if row["crossing"] == 0:
        block["no_crossing_count"] += 1
    if row["crossing"] <= 2:
        block["two_or_less_count"] += 1


def _finish(block: dict) -> dict:
    valid = block["valid"]
    r = block["matched"] / block["gold_brackets"] if block["gold_brackets"] else 0.0
    p = block["matched"] / block["test_brackets"] if block["test_brackets"] else 0.0
    block.update(
        recall=r,
        precision=p,
        f=2 * p * r / (p + r) if p + r else 0.0,
        exact_match=block["complete"] / valid if valid else 0.0,
        avg_crossing=block["crossing"] / valid if valid else 0.0,
        no_crossing=block["no_crossing_count"] / valid if valid else 0.0,
        two_or_less_crossing=block["two_or_less_count"] / valid if valid else 0.0,
        tagging_accuracy=block["correct_tags"] / block["words"] if block["words"] else 0.0,
    )
    return block


def score_evalb(
    gold_trees: list,
    test_trees: list,
    params: EvalbParams | None = None,
    *,
    on_error: str = "skip",
    gold_file: str | None = None,
    test_file: str | None = None,
    gold_lines: list[int] | None = None,
    test_lines: list[int] | None = None,
) -> dict:
    """Score paired sentences; returns the JSON document (see the module doc).

    ``on_error="skip"`` is evalb's behaviour: a pair whose words differ, or a
    malformed sentence (:class:`BadSentence`), is listed with status ``error``
    and left out of the totals; more than ``MAX_ERROR`` of them stop the run
    (``summary["stopped"]`` says where). ``on_error="raise"`` raises
    :class:`InputError` (file, line, sentence) at the first such pair, and
    also when the two sides have different numbers of sentences.
    """
    if on_error not in ("skip", "raise"):
        raise ValueError("on_error must be 'skip' or 'raise'")
    scorer = EvalbScorer(params)
    p = scorer.params
    problems: list[dict] = [w.as_dict() for w in p.warnings]
    n = len(gold_trees)
    if len(gold_trees) != len(test_trees):
        more_gold = len(gold_trees) > len(test_trees)
        shorter = min(len(gold_trees), len(test_trees))
        where_lines = test_lines if more_gold else gold_lines
        message = (
            f"different numbers of sentences: {len(gold_trees)} in gold, {len(test_trees)} in test "
            f"({'too many lines in gold file' if more_gold else 'too many lines in test file'})"
        )
        problem = Problem(
            message,
            file=test_file if more_gold else gold_file,
            line=(where_lines[-1] + 1 if where_lines else shorter + 1) if shorter else 1,
            sentence=str(shorter + 1),
        )
        if on_error == "raise":
            raise InputError(problem)
        problems.append(problem.as_dict())
        n = shorter
    rows: list[dict] = []
    all_block, cut_block = _block(), _block()
    errors = 0
    stopped = None
    for i in range(n):
        row = scorer.sentence(gold_trees[i], test_trees[i])
        row = {"index": i + 1, **row}
        if row["status"] == "error":
            if on_error == "raise":
                bad_test = isinstance(test_trees[i], BadSentence) or row["message"].startswith(("Length", "Words"))
                file = test_file if bad_test else gold_file
                lines = test_lines if bad_test else gold_lines
                raise InputError(
                    row["message"], file=file, line=lines[i] if lines else i + 1, sentence=str(i + 1)
                )
            errors += 1
        rows.append(row)
        _add(all_block, row)
        if row["length"] <= p.cutoff_len:
            _add(cut_block, row)
        if row["status"] == "error" and errors > p.max_error:
            stopped = {
                "index": i + 1,
                "message": (
                    f"stopped at sentence {i + 1}: {errors} error sentences, more than MAX_ERROR={p.max_error}; "
                    f"the summary covers sentences 1-{i + 1} of {len(gold_trees)}"
                ),
            }
            break
    summary = {"all": _finish(all_block), "cutoff": _finish(cut_block), "cutoff_len": p.cutoff_len}
    if stopped:
        summary["stopped"] = stopped
    if problems:
        summary["problems"] = problems
    return {
        "metric": "evalb",
        "signature": make_signature("evalb", **p.signature_params(), errors=on_error),
        "params": p.as_dict(),
        "sentences": rows,
        "summary": summary,
    }


_CODES = {"ok": STATUS_OK, "error": STATUS_ERROR, "skip": STATUS_SKIP}


def format_evalb(doc: dict) -> str:
    """evalb's text report (per-sentence table, totals line, summary blocks)."""
    out = [
        "  Sent.                        Matched  Bracket   Cross        Correct Tag\n",
        " ID  Len.  Stat. Recal  Prec.  Bracket gold test Bracket Words  Tags Accracy\n",
        "============================================================================\n",
    ]
    def pct(num: int, den: int) -> float:  # evalb's expression, so that rounding is identical
        return 100.0 * num / den if den else 0.0

    for row in doc["sentences"]:
        out.append("%4d  %3d    %d  " % (row["index"], row["length"], _CODES[row["status"]]))
        out.append(
            "%6.2f %6.2f   %3d    %3d  %3d    %3d"
            % (pct(row["matched"], row["gold_brackets"]), pct(row["matched"], row["test_brackets"]),
               row["matched"], row["gold_brackets"], row["test_brackets"], row["crossing"])
        )
        out.append("   %4d  %4d   %6.2f\n" % (row["words"], row["correct_tags"], pct(row["correct_tags"], row["words"])))
    out.append("============================================================================\n")
    a = doc["summary"]["all"]
    if a["gold_brackets"] > 0 and a["test_brackets"] > 0:
        out.append(
            "                %6.2f %6.2f %6d %5d %5d  %5d"
            % (pct(a["matched"], a["gold_brackets"]), pct(a["matched"], a["test_brackets"]), a["matched"],
               a["gold_brackets"], a["test_brackets"], a["crossing"])
        )
    out.append("  %5d %5d   %6.2f" % (a["words"], a["correct_tags"], pct(a["correct_tags"], a["words"])))
    out.append("\n=== Summary ===\n")
    for title, block in (("All", a), ("len<=%d" % doc["summary"]["cutoff_len"], doc["summary"]["cutoff"])):
        valid = block["valid"]
        r = pct(block["matched"], block["gold_brackets"])
        p = pct(block["matched"], block["test_brackets"])
        f = 2 * p * r / (p + r) if p + r else 0.0  # evalb prints nan here; we print 0.00
        out.append("\n-- %s --\n" % title)
        out.append("Number of sentence        = %6d\n" % block["sentences"])
        out.append("Number of Error sentence  = %6d\n" % block["errors"])
        out.append("Number of Skip  sentence  = %6d\n" % block["skipped"])
        out.append("Number of Valid sentence  = %6d\n" % valid)
        out.append("Bracketing Recall         = %6.2f\n" % r)
        out.append("Bracketing Precision      = %6.2f\n" % p)
        out.append("Bracketing FMeasure       = %6.2f\n" % f)
        out.append("Complete match            = %6.2f\n" % pct(block["complete"], valid))
        out.append("Average crossing          = %6.2f\n" % (1.0 * block["crossing"] / valid if valid else 0.0))
        out.append("No crossing               = %6.2f\n" % pct(block["no_crossing_count"], valid))
        out.append("2 or less crossing        = %6.2f\n" % pct(block["two_or_less_count"], valid))
        out.append("Tagging accuracy          = %6.2f\n" % pct(block["correct_tags"], block["words"]))
    return "".join(out)
