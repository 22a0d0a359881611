"""UD dependency trees -> phrase-structure trees in the French Treebank's categories.

The inverse direction of :mod:`parseval.evaluation.deps.convert` (trees -> dependencies
with head rules), used to score a dependency parser in a constituency
campaign. The mapping is documented in docs/conversion/ud-to-phrase-structure.md;
in short:

* every word with dependents projects one phrase over itself and its
  dependents, labelled from its UPOS (:data:`PHRASE_OF_UPOS`); nouns, proper
  nouns, pronouns and numerals project an NP even alone (the French
  Treebank writes ``(NP (NPP Paris))``); other words without dependents stay
  bare preterminals;
* a verb (or a predicate with a ``cop`` dependent) projects a clause whose
  verbal nucleus ``VN`` groups the verb (or copula) with the auxiliaries,
  clitic pronouns and negative *ne* next to it; the clause is ``SENT`` at the
  root, ``Ssub`` with a subordinating conjunction, ``Srel`` for ``acl:relcl``,
  ``VPinf``/``VPpart`` for an infinitive/participle, ``Sint`` otherwise;
* ``case`` markers (and ``mark`` prepositions before an infinitive) wrap the
  phrase they mark in a ``PP``, and a conjunct's ``cc`` wraps it in a
  ``COORD``, as the French Treebank does;
* preterminals carry the French Treebank tag derived from UPOS and features
  (:func:`ftb_tag`); the leaves are the CoNLL-U word forms.

Non-projective arcs are lifted first (a dependent is re-attached to its
head's head until every phrase is contiguous), so the phrase of a word may
miss a dependent that crossed another arc. Pure Python, no Django.
"""
from __future__ import annotations

from parseval.annotations.conllu import DepSentence
from parseval.annotations.trees.tree import Tree

TREE_CONVERTER_VERSION = "ud2tree-1"

# The phrase a word with dependents projects, by UPOS (verbs and copular predicates: see clause_label).
PHRASE_OF_UPOS = {
    "NOUN": "NP", "PROPN": "NP", "PRON": "NP", "NUM": "NP", "DET": "NP", "X": "NP", "SYM": "NP",
    "INTJ": "NP", "PUNCT": "NP",  # no French Treebank phrase for these: NP is the least wrong
    "ADJ": "AP",
    "ADV": "AdP",
    "ADP": "PP",
    "CCONJ": "COORD",
    "SCONJ": "Ssub",
    "VERB": "VN", "AUX": "VN",  # not used for heads: a verbal head projects a clause around its VN
}
# Words that project their phrase even without dependents.
ALWAYS_PROJECT = {"NOUN", "PROPN", "PRON", "NUM"}
# Dependents of a copular predicate that stay inside the predicate's phrase (with its non-clausal
# conjuncts); the others are the clause's.
PREDICATE_INTERNAL = {"det", "amod", "nmod", "case", "nummod", "compound", "flat", "fixed", "appos", "acl",
                      "goeswith", "clf"}
CLITICS = {"je", "j'", "tu", "il", "elle", "on", "nous", "vous", "ils", "elles", "me", "m'", "te", "t'", "se",
           "s'", "le", "l'", "la", "les", "lui", "leur", "y", "en", "ce", "c'", "-je", "-tu", "-il", "-elle",
           "-on", "-nous", "-vous", "-ils", "-elles", "-le", "-la", "-les", "-lui", "-leur", "-y", "-en", "-ce",
           "-t-il", "-t-elle", "-t-on"}
_SIMPLE_TAGS = {"NOUN": "NC", "PROPN": "NPP", "ADJ": "ADJ", "ADV": "ADV", "DET": "DET", "CCONJ": "CC",
                "SCONJ": "CS", "PUNCT": "PONCT", "NUM": "ADJ", "INTJ": "I", "SYM": "PONCT", "X": "ET"}


def _base(deprel: str) -> str:
    return deprel.split(":", 1)[0]


def _feats(text: str) -> dict[str, str]:
    if text in ("", "_"):
        return {}
    return dict(pair.split("=", 1) for pair in text.split("|") if "=" in pair)


def _is_clitic(word) -> bool:
    return word.upos == "PRON" and word.form.lower() in CLITICS and _base(word.deprel) in {"nsubj", "obj", "iobj",
                                                                                             "expl"}


