"""The leaf-ancestor scores of a run word by word, read from its stored result (no gold is read here,
but the lineages are gold: callers check :func:`campaign.visibility.can_see_diagnostics`)."""
from __future__ import annotations

from campaign.models import Run

SENTENCES_PER_PAGE = 50
# Score bands, best first: the colour is a reading aid, the score is always printed too.
BANDS = ((1.0, "la-perfect", "exact"), (0.9, "la-good", "at least 0.9"), (0.75, "la-fair", "at least 0.75"),
         (0.0, "la-poor", "below 0.75"))


def band(score: float | None) -> tuple[str, str]:
    if score is None:
        return "la-none", "not scored"
    for floor, css, name in BANDS:
        if score >= floor:
            return css, name
    return BANDS[-1][1], BANDS[-1][2]


def leaf_ancestor_sentences(run: Run) -> tuple[list[dict], str]:
    """``([{document, sid, genre, score, status, message, words: [{word, score, gold, test, css, band}]}], note)``."""
    result = run.results.order_by("-created_at", "-pk").first()
    if result is None:
        return [], "This run has no score yet."
    doc = (result.document.get("metrics") or {}).get("leaf-ancestor")
    if doc is None:
        return [], "This campaign does not score with the leaf-ancestor metric."
    where = result.document.get("sentences") or []
    out = []
    for i, s in enumerate(doc.get("sentences", [])):
        place = where[i] if i < len(where) else {"document": "", "sid": str(s.get("index")), "genre": ""}
        words = []
        for w in s.get("words") or []:
            css, name = band(w.get("score"))
            words.append(dict(w, css=css, band=name))
        out.append({**place, "score": s.get("score"), "status": s.get("status"), "message": s.get("message", ""),
                    "words": words})
    return out, ""
