"""Range functions, modes, one-to-one matching, dedup, null arguments, scores, bootstrap, signatures.

Every expected count below is computed by hand in the comments. Positions
are 0-based, ranges are written [start, end) (so [2, 5) covers forms 3-5).
"""
from __future__ import annotations

import random

import pytest

from parseval.annotations.easy import DEFAULT_SCHEMA
from parseval.evaluation.easy import MATCHES, ReferenceView, genre_of, match_counts, maximum_matching, prf, range_holds, score_corpus
from parseval.evaluation.easy import matching
from parseval.evaluation.easy.ranges import ALL_BITS, BIT, range_mask
from parseval.evaluation.signature import parse_signature
from parseval.evaluation.version import SCORER_VERSION

from .conftest import load, sentence

BITS = [BIT[m] for m in MATCHES]
WORDS = [f"w{k}" for k in range(1, 21)]


def cell(result, layer, match, *, mode=None, genre="ALL", type="ALL"):
    (c,) = [c for c in result["cells"] if c["layer"] == layer and c["match"] == match and c["mode"] == mode
            and c["genre"] == genre and c["type"] == type]
    return c


# -- range functions ------------------------------------------------------------------------------

@pytest.mark.parametrize("h, r, expected", [
    # H = R: everything holds
    ((0, 2), (0, 2), {"EQUAL", "FUZZY", "INCLUDE", "INTERSECTION", "BARYCENTER"}),
    # H = R + one form: |H△R| = 1 (FUZZY), H ⊄ R, 2*2/(3+2) = 0.8 > 0.25
    ((2, 5), (2, 4), {"FUZZY", "INTERSECTION", "BARYCENTER"}),
    # H ⊂ R, two forms short: |H△R| = 2, 2*1/(1+3) = 0.5
    ((5, 6), (5, 8), {"INCLUDE", "INTERSECTION", "BARYCENTER"}),
    # one form shared out of 4+4: 2*1/8 = 0.25, not > 0.25
    ((8, 12), (11, 15), {"INTERSECTION"}),
    # disjoint
    ((0, 1), (1, 2), set()),
    # the literal |H \ R| <= 1 of the paper would accept this one-form H far inside a long R;
    # the symmetric difference is |{0..9} - {3}| = 9, so FUZZY does not hold (INCLUDE does)
    ((3, 4), (0, 10), {"INCLUDE", "INTERSECTION"}),
    # null argument: matches only another null argument, under every function
    (None, None, {"EQUAL", "FUZZY", "INCLUDE", "INTERSECTION", "BARYCENTER"}),
    (None, (0, 1), set()),
    ((0, 1), None, set()),
])
def test_range_functions(h, r, expected):
    assert {m for m in MATCHES if range_holds(m, h, r)} == expected


