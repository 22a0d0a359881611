"""Tuning a consensus on the development sample (issue 37), worked by hand: three runs per kind where the
equal-weight majority loses to the best run, and the tuning that recovers it; the fallback on the best run."""
import json

import pytest

from parseval.annotations.conllu import parse_conllu
from parseval.annotations.easy.model import Document, Form, Group, Relation, Sentence
from parseval.annotations.trees.penn import parse_penn
from parseval.evaluation.consensus import tuning
from parseval.evaluation.consensus.votes import normalised
from evaluation.__main__ import main


# -- EASY ------------------------------------------------------------------------------------------------------

FORMS = [Form(f"E1F{i}", t) for i, t in enumerate(["Paul", "donne", "le", "livre", "rouge"], 1)]
GROUPS = [("GN", 0, 1), ("NV", 1, 2), ("GN", 2, 3), ("GP", 3, 4), ("GA", 4, 5)]  # every run's and the gold's
R1 = ("SUJ-V", {"sujet": "E1G1", "verbe": "E1G2"})
R2 = ("COD-V", {"cod": "E1G3", "verbe": "E1G2"})
R3 = ("CPL-V", {"complement": "E1G4", "verbe": "E1G2"})
R4 = ("MOD-N", {"modifieur": "E1G5", "nom": "E1G3"})
X = ("MOD-N", {"modifieur": "E1G5", "nom": "E1G1"})  # wrong
Y = ("CPL-V", {"complement": "E1G5", "verbe": "E1G2"})  # wrong


def easy_doc(relations) -> Document:
    s = Sentence("E1", list(FORMS))
    s.groups = [Group(f"E1G{k}", t, a, b) for k, (t, a, b) in enumerate(GROUPS, 1)]
    s.relations = [Relation(f"E1R{k}", t, dict(args)) for k, (t, args) in enumerate(relations, 1)]
    return Document("d", [s])


def test_easy_tuning_beats_the_best_run_where_the_majority_loses():
    # gold {R1, R2, R3, R4}; A {R1, R2, R3}; B {R4, X}; C {R4, Y, R1}; groups all right everywhere.
    # relations HYP EQUAL micro F = 2 fc / (fp + cr), cr = 4:
    #   A: 2*3/(3+4) = 6/7; B: 2*1/(2+4) = 1/3; C: 2*2/(3+4) = 4/7.
    # equal weights at one half: R1 (A, C) and R4 (B, C) have 2/3, the rest 1/3: {R1, R4}, F = 2*2/(2+4) = 2/3,
    # below A's 6/7.
    # dev-F weights 6/7 : 1/3 : 4/7 = 18 : 7 : 12 (out of 37): R1 30/37, R4 19/37, R2 = R3 = 18/37 = 0.486,
    # Y 12/37, X 7/37. Above 0.45: {R1, R2, R3, R4}, F = 1. Equal weights never reach 1 (R2 and R3 come with
    # X and Y: at most 2*4/(6+4) = 0.8), and dev-F at 0.5 and 0.55 (tried before 0.45) give 2/3 and 2/5.
    gold = [easy_doc([R1, R2, R3, R4])]
    runs = [[easy_doc([R1, R2, R3])], [easy_doc([R4, X])], [easy_doc([R4, Y, R1])]]
    development, evaluate = tuning.easy_evaluator(gold, runs)
    assert development == pytest.approx([6 / 7, 1 / 3, 4 / 7])
    majority = tuning.Setting("equal", normalised(None, 3), (("groups", 0.5), ("relations", 0.5)))
    assert evaluate(majority) == pytest.approx((2 / 3, 1.0))
    result = tuning.tune("easy", development, evaluate)
    assert not result.fallback
    assert result.chosen.weighting == "dev-F"
    assert result.chosen.weights == pytest.approx((18 / 37, 7 / 37, 12 / 37))
    assert result.chosen.threshold == {"groups": 0.5, "relations": 0.45}
    assert result.figure == pytest.approx(1.0)
    record = result.record()
    assert record["development"] == pytest.approx([6 / 7, 1 / 3, 4 / 7])
    assert {"weighting": "equal", "thresholds": {"groups": 0.5, "relations": 0.5}} in \
        [{k: c[k] for k in ("weighting", "thresholds")} for c in record["candidates"]]
    assert len(record["candidates"]) == len(result.candidates) > 14
    json.dumps(record)  # stored in Run.combination as is


