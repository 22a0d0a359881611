"""The CoNLL 2018 shared task's scores (``python -m evaluation deps --preset conll18``).

Definitions from the shared task (Zeman et al. 2018, "CoNLL 2018 Shared
Task: Multilingual Parsing from Raw Text to Universal Dependencies",
sections 2 and 5), checked figure for figure against its scorer's verbose
table on real and perturbed files (see ``docs/metrics/dependency.md``).

Both files are read with :mod:`parseval.evaluation.deps.conll18_reader` and must
spell the same non-whitespace characters. Tokens and sentences are ranges on
that string; words are aligned with
:func:`parseval.evaluation.deps.alignment.align_words`. Each row has ``correct``,
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

from parseval.annotations.errors import InputError, Problem
from parseval.evaluation.signature import make_signature

from .alignment import align_words, first_difference, matched_pairs
from .conll18_reader import Treebank, Word, collector_paused, read_conll18

ROWS = ("Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas",
        "UAS", "LAS", "CLAS", "MLAS", "BLEX")
OFFICIAL = ("LAS", "MLAS", "BLEX")  # the three ranking figures of the shared task

ROOT = -1  # a root word's parent
UNALIGNED = -2  # a system head or child with no gold partner: equal to no gold word
NO_HEAD = -3  # a word whose HEAD is ``_`` (read from the project's own CoNLL-U objects only)


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


# The per-sentence counts (one row per gold sentence, summed into the rows above). A system token, word or
# sentence counts in the gold sentence holding its first character; a matched or aligned item in its gold
# item's sentence. Summed over every gold sentence they are the whole files' counts.
COLUMNS = ("tokens_gold", "tokens_system", "tokens_correct", "sentences_gold", "sentences_system",
           "sentences_correct", "words_gold", "words_system", "words_aligned", "upos", "xpos", "ufeats",
           "alltags", "lemmas", "uas", "las", "content_gold", "content_system", "content_aligned",
           "clas", "mlas", "blex")
_C = {name: i for i, name in enumerate(COLUMNS)}
# row name -> (correct, gold, system, aligned) columns
ROW_COLUMNS = {
    "Tokens": ("tokens_correct", "tokens_gold", "tokens_system", None),
    "Sentences": ("sentences_correct", "sentences_gold", "sentences_system", None),
    "Words": ("words_aligned", "words_gold", "words_system", None),
    **{name: (name.lower(), "words_gold", "words_system", "words_aligned")
       for name in ("UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS", "LAS")},
    **{name: (name.lower(), "content_gold", "content_system", "content_aligned") for name in ("CLAS", "MLAS", "BLEX")},
}


def rows_from_sums(sums) -> dict:
    """The thirteen rows from column sums (a mapping or sequence indexed like :data:`COLUMNS`)."""
    get = (lambda c: int(sums[c])) if isinstance(sums, dict) else (lambda c: int(sums[_C[c]]))
    return {name: _row(get(correct), get(gold), get(system), None if aligned is None else get(aligned))
            for name, (correct, gold, system, aligned) in ((n, ROW_COLUMNS[n]) for n in ROWS)}


def sentence_counts(gold: Treebank, test: Treebank) -> list[list[int]]:
    """One row of :data:`COLUMNS` per gold sentence. Raises :class:`InputError` if the texts differ."""
    with collector_paused():
        return _sentence_counts(gold, test)


def _sentence_counts(gold: Treebank, test: Treebank) -> list[list[int]]:
    at = first_difference(gold.characters, test.characters)
    if at is not None:
        raise _mismatch(gold, test, at)
    gw, sw = gold.words, test.words
    out = [[0] * len(COLUMNS) for _ in gold.sentences]

    def add(sentence: int, column: str, value: int = 1) -> None:
        out[sentence][_C[column]] += value

    sentences = gold.sentences
    gold_token_sentence = _sentence_of([t.start for t in gold.tokens], sentences)
    tg, ts, tc = _C["tokens_gold"], _C["tokens_system"], _C["tokens_correct"]
    for k in gold_token_sentence:
        out[k][tg] += 1
    for k in _sentence_of([t.start for t in test.tokens], sentences):
        out[k][ts] += 1
    for i, _ in matched_pairs(gold.tokens, test.tokens):
        out[gold_token_sentence[i]][tc] += 1
    for k in range(len(sentences)):
        add(k, "sentences_gold")
    for k in _sentence_of([span.start for span in test.sentences], sentences):
        add(k, "sentences_system")
    for i, _ in matched_pairs(gold.sentences, test.sentences):
        add(i, "sentences_correct")
    wg, cg, wsys, csys = _C["words_gold"], _C["content_gold"], _C["words_system"], _C["content_system"]
    for w in gw:
        row = out[w.sentence]
        row[wg] += 1
        row[cg] += w.content
    for w, k in zip(sw, _sentence_of([w.start for w in sw], sentences)):
        row = out[k]
        row[wsys] += 1
        row[csys] += w.content

    pairs = align_words(gw, sw)  # a Word has the start, end, form and multiword of an AlignWord
    to_gold = [UNALIGNED] * len(sw)
    for g, s in pairs:
        to_gold[s] = g

    def sys_parent(w: Word) -> int:
        if w.parent >= 0:
            return to_gold[w.parent]
        return ROOT if w.parent == ROOT else UNALIGNED  # a system word without a head matches no gold head

    def children(w: Word, words: list[Word], mapped) -> list[tuple]:
        return [(mapped(c), words[c].deprel, words[c].upos, words[c].feats) for c in w.function_children]

    for g_i, s_i in pairs:
        g, s = gw[g_i], sw[s_i]
        row = out[g.sentence]
        row[_C["words_aligned"]] += 1
        upos = g.upos == s.upos
        feats = g.feats == s.feats
        xpos = g.xpos == s.xpos
        row[_C["upos"]] += upos
        row[_C["xpos"]] += xpos
        row[_C["ufeats"]] += feats
        row[_C["alltags"]] += upos and feats and xpos
        lemma = g.lemma == "_" or g.lemma == s.lemma
        row[_C["lemmas"]] += lemma
        head = g.parent == sys_parent(s)
        row[_C["uas"]] += head
        labelled = head and g.deprel == s.deprel
        row[_C["las"]] += labelled
        if g.content:
            row[_C["content_aligned"]] += 1
            if labelled:
                row[_C["clas"]] += 1
                row[_C["blex"]] += lemma
                if upos and feats and (
                        children(g, gw, lambda c: c) == children(s, sw, lambda c: to_gold[c])):
                    row[_C["mlas"]] += 1
    return out


def _sentence_of(starts: list[int], sentences) -> list[int]:
    """For offsets in increasing order, the index of the gold sentence holding each (as
    :meth:`Treebank.sentence_at`, in one walk)."""
    out = []
    k, n = 0, len(sentences)
    for start in starts:
        while k + 1 < n and sentences[k + 1].start <= start:
            k += 1
        out.append(k)
    return out


def score_conll18(gold: Treebank, test: Treebank) -> dict:
    """The thirteen rows (JSON-serialisable). Raises :class:`InputError` if the texts differ."""
    with collector_paused():
        counts = sentence_counts(gold, test)
        sums = [sum(column) for column in zip(*counts)] if counts else [0] * len(COLUMNS)
    return conll18_document(rows_from_sums(sums), files={"gold": gold.file, "test": test.file})


def conll18_document(rows: dict, **extra) -> dict:
    return {
        "signature": make_signature("conll18-ud", labels="universal", feats="universal",
                                    alignment="characters"),
        "metric": "conll18",
        "rows": rows,
        "official": {name: rows[name]["f1"] for name in OFFICIAL},
        **extra,
    }


def score_files(gold_path, test_path) -> dict:
    """Read two CoNLL-U files with the shared task's rules and score them."""
    with collector_paused():  # from the first word read to the last object freed (see collector_paused)
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