def test_each_range_function_gives_a_different_constituent_count():
    # gold GN groups: A [0,2) B [2,4) C [5,8) D [11,15) E [15,19)
    # run  GN groups: A [0,2) B [2,5) C [5,6) D [8,12) E [16,18)
    # pair A: equal            -> all five
    # pair B: H = R + 1 form   -> FUZZY, INTERSECTION, BARYCENTER (2*2/5 = 0.8)
    # pair C: H ⊂ R, |△| = 2    -> INCLUDE, INTERSECTION, BARYCENTER (2*1/4 = 0.5)
    # pair D: 1 shared of 4+4  -> INTERSECTION only (2*1/8 = 0.25 is not > 0.25)
    # pair E: H ⊂ R, |△| = 2    -> INCLUDE, INTERSECTION, BARYCENTER (2*2/6 = 0.67)
    # no run group meets a gold group other than its own pair, so:
    # EQUAL = 1 (A), FUZZY = 2 (A,B), INCLUDE = 3 (A,C,E), BARYCENTER = 4 (A,B,C,E), INTERSECTION = 5
    gold = load(sentence("E1", WORDS, {(1, 2): ("G1", "GN"), (3, 4): ("G2", "GN"), (6, 8): ("G3", "GN"),
                                       (12, 15): ("G4", "GN"), (16, 19): ("G5", "GN")}), name="t_a.xml", gold=True)
    run = load(sentence("E1", WORDS, {(1, 2): ("G1", "GN"), (3, 5): ("G2", "GN"), (6, 6): ("G3", "GN"),
                                      (9, 12): ("G4", "GN"), (17, 18): ("G5", "GN")}), name="t_a.xml")
    result = score_corpus([gold], [run], bootstrap=0)
    counts = {m: cell(result, "constituents", m)["fc"] for m in MATCHES}
    assert counts == {"EQUAL": 1, "FUZZY": 2, "INCLUDE": 3, "BARYCENTER": 4, "INTERSECTION": 5}
    c = cell(result, "constituents", "EQUAL", type="GN")
    assert (c["fp"], c["cr"]) == (5, 5)
    # P = R = 1/5, F = 2PR/(P+R) = 0.2
    assert c["p"] == pytest.approx(0.2) and c["r"] == pytest.approx(0.2) and c["f"] == pytest.approx(0.2)


def test_each_mode_gives_a_different_relation_count():
    # forms 0..8; gold groups GN [0,2) NV [2,3) GN [3,5) NV [5,6) GN [6,8) NV [8,9)
    # gold SUJ-V: (G1 [0,2), G2 [2,3)), (G3 [3,5), G4 [5,6)), (G5 [6,8), G6 [8,9))
    # run groups: GN [0,2) NV [2,3) GN [3,4) only; forms 4..8 are bare in the run.
    # r1 SUJ-V(F2, G2): F2 is in run group [0,2) -> ([0,2), [2,3)) in every mode -> EQUAL everywhere
    # r2 SUJ-V(G3=[3,4), F6):
    #    HYP    ([3,4), [5,6))  F6 in no run group stays a form; [3,4) != [3,5) -> no
    #    DEFHYP ([3,4), [5,6))  F6 -> gold group [5,6) (same range); the group argument stays -> no
    #    REF    ([3,5), [5,6))  the run group -> gold group sharing most forms [3,5) -> EQUAL
    # r3 SUJ-V(F7, F9):
    #    HYP    ([6,7), [8,9))  forms stay forms; [6,7) != [6,8) -> no
    #    DEFHYP ([6,8), [8,9))  forms in no run group -> gold groups -> EQUAL
    #    REF    ([6,8), [8,9))  -> EQUAL
    # EQUAL matches: HYP 1, DEFHYP 2, REF 3.
    words = WORDS[:9]
    gold_groups = {(1, 2): ("G1", "GN"), (3, 3): ("G2", "NV"), (4, 5): ("G3", "GN"), (6, 6): ("G4", "NV"),
                   (7, 8): ("G5", "GN"), (9, 9): ("G6", "NV")}
    gold = load(sentence("E1", words, gold_groups, [
        ("R1", "SUJ-V", {"sujet": "G1", "verbe": "G2"}), ("R2", "SUJ-V", {"sujet": "G3", "verbe": "G4"}),
        ("R3", "SUJ-V", {"sujet": "G5", "verbe": "G6"})]), name="t_b.xml", gold=True)
    run = load(sentence("E1", words, {(1, 2): ("G1", "GN"), (3, 3): ("G2", "NV"), (4, 4): ("G3", "GN")}, [
        ("R1", "SUJ-V", {"sujet": "F2", "verbe": "G2"}), ("R2", "SUJ-V", {"sujet": "G3", "verbe": "F6"}),
        ("R3", "SUJ-V", {"sujet": "F7", "verbe": "F9"})]), name="t_b.xml")
    result = score_corpus([gold], [run], bootstrap=0)
    fc = {mode: cell(result, "relations", "EQUAL", mode=mode)["fc"] for mode in ("HYP", "DEFHYP", "REF")}
    assert fc == {"HYP": 1, "DEFHYP": 2, "REF": 3}
    # relaxed: in HYP r2 ([3,4),[5,6)) vs ([3,5),[5,6)): INCLUDE holds role by role ([3,4) ⊆ [3,5)),
    # r3 ([6,7),[8,9)) vs ([6,8),[8,9)) too, so INCLUDE gives 3 in HYP as well
    assert cell(result, "relations", "INCLUDE", mode="HYP")["fc"] == 3
    assert {cell(result, "relations", "EQUAL", mode=m)["fp"] for m in ("HYP", "DEFHYP", "REF")} == {3}


