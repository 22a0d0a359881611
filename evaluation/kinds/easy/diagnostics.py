"""Per-sentence diagnostics of a run: which gold items each scored sentence missed.

This reveals which sentences have gold, so :func:`campaign.visibility.can_see_diagnostics`
gates every caller (organisers; a team for its own run after gold release).
The counts come from the engine (reference and hypothesis views, one-to-one
matching); the list of missed items is the set difference in range space,
which is exactly what EQUAL matching misses.
"""
from __future__ import annotations

from dataclasses import dataclass

from parseval.annotations.easy import read_document
from campaign.models import Run
from parseval.evaluation.easy.ranges import MATCHES, MODES, HypothesisView, ReferenceView
from parseval.evaluation.easy.counting import Plan, count_sentence

from .conllu import scored_files
from .gold import load_gold
from .options import campaign_schema


@dataclass
class Counts:
    fc: int = 0
    fp: int = 0
    cr: int = 0

    def add(self, fc: int, fp: int, cr: int) -> None:
        self.fc += fc
        self.fp += fp
        self.cr += cr

    def as_dict(self) -> dict:
        return {"fc": self.fc, "fp": self.fp, "cr": self.cr}


def _words(forms, rng) -> str:
    if rng is None:
        return "(null argument)"
    return " ".join(f.text for f in forms[rng[0]:rng[1]])


def run_diagnostics(run: Run, *, mode: str = "HYP", match: str = "EQUAL", document: str | None = None) -> dict:
    """Per scored sentence: constituent and relation counts in the chosen way, and the missed gold items.

    ``document`` limits the work to one document (pages show one at a time).
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; use one of {', '.join(MODES)}")
    if match not in MATCHES:
        raise ValueError(f"unknown range function {match!r}; use one of {', '.join(MATCHES)}")
    campaign = run.campaign
    schema = campaign_schema(campaign)
    gold_docs, _genres, checksum, _count = load_gold(run, schema)
    names = sorted(gold_docs)
    chosen = [n for n in names if document is None or n == document]
    plan = Plan(schema, (match,), (mode,))
    n_cons = len(plan.cons_types)
    out = {"mode": mode, "match": match, "gold_sha256": checksum, "documents": names, "shown": []}
    with scored_files(run) as files:
        for name in chosen:
            hyp_sentences = {}
            if name in files:
                hyp_doc = read_document(files[name], schema=schema, gold=False, strict=False, name=f"{name}.xml")
                hyp_sentences = hyp_doc.sentence_map()
            rows = []
            for s in gold_docs[name].sentences:
                ref = ReferenceView(s, schema.relation_roles)
                h = hyp_sentences.get(s.id)
                hyp = HypothesisView(h, ref, modes=(mode,)) if h is not None else None
                fc, fp, cr = count_sentence(ref, hyp, plan)
                cons, rels = Counts(), Counts()
                for col in range(plan.ncols):
                    (cons if col < n_cons else rels).add(fc[col], fp[col], cr[col])
                missed = []
                for t, items in sorted(ref.cons.items()):
                    found = hyp.cons.get(t, set()) if hyp else set()
                    missed += [{"layer": "constituent", "type": t, "words": _words(s.forms, rng)}
                               for rng in sorted(items - found)]
                for t, items in sorted(ref.rels.items()):
                    found = hyp.rels[mode].get(t, set()) if hyp else set()
                    for args in sorted(items - found, key=lambda a: [x or (-1, -1) for x in a]):
                        missed.append({"layer": "relation", "type": t,
                                       "words": " | ".join(_words(s.forms, rng) for rng in args)})
                rows.append({
                    "id": s.id,
                    "text": " ".join(f.text for f in s.forms),
                    "submitted": h is not None,
                    "constituents": cons.as_dict(),
                    "relations": rels.as_dict(),
                    "missed": missed,
                })
            out["shown"].append({"name": name, "sentences": rows})
    return out
