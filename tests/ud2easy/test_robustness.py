"""Any well-formed parse converts into a valid run, however odd its analysis (seeded random trees)."""
from __future__ import annotations

import random

from parseval.annotations.conllu import DepSentence, Word
from parseval.annotations.easy.model import Document
from parseval.annotations.easy.schema import DEFAULT_SCHEMA
from parseval.annotations.easy.validate import validate_run
from parseval.evaluation.ud2easy.convert import convert_sentence

from .conftest import corpus_sentence

UPOS = ["NOUN", "PROPN", "PRON", "VERB", "AUX", "ADJ", "ADV", "ADP", "DET", "NUM", "CCONJ", "SCONJ", "PUNCT",
        "INTJ", "X"]
DEPRELS = ["nsubj", "nsubj:pass", "obj", "iobj", "obl:arg", "obl:mod", "nmod", "amod", "advmod", "det", "case",
           "mark", "cc", "conj", "cop", "aux:tense", "aux:pass", "xcomp", "ccomp", "advcl", "acl", "acl:relcl",
           "appos", "parataxis", "flat:name", "fixed", "punct", "dep", "expl:subj", "nummod"]
FORMS = ["le", "l'", "il", "ne", "pas", "de", "à", "en", "y", "que", "et", ",", "-t-il", "mardi", "7", "janvier",
         "Mme", "Jean", "maison", "grand", "très", "mange", "a", "été", "afin_de", "ne pas", '"', "qui", "dont"]


def _random_parse(rng: random.Random, n: int) -> tuple[list[str], DepSentence]:
    forms = [rng.choice(FORMS) for _ in range(n)]
    order = list(range(1, n + 1))
    rng.shuffle(order)
    heads = {order[0]: 0}
    for k, w in enumerate(order[1:], 1):
        heads[w] = rng.choice(order[:k])  # attach to a word already in the tree: never a cycle
    words = [Word(i, forms[i - 1], "_", rng.choice(UPOS), "_", rng.choice(["_", "VerbForm=Inf", "VerbForm=Fin",
                                                                            "VerbForm=Part|Tense=Past"]),
                  heads[i], "root" if heads[i] == 0 else rng.choice(DEPRELS)) for i in range(1, n + 1)]
    return forms, DepSentence(words=words, comments=["sent_id = E1"])


def test_random_parses_give_valid_runs():
    rng = random.Random(20061)
    for trial in range(400):
        forms, parse = _random_parse(rng, rng.randint(1, 14))
        corpus = corpus_sentence("E1", forms)
        s = convert_sentence(corpus, parse)
        spans = sorted((g.start, g.end) for g in s.groups)
        # groups are contiguous, non-empty, never overlap, and use the six types
        assert all(a < b for a, b in spans) and all(b <= c for (_, b), (c, _) in zip(spans, spans[1:])), trial
        assert {g.type for g in s.groups} <= set(DEFAULT_SCHEMA.group_types)
        ids = {f.id for f in s.forms} | {"E1F0"}
        for r in s.relations:
            assert tuple(r.args) == DEFAULT_SCHEMA.roles(r.type), (trial, r)
            assert set(r.args.values()) <= ids, (trial, r)
        run = Document(name="doc.xml", sentences=[s])
        assert validate_run(run, {"E1": tuple((f.id, f.text) for f in corpus.forms)}) == [], trial