def test_ref_mode_tie_goes_to_the_leftmost_gold_group():
    gold = load(sentence("E1", WORDS[:4], {(1, 2): ("G1", "GN"), (3, 4): ("G2", "GN")}), gold=True)
    ref = ReferenceView(gold.sentences[0], DEFAULT_SCHEMA.relation_roles)
    # run group [1,3) shares one form with [0,2) and one with [2,4): leftmost wins
    assert ref.best_group((1, 3)) == (0, 2)
    # [1,4) shares 1 with [0,2) and 2 with [2,4): most forms wins
    assert ref.best_group((1, 4)) == (2, 4)


def test_matching_is_one_to_one_and_maximum():
    # INTERSECTION: run [0,2) meets gold [0,1) and [1,3); run [2,3) meets only [1,3).
    # Greedy run[0,2)->gold[1,3) would leave 1 match; the maximum matching has 2.
    assert match_counts({(0, 2), (2, 3)}, {(0, 1), (1, 3)}, [BIT["INTERSECTION"]], False) == [2]
    # two run items inside one gold item: the gold item is credited once
    assert match_counts({(0, 1), (1, 2)}, {(0, 2)}, [BIT["INCLUDE"]], False) == [1]
    assert maximum_matching([[0, 1], [0], [1]]) == 2


def _brute_force_counts(hyp, ref, relation: bool) -> list[int]:
    """match_counts without any shortcut: every pair's mask from range_mask, a maximum matching per function."""
    def mask(h, r):
        m = ALL_BITS
        for a, b in (zip(h, r) if relation else [(h, r)]):
            m &= range_mask(a, b)
        return m
    ref_l = list(ref)
    return [maximum_matching([[j for j, r in enumerate(ref_l) if mask(h, r) & bit] for h in hyp]) for bit in BITS]


@pytest.mark.parametrize("index_from", [0, 24, 10 ** 6])
def test_match_counts_agree_with_a_brute_force_matching(monkeypatch, index_from):
    # match_counts reads the counts off the masks when no two items compete, and among many items tries only
    # the pairs whose (first) ranges meet; neither may change a count: null and empty ranges, items sharing
    # their first range, several items meeting one
    monkeypatch.setattr(matching, "_INDEX_FROM", index_from)
    rnd = random.Random(index_from)

    def rng():
        if rnd.random() < 0.1:
            return None
        s = rnd.randrange(8)
        return (s, s + rnd.randint(0 if rnd.random() < 0.05 else 1, 4))

    for _ in range(4000):
        relation = rnd.random() < 0.6
        arity = rnd.choice([1, 2, 3])
        def item():
            return tuple(rng() for _ in range(arity)) if relation else (lambda s: (s, s + rnd.randint(1, 4)))(
                rnd.randrange(8))
        ref = {item() for _ in range(rnd.randint(0, 7))}
        hyp = {item() for _ in range(rnd.randint(0, 7))} if rnd.random() < 0.8 else set(ref) | {item()}
        assert match_counts(hyp, ref, BITS, relation) == _brute_force_counts(hyp, ref, relation), (hyp, ref)
    # one run item meeting two gold items, each met by no other run item: not a case where no two compete
    assert match_counts({(0, 3), (5, 6)}, {(0, 1), (2, 3)}, BITS, False) == [0, 0, 0, 1, 1]
    # two run items meeting one gold item: credited once
    assert match_counts({((0, 1), None), ((1, 2), None)}, {((0, 2), None)}, BITS, True) == [0, 1, 1, 1, 1]


