"""Character-level alignment (CoNLL 2018 definitions), cases worked out by hand."""
from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from benchmarks.alignment_memory import chained_regions, table_walk
from parseval.evaluation.deps.alignment import AlignWord, Span, TextMismatch, _lcs_pairs, align_forms, alignment_ceiling, align_words, char_spans, check_same_text, count_matches, groups, overlaps, strip_spaces


def test_spaces_are_not_characters():
    # "10 000" written with a no-break space (ordinary French typography) and with an ASCII space
    assert strip_spaces("10\u00a0000") == "10000"
    assert strip_spaces("à peu près") == "àpeuprès"
    assert strip_spaces("a\tb") == "a\tb"  # a tab is not a space character (category Cc)
    text, spans = char_spans(["Le", "10\u00a0000", "e"])
    # "Le" -> [0, 2), "10000" -> [2, 7), "e" -> [7, 8)
    assert text == "Le10000e"
    assert spans == [Span(0, 2), Span(2, 7), Span(7, 8)]


def test_mismatch_names_the_first_differing_character():
    check_same_text("abc", "abc")
    with pytest.raises(TextMismatch) as err:
        check_same_text("Il mange".replace(" ", ""), "Il mangea".replace(" ", ""))
    # "Ilmange" vs "Ilmangea": equal for 7 characters, the gold side ends there
    assert (err.value.offset, err.value.gold, err.value.test) == (7, "", "a")
    with pytest.raises(TextMismatch) as err:
        align_forms(["du", "pain"], ["de", "le", "pain"])
    assert err.value.offset == 1  # "d|u..." against "d|e..."


def test_forms_covered_by_parser_tokens():
    # corpus forms: "au" "lieu" "de" "l'" "eau" ; a parser: "au" "lieu" "de" "l'eau"
    cover = align_forms(["au", "lieu", "de", "l'", "eau"], ["au", "lieu", "de", "l'eau"])
    # "l'" [8, 10) and "eau" [10, 13) both lie inside the parser's "l'eau" [8, 13), token 3
    assert cover == [[0], [1], [2], [3], [3]]
    # the other way round, a parser splitting one corpus form "aujourd'hui" in three
    assert align_forms(["aujourd'hui", "!"], ["aujourd'", "hu", "i", "!"]) == [[0, 1, 2], [3]]


def test_crossing_cuts_make_one_group():
    gold = ["ab", "cd", "e"]  # [0,2) [2,4) [4,5)
    test = ["a", "bc", "de"]  # [0,1) [1,3) [3,5)
    _, gs = char_spans(gold)
    _, ts = char_spans(test)
    # the cuts after "a", "b|c" and "c|d" never coincide before the end (5): one block of everything
    assert groups(gs, ts) == [([0, 1, 2], [0, 1, 2])]
    assert overlaps(gs, ts) == [[0, 1], [1, 2], [2]]
    _, gs = char_spans(["Le", "chat", "dort"])
    _, ts = char_spans(["Lechat", "do", "rt"])
    assert groups(gs, ts) == [([0, 1], [0]), ([2], [1, 2])]


def test_empty_ranges_stand_alone():
    gs = [Span(0, 2), Span(2, 2), Span(2, 4)]  # a form of spaces only between two others
    ts = [Span(0, 4)]
    assert overlaps(gs, ts) == [[0], [], [0]]
    # inside a block the empty range belongs to it; at a block boundary it is a block of its own
    assert groups(gs, ts) == [([0, 1, 2], [0])]
    assert groups([Span(0, 0), Span(0, 2)], [Span(0, 2)]) == [([0], []), ([1], [0])]


def test_count_matches_needs_start_and_end():
    gold = [Span(0, 2), Span(2, 5), Span(5, 6)]
    test = [Span(0, 2), Span(2, 6)]
    # (0,2) on both sides; (2,5) against (2,6): same start, different end; (5,6) has no partner
    assert count_matches(gold, test) == 1


def words(spec):
    """``"ab a b"`` = a multiword token "ab" of words "a" and "b"; ``"ab"`` = a plain word."""
    out, pos = [], 0
    for item in spec:
        parts = item.split(" ")
        token = parts[0]
        span = (pos, pos + len(token))
        pos += len(token)
        if len(parts) == 1:
            out.append(AlignWord(*span, token, False))
        else:
            out.extend(AlignWord(*span, w, True) for w in parts[1:])
    return out


