"""Head rules and constituency-to-dependency conversion, checked by hand."""
from __future__ import annotations

import pytest

from parseval.annotations.conllu import parse_conllu
from parseval.annotations.errors import InputError
from parseval.annotations.trees.headrules import load_head_rules, parse_head_rules, split_label
from parseval.annotations.trees.penn import parse_penn
from parseval.annotations.trees.transforms import apply_transforms
from evaluation.__main__ import main
from parseval.evaluation.deps.convert import remove_null_elements, tree_to_dependencies, trees_to_dependencies
from parseval.evaluation.deps.metrics import score_dependencies
from tests.conftest import sequoia_trees


def heads(text, rules="penn", **kw):
    [tree] = parse_penn(text)
    s = tree_to_dependencies(tree, rules, **kw)
    return [(w.form, w.head, w.deprel) for w in s.words]


def test_simple_clause():
    # NP: rightmost noun-like child -> cat; PP: IN from the right -> on;
    # VP: first of TO VBD... -> sat; S: first of TO IN VP -> the VP, so sat is the root
    assert heads("(S (NP-SBJ (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))) (. .))") == [
        ("The", 2, "DT"), ("cat", 3, "NP"), ("sat", 0, "ROOT"), ("on", 3, "PP"),
        ("the", 6, "DT"), ("mat", 4, "NP"), (".", 3, "."),
    ]


def test_collins_np_rule_possessive_and_modal():
    # inner NP ends in POS -> 's heads it; outer NP: rightmost NN -> dog
    assert heads("(NP (NP (NNP John) (POS 's)) (NN dog))") == [
        ("John", 2, "NNP"), ("'s", 3, "NP"), ("dog", 0, "ROOT")]
    # VP: MD comes before VB in the VP priority list, so the modal heads "will join"
    assert heads("(S (NP (PRP He)) (VP (MD will) (VP (VB join))))") == [
        ("He", 2, "NP"), ("will", 0, "ROOT"), ("join", 2, "VP")]


def test_null_elements_are_removed_first():
    tree = "(S (NP-SBJ (-NONE- *-1)) (VP (TO to) (VP (VB go) (NP (-NONE- *T*-2)))))"
    # the empty subject and object vanish; VP: TO first -> "to" heads "go"
    assert heads(tree) == [("to", 0, "ROOT"), ("go", 1, "VP")]
    [t] = parse_penn(tree)
    assert remove_null_elements(t).to_penn() == "(S (VP (TO to) (VP (VB go))))"
    assert "-NONE-" in t.to_penn()  # input untouched


def test_head_function_marks_the_head_tiger_style():
    tiger = "(S (NP-SB (ART Der) (NN-HD Hund)) (VVFIN-HD bellt))"
    # @function HD: the child carrying HD is the head, whatever the table says
    assert heads(tiger, head_functions=["HD"]) == [
        ("Der", 2, "ART"), ("Hund", 3, "NP"), ("bellt", 0, "ROOT")]
    # without it the Penn table's S rule (TO IN VP S SBAR ADJP UCP NP) finds only NP, so the
    # NP heads the clause; the NP rule picks its rightmost noun (NN-HD, matched as NN)
    assert heads(tiger) == [("Der", 2, "ART"), ("Hund", 0, "ROOT"), ("bellt", 2, "VVFIN")]


def test_loadable_table_and_its_errors(tmp_path):
    f = tmp_path / "mini.headrules"
    f.write_text("# a tiny table\n@function HD\nS right V\nNP rightdis N ; left NP\n* right\n")
    rules = load_head_rules(str(f))
    assert rules.head_functions == {"HD"}
    assert rules.passes("NP-SB") == [("rightdis", ["N"]), ("left", ["NP"])]
    # S right V: the last V; NP: rightmost N
    assert heads("(S (NP (D a) (N b)) (V c) (V d))", rules) == [
        ("a", 2, "D"), ("b", 4, "NP"), ("c", 4, "V"), ("d", 0, "ROOT")]
    with pytest.raises(InputError) as exc:
        parse_head_rules("S left VP\nNP sideways NN\n", file="bad.headrules")
    [p] = exc.value.problems
    assert (p.file, p.line) == ("bad.headrules", 2) and "unknown direction" in p.message
    with pytest.raises(InputError, match="neither a built-in table"):
        load_head_rules("no-such-table")