def test_null_argument_matches_only_a_null_argument():
    # gold COORD(coordonnant F1, coord-g F0, coord-d G2); run 1 writes F0 too, run 2 points to F2:
    # |∅ △ {F2}| = 1 would satisfy FUZZY read literally, but a null matches only a null.
    words = ["Et", "il", "dort"]
    groups = {(2, 2): ("G1", "GN"), (3, 3): ("G2", "NV")}
    gold = load(sentence("E1", words, groups, [("R1", "COORD", {"coordonnant": "F1", "coord-g": "F0",
                                                                  "coord-d": "G2"})]), gold=True, name="n.xml")
    same = load(sentence("E1", words, groups, [("R1", "COORD", {"coordonnant": "F1", "coord-g": "F0",
                                                                  "coord-d": "G2"})]), name="n.xml")
    other = load(sentence("E1", words, groups, [("R1", "COORD", {"coordonnant": "F1", "coord-g": "G1",
                                                                   "coord-d": "G2"})]), name="n.xml")
    for run, expected in ((same, 1), (other, 0)):
        result = score_corpus([gold], [run], bootstrap=0)
        assert {cell(result, "relations", m, mode="HYP", type="COORD")["fc"] for m in MATCHES} == {expected}


def test_duplicates_count_once_in_range_space():
    # gold writes SUJ-V(G1, G2) twice (exact repeat): cr = 1, one warning.
    # the run writes it with the group G1 and once with the form F1 inside G1 (same range in HYP): fp = 1.
    words = ["Il", "dort"]
    groups = {(1, 1): ("G1", "GN"), (2, 2): ("G2", "NV")}
    gold = load(sentence("E1", words, groups, [("R1", "SUJ-V", {"sujet": "G1", "verbe": "G2"}),
                                               ("R2", "SUJ-V", {"sujet": "G1", "verbe": "G2"})]),
                gold=True, name="d.xml")
    assert len(gold.warnings) == 1
    run = load(sentence("E1", words, groups, [("R1", "SUJ-V", {"sujet": "G1", "verbe": "G2"}),
                                              ("R2", "SUJ-V", {"sujet": "F1", "verbe": "G2"})]), name="d.xml")
    result = score_corpus([gold], [run], bootstrap=0)
    for mode in ("HYP", "DEFHYP", "REF"):
        c = cell(result, "relations", "EQUAL", mode=mode, type="SUJ-V")
        assert (c["fc"], c["fp"], c["cr"]) == (1, 1, 1)
    assert any("repeats relation" in w["message"] for w in result["warnings"])


# -- scores ---------------------------------------------------------------------------------------

def test_prf_conventions():
    assert prf(0, 0, 5) == (None, 0.0, 0.0)       # nothing found: P undefined, F = 0
    assert prf(0, 3, 0) == (0.0, None, 0.0)       # nothing to find
    assert prf(0, 0, 0) == (None, None, None)
    p, r, f = prf(2, 4, 8)                        # P = 1/2, R = 1/4, F = 2*(1/8)/(3/4) = 1/3
    assert (p, r) == (0.5, 0.25) and f == pytest.approx(1 / 3)