def ftb_tag(word) -> str:
    """The French Treebank part of speech of a CoNLL-U word (UPOS and features)."""
    feats = _feats(word.feats)
    if word.upos in ("VERB", "AUX"):
        form = feats.get("VerbForm")
        if form == "Inf":
            return "VINF"
        if form == "Part":
            return "VPR" if feats.get("Tense") == "Pres" else "VPP"
        return {"Sub": "VS", "Imp": "VIMP"}.get(feats.get("Mood", ""), "V")
    if word.upos == "ADP":
        return "P+D" if "Definite" in feats else "P"
    if word.upos == "PRON":
        if feats.get("PronType") == "Rel":
            return "PROREL"
        if feats.get("PronType") == "Int":
            return "PROWH"
        if _is_clitic(word):
            if word.form.lower() in ("se", "s'") or feats.get("Reflex") == "Yes":
                return "CLR"
            return "CLS" if _base(word.deprel) in ("nsubj", "expl") and word.deprel != "expl:pv" else "CLO"
        return "PRO"
    return _SIMPLE_TAGS.get(word.upos, word.upos if word.upos not in ("", "_") else "X")


def projective_heads(heads: list[int]) -> list[int]:
    """``heads`` (1-based, 0 = root) with every non-projective arc lifted to the head's head.

    An arc h -> d is projective when every word strictly between h and d
    descends from h. The shortest non-projective arc is lifted first, one step
    at a time; arcs from the root are always projective, so this ends.
    """
    heads = list(heads)
    n = len(heads)

    def descends(k: int, h: int) -> bool:
        seen = 0
        while k != 0 and seen <= n:
            if k == h:
                return True
            k = heads[k - 1]
            seen += 1
        return h == 0

    while True:
        crossing = [(abs(h - d), d) for d, h in enumerate(heads, 1)
                    if h != 0 and any(not descends(k, h) for k in range(min(h, d) + 1, max(h, d)))]
        if not crossing:
            return heads
        _, d = min(crossing)
        heads[d - 1] = heads[heads[d - 1] - 1]


def _acyclic(sentence: DepSentence) -> list[int]:
    """Heads with unattached words and words on a cycle hung from the root (0)."""
    n = len(sentence.words)
    heads = [w.head if w.head is not None and 0 <= w.head <= n else 0 for w in sentence.words]
    for i in range(1, n + 1):
        k, steps = i, 0
        while k != 0 and steps <= n:
            k, steps = heads[k - 1], steps + 1
        if k != 0:  # i sits on or under a cycle: cut the cycle at i
            heads[i - 1] = 0
    return heads


