"""UD -> phrase structure (parseval.evaluation.deps.ud2tree) on hand-built sentences."""
from __future__ import annotations

from parseval.annotations.conllu import parse_conllu
from parseval.evaluation.deps.ud2tree import ftb_tag, projective_heads, ud_to_tree


def sent(rows: str):
    """Rows 'FORM UPOS HEAD DEPREL [FEATS]' -> one CoNLL-U sentence."""
    lines = []
    for k, row in enumerate(rows.strip().splitlines(), 1):
        form, upos, head, deprel, *feats = row.split()
        lines.append("\t".join([str(k), form, "_", upos, "_", feats[0] if feats else "_", head, deprel, "_", "_"]))
    return parse_conllu("\n".join(lines) + "\n\n", check_cycles=False)[0]


def test_each_head_projects_a_phrase_over_itself_and_its_dependents():
    s = sent("""
        Le DET 2 det
        chat NOUN 3 nsubj
        dort VERB 0 root VerbForm=Fin
        . PUNCT 3 punct
    """)
    assert ud_to_tree(s).to_penn() == "(SENT (NP (DET Le) (NC chat)) (VN (V dort)) (PONCT .))"


def test_case_wraps_a_pp_cc_a_coord_and_the_nucleus_takes_clitics_ne_and_auxiliaries():
    s = sent("""
        Il PRON 4 nsubj
        ne ADV 4 advmod Polarity=Neg
        a AUX 4 aux:tense VerbForm=Fin
        parlé VERB 0 root VerbForm=Part|Tense=Past
        à ADP 6 case
        Paul PROPN 4 obl:arg
        et CCONJ 9 cc
        à ADP 9 case
        Marie PROPN 6 conj
    """)
    assert ud_to_tree(s).to_penn() == (
        "(SENT (VN (CLS Il) (ADV ne) (V a) (VPP parlé)) "
        "(PP (P à) (NP (NPP Paul) (COORD (CC et) (PP (P à) (NP (NPP Marie)))))))")


def test_clause_labels_from_marks_relatives_and_verb_forms():
    s = sent("""
        Je PRON 2 nsubj
        dis VERB 0 root VerbForm=Fin
        que SCONJ 5 mark
        Paul PROPN 5 nsubj
        part VERB 2 ccomp VerbForm=Fin
        pour ADP 7 mark
        dormir VERB 5 advcl VerbForm=Inf
    """)
    assert ud_to_tree(s).to_penn() == (
        "(SENT (VN (CLS Je) (V dis)) (Ssub (CS que) (NP (NPP Paul)) (VN (V part)) "
        "(PP (P pour) (VPinf (VN (VINF dormir))))))")
    rel = sent("""
        livre NOUN 0 root
        qui PRON 3 nsubj PronType=Rel
        plaît VERB 1 acl:relcl VerbForm=Fin
    """)
    # a non-verbal root: SENT over its NP; the relative clause's pronoun is an NP
    assert ud_to_tree(rel).to_penn() == "(SENT (NP (NC livre) (Srel (NP (PROREL qui)) (VN (V plaît)))))"


def test_a_copular_predicate_heads_a_clause_with_the_copula_in_vn():
    s = sent("""
        Paul PROPN 3 nsubj
        est AUX 3 cop VerbForm=Fin
        grand ADJ 0 root
        . PUNCT 3 punct
    """)
    assert ud_to_tree(s).to_penn() == "(SENT (NP (NPP Paul)) (VN (V est)) (AP (ADJ grand)) (PONCT .))"


def test_label_table_adjective_and_adverb_phrases_only_with_dependents():
    s = sent("""
        très ADV 2 advmod
        rouge ADJ 4 amod
        vite ADV 4 advmod
        tombe VERB 0 root VerbForm=Fin
        vraiment ADV 6 advmod
        vite ADV 4 advmod
    """)
    assert ud_to_tree(s).to_penn() == (
        "(SENT (AP (ADV très) (ADJ rouge)) (ADV vite) (VN (V tombe)) (AdP (ADV vraiment) (ADV vite)))")


def test_final_punctuation_of_a_non_verbal_root_hangs_from_sent():
    s = sent("""
        Gutenberg PROPN 0 root
        . PUNCT 1 punct
    """)
    assert ud_to_tree(s).to_penn() == "(SENT (NP (NPP Gutenberg)) (PONCT .))"


def test_non_projective_arcs_are_lifted_until_every_phrase_is_contiguous():
    # 1 <- 3 (root 2): arc 3 -> 1 crosses 2, which is not under 3.
    assert projective_heads([3, 0, 2]) == [2, 0, 2]
    # "A B C D": D hangs from B across C, C from A: D is lifted to A, the first head that covers C.
    assert projective_heads([0, 1, 1, 2]) == [0, 1, 1, 1]
    s = sent("""
        Une DET 2 det
        femme NOUN 3 nsubj
        arrive VERB 0 root VerbForm=Fin
        qui PRON 5 nsubj PronType=Rel
        chante VERB 2 acl:relcl VerbForm=Fin
    """)
    tree = ud_to_tree(s)
    # the relative clause cannot stay in the subject NP (the verb lies between): lifted to the clause, still Srel
    assert tree.to_penn() == ("(SENT (NP (DET Une) (NC femme)) (VN (V arrive)) "
                              "(Srel (NP (PROREL qui)) (VN (V chante))))")
    assert tree.words() == ["Une", "femme", "arrive", "qui", "chante"]


def test_tags_from_upos_and_features():
    s = sent("""
        du ADP 2 case Definite=Def
        pain NOUN 3 obl
        mangeant VERB 0 root VerbForm=Part|Tense=Pres
        la PRON 5 obj
        voir VERB 3 xcomp VerbForm=Inf
    """)
    assert [ftb_tag(w) for w in s.words] == ["P+D", "NC", "VPR", "CLO", "VINF"]


def test_unattached_words_and_cycles_hang_from_the_root():
    text = "1\ta\t_\tNOUN\t_\t_\t2\tnmod\t_\t_\n2\tb\t_\tNOUN\t_\t_\t1\tnmod\t_\t_\n3\tc\t_\tNOUN\t_\t_\t_\t_\t_\t_\n\n"
    s = parse_conllu(text, check_cycles=False)[0]
    tree = ud_to_tree(s)
    assert tree.label == "SENT" and tree.words() == ["a", "b", "c"]


def test_every_word_stays_when_a_wrapper_or_a_copula_cannot_be_used():
    # "et" (cc) and "à" (case) of "Marie", with "Paul" between them: no COORD can be drawn; the PP could,
    # but once a wrapper fails, the markers all stay flat in the head's phrase (no word may be lost)
    s = sent("""
        et CCONJ 4 cc
        Paul PROPN 4 nmod
        à ADP 4 case
        Marie PROPN 5 conj
        vient VERB 0 root VerbForm=Fin
    """)
    assert ud_to_tree(s).to_penn() == (
        "(SENT (NP (CC et) (NP (NPP Paul)) (P à) (NPP Marie)) (VN (V vient)))")
    # a copula with a dependent of its own is an ordinary dependent (its words stay in its phrase)
    s = sent("""
        Ils PRON 4 nsubj
        sont AUX 4 cop VerbForm=Fin
        : PUNCT 2 punct
        prêts ADJ 0 root
    """)
    tree = ud_to_tree(s)
    assert tree.words() == ["Ils", "sont", ":", "prêts"]
    assert tree.to_penn() == "(SENT (AP (NP (CLS Ils)) (Sint (VN (V sont)) (PONCT :)) (ADJ prêts)))"