def two_genre_corpus():
    """Two documents (genres a and b), several sentences with errors in the run."""
    golds, runs = [], []
    for name in ("a_doc.xml", "b_doc.xml"):
        gbody, rbody = "", ""
        for k in range(1, 13):
            words = ["Le", "chat", "noir", "dort", "bien"]
            gbody += sentence(f"E{k}", words, {(1, 2): ("G1", "GN"), (3, 3): ("G2", "GA"), (4, 4): ("G3", "NV")},
                              [("R1", "SUJ-V", {"sujet": "G1", "verbe": "G3"}),
                               ("R2", "MOD-N", {"modifieur": "G2", "nom": "G1"}),
                               ("R3", "MOD-V", {"modifieur": "F5", "verbe": "G3"})])
            if k % 3 == 0:  # shifted group, wrong relation
                rbody += sentence(f"E{k}", words, {(1, 3): ("G1", "GN"), (4, 4): ("G2", "NV")},
                                  [("R1", "SUJ-V", {"sujet": "G1", "verbe": "G2"}),
                                   ("R2", "COD-V", {"cod": "F5", "verbe": "G2"})])
            elif k % 3 == 1:  # perfect
                rbody += sentence(f"E{k}", words, {(1, 2): ("G1", "GN"), (3, 3): ("G2", "GA"),
                                                   (4, 4): ("G3", "NV")},
                                  [("R1", "SUJ-V", {"sujet": "G1", "verbe": "G3"}),
                                   ("R2", "MOD-N", {"modifieur": "G2", "nom": "G1"}),
                                   ("R3", "MOD-V", {"modifieur": "F5", "verbe": "G3"})])
            else:  # nothing found
                rbody += sentence(f"E{k}", words)
        golds.append(load(gbody, name=name, gold=True))
        runs.append(load(rbody, name=name))
    return golds, runs


def test_genres_macro_and_layer_not_submitted():
    golds, runs = two_genre_corpus()
    result = score_corpus(golds, runs, bootstrap=0)
    assert result["genres"] == ["a", "b"]
    assert {c["genre"] for c in result["cells"]} == {"ALL", "a", "b"}
    # ALL pools the genres: counts add up
    for layer, mode in (("constituents", None), ("relations", "HYP")):
        all_c = cell(result, layer, "EQUAL", mode=mode)
        parts = [cell(result, layer, "EQUAL", mode=mode, genre=g) for g in ("a", "b")]
        assert all_c["fc"] == sum(p["fc"] for p in parts) and all_c["cr"] == sum(p["cr"] for p in parts)
    # relations, HYP, EQUAL, per genre: gold 12 x 3 = 36 relations;
    # perfect sentences (k = 1,4,7,10) find 3 each -> fc 12; shifted ones (k = 3,6,9,12) write 2, none right
    # -> fp 12 + 8 = 20. SUJ-V: fc 4, fp 8, cr 12 -> F = 8/20 = 0.4; MOD-N: fc 4, fp 4, cr 12 -> F = 0.5;
    # MOD-V: same as MOD-N, 0.5; COD-V: fc 0, fp 4, cr 0 -> F = 0. Macro = (0.4+0.5+0.5+0)/4 = 0.35;
    # types with no item at all (fp = cr = 0) are left out of the mean.
    c = cell(result, "relations", "EQUAL", mode="HYP", genre="a")
    assert (c["fc"], c["fp"], c["cr"]) == (12, 20, 36)
    (m,) = [m for m in result["macro"] if m["layer"] == "relations" and m["mode"] == "HYP"
            and m["match"] == "EQUAL" and m["genre"] == "a"]
    assert m["f"] == pytest.approx(0.35) and m["types_averaged"] == 4
    assert cell(result, "relations", "EQUAL", mode="HYP", genre="a", type="MOD-P")["f"] is None
    # relations only: the constituent layer is not submitted (no cells), not zero
    rel_only = [load("".join(sentence(f"E{k}", ["Le", "chat", "noir", "dort", "bien"], None,
                                      [("R1", "MOD-V", {"modifieur": "F5", "verbe": "F4"})]) for k in range(1, 13)),
                     name=d.name) for d in golds]
    result = score_corpus(golds, rel_only, bootstrap=0)
    assert result["layers_submitted"] == {"constituents": False, "relations": True}
    assert not [c for c in result["cells"] if c["layer"] == "constituents"]
    assert cell(result, "relations", "EQUAL", mode="REF")["fp"] == 24


