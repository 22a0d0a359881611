"""CoNLL-U reader and Lin-style dependency metrics, checked by hand."""
from __future__ import annotations

import json

import pytest

from parseval.annotations.conllu import parse_conllu, read_conllu, write_conllu
from parseval.annotations.errors import InputError
from evaluation.__main__ import main
from parseval.evaluation.deps.metrics import PunctRule, score_dependencies, score_files


def row(i, form, upos, head, rel, xpos="_"):
    return "\t".join([str(i), form, "_", upos, xpos, "_", str(head), rel, "_", "_"])


GOLD = "\n".join([
    "# sent_id = s1",
    row(1, "The", "DET", 2, "det"),
    row(2, "cat", "NOUN", 3, "nsubj"),
    row(3, "sat", "VERB", 0, "root"),
    row(4, ".", "PUNCT", 3, "punct"),
    "",
    "# sent_id = s2",
    row(1, "Dogs", "NOUN", 2, "nsubj"),
    row(2, "bark", "VERB", 0, "root"),
    row(3, "loudly", "ADV", 2, "advmod"),
    "",
])

TEST = "\n".join([
    "# sent_id = s1",
    row(1, "The", "DET", 2, "det"),        # right
    row(2, "cat", "NOUN", 3, "obj"),       # head right, label wrong
    row(3, "sat", "VERB", 0, "root"),      # right
    row(4, ".", "PUNCT", 2, "punct"),      # wrong head, but punctuation
    "",
    "# sent_id = s2",
    row(1, "Dogs", "NOUN", "_", "_"),      # left unattached: no triple
    row(2, "bark", "VERB", 0, "root"),     # right
    row(3, "loudly", "ADV", 1, "advmod"),  # wrong head, label right
    "",
])


@pytest.fixture
def scored():
    return score_dependencies(parse_conllu(GOLD, file="g"), parse_conllu(TEST, file="t"))


def test_lin_precision_differs_from_recall_when_words_unattached(scored):
    t = scored["totals"]
    # punctuation out: gold triples 3 + 3 = 6; test triples 3 + 2 (Dogs unattached) = 5
    # matched: The, cat, sat (labels are not in the triple) + bark = 4
    assert (t["gold"], t["test"], t["matched"]) == (6, 5, 4)
    assert t["precision"] == pytest.approx(0.8)           # 4/5
    assert t["recall"] == pytest.approx(4 / 6)             # 4/6 = 0.6667
    assert t["f"] == pytest.approx(2 * 0.8 * (4 / 6) / (0.8 + 4 / 6))  # 0.72727
    assert t["f"] == pytest.approx(0.727272, abs=1e-5)
    assert scored["unattached"] == {"gold": 0, "test": 1}


def test_attachment_scores(scored):
    t = scored["totals"]
    assert t["words"] == 6
    assert t["uas"] == pytest.approx(4 / 6)              # The, cat, sat, bark: 4/6
    assert t["las"] == pytest.approx(0.5)                # The, sat, bark: 3/6
    assert t["label_accuracy"] == pytest.approx(4 / 6)    # The, sat, bark, loudly: 4/6
    assert scored["excluded_punct"] == {"gold": 1, "test": 1}


def test_per_pos_and_per_label(scored):
    noun = scored["per_pos"]["NOUN"]
    # gold NOUN triples: cat, Dogs (2); test: cat only (1); matched cat
    assert (noun["gold"], noun["test"], noun["matched"]) == (2, 1, 1)
    assert noun["precision"] == 1.0 and noun["recall"] == 0.5
    assert noun["uas"] == 0.5 and noun["las"] == 0.0  # cat: head ok, label wrong
    adv = scored["per_pos"]["ADV"]
    assert (adv["gold"], adv["test"], adv["matched"], adv["uas"]) == (1, 1, 0, 0.0)
    assert "PUNCT" not in scored["per_pos"]
    lab = scored["per_label"]
    assert (lab["nsubj"]["gold"], lab["nsubj"]["test"], lab["nsubj"]["correct"]) == (2, 0, 0)
    assert (lab["obj"]["gold"], lab["obj"]["test"]) == (0, 1)
    assert (lab["root"]["gold"], lab["root"]["correct"], lab["root"]["f"]) == (2, 2, 1.0)
    assert (lab["advmod"]["gold"], lab["advmod"]["test"], lab["advmod"]["correct"]) == (1, 1, 0)