# -- constituency ----------------------------------------------------------------------------------------------

def test_tree_tuning_lowers_the_span_threshold_and_checks_crossing():
    # gold brackets: S[0,4) NP[0,2) VP[2,4) NP[3,4)  (4)
    # A: S NP[0,2) VP[2,4)                 3 right of 3: evalb F = 2*3/(3+4) = 6/7
    # B: S NP[0,1) VP[1,4) NP[3,4)         2 right of 4: F = 2*2/(4+4) = 1/2
    # C: S NP[0,1) VP[1,4)                 1 right of 3: F = 2*1/(3+4) = 2/7
    # equal weights, more than half: S, NP[0,1), VP[1,4) (B and C): 1 right of 3, F = 2/7, below A.
    # dev-F weights 6/7 : 1/2 : 2/7 = 12 : 7 : 4 (out of 23): A's spans 12/23 = 0.522, NP[0,1) and VP[1,4)
    # 11/23 = 0.478, NP[3,4) 7/23 = 0.304. Above 0.3 all are candidates; most agreed first, VP[1,4) crosses
    # NP[0,2) and is left out: S NP[0,2) NP[0,1) VP[2,4) NP[3,4), 4 right of 5, F = 8/9 > 6/7.
    # (Above 0.35 to 0.45: A's spans and NP[0,1), F = 2*3/(4+4) = 3/4; at 0.5, A's tree: 6/7, no gain.)
    gold = parse_penn("(S (NP (D a) (N b)) (VP (V c) (NP (N d))))")
    a = parse_penn("(S (NP (D a) (N b)) (VP (V c) (N d)))")
    b = parse_penn("(S (NP (D a)) (VP (N b) (V c) (NP (N d))))")
    c = parse_penn("(S (NP (D a)) (VP (N b) (V c) (N d)))")
    development, evaluate = tuning.tree_evaluator(gold, [a, b, c])
    assert development == pytest.approx([6 / 7, 1 / 2, 2 / 7])
    assert evaluate(tuning.Setting("equal", normalised(None, 3), (("spans", 0.5),))) == pytest.approx(2 / 7)
    result = tuning.tune("trees", development, evaluate)
    assert not result.fallback and result.chosen.weighting == "dev-F"
    assert result.chosen.weights == pytest.approx((12 / 23, 7 / 23, 4 / 23))
    assert result.chosen.threshold == {"spans": 0.3}
    assert result.figure == pytest.approx(8 / 9)
    from parseval.evaluation.consensus import trees

    tree = trees.combine_sentence([a[0], b[0], c[0]], result.chosen.weights, threshold=0.3).tree
    assert tree.to_penn() == "(S (NP (NP (D a)) (N b)) (VP (V c) (NP (N d))))"


# -- dependencies ----------------------------------------------------------------------------------------------

def conllu(heads: list[int], sent_id: str = "s1") -> str:
    labels = ["nsubj", "root", "obj", "nmod", "nmod"]
    rows = [f"{i}\tw{i}\tw{i}\tX\t_\t_\t{h}\t{'root' if h == 0 else labels[i - 1]}\t_\t_"
            for i, h in enumerate(heads, 1)]
    return f"# sent_id = {sent_id}\n" + "\n".join(rows) + "\n\n"


GOLD_HEADS = [2, 0, 2, 3, 4]
A_HEADS = [2, 0, 2, 3, 3]  # word 5 wrong: LAS 4/5
B_HEADS = [3, 0, 2, 2, 4]  # words 1 and 4 wrong: 3/5
C_HEADS = [3, 0, 2, 2, 3]  # words 1, 4 and 5 wrong: 2/5