def test_bootstrap_is_reproducible_and_contains_the_estimate():
    golds, runs = two_genre_corpus()
    r1 = score_corpus(golds, runs, bootstrap=300, seed=7)
    r2 = score_corpus(golds, runs, bootstrap=300, seed=7)
    r3 = score_corpus(golds, runs, bootstrap=300, seed=8)
    assert [c["ci"] for c in r1["cells"]] == [c["ci"] for c in r2["cells"]]
    assert [c["ci"] for c in r1["cells"]] != [c["ci"] for c in r3["cells"]]
    checked = 0
    for c in r1["cells"] + r1["macro"]:
        if c["f"] is None:
            assert c["ci"] is None
            continue
        lo, hi = c["ci"]
        assert lo <= c["f"] + 1e-12 and c["f"] - 1e-12 <= hi
        checked += 1
    assert checked > 50
    wide = cell(r1, "relations", "EQUAL", mode="HYP")
    assert wide["ci"][0] < wide["f"] < wide["ci"][1]  # a real spread, not a degenerate interval
    assert all(c["ci"] is None for c in score_corpus(golds, runs, bootstrap=0)["cells"])


def test_signature_content():
    golds, runs = two_genre_corpus()
    result = score_corpus(golds, runs, bootstrap=50, seed=99, matches=["FUZZY"], modes=["REF"])
    top = parse_signature(result["signature"])
    assert top["metric"] == "easy" and top["bs"] == "50" and top["seed"] == "99"
    assert top["version"] == SCORER_VERSION == result["scorer_version"]
    c = cell(result, "relations", "FUZZY", mode="REF")
    sig = parse_signature(c["signature"])
    assert sig == {"metric": "easy-relations", "mode": "REF", "match": "FUZZY", "agg": "micro", "bs": "50",
                   "seed": "99", "version": SCORER_VERSION}
    macro_sig = parse_signature(result["macro"][0]["signature"])
    assert macro_sig["agg"] == "macro"
    assert parse_signature(cell(result, "constituents", "FUZZY")["signature"])["metric"] == "easy-constituents"
    assert "mode" not in parse_signature(cell(result, "constituents", "FUZZY")["signature"])
    ways = {(c["layer"], c["mode"], c["match"]) for c in result["cells"]}
    assert ways == {("constituents", None, "FUZZY"), ("relations", "REF", "FUZZY")}


def test_only_gold_sentences_are_scored_and_missing_ones_count_as_empty():
    gold = load(sentence("E2", ["Il", "dort"], {(1, 1): ("G1", "GN")}), gold=True, name="x.xml")
    run = load(sentence("E1", ["a"], {(1, 1): ("G1", "XX")}).replace("XX", "GN")
               + sentence("E3", ["b"], {(1, 1): ("G1", "GN")}), name="x.xml")
    result = score_corpus([gold], [run], bootstrap=0)
    c = cell(result, "constituents", "EQUAL")
    assert (c["fc"], c["fp"], c["cr"]) == (0, 0, 1)  # E1 and E3 have no gold; E2 is missing from the run
    assert c["p"] is None and c["f"] == 0.0
    assert result["counts"]["run_sentences_without_gold"] == 2
    assert any("missing from the run" in w["message"] for w in result["warnings"])


def test_genre_from_file_name():
    assert genre_of("general_lemonde.xml") == "general"
    assert genre_of("oral_delic_1.xml") == "oral"
    assert genre_of("Guide.1.easyref.xml") == "Guide.1.easyref"


