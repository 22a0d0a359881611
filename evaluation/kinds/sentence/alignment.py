"""Which run sentence is which corpus sentence, when a file has too few, too many or changed ones.

A run file of the tree and dependency kinds holds the corpus sentences in corpus order. Pairing them
by position alone turns the commonest invalid run there is, a parser that dropped one sentence, into
a report where every later sentence is "wrong" and the missing one is named after the last corpus
sentence. So the file's sentences are first aligned with the corpus text's by their words
(:class:`difflib.SequenceMatcher` over whole sentences, no junk heuristics): the sentences that match
are paired wherever they are, a gap in the file is reported once, by the corpus id of what is missing
and by where the file skips it (its neighbours' lines and ``sent_id``), and only the sentences that
really differ are reported as different. Where the alignment finds nothing in common (a file of
another tokenisation throughout), sentences are paired by position, as before.

Each report is one whole ``N_`` text (the library stores English; a page translates it when it shows
it, :mod:`campaign.problem_texts`), the sentence names inside it texts of their own that the page
translates in turn: a report is never pieced together from fragments a translator cannot see whole.
"""
from __future__ import annotations

from difflib import SequenceMatcher

from parseval.annotations.errors import N_, Problem

from .tokens import TextSentence, word_mismatch

# A block of differing sentences larger than this (both sides multiplied) is paired by position
# without looking for the best place of its gap: such a file differs throughout anyway.
MAX_GAP_SEARCH = 20_000


def order_problems(parsed: list, expected: list[TextSentence], display: str, against: str) -> list[Problem]:
    """The problems of a run file's sentences (``parsed``: :class:`~evaluation.kinds.sentence.Parsed`)
    against the corpus text's ``expected``: missing, extra and changed sentences, each once."""
    run_words = [tuple(p.words) for p in parsed]
    matcher = SequenceMatcher(None, [tuple(e.words) for e in expected], run_words, autojunk=False)
    pairs: list[tuple[int, int]] = []
    missing: list[tuple[int, int]] = []  # (first, end) corpus positions, and where the file skips them
    gaps: list[int] = []
    extra: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "delete":
            missing.append((i1, i2)), gaps.append(j1)
        elif tag == "insert":
            extra.append((j1, j2))
        else:
            k = best_gap(expected, parsed, i1, i2, j1, j2)
            m, n = i2 - i1, j2 - j1
            short = min(m, n)
            pairs += [(i1 + x, j1 + x) for x in range(k)]
            pairs += [(i2 - x, j2 - x) for x in range(short - k, 0, -1)]
            if m > n:
                missing.append((i1 + k, i1 + k + m - n)), gaps.append(j1 + k)
            elif n > m:
                extra.append((j1 + k, j1 + k + n - m))

    problems: list[Problem] = []
    # the first report of a file with too few or too many sentences says the counts as well
    counted = len(parsed) != len(expected)
    for (first, end), gap in zip(missing, gaps):
        problems.append(missing_problem(counted, expected, parsed, first, end, gap, display, against))
        counted = False
    for first, end in extra:
        problems.append(extra_problem(counted, expected, parsed, first, end, display, against))
        counted = False
    for i, j in sorted(pairs):
        e, p = expected[i], parsed[j]
        why = word_mismatch(e.words, p.words)
        if why:
            problems.append(Problem(paired_text(i, e, j, p, why), file=display, line=p.line, sentence=e.sid))
    return problems


def with_counts(text: str, parsed: list, expected: list, against: str) -> str:
    """``text`` after the file's and the corpus text's sentence counts."""
    values = {"found": len(parsed), "against": against, "expected": len(expected), "problem": text}
    if len(parsed) == 1:
        return N_("%(found)d sentence where %(against)s has %(expected)d: %(problem)s") % values
    return N_("%(found)d sentences where %(against)s has %(expected)d: %(problem)s") % values


