"""``python -m evaluation ud2easy``: the round trip (converted runs validate and score) and bad input (exit 2)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from parseval.annotations.easy.model import Document
from parseval.annotations.easy.reader import read_document
from parseval.annotations.easy.validate import validate_run
from parseval.annotations.easy.writer import write_document
from evaluation.__main__ import main

from .conftest import conllu
from .test_mapping import CASES

REPO = __import__("pathlib").Path(__file__).resolve().parents[2]


@pytest.fixture
def mini(shared_data, tmp_path):
    """A two-sentence gold document made of guide sentences (Guide.1 E5, Guide.5 E9) and their parses."""
    sentences = []
    parses = []
    for name in ("filles", "trouvé"):
        file, sid, rows, _, _ = CASES[name]
        gold = read_document(shared_data / "easy-guide" / "ref" / file)
        sentences += [s for s in gold.sentences if s.id == sid]
        parses.append(conllu(sid, rows))
    gold_dir = tmp_path / "gold"
    gold_dir.mkdir()
    write_document(Document(name="mini.xml", sentences=sentences), gold_dir / "mini.xml")
    parse_dir = tmp_path / "parses"
    parse_dir.mkdir()
    (parse_dir / "mini.conllu").write_text("".join(parses), encoding="utf-8")
    return gold_dir, parse_dir, tmp_path / "run"


def test_round_trip_validates_and_scores(mini, tmp_path, capsys):
    gold_dir, parse_dir, out = mini
    assert main(["ud2easy", "--corpus", str(gold_dir), "--conllu", str(parse_dir), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    # 4 + 4 groups; 6 + 4 relations (see test_mapping)
    assert "mini.xml: 2 sentences, 8 groups, 10 relations" in printed
    run = out / "mini.xml"
    assert validate_run(run, gold_dir / "mini.xml") == []
    res = tmp_path / "res.json"
    assert main(["easy", "--gold", str(gold_dir), "--run", str(out), "--bootstrap", "0", "--json", str(res)]) == 0
    cells = json.loads(res.read_text(encoding="utf-8"))["cells"]
    pooled = {(c["layer"], c["mode"], c["match"]): c for c in cells if c["genre"] == "ALL" and c["type"] == "ALL"}
    # these parses give exactly the guide's annotation: F = 1 in every way
    assert all(c["f"] == 1.0 for c in pooled.values()) and len(pooled) == 5 + 15


def test_a_corpus_of_forms_only_works_too(mini, tmp_path):
    gold_dir, parse_dir, out = mini
    gold = read_document(gold_dir / "mini.xml")
    for s in gold.sentences:
        s.groups, s.relations = [], []
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    write_document(gold, corpus / "mini.xml")
    assert main(["ud2easy", "--corpus", str(corpus / "mini.xml"), "--conllu", str(parse_dir / "mini.conllu"),
                 "--out", str(out)]) == 0
    run = read_document(out / "mini.xml", gold=False)
    assert [len(s.groups) for s in run.sentences] == [4, 4]


def test_other_tokenisations_are_aligned_by_characters(tmp_path):
    """A multiword token (du = de + le) and a form the parser split (ne pas -> ne, pas)."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    words = ["Il", "arrive", "avant", "le", "début", "du", "cours", "sans", "ne pas", "dormir", "."]
    from .conftest import corpus_sentence
    write_document(Document(name="doc.xml", sentences=[corpus_sentence("E1", words)]), corpus / "doc.xml")
    parses = tmp_path / "parses"
    parses.mkdir()
    text = conllu("E1", """
        1 Il PRON 2 nsubj
        2 arrive VERB 0 root
        3 avant ADP 5 case
        4 le DET 5 det
        5 début NOUN 2 obl:mod
        6 de ADP 8 case
        7 le DET 8 det
        8 cours NOUN 5 nmod
        9 sans ADP 12 mark
        10 ne ADV 12 advmod
        11 pas ADV 12 advmod
        12 dormir VERB 2 advcl VerbForm=Inf
        13 . PUNCT 2 punct
        """)
    lines = text.splitlines()
    lines.insert(6, "6-7\tdu\t_\t_\t_\t_\t_\t_\t_\t_")  # after the comment and words 1-5
    (parses / "doc.conllu").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "run"
    assert main(["ud2easy", "--corpus", str(corpus), "--conllu", str(parses), "--out", str(out)]) == 0
    assert validate_run(out / "doc.xml", corpus / "doc.xml") == []
    (s,) = read_document(out / "doc.xml", gold=False).sentences
    groups = [(g.type, " ".join(s.words[g.start:g.end])) for g in s.groups]
    # words de + le share the form "du": the GP takes it; the PV runs from "sans" over the split form
    assert groups == [("NV", "Il arrive"), ("GP", "avant le début"), ("GP", "du cours"),
                      ("PV", "sans ne pas dormir")]
    rel = {(r.type, tuple(r.args.values())) for r in s.relations}
    # MOD-N from "cours" (word 8) points at the form of its token, E1F7; the advcl introduced by a
    # preposition (a PV) is CPL-V to "arrive"; "ne pas" (two words, one form E1F9) modifies "dormir"
    assert ("MOD-N", ("E1F7", "E1F5")) in rel and ("CPL-V", ("E1F10", "E1F2")) in rel
    assert ("MOD-V", ("E1F9", "E1F10")) in rel


