"""A UD sentence seen as a tree of tokens, with the tests the EASY mapping asks of it.

Token positions are 0-based; ``head`` is a position or ``None`` for the root
(and for a word the parser left unattached). The deprel keeps its subtype
(``nsubj:pass``); :attr:`UdToken.rel` is the universal part (``nsubj``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from parseval.annotations.conllu import DepSentence

# French clitic pronouns: they join the verbal nucleus (NV) of the verb they precede.
CLITICS = frozenset("""
je j' tu il elle on nous vous ils elles me m' te t' se s' le la l' les lui leur y en ce c'
""".split()) | {"l' on"}
NEGATION_NE = frozenset({"ne", "n'", "ne pas", "n' pas", "ne plus", "ne jamais", "ne point"})
ENCLITICS = frozenset({"-il", "-elle", "-on", "-t-il", "-t-elle", "-t-on", "-je", "-tu", "-nous", "-vous",
                       "-ils", "-elles", "-ce", "-t-ils", "-t-elles"})
# Last words that make a multiword corpus form (*afin_de*, *ainsi_que*) a preposition or a conjunction.
MULTIWORD_ADP = frozenset({"de", "d'", "à", "des", "du", "au", "aux"})
MULTIWORD_CONJ = frozenset({"que", "qu'", "si", "comme", "quand", "lorsque", "lorsqu'"})
NOMINAL_RELS = frozenset({"nsubj", "obj", "iobj", "obl", "nmod", "appos", "conj", "root", "dep", "amod"})
# Prepositions that turn an infinitive into a prepositional-verbal group (PV).
PV_PREPOSITIONS = frozenset({
    "de", "d'", "à", "pour", "sans", "par", "en", "avant", "afin", "après", "au", "afin de", "afin d'",
    "avant de", "avant d'", "afin_de", "afin_d'", "avant_de", "avant_d'", "jusqu'à", "sur",
})
VERBAL = frozenset({"VERB", "AUX"})
NOMINAL = frozenset({"NOUN", "PROPN", "PRON", "NUM", "X", "SYM"})


@dataclass
class UdToken:
    i: int
    form: str
    lemma: str
    upos: str
    feats: dict[str, str]
    head: int | None
    deprel: str
    line: int | None = None
    children: list[int] = field(default_factory=list)

    @property
    def rel(self) -> str:
        return self.deprel.split(":", 1)[0]

    @property
    def low(self) -> str:
        return self.form.lower().replace("_", " ")

    @property
    def is_infinitive(self) -> bool:
        return self.feats.get("VerbForm") == "Inf"

    @property
    def is_verbal(self) -> bool:
        return self.upos in VERBAL


def _feats(text: str) -> dict[str, str]:
    out = {}
    if text and text != "_":
        for item in text.split("|"):
            k, sep, v = item.partition("=")
            if sep:
                out[k] = v
    return out


def _retag(tokens: list[UdToken]) -> None:
    """Correct the parts of speech EASY's grouping depends on, where the form itself tells.

    * A multiword corpus form (*par_ailleurs*, *afin_de*, *ainsi_que*, *ne pas*) that the
      parser saw as one token gets the class of its last word: a preposition (ADP), a
      conjunction (SCONJ), or else an adverb (ADV); a nominal relation on it becomes advmod.
    * An enclitic (*-tu*, *-t-il*) is a pronoun, and a word followed by one (*Est -il*) is a verb.
    * A noun that modifies a noun as an adjective would (amod) is an adjective.
    * A bare past participle modifying a noun (*la solution retenue*) is an adjective;
      one with complements of its own keeps its verbal nucleus (*la porte fermée à clef*).
    """
    for k, t in enumerate(tokens):
        low = t.low
        if " " in low.strip() and low not in CLITICS:
            last = low.split()[-1]
            if low in NEGATION_NE:
                t.upos = "ADV"
            elif last in MULTIWORD_ADP:
                t.upos = "ADP"
            elif last in MULTIWORD_CONJ:
                t.upos = "SCONJ"
            elif t.upos not in ("ADP", "SCONJ", "CCONJ", "PRON"):
                t.upos = "ADV"
                if t.rel in NOMINAL_RELS - {"root", "conj"}:
                    t.deprel = "advmod"
        if low in ENCLITICS:
            t.upos = "PRON"  # *-tu*, *-il* are pronouns whatever the tagger said (it may say VERB)
        if k + 1 < len(tokens) and tokens[k + 1].low in ENCLITICS and t.upos not in ("VERB", "AUX"):
            t.upos = "VERB"
        if t.upos in ("NOUN", "PROPN") and t.rel == "amod":
            t.upos = "ADJ"
    children: dict[int, list[str]] = {}
    for t in tokens:
        if t.head is not None:
            children.setdefault(t.head, []).append(t.rel)
    verbal = {"obl", "obj", "iobj", "nsubj", "aux", "cop", "xcomp", "ccomp", "mark", "expl", "advcl"}
    for t in tokens:
        if t.upos == "VERB" and t.deprel == "acl" and t.feats.get("VerbForm") == "Part" \
                and t.feats.get("Tense") == "Past" and not verbal & set(children.get(t.i, ())):
            t.upos = "ADJ"


class UdTree:
    """The tokens of one parsed sentence, with children lists."""

    def __init__(self, tokens: list[UdToken], sent_id: str | None = None):
        self.tokens = tokens
        self.sent_id = sent_id
        for t in tokens:
            t.children = []
        for t in tokens:
            if t.head is not None:
                tokens[t.head].children.append(t.i)

    @classmethod
    def from_conllu(cls, sent: DepSentence) -> "UdTree":
        tokens = [
            UdToken(w.id - 1, w.form, w.lemma, w.upos, _feats(w.feats),
                    None if not w.head else w.head - 1, w.deprel.lower() if w.head else "root", w.line)
            for w in sent.words
        ]
        _retag(tokens)
        return cls(tokens, sent.sent_id)

    def __len__(self) -> int:
        return len(self.tokens)

    def __getitem__(self, i: int) -> UdToken:
        return self.tokens[i]

    def kids(self, i: int, *rels: str) -> list[UdToken]:
        """Children of ``i`` whose universal relation (or full deprel) is one of ``rels`` (all when none)."""
        out = [self.tokens[c] for c in self.tokens[i].children]
        if rels:
            out = [c for c in out if c.rel in rels or c.deprel in rels]
        return out

    def is_clitic(self, i: int) -> bool:
        """A word that joins a verbal nucleus: *ne*, a clitic pronoun or an enclitic (*-t-il*).

        The test is on the form, not on the parser's label: a clitic right before a verb is a
        clitic even when the parser tagged it as a determiner (*la* in *je la crois*). Callers
        only look at words next to a verb.
        """
        t = self.tokens[i]
        if t.low in NEGATION_NE:
            return True
        if t.low.startswith("-") and t.upos == "PRON":
            return True
        if t.low not in CLITICS or self.kids(i, "case"):
            return False
        if t.low in ("l'", "l' on"):  # with the euphonic article of *l'on*
            return True
        return t.upos not in ("ADP", "CCONJ", "SCONJ", "PUNCT")

    def has_cop(self, i: int) -> bool:
        return bool(self.kids(i, "cop"))

    def auxiliaries(self, i: int) -> list[UdToken]:
        """Auxiliaries and the copula of ``i``, in text order (the verbal chain before it)."""
        return sorted(self.kids(i, "aux", "cop"), key=lambda t: t.i)

    def finite_verb(self, i: int) -> int:
        """The verb that carries agreement in ``i``'s chain: its first auxiliary or copula, else itself."""
        chain = self.auxiliaries(i)
        return chain[0].i if chain else i

    def easy_verb(self, i: int) -> int:
        """The token EASY calls the verb of predicate ``i``: the copula of a non-verbal predicate, else ``i``."""
        if not self.tokens[i].is_verbal:
            cop = self.kids(i, "cop")
            if cop:
                return cop[0].i
        return i

    def is_predicate(self, i: int) -> bool:
        return self.tokens[i].is_verbal or self.has_cop(i)

    def coordinator(self, i: int) -> int | None:
        """The coordinating word that stands for a coordination headed by ``i`` (EASY points at it)."""
        conjs = sorted(self.kids(i, "conj"), key=lambda t: t.i)
        # a conjoined clause (it has its own subject) coordinates sentences, not this word's phrase
        conjs = [c for c in conjs if not self.kids(c.i, "nsubj") and c.is_verbal == self.tokens[i].is_verbal]
        puncts = []
        for c in conjs:
            for k in sorted(self.kids(c.i, "cc"), key=lambda t: t.i):
                return k.i
            puncts.extend(p.i for p in self.kids(c.i, "punct") if p.i < c.i)
        return puncts[0] if puncts else None