def test_split_label():
    assert split_label("NP-SBJ-1") == ("NP", ["SBJ"])
    assert split_label("PP=2") == ("PP", [])
    assert split_label("-NONE-") == ("-NONE-", [])
    assert split_label("-LRB-") == ("-LRB-", [])


def test_conversion_with_and_without_function_tags_agrees_on_a_treebank():
    # the paper's reliability check; with the Penn table no rule looks at function tags,
    # so both conversions must agree completely (Sequoia trees carry function tags: NP-SUJ, PP-MOD)
    trees = parse_penn(sequoia_trees("europar", 250))
    a = trees_to_dependencies(trees)
    b = trees_to_dependencies(apply_transforms(trees, "strip-functions"))
    r = score_dependencies(a, b, punct="penn", pos="xpos")["totals"]
    assert r["words"] > 5000
    assert r["f"] == 1.0 and r["las"] == 1.0
    # every sentence is a tree: one root, no cycle (re-reading the CoNLL-U checks it)
    from parseval.annotations.conllu import write_conllu
    again = parse_conllu(write_conllu(a))
    assert len(again) == len(trees)
    assert all(sum(w.head == 0 for w in s.words) == 1 for s in again)


def test_convert_cli(tmp_path, capsys):
    out = tmp_path / "o.conllu"
    trees = tmp_path / "two.mrg"
    trees.write_text("( (S (NP-SBJ (NNP Pierre) (NNP Vinken)) (VP (MD will) (VP (VB join) (NP (DT the) (NN board))))"
                     " (. .)) )\n( (S (NP-SBJ (PRP It)) (VP (VBD rained)) (. .)) )\n")
    assert main(["convert", "--to", "conllu", "--head-rules", "penn", "-o", str(out), str(trees)]) == 0
    sents = parse_conllu(out.read_text())
    assert len(sents) == 2
    # Pierre Vinken will join: Collins' VP rule takes the modal first, so "will" (MD) is the root
    assert [w.form for w in sents[0].words if w.head == 0] == ["will"]
    bad = tmp_path / "bad.mrg"
    bad.write_text("(S (NP (DT a)\n")
    assert main(["convert", str(bad)]) == 2
    assert "bad.mrg" in capsys.readouterr().err
    assert main(["convert", "--head-rules", str(tmp_path / "missing"), str(bad)]) == 2


def test_conversion_reliability_drops_when_heads_come_from_function_labels(tmp_path, capsys):
    from parseval.evaluation.deps.convert import conversion_reliability

    tiger = parse_penn("(S (NP-SB (ART Der) (NN-HD Hund)) (VVFIN-HD bellt))")
    doc = conversion_reliability(tiger, "penn", head_functions=["HD"])
    # with HD: Der->Hund, Hund->bellt, bellt root; stripped (Penn S rule picks the NP):
    # Der->Hund, Hund root, bellt->Hund. Only Der's triple survives: 1/3.
    t = doc["totals"]
    assert (t["matched"], t["gold"]) == (1, 3)
    assert t["uas"] == pytest.approx(1 / 3)
    assert doc["signature"].startswith("metric:conversion-reliability|head_rules:penn|head_functions:HD|")
    f = tmp_path / "t.mrg"
    f.write_text("(S (NP-SB (ART Der) (NN-HD Hund)) (VVFIN-HD bellt))\n")
    out = tmp_path / "rel.json"
    assert main(["convert", "--reliability", "--head-function", "HD", "--json", str(out), str(f)]) == 0
    assert "UAS  33.33" in capsys.readouterr().out
    import json
    assert json.loads(out.read_text())["totals"]["matched"] == 1


# -- French Treebank trees (Sequoia) ----------------------------------------------------------------
SEQUOIA_2 = ("(SENT (NP-SUJ (DET Cette) (NC exposition)) (VN (CLO-A_OBJ nous) (V apprend)) "
             "(Ssub-OBJ (CS que) (NP-SUJ (DET une) (NC industrie) (AP (ADJ métallurgique))) (VN (V existait))) "
             "(PONCT .))")


