"""The fourteen EASY relations from a UD tree (token space).

A relation argument is a token position, or ``None`` for EASY's null
argument (a coordination with no left conjunct, *Et ...*). Arguments point
at the head word; the scorer resolves a word to the group that contains it,
so pointing at the word or at its group is the same thing. Where EASY's
analysis differs from UD's (the copula is EASY's verb, the first auxiliary
carries the subject, auxiliaries chain, a coordination is represented by its
coordinating word) the differences are spelt out below and in
docs/conversion/ud-to-easy.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .groups import DAYS, MONTHS, TITLES
from .udtree import ENCLITICS, NEGATION_NE, UdTree

# Adverbs that grade an adjective (MOD-A) rather than modify the copula (MOD-V).
DEGREE_ADVERBS = frozenset({
    "très", "trop", "si", "plus", "moins", "aussi", "assez", "tout", "fort", "peu", "bien", "tellement",
    "particulièrement", "vraiment", "extrêmement", "presque", "pas", "non", "point",
})
# Determiners that EASY annotates as adjectives modifying the noun (MOD-N).
ADJECTIVAL_DETERMINERS = frozenset({"quelque", "plusieurs", "certain", "différent", "divers", "autre", "même", "tel"})
ATTRIBUTE_RELS = frozenset({"advmod", "obl", "amod", "obj", "dep", "acl", "nmod", "xcomp"})


@dataclass
class TokenRelation:
    type: str
    args: dict[str, int | None]
    extras: dict[str, dict[str, str]] = field(default_factory=dict)


def _mod_type(tree: UdTree, h: int) -> str:
    """The MOD-x type for a modifier of ``h``, by the head's part of speech."""
    t = tree[h]
    if tree.is_predicate(h) and t.is_verbal:
        return "MOD-V"
    if t.upos == "ADJ":
        return "MOD-A"
    if t.upos == "ADV":
        return "MOD-R"
    if t.upos == "ADP":
        return "MOD-P"
    if t.is_verbal:
        return "MOD-V"
    return "MOD-N"


def _date_word(t) -> bool:
    return t.upos == "NUM" or t.low in MONTHS or t.low in DAYS