def best_gap(expected: list, parsed: list, i1: int, i2: int, j1: int, j2: int) -> int:
    """Where in a block of differing sentences of unequal sizes the surplus lies: the number of
    sentences paired before it, chosen so that the paired sentences share the most words."""
    m, n = i2 - i1, j2 - j1
    short = min(m, n)
    if m == n or m * n > MAX_GAP_SEARCH:
        return short

    def cost(k: int) -> tuple[int, int]:
        pairs = [(i1 + x, j1 + x) for x in range(k)] + [(i2 - x, j2 - x) for x in range(short - k, 0, -1)]
        differing = shared = 0
        for i, j in pairs:
            e, f = expected[i].words, parsed[j].words
            differing += word_mismatch(e, f) is not None
            shared += sum(a == b for a, b in zip(e, f))
        return differing, -shared

    return min(range(short + 1), key=cost)


def file_sentence(j: int, p) -> str:
    """How a report names the file's ``j``-th sentence (0-based): its place, and its ``sent_id`` when the
    file gives one (a file without ids has its places as ids)."""
    if p.sid == str(j + 1):
        return N_("the file's sentence %(n)d") % {"n": j + 1}
    return N_("the file's sentence %(n)d (sent_id %(sid)s)") % {"n": j + 1, "sid": p.sid}


def paired_text(i: int, e: TextSentence, j: int, p, why: str) -> str:
    """Why a paired sentence differs, after its corpus place, and the file's when they differ (a gap
    before it)."""
    if i == j and p.sid in (e.sid, str(j + 1)):
        return N_("sentence %(n)d: %(why)s") % {"n": i + 1, "why": why}
    return N_("corpus sentence %(n)d (%(sid)s), %(file)s: %(why)s") % {
        "n": i + 1, "sid": e.sid, "file": file_sentence(j, p), "why": why}


def missing_problem(counted: bool, expected: list, parsed: list, first: int, end: int, gap: int,
                    display: str, against: str) -> Problem:
    """Corpus sentences ``first``..``end`` (exclusive) are not in the file, which skips them before its
    ``gap``-th sentence (0-based). Said once, with what the later sentences are: shifted, not wrong."""
    count = end - first
    values = {"sid": expected[first].sid, "n": first + 1, "against": against, "count": count,
              "first": expected[first].sid, "last": expected[end - 1].sid, "m": end}
    if gap < len(parsed):
        values.update(before=file_sentence(gap - 1, parsed[gap - 1]) if gap else N_("the start of the file"),
                      next=file_sentence(gap, parsed[gap]))
        line = parsed[gap].line
        if count == 1:
            text = N_("sentence %(sid)s (sentence %(n)d of %(against)s) is missing between %(before)s and "
                      "%(next)s; from there on the file's sentences are the corpus text's, shifted by 1 place, "
                      "and are checked as such") % values
        else:
            text = N_("the %(count)d sentences %(first)s to %(last)s (sentences %(n)d to %(m)d of %(against)s) "
                      "are missing between %(before)s and %(next)s; from there on the file's sentences are the "
                      "corpus text's, shifted by %(count)d places, and are checked as such") % values
    else:
        line = parsed[-1].line if parsed else None
        if count == 1:
            text = N_("sentence %(sid)s (sentence %(n)d of %(against)s) is missing at the end of the file") % values
        else:
            text = N_("the %(count)d sentences %(first)s to %(last)s (sentences %(n)d to %(m)d of %(against)s) "
                      "are missing at the end of the file") % values
    if counted:
        text = with_counts(text, parsed, expected, against)
    return Problem(text, file=display, line=line, sentence=expected[first].sid)


def extra_problem(counted: bool, expected: list, parsed: list, first: int, end: int, display: str,
                  against: str) -> Problem:
    """The file's sentences ``first``..``end`` (exclusive) are none of the corpus text's."""
    if end - first == 1:
        text = N_("%(sentence)s is not a sentence of the corpus text: one too many") % {
            "sentence": file_sentence(first, parsed[first])}
    else:
        text = N_("%(first)s and the %(more)d after it are not sentences of the corpus text: too many") % {
            "first": file_sentence(first, parsed[first]), "more": end - first - 1}
    if counted:
        text = with_counts(text, parsed, expected, against)
    return Problem(text, file=display, line=parsed[first].line, sentence=parsed[first].sid)