def test_progress_and_corpus_validation_of_sentences_without_gold(tmp_path):
    from parseval.annotations.errors import InputError

    from .conftest import easy_xml

    gold = load(sentence("E2", ["Il", "dort"], {(1, 1): ("G1", "GN")}), gold=True, name="x.xml")
    corpus = load(sentence("E1", ["Oui"]) + sentence("E2", ["Il", "dort"]), name="x.xml")
    run = tmp_path / "x.xml"
    run.write_bytes(easy_xml(sentence("E1", ["Non"]) + sentence("E2", ["Il", "dort"], {(1, 1): ("G1", "GN")})))
    calls = []
    # without the corpus text, E1 (no gold) is checked for structure only
    result = score_corpus([gold], [run], bootstrap=0, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(1, 2), (2, 2)]
    assert cell(result, "constituents", "EQUAL")["f"] == 1.0
    # with it, E1's form is checked exactly as a gold sentence's would be
    with pytest.raises(InputError) as err:
        score_corpus([gold], [run], bootstrap=0, corpus={"x": corpus})
    p = err.value.problems[0]
    assert (p.sentence, p.element, p.file) == ("E1", "E1F1", "x.xml")
    assert "form E1F1 is 'Non', expected 'Oui'" in p.message


def test_a_run_copied_under_another_name_is_named_after_its_document_in_problems(tmp_path):
    from parseval.annotations.errors import InputError
    from parseval.evaluation.easy import score_corpus

    from .conftest import easy_xml

    gold = load(sentence("E1", ["il", "dort"], {(1, 1): ("G1", "GN")}), name="general_x.xml", gold=True)
    copy = tmp_path / "00001.xml"  # how the web app unpacks an upload
    copy.write_bytes(easy_xml(sentence("E1", ["il", "dort"], {(1, 1): ("G1", "XX")})))
    with pytest.raises(InputError) as exc:
        score_corpus([gold], {"general_x": copy}, bootstrap=0)
    assert [p.file for p in exc.value.problems] == ["general_x.xml"]
    assert "unknown group type 'XX'" in exc.value.problems[0].message
    named = tmp_path / "general_x.xml"  # the command line: the file's own name, as given
    named.write_bytes(copy.read_bytes())
    with pytest.raises(InputError) as exc:
        score_corpus([gold], {"general_x": named}, bootstrap=0)
    assert [p.file for p in exc.value.problems] == ["general_x.xml"]


def test_gold_read_one_document_at_a_time_scores_byte_identically(easy_ref, tmp_path):
    """Gold given as paths is read document by document, when its run comes, and dropped once counted:
    the result is the same JSON as with every gold Document in memory, whatever order the runs come in,
    with a gold document that has no run and a gold file with warnings."""
    import json
    import random

    from parseval.annotations.easy.reader import read_document
    from parseval.annotations.easy.writer import write_document
    from parseval.annotations.easy.model import Document
    from benchmarks.easy_corpus import perturb

    names = ["general_elda.xml", "mail_10.xml", "oral_delic_1.xml", "questions_trec.xml"]
    paths = [easy_ref / n for n in names]
    docs = [read_document(p, gold=True) for p in paths]
    assert any(d.warnings for d in docs)  # oral_delic_1 has a repeated relation id
    rnd = random.Random(11)
    runs = {}
    for d in docs[:-1]:  # questions_trec has no run
        write_document(Document(name=d.name, sentences=[perturb(s, rnd) for s in d.sentences]), tmp_path / d.name)
        runs[d.name[:-4]] = tmp_path / d.name
    reversed_runs = dict(reversed(list(runs.items())))
    in_memory = score_corpus(docs, reversed_runs, bootstrap=200, seed=3)
    streamed = score_corpus(paths, reversed_runs, bootstrap=200, seed=3)  # runs in another order than the gold
    assert json.dumps(streamed) == json.dumps(in_memory)
    assert in_memory["counts"]["gold_sentences_missing_from_run"] == len(docs[-1].sentences) > 0
    assert in_memory["warnings"] and in_memory["documents"][-1]["run"] is False