def test_dependency_tuning_recovers_the_best_run_and_falls_back_on_it(tmp_path, capsys):
    # Equal weights: word 1 takes 3 (B, C: 2/3), word 4 takes 2 (B, C), word 5 takes 3 (A, C): LAS 2/5 < A's 4/5.
    # Three runs cannot beat A here: words 1 and 4 need w_A > w_B + w_C (A against B and C), word 5 needs
    # w_B > w_A + w_C. dev-F (0.8 : 0.6 : 0.4) gives B and C 5/9 > 4/9: 2/5 again; dev-F^2 (0.64 : 0.36 : 0.16)
    # gives A 0.552 > 0.448 on words 1 and 4 and A with C on word 5: A's tree, 4/5, which does not beat A.
    # So the consensus falls back on A: A's own file, byte for byte.
    gold = parse_conllu(conllu(GOLD_HEADS))
    runs = [parse_conllu(conllu(h)) for h in (A_HEADS, B_HEADS, C_HEADS)]
    development, evaluate = tuning.dependency_evaluator(gold, runs)
    assert development == pytest.approx([0.8, 0.6, 0.4])
    assert evaluate(tuning.Setting("equal", normalised(None, 3))) == pytest.approx(0.4)
    assert evaluate(tuning.Setting("dev-F", normalised([0.8, 0.6, 0.4], 3))) == pytest.approx(0.4)
    assert evaluate(tuning.Setting("dev-F^2", normalised([0.64, 0.36, 0.16], 3))) == pytest.approx(0.8)
    result = tuning.tune("deps", development, evaluate)
    assert result.fallback and result.chosen.fallback == 0 and result.figure == pytest.approx(0.8)
    assert result.record()["fallback_run"] == 0
    # The command line: each run's test file (other sentences) and development file.
    gold_path = tmp_path / "dev-gold.conllu"
    gold_path.write_text(conllu(GOLD_HEADS), encoding="utf-8")
    args = ["combine", "--kind", "deps", "--tune-on", str(gold_path), "--out", str(tmp_path / "out")]
    for name, heads in (("a", A_HEADS), ("b", B_HEADS), ("c", C_HEADS)):
        (tmp_path / f"{name}-dev.conllu").write_text(conllu(heads), encoding="utf-8")
        (tmp_path / f"{name}-test.conllu").write_text(conllu(heads, "t1") + conllu(GOLD_HEADS, "t2"),
                                                      encoding="utf-8")
        args += ["--run", f"{tmp_path / f'{name}-test.conllu'}:{tmp_path / f'{name}-dev.conllu'}"]
    assert main(args) == 0
    assert (tmp_path / "out" / "consensus.conllu").read_bytes() == (tmp_path / "a-test.conllu").read_bytes()
    err = capsys.readouterr().err
    assert "no setting beats the best run" in err and " 80.00" in err
    record = json.loads((tmp_path / "out" / "tuning.json").read_text())
    assert record["fallback"] and record["fallback_run"] == 0


def test_tree_command_learns_on_the_development_files(tmp_path, capsys):
    gold, a, b, c = ("(S (NP (D a) (N b)) (VP (V c) (NP (N d))))", "(S (NP (D a) (N b)) (VP (V c) (N d)))",
                     "(S (NP (D a)) (VP (N b) (V c) (NP (N d))))", "(S (NP (D a)) (VP (N b) (V c) (N d)))")
    (tmp_path / "gold.mrg").write_text(gold + "\n", encoding="utf-8")
    args = ["combine", "--kind", "trees", "--tune-on", str(tmp_path / "gold.mrg"), "--out", str(tmp_path / "out")]
    for name, text in (("a", a), ("b", b), ("c", c)):
        (tmp_path / f"{name}.mrg").write_text(text + "\n", encoding="utf-8")
        args += ["--run", f"{tmp_path / f'{name}.mrg'}:{tmp_path / f'{name}.mrg'}"]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "chosen: dev-F weights 0.522,0.304,0.174, spans threshold 0.3: development figure 88.89" in err
    assert (tmp_path / "out" / "consensus.mrg").read_text(encoding="utf-8").strip() == \
        "( (S (NP (NP (D a)) (N b)) (VP (V c) (NP (N d)))))"
    assert main(["combine", "--kind", "trees", "--tune-on", str(tmp_path / "gold.mrg"), "--run",
              str(tmp_path / "a.mrg"), "--run", str(tmp_path / "b.mrg"), "--out", str(tmp_path / "x")]) != 0
    assert "RUN_TEST:RUN_DEV" in capsys.readouterr().err


