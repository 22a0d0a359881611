"""Helpers for the UD -> EASY tests: CoNLL-U written by hand, converted, shown as readable strings."""
from __future__ import annotations

from parseval.annotations.conllu import parse_conllu
from parseval.annotations.easy.model import Form, Sentence
from parseval.evaluation.ud2easy.convert import convert_sentence


def conllu(sent_id: str, rows: str) -> str:
    """CoNLL-U text from rows ``ID FORM UPOS HEAD DEPREL [FEATS]`` separated by spaces (one per line)."""
    lines = [f"# sent_id = {sent_id}"]
    for row in rows.strip().splitlines():
        parts = row.split()
        ident, form, upos, head, deprel = parts[:5]
        feats = parts[5] if len(parts) > 5 else "_"
        lines.append("\t".join([ident, form.replace("~", " "), "_", upos, "_", feats, head, deprel, "_", "_"]))
    return "\n".join(lines) + "\n\n"


def corpus_sentence(sid: str, words: list[str]) -> Sentence:
    return Sentence(sid, [Form(f"{sid}F{k}", w) for k, w in enumerate(words, 1)])


def convert(words: list[str], rows: str, sid: str = "E1") -> Sentence:
    (parse,) = parse_conllu(conllu(sid, rows), file="test.conllu")
    return convert_sentence(corpus_sentence(sid, words), parse)


def shown_groups(s: Sentence) -> list[str]:
    return [f"{g.type}:{' '.join(f.text for f in s.forms[g.start:g.end])}" for g in s.groups]


def shown_relations(s: Sentence) -> set[str]:
    """``TYPE role=word ...`` with each argument shown as the form it points at (``-`` for the null argument)."""
    text = {f.id: f.text for f in s.forms}
    out = set()
    for r in s.relations:
        args = " ".join(f"{role}={text.get(t, '-')}" for role, t in r.args.items())
        extra = "".join(f" {k}={v}" for x in r.extras.values() for k, v in x.items())
        out.add(f"{r.type} {args}{extra}")
    return out
