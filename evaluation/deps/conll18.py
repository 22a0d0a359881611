"""The CoNLL 2018 shared task's scores (``python -m evaluation deps --preset conll18``).

Definitions from the shared task (Zeman et al. 2018, "CoNLL 2018 Shared
Task: Multilingual Parsing from Raw Text to Universal Dependencies",
sections 2 and 5), checked figure for figure against its scorer's verbose
table on real and perturbed files (see ``docs/metrics/dependency.md``).

Both files are read with :mod:`evaluation.deps.conll18_reader` and must
spell the same non-whitespace characters. Tokens and sentences are ranges on
that string; words are aligned with
:func:`evaluation.deps.alignment.align_words`. Each row has ``correct``,
``gold``, ``system`` and, for the rows computed on aligned words,
``aligned``:

* precision = correct / system, recall = correct / gold,
  F1 = 2 correct / (gold + system), aligned accuracy = correct / aligned;
* Tokens, Sentences: ranges present on both sides; Words: aligned words;
* UPOS, XPOS, UFeats (universal features only), AllTags (the three),
  Lemmas (a gold lemma ``_`` accepts anything): aligned words whose values
  agree;
* UAS: the system word's head is aligned to the gold word's head (or both
  are roots); LAS: and the universal relation (subtype stripped) agrees;
* CLAS, MLAS, BLEX: only words with a content relation count, in every
  total (gold and system words by their own relation, aligned words by the
  gold one). CLAS = LAS on them; MLAS adds UPOS, universal features and the
  function-word children (relations aux cop mark det clf case cc), each
  child's alignment, relation, UPOS and features, in order; BLEX adds the
  lemma.
"""
from __future__ import annotations

from annotations.errors import InputError, Problem
from evaluation.signature import make_signature

from .alignment import align_words, count_matches, first_difference
from .conll18_reader import Treebank, Word, read_conll18

ROWS = ("Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas",
        "UAS", "LAS", "CLAS", "MLAS", "BLEX")
OFFICIAL = ("LAS", "MLAS", "BLEX")  # the three ranking figures of the shared task

ROOT = -1  # a root word's parent
UNALIGNED = -2  # a system head or child with no gold partner: equal to no gold word


def _row(correct: int, gold: int, system: int, aligned: int | None = None) -> dict:
    return {
        "correct": correct, "gold": gold, "system": system, "aligned": aligned,
        "precision": correct / system if system else 0.0,
        "recall": correct / gold if gold else 0.0,
        "f1": 2 * correct / (system + gold) if system + gold else 0.0,
        # no aligned words: 0.0, as the scorer prints; rows not on aligned words: None
        "aligned_accuracy": (correct / aligned if aligned else 0.0) if aligned is not None else None,
    }


def _mismatch(gold: Treebank, test: Treebank, at: int) -> InputError:
    problems = []
    for tb in (gold, test):
        piece = tb.characters[at:at + 20]
        if tb.tokens and at < len(tb.characters):
            t = tb.token_at(at)
            s = tb.sentence_at(at)
            where = dict(line=tb.token_lines[t], sentence=tb.sentence_names[s])
        else:
            where = dict(line=None, sentence=None)
        problems.append(Problem(
            f"the two files are not the same text: from non-whitespace character {at}, "
            f"this file has {piece!r}" + ("" if piece else " (its text ends there)"),
            file=tb.file, **where))
    return InputError(problems)


def score_conll18(gold: Treebank, test: Treebank) -> dict:
    """The thirteen rows (JSON-serialisable). Raises :class:`InputError` if the texts differ."""
    at = first_difference(gold.characters, test.characters)
    if at is not None:
        raise _mismatch(gold, test, at)
    gw, sw = gold.words, test.words
    pairs = align_words(gw, sw)  # a Word has the start, end, form and multiword of an AlignWord
    to_gold = [UNALIGNED] * len(sw)
    for g, s in pairs:
        to_gold[s] = g
    n = len(pairs)
    counts = dict.fromkeys(("UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS", "LAS",
                            "CLAS", "MLAS", "BLEX", "content_aligned"), 0)

    def sys_parent(w: Word) -> int:
        return to_gold[w.parent] if w.parent >= 0 else ROOT

    def children(w: Word, words: list[Word], mapped) -> list[tuple]:
        return [(mapped(c), words[c].deprel, words[c].upos, words[c].feats) for c in w.function_children]

    for g_i, s_i in pairs:
        g, s = gw[g_i], sw[s_i]
        upos = g.upos == s.upos
        feats = g.feats == s.feats
        counts["UPOS"] += upos
        counts["XPOS"] += g.xpos == s.xpos
        counts["UFeats"] += feats
        counts["AllTags"] += upos and feats and g.xpos == s.xpos
        lemma = g.lemma == "_" or g.lemma == s.lemma
        counts["Lemmas"] += lemma
        head = g.parent == sys_parent(s)
        counts["UAS"] += head
        labelled = head and g.deprel == s.deprel
        counts["LAS"] += labelled
        if g.content:
            counts["content_aligned"] += 1
            if labelled:
                counts["CLAS"] += 1
                counts["BLEX"] += lemma
                if upos and feats and (
                        children(g, gw, lambda c: c) == children(s, sw, lambda c: to_gold[c])):
                    counts["MLAS"] += 1

    gold_content = sum(1 for w in gw if w.content)
    system_content = sum(1 for w in sw if w.content)
    rows = {
        "Tokens": _row(count_matches(gold.tokens, test.tokens), len(gold.tokens), len(test.tokens)),
        "Sentences": _row(count_matches(gold.sentences, test.sentences),
                          len(gold.sentences), len(test.sentences)),
        "Words": _row(n, len(gw), len(sw)),
    }
    for name in ("UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS", "LAS"):
        rows[name] = _row(counts[name], len(gw), len(sw), n)
    for name in ("CLAS", "MLAS", "BLEX"):
        rows[name] = _row(counts[name], gold_content, system_content, counts["content_aligned"])
    return {
        "signature": make_signature("conll18-ud", labels="universal", feats="universal",
                                    alignment="characters"),
        "metric": "conll18",
        "rows": rows,
        "official": {name: rows[name]["f1"] for name in OFFICIAL},
        "files": {"gold": gold.file, "test": test.file},
    }


def score_files(gold_path, test_path) -> dict:
    """Read two CoNLL-U files with the shared task's rules and score them."""
    return score_conll18(read_conll18(gold_path), read_conll18(test_path))


def format_table(result: dict) -> str:
    """The shared task scorer's verbose table (``-v``), character for character."""
    lines = ["Metric     | Precision |    Recall |  F1 Score | AligndAcc",
             "-----------+-----------+-----------+-----------+-----------"]
    for name in ROWS:
        r = result["rows"][name]
        acc = "" if r["aligned_accuracy"] is None else f"{100 * r['aligned_accuracy']:10.2f}"
        lines.append(f"{name:11}|{100 * r['precision']:10.2f} |{100 * r['recall']:10.2f} |"
                     f"{100 * r['f1']:10.2f} |{acc}")
    return "\n".join(lines) + "\n"