def test_french_treebank_rules_on_a_sequoia_sentence():
    """The ftb table (Candito et al. 2010 after Arun & Keller 2005), by hand on Sequoia's second tree,
    shortened: SENT: first VN from the left -> (VN nous apprend); VN: rightmost V -> apprend, the root.
    NP: first NC from the left -> exposition, which the DET depends on; the NP attaches to apprend.
    Ssub: its VN (not the complementiser) -> existait, on which que depends; AP: ADJ -> métallurgique,
    on industrie. UPOS through the table's @upos lines; XPOS keeps the French Treebank tag."""
    [tree] = parse_penn(SEQUOIA_2)
    sent = tree_to_dependencies(tree, "ftb")
    assert [(w.form, w.head, w.deprel) for w in sent.words] == [
        ("Cette", 2, "DET"), ("exposition", 4, "NP"), ("nous", 4, "CLO"), ("apprend", 0, "ROOT"),
        ("que", 9, "CS"), ("une", 7, "DET"), ("industrie", 9, "NP"), ("métallurgique", 7, "AP"),
        ("existait", 4, "Ssub"), (".", 4, "PONCT"),
    ]
    assert [(w.upos, w.xpos) for w in sent.words[:4]] == [
        ("DET", "DET"), ("NOUN", "NC"), ("PRON", "CLO"), ("VERB", "V")]
    # with Collins's table, SENT has no rule and the fallback takes its first child: the NP's head
    # "exposition" (Collins's NP rule knows no NC: its last child) heads the sentence, "nous" heads VN
    penn = tree_to_dependencies(tree, "penn")
    assert [w.form for w in penn.words if w.head == 0] == ["exposition"]
    assert penn.words[1].upos == "NC"  # no @upos in Collins's table: the tag itself


def test_a_table_for_another_tag_set_is_refused_with_the_place(tmp_path, capsys):
    """Collins's table on Sequoia: of the branching nodes of these two trees (tree 1 has none),
    none finds its head by a rule (SENT, VN, Ssub have no entry; NP's rule knows no DET or NC;
    PP's no P), so the conversion is refused, naming file, line and tree, and the table to try.
    The French table on Penn Treebank trees is refused the same way; each on its own trees converts, and
    is the table chosen when none is given."""
    trees = tmp_path / "sequoia.mrg"
    trees.write_text("( (SENT (NP (NPP Gutenberg))))\n( " + SEQUOIA_2 + ")\n", encoding="utf-8")
    assert main(["convert", "--to", "conllu", "--head-rules", "penn", str(trees)]) == 2
    err = capsys.readouterr().err
    assert f"{trees}, line 2, sentence 2: head rules 'penn' do not fit these trees: only 0 of 5 branching nodes" in err
    assert "try ftb" in err
    assert main(["convert", "--to", "conllu", "--head-rules", "ftb", str(trees)]) == 0
    assert "4\tapprend\t_\tVERB\tV\t_\t0\tROOT" in capsys.readouterr().out
    # without --head-rules the table that fits is taken, and the output says which
    assert main(["convert", "--to", "conllu", str(trees)]) == 0
    out = capsys.readouterr().out
    assert "4\tapprend\t_\tVERB\tV\t_\t0\tROOT" in out and "# head_rules = ftb" in out
    wsj = tmp_path / "english.mrg"  # Penn Treebank style (written here: the PTB sample is not shipped)
    wsj.write_text("( (S (NP-SBJ (NNP Pierre) (NNP Vinken)) (VP (MD will) (VP (VB join) (NP (DT the) (NN board))))"
                   " (. .)) )\n( (S (NP-SBJ (PRP It)) (VP (VBD rained) (PP (IN on) (NP (NNP Monday)))) (. .)) )\n")
    assert main(["convert", "--to", "conllu", "--head-rules", "ftb", str(wsj)]) == 2
    assert "head rules 'ftb' do not fit these trees" in capsys.readouterr().err
    assert main(["convert", "--to", "conllu", str(wsj)]) == 0
    assert "# head_rules = penn" in capsys.readouterr().out


def test_star_category_and_upos_directive(tmp_path):
    """'*' in a pass takes any child (the table's own fallback, not a rule about labels); '@upos' maps
    tags, an unmapped tag becomes X; a malformed '@upos' line is refused with its line."""
    rules = parse_head_rules("X right * \n@upos A NOUN\n")
    [tree] = parse_penn("(X (A a) (B b))")
    sent = tree_to_dependencies(tree, rules)
    assert [(w.form, w.head, w.upos, w.xpos) for w in sent.words] == [("a", 2, "NOUN", "A"), ("b", 0, "X", "B")]
    assert not rules.by_rule(tree)
    with pytest.raises(InputError) as err:
        parse_head_rules("X left A\n@upos A\n", file="t.rules")
    assert err.value.problems[0].line == 2 and "@upos takes a tag and a UPOS" in err.value.problems[0].message
