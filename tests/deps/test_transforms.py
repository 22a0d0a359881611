"""Named treebank transformations, alone and chained, on the constituency spec's examples."""
from __future__ import annotations

import pytest

from parseval.annotations.errors import InputError
from parseval.annotations.trees.penn import parse_penn
from parseval.annotations.trees.transforms import apply_transforms, canonical_spec, make_transform, parse_spec
from evaluation.__main__ import main

# the flattening worked example of the constituency spec (section 3)
PENN = ("(S (NP-SBJ (DT The) (JJ monthly) (NNS sales)) (VP (VBP have) (VP (VBN been) (VP (VBG setting)"
        " (NP (NNS records)) (NP-TMP (NP (DT every) (NN month)) (PP (IN since) (NP (NNP March))))))) (. .))")
FLAT = ("(S (NP (DT The) (JJ monthly) (NNS sales)) (VP (VBP have) (VBN been) (VBG setting) (NNS records)"
        " (NP (DT every) (NN month) (PP (IN since) (NNP March)))) (. .))")
RULES = "(VP VBN VP^);(VP VBP VP^);(NP NP^ PP)"


def trees(text):
    return parse_penn(text)


def run(text, spec):
    return " ".join(t.to_penn() for t in apply_transforms(trees(text), spec))


def test_flattening_worked_example():
    assert run(PENN, f"flatten:{RULES}") == FLAT


def test_flattening_rules_from_a_file(tmp_path):
    f = tmp_path / "flat.rules"
    f.write_text(RULES.replace(";", "\n") + "\n")
    assert run(PENN, f"flatten:{f}") == FLAT


def test_chain_equals_flattening_by_hand_steps():
    # strip-functions then remove-unary: NP-SBJ -> NP, (NP (NNS records)) -> (NNS records),
    # (NP (NNP March)) -> (NNP March); the VP chain stays
    assert run(PENN, "strip-functions,remove-unary") == (
        "(S (NP (DT The) (JJ monthly) (NNS sales)) (VP (VBP have) (VP (VBN been) (VP (VBG setting)"
        " (NNS records) (NP (NP (DT every) (NN month)) (PP (IN since) (NNP March)))))) (. .))")
    # removing the VP label as well (keeping the root) gives the flat key's VP-less body;
    # order matters: remove-labels:VP promotes every VP's children into S
    assert run(PENN, "strip-functions,remove-unary,remove-labels:VP") == (
        "(S (NP (DT The) (JJ monthly) (NNS sales)) (VBP have) (VBN been) (VBG setting) (NNS records)"
        " (NP (NP (DT every) (NN month)) (PP (IN since) (NNP March))) (. .))")


def test_no_np_in_pp_and_function_tags():
    assert run(PENN, "no-np-in-pp") == PENN.replace("(PP (IN since) (NP (NNP March)))", "(PP (IN since) (NNP March))")
    assert run("(S (PP-LOC (IN in) (NP (NN town))) (VP (VBD slept)))", "no-np-in-pp") == (
        "(S (PP-LOC (IN in) (NN town)) (VP (VBD slept)))")  # function tag on the PP does not hide it
    assert run("(PX (APPR mit) (NX (NN Hut)))", "no-np-in-pp:PX+NX") == "(PX (APPR mit) (NN Hut))"


def test_topological_fields_and_virtual_root():
    tueba = ("(VROOT (SIMPX (VF (NX (PPER Er))) (LK (VXFIN (VVFIN sah))) (MF (NX (ART den) (NN Mann)))"
             " (NF (PX (APPR mit) (NX (NN Hut))))))")
    assert run(tueba, "remove-root,remove-labels:VF+MF+NF+LK") == (
        "(SIMPX (NX (PPER Er)) (VXFIN (VVFIN sah)) (NX (ART den) (NN Mann)) (PX (APPR mit) (NX (NN Hut))))")
    # the spec of the brief, all three together: remove-unary already collapses every unary
    # field (VF over NX over PPER -> PPER; LK over VXFIN over VVFIN -> VVFIN; MF -> its NX;
    # NF -> its PX; the NX under PX -> NN), so remove-labels finds nothing left; the root stays
    assert run(tueba, "strip-functions,remove-unary,remove-labels:VF+MF+NF") == (
        "(VROOT (SIMPX (PPER Er) (VVFIN sah) (NX (ART den) (NN Mann)) (PX (APPR mit) (NN Hut))))")
    # a virtual root with several children is kept; the root of a tree is never removed by remove-labels
    assert run("(VROOT (S (NN a)) ($. .))", "remove-root") == "(VROOT (S (NN a)) ($. .))"
    assert run("(TOP (S (NP (NN a)) (VP (VBZ is))))", "remove-root") == "(S (NP (NN a)) (VP (VBZ is)))"
    assert run("(MF (NX (NN a)) (NX (NN b)))", "remove-labels:MF+NX") == "(MF (NN a) (NN b))"


def test_remove_null_elements():
    assert run("(S (NP-SBJ (-NONE- *-1)) (VP (TO to) (VP (VB go) (NP (-NONE- *T*)))))", "remove-null") == (
        "(S (VP (TO to) (VP (VB go))))")


def test_input_is_never_mutated():
    src = trees(PENN)
    before = src[0].to_penn()
    out = apply_transforms(src, f"strip-functions,remove-unary,no-np-in-pp,flatten:{RULES}")
    assert src[0].to_penn() == before
    assert out[0] is not src[0]


def test_spec_parsing():
    assert [n for n, _, _ in parse_spec("strip-functions, remove-unary ,remove-labels:VF+MF+NF")] == [
        "strip-functions", "remove-unary", "remove-labels"]
    assert canonical_spec(" strip-functions,remove-labels:VF+MF ") == "strip-functions,remove-labels:VF+MF"
    with pytest.raises(InputError, match="unknown transformation 'nope'"):
        parse_spec("strip-functions,nope")
    with pytest.raises(InputError, match="needs an argument"):
        parse_spec("remove-labels")
    with pytest.raises(InputError):
        parse_spec("flatten:(VP VBN")  # a malformed rule is reported by the rule interpreter
    assert parse_spec(None) == [] and make_transform("") is None
    fn = make_transform("strip-functions,remove-unary")
    [t] = trees("(S (NP-SBJ (PRP It)) (VP (VBZ works)))")
    assert fn(t).to_penn() == "(S (PRP It) (VBZ works))"


def test_transform_cli(tmp_path, capsys):
    f = tmp_path / "t.mrg"
    f.write_text(PENN + "\n")
    assert main(["transform", "--apply", f"flatten:{RULES}", str(f)]) == 0
    assert capsys.readouterr().out == FLAT + "\n"
    assert main(["transform", "--apply", "bogus", str(f)]) == 2
    assert "unknown transformation" in capsys.readouterr().err
    assert main(["transform", "--list"]) == 0
    assert "no-np-in-pp" in capsys.readouterr().out
