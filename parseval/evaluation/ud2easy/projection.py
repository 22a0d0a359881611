"""From parser tokens to corpus forms: the character alignment, and groups and relations carried over.

The corpus forms are fixed (a run must use them); the parser may cut the
same characters differently (*du* as *de le*, *parce que* as two tokens,
*-t-il* as *-t* *-il*). The CoNLL 2018 character alignment
(:mod:`parseval.evaluation.deps.alignment`) gives, for every form, the parser tokens
that share characters with it; a group then covers every form one of its
tokens touches, and a relation argument is the first form its head word
touches. A form shared by two groups goes to the first one: EASY groups
never overlap.
"""
from __future__ import annotations

import re

from parseval.annotations.conllu import DepSentence
from parseval.annotations.easy.model import Group, Relation, Sentence
from parseval.evaluation.deps.alignment import align_forms

from .groups import TokenGroup
from .relations import TokenRelation

_RANGE = re.compile(r"^(\d+)-(\d+)$")


def surface_tokens(sent: DepSentence) -> tuple[list[str], list[int]]:
    """The parse's surface tokens (a multiword token counts once) and, for each word, its token."""
    ranges = {}
    for _, line in sent.extra:
        cols = line.split("\t")
        m = _RANGE.match(cols[0].strip())
        if m and len(cols) > 1:
            ranges[int(m.group(1))] = (int(m.group(2)), cols[1])
    surfaces: list[str] = []
    word_token: list[int] = []
    w = 1
    n = len(sent.words)
    while w <= n:
        if w in ranges and ranges[w][0] >= w:
            last, text = ranges[w]
            last = min(last, n)
            surfaces.append(text)
            word_token.extend([len(surfaces) - 1] * (last - w + 1))
            w = last + 1
        else:
            surfaces.append(sent.words[w - 1].form)
            word_token.append(len(surfaces) - 1)
            w += 1
    return surfaces, word_token


# "_" between two characters of a form or token stands for a space: the corpus writes multiword forms
# both ways (880 with "_": afin_de; 265 with a space: par ailleurs), and a CoNLL-U token cannot hold a space
# for most parsers, which write par_ailleurs. A lone "_" (or one at either end) stays a character.
_JOINER = re.compile(r"(?<=[^\s_])_+(?=[^\s_])")


def underscores_as_spaces(text: str) -> str:
    return _JOINER.sub(" ", text) if "_" in text else text


def word_forms(forms: list[str], sent: DepSentence) -> list[list[int]]:
    """For each word of the parse, the corpus form positions it shares characters with.

    An underscore inside a form or a token counts as a space on both sides
    (:func:`underscores_as_spaces`): *par_ailleurs* is the form *par ailleurs*.
    Raises :class:`parseval.evaluation.deps.alignment.TextMismatch` when the two are not the same text.
    """
    surfaces, word_token = surface_tokens(sent)
    per_form = align_forms([underscores_as_spaces(f) for f in forms], [underscores_as_spaces(t) for t in surfaces])
    token_forms: list[list[int]] = [[] for _ in surfaces]
    for f, toks in enumerate(per_form):
        for t in toks:
            token_forms[t].append(f)
    return [token_forms[t] for t in word_token]


def project(sentence_id: str, form_ids: list[str], groups: list[TokenGroup], relations: list[TokenRelation],
            forms_of: list[list[int]]) -> tuple[list[Group], list[Relation]]:
    """EASY groups and relations over the corpus forms, with ids ``<sentence>G<k>`` / ``<sentence>R<k>``."""
    out_groups: list[Group] = []
    covered = 0
    for g in groups:
        positions = [f for k in range(g.start, g.end) for f in forms_of[k]]
        if not positions:
            continue
        start, end = max(min(positions), covered), max(positions) + 1
        if start >= end:
            continue
        out_groups.append(Group(f"{sentence_id}G{len(out_groups) + 1}", g.type, start, end))
        covered = end
    null = f"{sentence_id}F0"
    out_rel: list[Relation] = []
    seen = set()
    for r in relations:
        args = {}
        for role, tok in r.args.items():
            if tok is None:
                args[role] = null
            elif forms_of[tok]:
                args[role] = form_ids[forms_of[tok][0]]
            else:
                break
        else:
            key = (r.type, tuple(args.values()))
            if key in seen:
                continue
            seen.add(key)
            out_rel.append(Relation(f"{sentence_id}R{len(out_rel) + 1}", r.type, args, dict(r.extras)))
    return out_groups, out_rel


def easy_sentence(template: Sentence, groups: list[Group], relations: list[Relation]) -> Sentence:
    """The corpus sentence (its id and forms, unchanged) with the converted annotation."""
    return Sentence(template.id, list(template.forms), groups, relations)