class _Builder:
    def __init__(self, sentence: DepSentence):
        self.words = sentence.words
        self.heads = projective_heads(_acyclic(sentence))
        self.kids: dict[int, list[int]] = {i: [] for i in range(0, len(self.words) + 1)}
        for d, h in enumerate(self.heads, 1):
            self.kids[h].append(d)
        self.items: dict[int, tuple[int, int, Tree]] = {}  # word -> (start, end, maximal projection)

    def word(self, i: int):
        return self.words[i - 1]

    def pre(self, i: int) -> tuple[int, int, Tree]:
        return (i, i + 1, Tree(ftb_tag(self.word(i)), [Tree.leaf(self.word(i).form)]))

    def copula(self, i: int, among: list[int] | None = None) -> int | None:
        """The first ``cop`` dependent of ``i`` without dependents of its own (one that has some is an
        ordinary dependent: its words must stay in its own phrase)."""
        return next((d for d in (self.kids[i] if among is None else among)
                     if _base(self.word(d).deprel) == "cop" and not self.kids[d]), None)

    def clausal(self, i: int) -> bool:
        return self.word(i).upos in ("VERB", "AUX") or self.copula(i) is not None

    def clause_label(self, i: int) -> str:
        w = self.word(i)
        if self.heads[i - 1] == 0:
            return "SENT"
        if any(_base(self.word(d).deprel) == "mark" and self.word(d).upos == "SCONJ" for d in self.kids[i]):
            return "Ssub"
        if w.deprel == "acl:relcl":
            return "Srel"
        form = _feats(w.feats).get("VerbForm")
        has_subject = any(_base(self.word(d).deprel) in ("nsubj", "csubj", "aux") for d in self.kids[i])
        if form == "Inf" and not has_subject:
            return "VPinf"
        if form == "Part" and not has_subject:
            return "VPpart"
        return "Sint"

    def build(self) -> Tree:
        order = sorted(range(1, len(self.words) + 1), key=self.depth, reverse=True)
        for i in order:
            self.items[i] = self.project(i)
        roots = self.kids[0]
        if len(roots) == 1 and self.clausal(roots[0]):
            return self.items[roots[0]][2]
        return Tree("SENT", [self.items[r][2] for r in roots])

    def depth(self, i: int) -> int:
        d = 0
        while i != 0:
            i, d = self.heads[i - 1], d + 1
        return d

    def project(self, i: int) -> tuple[int, int, Tree]:
        deps = self.kids[i]
        is_root = self.heads[i - 1] == 0
        cc = [d for d in deps if d < i and _base(self.word(d).deprel) == "cc"] \
            if _base(self.word(i).deprel) == "conj" else []
        case = [d for d in deps if d < i and (_base(self.word(d).deprel) == "case" or (
            _base(self.word(d).deprel) == "mark" and self.word(d).upos == "ADP"))]
        rest = [d for d in deps if d not in cc and d not in case]
        if is_root and not self.clausal(i) and len(self.kids[0]) == 1:
            # the sentence's final (or initial) punctuation belongs to SENT, not to the root's phrase
            edge = [d for d in rest if _base(self.word(d).deprel) == "punct" and (d == max(deps + [i]) or
                                                                                 d == min(deps + [i]))]
            for d in edge:
                rest.remove(d)
                self.kids[0].append(d)
            self.kids[0].sort()
        core = self.core(i, rest)
        for markers, label in ((case, "PP"), (cc, "COORD")):
            if not markers:
                continue
            parts = [self.items[d] for d in markers] + [core]
            if not _contiguous(parts):  # cannot wrap: every marker joins the head's own phrase, flat
                return self.core(i, sorted(rest + case + cc))
            core = _phrase(label, parts)
        return core

    def core(self, i: int, rest: list[int]) -> tuple[int, int, Tree]:
        w = self.word(i)
        if self.clausal(i):
            cop = self.copula(i, rest) if w.upos not in ("VERB", "AUX") else None
            verb = i if cop is None else cop
            others = [d for d in rest if d != cop]
            if cop is not None:
                inside = [d for d in others if _base(self.word(d).deprel) in PREDICATE_INTERNAL
                          or (_base(self.word(d).deprel) == "conj" and not self.clausal(d))]
                pred = [self.pre(i)] + [self.items[d] for d in inside]
                if _contiguous(pred):
                    label = PHRASE_OF_UPOS.get(w.upos, "NP") if w.upos not in ("VERB", "AUX") else "VN"
                    pred_item = _phrase(label, pred)
                    others = [d for d in others if d not in inside]
                else:
                    pred_item = self.pre(i)
            nucleus = self.nucleus(verb, i, others)
            others = [d for d in others if d not in nucleus]
            vn_parts = sorted([self.pre(verb)] + [self.pre(d) for d in nucleus], key=lambda t: t[0])
            parts = [_phrase("VN", vn_parts)] + [self.items[d] for d in others]
            if cop is not None:
                parts.append(pred_item)
            return _phrase(self.clause_label(i), parts)
        if not rest:
            return _phrase("NP", [self.pre(i)]) if w.upos in ALWAYS_PROJECT else self.pre(i)
        return _phrase(PHRASE_OF_UPOS.get(w.upos, "NP"), [self.pre(i)] + [self.items[d] for d in rest])

    def nucleus(self, verb: int, head: int, candidates: list[int]) -> list[int]:
        """Leaf dependents next to ``verb`` that join it in the verbal nucleus (auxiliaries, clitics, *ne*)."""
        pool = {d for d in candidates if not self.kids[d] and d != head and self._in_nucleus(d)}
        out = []
        k = verb - 1
        while k in pool:
            out.append(k)
            k -= 1
        k = verb + 1
        while k in pool and (self.word(k).form.startswith("-") or _base(self.word(k).deprel) in ("aux", "cop")):
            out.append(k)
            k += 1
        return sorted(out)

    def _in_nucleus(self, d: int) -> bool:
        w = self.word(d)
        return (_base(w.deprel) in ("aux", "cop") or _is_clitic(w)
                or (w.upos == "ADV" and w.form.lower() in ("ne", "n'")))


def _contiguous(parts: list[tuple[int, int, Tree]]) -> bool:
    parts = sorted(parts, key=lambda t: t[0])
    return all(a[1] == b[0] for a, b in zip(parts, parts[1:]))


def _phrase(label: str, parts: list[tuple[int, int, Tree]]) -> tuple[int, int, Tree]:
    parts = sorted(parts, key=lambda t: t[0])
    return (parts[0][0], parts[-1][1], Tree(label, [t for _, _, t in parts]))


def ud_to_tree(sentence: DepSentence) -> Tree:
    """The phrase-structure tree of one CoNLL-U sentence (its words as leaves, in order)."""
    if not sentence.words:
        raise ValueError("an empty sentence has no tree")
    tree = _Builder(sentence).build()
    if tree.words() != [w.form for w in sentence.words]:  # every word in one phrase, in order: a bug otherwise
        raise AssertionError(f"sentence {sentence.name}: the tree does not spell the sentence's words")
    return tree