@pytest.mark.parametrize("gold, test, pairs", [
    # plain tokens: equal ranges align, nothing else does
    (["abcd"], ["a", "b", "c", "d"], []),
    (["abc", "d"], ["a", "b", "c", "d"], [(1, 3)]),
    (["a", "bc", "d"], ["a", "b", "c", "d"], [(0, 0), (2, 3)]),
    # a split contraction on one side only: "du" = "de le" against a parser that wrote "de" "le"
    # is impossible (the characters differ); against "du" the multiword region [0, 2) holds gold
    # "de" "le" and test "du": no form in common, nothing aligns
    (["du de le", "pain"], ["du", "pain"], [(2, 1)]),
    # both split the contraction: region [0, 2), forms de/le against de/le, both pair
    (["du de le", "pain"], ["du de le", "pain"], [(0, 0), (1, 1), (2, 2)]),
    # a multiword region grows over a plain word it covers: gold "abc"=a b c, test a, "bcd"=b c d, e
    # region starts at [0,3), test "bcd" [1,4) extends it to 4; gold "de"=d e extends it to 5
    (["abc a b c", "de d e"], ["a", "bcd b c d", "e"], [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)]),
    # lower-cased forms: "Au" = "à le" against "au" = "à le"
    (["Au à le"], ["au À LE"], [(0, 0), (1, 1)]),
    # only the common forms pair: gold a BX c d EX f (0..5) against a b c d e f (0..5): a, c, d, f
    (["abc a BX c", "def d EX f"], ["ab a b", "cd c d", "ef e f"], [(0, 0), (2, 2), (3, 3), (5, 5)]),
])
def test_word_alignment(gold, test, pairs):
    assert align_words(words(gold), words(test)) == pairs


def test_a_plain_word_before_the_multiword_token_is_dropped_first():
    # gold: "a" then "bc"=b c ; test: "ab" plain, "c" plain.
    # At gold "a" / test "ab": both plain, different ranges, gold starts first at 0 (tie: gold) -> drop gold "a".
    # Gold "bc" is multiword [1,3); test "ab" [0,2) is plain and starts before 1 -> dropped.
    # Region [1,3): gold b, c; test "c" [2,3) ends inside -> taken. LCS(b c, c) = c.
    assert align_words(words(["a", "bc b c"]), words(["ab", "c"])) == [(2, 1)]


def test_the_bounded_walk_takes_the_table_walks_every_decision():
    # small alphabets make many ties, where the walk's order of preference decides;
    # lengths up to 40 cross several checkpoint blocks (a block is ⌊√m⌋ + 1 columns)
    rng = random.Random(19)
    for _ in range(3000):
        alphabet = "abcd"[:rng.randint(1, 4)]
        a = [rng.choice(alphabet) for _ in range(rng.randint(0, 40))]
        b = [rng.choice(alphabet) for _ in range(rng.randint(0, 40))]
        assert _lcs_pairs(a, b, 0, 0) == table_walk(a, b), (a, b)
    # de le against le de: "de" ≠ "le", and passing over gold "de" keeps the subsequence
    # (length 1), so gold "le" pairs with run "le"; the offsets are added to both sides
    assert _lcs_pairs(["de", "le"], ["le", "de"], 7, 3) == [(8, 3)]


def test_a_run_of_chained_multiword_regions_stays_under_the_ceiling(tmp_path):
    # 2,000 gold tokens: 4,000 gold and 4,000 run words in one region, a 160 KB run. The
    # shared task's table holds 16 million cells: 337 MB traced, 1 GB resident, 56 s, when
    # measured before this walk (benchmarks/alignment_memory.py measures both). Measured in
    # a fresh process: tracemalloc for what the alignment holds, the resident high-water mark
    # for the worker's process.
    gold, run = chained_regions(2000)
    (tmp_path / "gold.conllu").write_text(gold)
    (tmp_path / "run.conllu").write_text(run)
    assert 150_000 < len(run.encode()) < 205_000
    code = textwrap.dedent("""
        import json, resource, sys, tracemalloc
        from parseval.evaluation.deps.alignment import align_words
        from parseval.evaluation.deps.conll18 import score_conll18
        from parseval.evaluation.deps.conll18_reader import read_conll18
        gold, run = read_conll18(sys.argv[1]), read_conll18(sys.argv[2])
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        tracemalloc.start()
        pairs = align_words(gold.words, run.words)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rows = score_conll18(gold, run)["rows"]
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss
        print(json.dumps({"peak": peak, "grown_kb": grown, "pairs": len(pairs),
                          "words": [len(gold.words), len(run.words)], "aligned": rows["Words"]["correct"]}))
    """)
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "gold.conllu"), str(tmp_path / "run.conllu")],
                         capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2])
    seen = json.loads(out.stdout)
    n, m = seen["words"]
    assert (n, m) == (4000, 4000)
    # le de | le de ... against de le | de le ...: the region's subsequence pairs all but
    # the first gold "de" and the last run "de" (the run's first and last tokens are plain)
    assert seen["pairs"] == seen["aligned"] == 3998
    ceiling = alignment_ceiling(n, m)
    assert ceiling < 10 * 2**20  # 8 MiB of masks at most, a few hundred KB of columns
    assert seen["peak"] <= ceiling
    assert seen["grown_kb"] * 1024 <= ceiling  # scoring the whole file adds no more than that