def test_punctuation_kept_when_asked():
    r = score_dependencies(parse_conllu(GOLD), parse_conllu(TEST), punct="none")["totals"]
    # the full stop adds gold (4,PUNCT,3) and test (4,PUNCT,2): 7 gold, 6 test, still 4 matched
    assert (r["gold"], r["test"], r["matched"]) == (7, 6, 4)
    assert r["precision"] == pytest.approx(4 / 6) and r["recall"] == pytest.approx(4 / 7)
    assert r["uas"] == pytest.approx(4 / 7)


def test_punctuation_by_tag_set():
    # exclude ADV by a tag set instead: loudly goes, the full stop stays
    r = score_dependencies(parse_conllu(GOLD), parse_conllu(TEST), punct="upos:ADV")["totals"]
    # gold: 4 + 2 = 6 triples; test: 4 + 1 = 5; matched The, cat, sat, bark = 4
    assert (r["gold"], r["test"], r["matched"]) == (6, 5, 4)
    assert PunctRule.parse("penn").tags == frozenset({",", ":", "``", "''", "."})
    with pytest.raises(InputError):
        PunctRule.parse("bogus")


def test_pos_is_part_of_the_triple():
    test = TEST.replace(row(1, "The", "DET", 2, "det"), row(1, "The", "PRON", 2, "det"))
    r = score_dependencies(parse_conllu(GOLD), parse_conllu(test))["totals"]
    assert r["matched"] == 3  # The's triple now differs by its tag
    assert r["uas"] == pytest.approx(4 / 6)  # attachment scores ignore the tag
    r = score_dependencies(parse_conllu(GOLD), parse_conllu(test), pos=None)["totals"]
    assert r["matched"] == 4


def test_multiword_tokens_and_empty_nodes_are_not_words():
    text = "\n".join([
        "1-2\tdu\t_\t_\t_\t_\t_\t_\t_\t_",
        row(1, "de", "ADP", 2, "case"),
        row(2, "le", "DET", 3, "det"),
        row(3, "pain", "NOUN", 0, "root"),
        "3.1\tmange\tmanger\tVERB\t_\t_\t_\t_\t0:root\t_",
        "",
    ])
    [s] = parse_conllu(text)
    assert [w.form for w in s.words] == ["de", "le", "pain"]
    assert write_conllu([s]) == text + "\n"
    r = score_dependencies([s], [s])["totals"]
    assert r["words"] == 3 and r["f"] == 1.0


def test_conllx_reads_by_position():
    text = "1\tIl\til\tCL\tCLS\t_\t2\tsuj\t_\t_\n2\tdort\tdormir\tV\tV\t_\t0\troot\t_\t_\n"
    [s] = parse_conllu(text)
    assert (s.words[0].upos, s.words[0].xpos, s.words[0].head) == ("CL", "CLS", 2)


@pytest.mark.parametrize("name", ["fr_sequoia-ud-dev", "fr_sequoia-ud-test", "fr_gsd-ud-test"])
def test_real_french_scores_100_against_itself(shared_data, name):
    sents = read_conllu(shared_data / "ud-french" / f"{name}.conllu")
    assert len(sents) > 400
    r = score_dependencies(sents, sents)
    t = r["totals"]
    assert t["words"] > 8000
    assert t["precision"] == t["recall"] == t["uas"] == t["las"] == 1.0
    assert r["mismatched_sentences"] == []
    # multiword tokens were read (Sequoia and GSD both have "du", "au"...) and are not words
    assert any(s.extra for s in sents)
    path = shared_data / "ud-french" / f"{name}.conllu"
    assert score_files(path, path)["totals"]["las"] == 1.0