def _run(args, capsys) -> tuple[int, str]:
    code = main(["ud2easy", *args])
    return code, capsys.readouterr().err


# mini.conllu: line 1 "# sent_id = E5", lines 2-11 its 10 words, line 12 blank, line 13 "# sent_id = E9",
# lines 14-20 its 7 words ("étrange" is word 6: line 19). A sentence is located at its first word's line.
@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace("# sent_id = E9\n", ""), "mini.conllu, line 13, sentence 2: sentence has no '# sent_id"),
    (lambda t: t.replace("sent_id = E9", "sent_id = E99"),
     "mini.conllu, line 14, sentence E99: sent_id E99 is not a sentence of corpus document mini.xml"),
    (lambda t: t.replace("sent_id = E9", "sent_id = E5"), "sent_id E5 given twice (first at line 2)"),
    (lambda t: t.replace("\tétrange\t", "\tétranges\t"),
     "mini.conllu, line 14, sentence E9: the parse's tokens are not the corpus forms' text"),
    (lambda t: t.replace("6\tétrange\t_\tADJ\t_\t_\t3\txcomp\t_\t_", "6\tétrange\tADJ\t3\txcomp"),
     "mini.conllu, line 19, sentence E9: expected 10 tab-separated columns, found 5"),
    (lambda t: t.split("\n\n")[0] + "\n\n", "1 sentence(s) of corpus document mini.xml have no parse: E9"),
])
def test_bad_parses_exit_2_with_place_and_write_nothing(mini, capsys, edit, message):
    gold_dir, parse_dir, out = mini
    f = parse_dir / "mini.conllu"
    f.write_text(edit(f.read_text(encoding="utf-8")), encoding="utf-8")
    code, err = _run(["--corpus", str(gold_dir), "--conllu", str(parse_dir), "--out", str(out)], capsys)
    assert code == 2
    assert message in err, err
    assert not out.exists()


def test_missing_parse_file_and_bad_corpus_exit_2(mini, tmp_path, capsys):
    gold_dir, parse_dir, out = mini
    (parse_dir / "mini.conllu").rename(parse_dir / "other.conllu")
    code, err = _run(["--corpus", str(gold_dir), "--conllu", str(parse_dir), "--out", str(out)], capsys)
    assert code == 2 and "no parse for corpus document mini.xml: expected mini.conllu" in err
    (parse_dir / "other.conllu").rename(parse_dir / "mini.conllu")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "mini.xml").write_text('<DOCUMENT><E id="E1"><F id="E1F1">a</F><F id="E1F1">b</F></E></DOCUMENT>')
    code, err = _run(["--corpus", str(bad), "--conllu", str(parse_dir), "--out", str(out)], capsys)
    assert code == 2 and "mini.xml" in err and "sentence E1" in err and "E1F1" in err, err


def test_command_line_process_no_traceback(mini):
    gold_dir, parse_dir, out = mini
    (parse_dir / "mini.conllu").write_text("1\tx\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "evaluation", "ud2easy", "--corpus", str(gold_dir),
                           "--conllu", str(parse_dir), "--out", str(out)], cwd=REPO, capture_output=True,
                          text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "line 1" in proc.stderr


def test_an_underscore_stands_for_a_space_inside_a_form(tmp_path, capsys):
    """The corpus writes "par ailleurs" (a space) and "afin_de" (an underscore); a parser writes the first
    as one token par_ailleurs and cuts the second in two: both are the corpus text, and the converted
    groups cover the right forms. A real difference (par_ailleur) is still refused, with its place."""
    from .conftest import corpus_sentence

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    words = ["Il", "part", "par ailleurs", "afin_de", "dormir", "."]
    write_document(Document(name="doc.xml", sentences=[corpus_sentence("E1", words)]), corpus / "doc.xml")
    parses = tmp_path / "parses"
    parses.mkdir()
    text = conllu("E1", """
        1 Il PRON 2 nsubj
        2 part VERB 0 root
        3 par_ailleurs ADV 2 advmod
        4 afin ADP 6 mark
        5 de ADP 4 fixed
        6 dormir VERB 2 advcl VerbForm=Inf
        7 . PUNCT 2 punct
        """)
    (parses / "doc.conllu").write_text(text, encoding="utf-8")
    out = tmp_path / "run"
    assert main(["ud2easy", "--corpus", str(corpus), "--conllu", str(parses), "--out", str(out)]) == 0
    (s,) = read_document(out / "doc.xml", gold=False).sentences
    groups = [(g.type, " ".join(s.words[g.start:g.end])) for g in s.groups]
    assert groups[:2] == [("NV", "Il part"), ("GR", "par ailleurs")] and groups[-1][1].endswith("dormir")
    # the adverb's relation points at the corpus form "par ailleurs" (E1F3)
    assert ("MOD-V", ("E1F3", "E1F2")) in {(r.type, tuple(r.args.values())) for r in s.relations}
    (parses / "doc.conllu").write_text(text.replace("par_ailleurs", "par_ailleur"), encoding="utf-8")
    code, err = _run(["--corpus", str(corpus), "--conllu", str(parses), "--out", str(tmp_path / "run2")], capsys)
    assert code == 2 and "doc.conllu, line 2, sentence E1: the parse's tokens are not the corpus forms' text" in err