def test_without_development_figures_nothing_is_tuned():
    result = tuning.tune("trees", [None, None], lambda s: pytest.fail("nothing may be scored"))
    assert not result.tuned and not result.fallback
    assert result.chosen.weights == (0.5, 0.5) and result.chosen.threshold == {"spans": 0.5}


def test_thresholds_are_tried_nearest_one_half_first():
    assert tuning.THRESHOLDS[:5] == (0.5, 0.55, 0.45, 0.6, 0.4)
    assert sorted(tuning.THRESHOLDS) == [round(0.05 * k, 2) for k in range(1, 15)]


def test_thresholds_that_keep_the_same_agreements_are_scored_once():
    # Three equal weights: agreements are 0, 1/3, 2/3 or 1. Thresholds 0.35 to 0.65 all keep 2/3 and 1 (the same
    # consensus), 0.05 to 0.3 keep 1/3 too, 0.7 keeps 1 only: 3 distinct outcomes of 14 thresholds per weighting.
    # With equal development figures every weighting is equal: tried once. So 3 evaluations, 14 candidates.
    calls = []

    def evaluate(setting):
        calls.append(setting.threshold["spans"])
        return 0.5

    result = tuning.tune("trees", [0.9, 0.9, 0.9], evaluate)
    assert sorted(calls) == [0.3, 0.5, 0.7]  # the first tried of each outcome, nearest one half first
    assert len(result.candidates) == 14 and all(c.figures == (0.5,) for c in result.candidates)
    # An EASY run without relations: relation agreements are out of the other runs' weight (1/2 each here),
    # so 0.35 (keeps 1/2) and 0.55 (does not) differ though they keep the same shares of all three runs.
    seen = []

    def easy_evaluate(setting):
        seen.append(setting.threshold["relations"])
        return (0.5, 0.5)

    tuning.tune("easy", [0.9, 0.9, 0.9], easy_evaluate, exponents=(0,), thresholds=(0.55, 0.35),
                voters={"relations": [True, True, False]})
    assert seen[:2] == [0.55, 0.35]


def test_the_consensus_page_shows_the_tuned_setting_and_every_candidate():
    from types import SimpleNamespace

    from django.template.loader import render_to_string
    from django.utils import translation

    runs = [{"run": 1, "name": "first", "development": 0.8}, {"run": 2, "name": "second", "development": 0.7}]
    record = {"weighting": "dev-F^2", "candidates": [
        {"weighting": "equal", "thresholds": {"spans": 0.5}, "figures": [0.75]},
        {"weighting": "dev-F^2", "thresholds": {"spans": 0.35}, "figures": [0.875]}]}
    current = SimpleNamespace(pk=9, name="Consensus of 2 runs", status="scored", get_status_display="scored",
                              combination={"tuned": True, "fallback": False, "fallback_run": None, "runs": runs,
                                           "weighting": "development", "development_figure": 0.875,
                                           "thresholds": {"spans": 0.35}, "tuning": record})
    context = {"campaign": SimpleNamespace(slug="c", name="C"), "can_combine": True, "current": current,
               "setting": SimpleNamespace(enabled=True, weighting="development"), "teams": [], "chosen": set(),
               "weightings": []}
    with translation.override("en"):
        page = render_to_string("results/consensus.html", context)
    assert "Weights and thresholds tuned on the development sample: dev-F^2 weights, development figure 87.5" in page
    assert "spans &gt; 0.35" in page and "2 settings tried on the development sample" in page
    assert page.count("<tr") >= 5 and 'id="fallback"' not in page  # two candidates and two runs, a header
    with translation.override("fr"):
        page = render_to_string("results/consensus.html", context)
    assert "Poids et seuils réglés sur l'échantillon de développement" in page and "87,5" in page