def test_different_french_treebanks_cannot_be_paired(shared_data):
    d = shared_data / "ud-french"
    with pytest.raises(InputError, match="gold has 412 sentences, test has 456"):
        score_files(d / "fr_sequoia-ud-dev.conllu", d / "fr_sequoia-ud-test.conllu")


@pytest.mark.parametrize("bad, line, words", [
    (row(1, "a", "X", 0, "root") + "\n1\tb\t_\tX\t_\t_\t0\troot\t_\n", 2, "expected 10 tab-separated columns, found 9"),
    (row(1, "a", "X", 0, "root") + "\n" + row(2, "b", "X", "one", "dep") + "\n", 2, "HEAD 'one' of word 2 is not an integer"),
    (row(1, "a", "X", 0, "root") + "\n" + row(2, "b", "X", 7, "dep") + "\n", 2, "HEAD 7 of word 2 is out of range"),
    (row(1, "a", "X", 0, "root") + "\n" + row(3, "b", "X", 1, "dep") + "\n", 2, "word ID 3 out of sequence"),
    ("# sent_id = c\n" + row(1, "a", "X", 0, "root") + "\n" + row(2, "b", "X", 3, "dep") + "\n"
     + row(3, "c", "X", 2, "dep") + "\n", 3, "cycle in the dependencies: 2 -> 3 -> 2"),
])
def test_reader_errors_name_file_line_and_sentence(bad, line, words):
    text = row(1, "ok", "X", 0, "root") + "\n\n" + bad  # the bad sentence is the second one
    with pytest.raises(InputError) as exc:
        parse_conllu(text, file="bad.conllu")
    [p] = exc.value.problems
    assert p.file == "bad.conllu"
    assert p.line == line + 2  # two lines of the good sentence first
    assert words in p.message
    assert p.sentence in ("2", "c")


def test_byte_order_mark_and_crlf(tmp_path):
    f = tmp_path / "bom.conllu"
    f.write_bytes(("\ufeff" + GOLD.replace("\n", "\r\n")).encode("utf-8"))
    sents = read_conllu(f)
    assert [len(s) for s in sents] == [4, 3] and sents[0].sent_id == "s1"
    bad = tmp_path / "latin1.conllu"
    bad.write_bytes(row(1, "\xe9t\xe9", "NOUN", 0, "root").encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8"):
        read_conllu(bad)


def test_cycle_check_can_be_switched_off():
    text = row(1, "a", "X", 2, "dep") + "\n" + row(2, "b", "X", 1, "dep") + "\n"
    with pytest.raises(InputError):
        parse_conllu(text)
    [s] = parse_conllu(text, check_cycles=False)
    assert s.heads() == [2, 1]


def test_sentence_count_mismatch_is_an_input_error():
    with pytest.raises(InputError, match="gold has 2 sentences, test has 1"):
        score_dependencies(parse_conllu(GOLD), parse_conllu(GOLD)[:1])


def test_cli_json_and_exit_codes(tmp_path, capsys):
    g, t, out = tmp_path / "g.conllu", tmp_path / "t.conllu", tmp_path / "out.json"
    g.write_text(GOLD)
    t.write_text(TEST)
    assert main(["deps", "--gold", str(g), "--test", str(t), "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "UAS  66.67" in text and "LAS  50.00" in text
    doc = json.loads(out.read_text())
    assert doc["signature"].startswith("metric:deps-lin1998|")
    assert {"totals", "per_pos", "per_label", "excluded_punct", "unattached", "sentences"} <= doc.keys()
    assert doc["totals"]["precision"] == 0.8
    bad = tmp_path / "bad.conllu"
    bad.write_text(row(1, "a", "X", 0, "root") + "\n" + row(2, "b", "X", 9, "dep") + "\n")
    assert main(["deps", "--gold", str(g), "--test", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.conllu" in err and "line 2" in err and "out of range" in err
    assert main(["deps", "--gold", str(g), "--test", str(tmp_path / "missing")]) == 2