class _Builder:
    def __init__(self, tree: UdTree):
        self.tree = tree
        self.out: list[TokenRelation] = []

    def arg(self, i: int) -> int:
        """A non-verbal argument: a coordination stands for itself by its coordinating word."""
        c = self.tree.coordinator(i)
        return i if c is None else c

    def add(self, rtype: str, *pairs, **extras) -> None:
        self.out.append(TokenRelation(rtype, dict(pairs), {k.replace("_", "-"): v for k, v in extras.items()}))

    def modifier(self, c: int, h: int) -> None:
        H = self.tree[h]
        if " " in H.low.strip() and H.upos in ("ADP", "SCONJ", "ADV"):
            return  # a multiword preposition or adverb the parser took for a head: its dependents are guesses
        if H.upos in ("ADP", "SCONJ", "CCONJ") and not (H.upos == "ADP" and c == h - 1):
            return
        rtype = _mod_type(self.tree, h)
        role = {"MOD-V": "verbe", "MOD-A": "adjectif", "MOD-R": "adverbe", "MOD-P": "preposition",
                "MOD-N": "nom"}[rtype]
        mod = self.tree.easy_verb(c) if self.tree.is_predicate(c) else self.arg(c)
        if rtype == "MOD-N":
            case = [k.i for k in self.tree.kids(h, "case") if k.i == c + 1]
            if case and self.tree[c].upos == "ADV":
                self.add("MOD-P", ("modifieur", mod), ("preposition", case[0]))
                return
            self.add("MOD-N", ("modifieur", mod), ("nom", h), a_propager={"booleen": "faux"})
            return
        head = self.tree.easy_verb(h) if rtype == "MOD-V" else h
        self.add(rtype, ("modifieur", mod), (role, head))

    def token(self, c: int) -> None:
        """The relations that the dependency of word ``c`` on its head gives (none for the root)."""
        t = self.tree[c]
        verb = self.inverted_subject_of(c)
        if verb is not None:
            # *continuez -vous*, *a -t-il reçu*, *dis -je*: the enclitic is the subject of the verb it
            # follows (the guide's SUJ-V), whatever relation the parser gave it
            self.add("SUJ-V", ("sujet", c), ("verbe", verb))
            return
        if t.head is None:
            return
        h = t.head
        H = self.tree[h]
        if t.rel == "nsubj" or t.deprel == "expl:subj":
            self.subject(c, h)
        elif t.rel in ("aux", "cop"):
            self.auxiliary(c, h)
        elif t.upos == "ADJ" and H.is_verbal and t.rel in ATTRIBUTE_RELS:
            # an adjective hanging from a verb is its attribute (*il tombe malade*, *je la crois intelligente*)
            self.attribute(c, h)
        elif t.rel in ("obj", "iobj", "obl", "nmod"):
            self.complement(c, h)
        elif t.rel in ("amod", "nummod", "acl"):
            if not (_date_word(t) and _date_word(H)):
                self.modifier(c, h)
        elif t.rel == "det" and t.lemma.lower() in ADJECTIVAL_DETERMINERS:
            self.modifier(c, h)  # *quelques*, *plusieurs*, *certains*: adjectives for EASY
        elif t.low in ("y", "en") and H.is_verbal and t.rel in ("advmod", "expl", "obl", "iobj", "dep"):
            self.add("CPL-V", ("complement", c), ("verbe", self.tree.easy_verb(h)))  # clitics of place and *de*
        elif t.rel == "advmod":
            self.adverb(c, h)
        elif t.rel in ("advcl", "ccomp", "xcomp", "mark"):
            self.clause(c, h)
        elif t.rel in ("conj", "cc"):
            self.coordination(c, h)
        elif t.rel == "appos" and not (H.low in TITLES and t.upos == "PROPN" and c > h):
            self.add("APPOS", ("premier", h), ("appose", self.arg(c)))
        elif t.rel == "parataxis":
            self.add("JUXT", ("premier", self.side(h)), ("suivant", self.side(c)))

    def subject(self, c: int, h: int) -> None:
        if self.tree.is_predicate(h):
            self.add("SUJ-V", ("sujet", self.arg(c)), ("verbe", self.tree.finite_verb(h)))

    def auxiliary(self, c: int, h: int) -> None:
        tree = self.tree
        if tree[c].rel == "cop":
            if not tree[h].is_verbal:
                self.add("ATB-SO", ("attribut", self.arg(h)), ("verbe", c), s_o={"valeur": "sujet"})
            return
        chain = [a.i for a in tree.auxiliaries(h) if a.rel == "aux"]
        k = chain.index(c)
        self.add("AUX-V", ("auxiliaire", c), ("verbe", chain[k + 1] if k + 1 < len(chain) else h))

    def complement(self, c: int, h: int) -> None:
        """``obj``, ``iobj``, ``obl``, ``nmod``: COD-V, CPL-V or MOD-V on a verb, a MOD-x elsewhere."""
        tree = self.tree
        t, H = tree[c], tree[h]
        pred = tree.is_predicate(h)
        verb = tree.easy_verb(h)
        if t.rel == "obj":
            if pred:
                if any(k.upos == "ADP" for k in tree.kids(c, "case")):
                    self.add("CPL-V", ("complement", self.arg(c)), ("verbe", verb))
                else:
                    self.add("COD-V", ("cod", self.arg(c)), ("verbe", verb))
        elif t.rel == "iobj":
            if pred:
                self.add("CPL-V", ("complement", self.arg(c)), ("verbe", verb))
        elif pred and H.is_verbal or (pred and H.upos != "ADJ" and t.rel == "obl"):
            if not tree.kids(c, "case") and not tree.is_clitic(c) and t.upos in ("NOUN", "PROPN", "NUM"):
                self.add("MOD-V", ("modifieur", self.arg(c)), ("verbe", verb))  # a bare noun: *dort la nuit*
            else:
                self.add("CPL-V", ("complement", self.arg(c)), ("verbe", verb))
        else:
            self.modifier(c, h)

    def adverb(self, c: int, h: int) -> None:
        tree = self.tree
        t, H = tree[c], tree[h]
        if t.low in NEGATION_NE:
            return
        pred = tree.is_predicate(h)
        if pred and not H.is_verbal and H.upos != "ADJ" or (
                pred and H.upos == "ADJ" and t.low not in DEGREE_ADVERBS):
            self.add("MOD-V", ("modifieur", c), ("verbe", tree.easy_verb(h)))
        else:
            self.modifier(c, h)

    def clause(self, c: int, h: int) -> None:
        """``advcl``, ``ccomp``, ``xcomp`` and the ``mark`` of a clause."""
        tree = self.tree
        t, H = tree[c], tree[h]
        pred = tree.is_predicate(h)
        prep = any(k.upos == "ADP" and k.i < c for k in tree.kids(c, "mark", "case"))
        if t.rel == "mark":
            # a preposition marking an infinitive or a gerund is part of its PV; one marking a finite
            # clause (*comme* tagged ADP) is a complementiser
            if t.upos != "ADP" or tree[tree.finite_verb(h)].feats.get("VerbForm") == "Fin":
                self.add("COMP", ("complementeur", c), ("verbe", tree.easy_verb(h)))
        elif t.rel == "xcomp":
            if not t.is_verbal:
                self.attribute(c, h)
                return
            # *veut venir*: COD-V; *essaie de venir* (a PV): CPL-V, as the guide mostly does
            if prep:
                self.add("CPL-V", ("complement", c), ("verbe", tree.easy_verb(h)))
            else:
                self.add("COD-V", ("cod", c), ("verbe", tree.easy_verb(h)))
            self.control(c, h)
        elif not (pred and (H.is_verbal or H.upos != "ADJ")):
            self.modifier(c, h)
        elif t.rel == "ccomp":
            self.add("COD-V", ("cod", tree.easy_verb(c)), ("verbe", tree.easy_verb(h)))
        elif t.rel == "advcl" and self.juxtaposed(c, h):
            # two clauses side by side with no word to subordinate one to the other: juxtaposed (the
            # guide's *L'administration se fâche, certains enseignants se déclarent "choqués"*), whatever
            # the parser's choice of advcl for the second
            first, second = sorted((h, c))
            self.add("JUXT", ("premier", self.side(first)), ("suivant", self.side(second)))
        else:
            # an adverbial clause introduced by a preposition (a PV: *en ajoutant*, *pour protester*) is a
            # complement
            if prep:
                self.add("CPL-V", ("complement", tree.easy_verb(c)), ("verbe", tree.easy_verb(h)))
            else:
                self.add("MOD-V", ("modifieur", tree.easy_verb(c)), ("verbe", tree.easy_verb(h)))
            if t.feats.get("VerbForm") == "Part" and any(k.low == "en" for k in tree.kids(c, "mark", "case")):
                self.control(c, h, subject_only=True)  # a gerund's subject is the main clause's

    def inverted_subject_of(self, c: int) -> int | None:
        """The verb an enclitic subject (*-vous*, *-t-il*) follows, or None: not after an imperative
        (*asseyez-vous*: an object), and not when the parser already made it that verb's subject."""
        tree = self.tree
        t = tree[c]
        if t.low not in ENCLITICS or c == 0:
            return None
        v = tree[c - 1]
        if v.upos not in ("VERB", "AUX") or v.feats.get("Mood") == "Imp" or v.feats.get("VerbForm") == "Inf":
            return None
        verb = tree.finite_verb(v.i) if v.rel not in ("aux", "cop") else v.i
        if t.rel == "nsubj" and t.head is not None and tree.is_predicate(t.head) \
                and tree.finite_verb(t.head) == verb:
            return None  # subject() gives the same relation
        return verb

    def juxtaposed(self, c: int, h: int) -> bool:
        """Clause ``c`` has its own subject, a finite verb, no subordinating word, and a comma or
        semicolon between it and clause ``h``."""
        tree = self.tree
        if not tree.kids(c, "nsubj") or tree.kids(c, "mark", "case"):
            return False
        if tree[tree.finite_verb(c)].feats.get("VerbForm") not in ("Fin", None):
            return False
        lo, hi = sorted((h, c))
        return any(tree[k].low in (",", ";", ":") for k in range(lo + 1, hi))

    def apposed(self, h: int, c: int) -> bool:
        tree = self.tree
        nominal = ("NOUN", "PROPN")
        return (tree[h].upos in nominal and tree[c].upos in nominal and not tree.is_predicate(c)
                and bool(tree.kids(c, "det")) and not tree.kids(c, "case"))

    def coordination(self, c: int, h: int) -> None:
        tree = self.tree
        if tree[c].rel == "conj":
            self.conj(c, h)
        elif tree[h].rel != "conj" and not tree.kids(h, "conj"):
            # a sentence-initial *Et ...*: no left conjunct
            self.add("COORD", ("coordonnant", c), ("coord-g", None), ("coord-d", self.side(h)))

    def attribute(self, c: int, h: int) -> None:
        so = "objet" if self.tree.kids(h, "obj") else "sujet"
        self.add("ATB-SO", ("attribut", self.arg(c)), ("verbe", self.tree.easy_verb(h)), s_o={"valeur": so})

    def control(self, c: int, h: int, subject_only: bool = False) -> None:
        """The subject EASY gives an infinitive complement (the governing verb's object, else its
        subject) or a gerund (the main clause's subject)."""
        tree = self.tree
        if tree.kids(c, "nsubj"):
            return
        ctrl = tree.kids(h, "nsubj") if subject_only else tree.kids(h, "obj", "iobj") or tree.kids(h, "nsubj")
        if not ctrl:  # an inverted subject (*continuez -vous à mentir*) controls too
            ctrl = [t for t in tree.tokens if self.inverted_subject_of(t.i) == tree.finite_verb(h)][:1]
        if ctrl and (subject_only or tree[c].is_infinitive):
            self.add("SUJ-V", ("sujet", self.arg(ctrl[0].i)), ("verbe", c))

    def side(self, i: int) -> int:
        return self.tree.easy_verb(i) if self.tree.is_predicate(i) else i

    def conj(self, c: int, h: int) -> None:
        tree = self.tree
        conjs = sorted(k.i for k in tree.kids(h, "conj"))
        prev = h
        for k in conjs:
            if k == c:
                break
            prev = k
        if not any(tree.kids(k, "cc") for k in conjs):
            if len(conjs) == 1 and self.apposed(h, c):
                # *un organisme scientifique, le CAREPS*: two noun phrases side by side, the second with
                # its own determiner, name the same thing: an apposition, not a list of one
                self.add("APPOS", ("premier", h), ("appose", c))
                return
            # a list with no coordinating word: EASY juxtaposes
            self.add("JUXT", ("premier", self.side(prev)), ("suivant", self.side(c)))
            return
        marks = sorted(k.i for k in tree.kids(c, "cc")) or \
            sorted(k.i for k in tree.kids(c, "punct") if prev < k.i < c)
        self.add("COORD", ("coordonnant", marks[0] if marks else None), ("coord-g", self.side(prev)),
                 ("coord-d", self.side(c)))


def build_relations(tree: UdTree) -> list[TokenRelation]:
    """The EASY relations of a sentence, in token space, in the order of their dependents."""
    b = _Builder(tree)
    for t in tree.tokens:
        b.token(t.i)
    return b.out
