"""Which annotated sentences form the hidden test set and which the public development sample.

Membership lives in :class:`annotations.models.GoldSentence` (``subset``:
test, dev, unused). Organisers set it by hand (:func:`mark_subset`) or by a
keyed per-genre draw (:func:`sample_test_subset`), both audited. Once the
campaign is open the development gold is public, so from then on nothing may
move into ``test`` or ``dev``; taking a sentence out of scoring (``unused``)
stays possible.

The draw. Teams know the code, the corpus and its order, the genres and the
development sample. A draw that a number decides (the old
``random.Random(seed)``, one generator for test and development) can be
replayed for every candidate number until the public development sample comes
out, and then gives the test set with it. So no number a person chooses
decides membership: each sentence is ranked by an HMAC-SHA256 of its document
and id under a per-campaign secret key (256 bits from :mod:`secrets`, kept on
the campaign row, never shown to teams), once for the test set and once, with
another label, for the development sample. The two rankings are independent:
the development sample tells a team which sentences are *not* in the test set
(they never are), nothing more. With the key, an organiser replays the draw
exactly (:func:`verify_draw`); the audit log keeps only the key's fingerprint.

One key is public: the open demo's practice key (:data:`campaign.practice.DRAW_KEY`), written in the
code so that the shipped development-check file matches every load of the practice campaign. A
draw under it is a draw anyone can replay, development sample and test set alike, so the draw
refuses it, or any key with its fingerprint, for every campaign but the practice campaign, from
whichever entry it is reached (Python, the command, the governance page, ``load_demo``).

This module reads gold: organiser views and the scoring worker only.
"""
from __future__ import annotations

import hashlib
import hmac
import io
import secrets
import zipfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from django.db import transaction
from django.utils.translation import gettext as _

from annotations.models import GoldSentence
from campaign import audit, kinds
from campaign.practice import DRAW_KEY as PRACTICE_KEY
from campaign.practice import OPEN_SLUG as PRACTICE_SLUG
from campaign.models import Campaign, CampaignState, CorpusDocument, Sentence

Subset = GoldSentence.Subset


class SubsetRefused(Exception):
    """A subset change the campaign's state does not allow. The message is for the organiser."""


DRAW_METHOD = "hmac-sha256/v1"  # recorded in the audit entry: how membership was decided


@dataclass
class SampleSummary:
    key_fingerprint: str
    ratio: float
    dev_ratio: float
    per_genre: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def totals(self) -> dict[str, int]:
        total: Counter = Counter()
        for counts in self.per_genre.values():
            total.update(counts)
        return {s: total.get(s, 0) for s in Subset.values}


def _check_may_change(campaign: Campaign, subset: str) -> None:
    if subset not in Subset.values:
        raise SubsetRefused(_("%(subset)r is not a subset; use one of %(subsets)s.") % {
            "subset": subset, "subsets": ", ".join(Subset.values)})
    if campaign.state != CampaignState.DRAFT and subset != Subset.UNUSED:
        raise SubsetRefused(
            _("Campaign %(name)r is %(state)s: its development sample may already be public, so sentences can no "
              "longer be put into the %(subset)s subset (only taken out of scoring, as unused).") % {
                "name": campaign.name, "state": campaign.state, "subset": subset}
        )


def gold_sentences(campaign: Campaign):
    return GoldSentence.objects.filter(sentence__document__campaign=campaign)


def mark_subset(
    campaign: Campaign,
    subset: str,
    *,
    sentences=None,
    documents=None,
    actor=None,
    request=None,
) -> int:
    """Put the annotated sentences given (Sentence objects or pks, and/or whole documents) into ``subset``.

    Sentences without gold are refused: a subset is a choice among annotated sentences.
    """
    _check_may_change(campaign, subset)
    sentence_ids = {getattr(s, "pk", s) for s in (sentences or [])}
    document_ids = {getattr(d, "pk", d) for d in (documents or [])}
    if not sentence_ids and not document_ids:
        raise SubsetRefused(_("Give the sentences or documents to mark."))
    foreign = Sentence.objects.filter(pk__in=sentence_ids).exclude(document__campaign=campaign)
    if foreign.exists() or len(Sentence.objects.filter(pk__in=sentence_ids)) != len(sentence_ids):
        raise SubsetRefused(_("Some of the sentences given are not in this campaign."))
    if CorpusDocument.objects.filter(pk__in=document_ids).exclude(campaign=campaign).exists():
        raise SubsetRefused(_("Some of the documents given are not in this campaign."))
    without_gold = Sentence.objects.filter(pk__in=sentence_ids, gold_membership__isnull=True)
    if without_gold.exists():
        names = ", ".join(str(s) for s in without_gold[:5])
        raise SubsetRefused(_("These sentences have no gold and cannot be in a subset: %(names)s.") % {"names": names})
    rows = gold_sentences(campaign).filter(sentence_id__in=sentence_ids) | gold_sentences(campaign).filter(
        sentence__document_id__in=document_ids
    )
    with transaction.atomic():
        ids = list(rows.values_list("pk", flat=True))
        changed = GoldSentence.objects.filter(pk__in=ids).exclude(subset=subset).update(subset=subset)
        audit.record(
            audit.SUBSET_MARKED,
            actor=actor,
            campaign=campaign,
            target=campaign.slug,
            details={"subset": subset, "sentences": len(ids), "changed": changed,
                     "documents": sorted(document_ids), "counts": subset_counts(campaign)},
            request=request,
        )
    return changed


def subset_counts(campaign: Campaign) -> dict[str, int]:
    counts = Counter(gold_sentences(campaign).values_list("subset", flat=True))
    return {s: counts.get(s, 0) for s in Subset.values}


def new_draw_key() -> str:
    """A fresh per-campaign draw key: 256 bits from the operating system's secure source."""
    return secrets.token_hex(32)


def key_fingerprint(key: str) -> str:
    """What the audit log keeps of a key: enough to tell two draws apart, nothing to replay one."""
    return hashlib.sha256(f"parseval-draw-key:{key}".encode()).hexdigest()[:16]


def _check_not_practice_key(campaign: Campaign, key: str) -> None:
    if campaign.slug != PRACTICE_SLUG and key_fingerprint(key) == key_fingerprint(PRACTICE_KEY):
        raise SubsetRefused(_(
            "This is the open demo's practice key (fingerprint %(fingerprint)s), published in the code "
            "(campaign/demo_open.py): anyone can replay a draw made with it and recover %(name)r's "
            "test set from its public development sample. It is for the practice campaign only; draw without "
            "a key, and a fresh secret one is made.") % {"fingerprint": key_fingerprint(key), "name": campaign.name})


def _rank(key: bytes, purpose: str, document: str, sid: str) -> bytes:
    return hmac.new(key, f"{purpose}\x1f{document}\x1f{sid}".encode("utf-8"), hashlib.sha256).digest()


def draw(key: str, by_genre: dict[str, list[tuple[str, str]]], ratio: float, dev_ratio: float
         ) -> tuple[dict[tuple[str, str], str], dict[str, dict[str, int]]]:
    """``({(document, sentence id): subset}, {genre: {subset: count}})`` of the keyed draw.

    Per genre, the test set is the ``round(n * ratio)`` sentences (at least one) of lowest
    ``HMAC(key, "test", document, id)``; the development sample, among the others, those of lowest
    ``HMAC(key, "dev", document, id)``. A pure function of the key and the corpus: the same key on the
    same corpus gives the same subsets, whatever order the sentences are given in.
    """
    raw = bytes.fromhex(key)
    membership: dict[tuple[str, str], str] = {}
    per_genre: dict[str, dict[str, int]] = {}
    for genre in sorted(by_genre):
        members = by_genre[genre]
        n_test = max(1, round(len(members) * ratio))
        n_dev = min(round(len(members) * dev_ratio), len(members) - n_test)
        by_test = sorted(members, key=lambda m: _rank(raw, "test", *m))
        test, rest = by_test[:n_test], by_test[n_test:]
        by_dev = sorted(rest, key=lambda m: _rank(raw, "dev", *m))
        dev, unused = by_dev[:n_dev], by_dev[n_dev:]
        for subset, chosen in ((Subset.TEST, test), (Subset.DEV, dev), (Subset.UNUSED, unused)):
            membership.update(dict.fromkeys(chosen, str(subset)))
        per_genre[genre] = {str(Subset.TEST): len(test), str(Subset.DEV): len(dev), str(Subset.UNUSED): len(unused)}
    return membership, per_genre


def _annotated_by_genre(campaign: Campaign) -> dict[str, list[tuple[str, str]]]:
    by_genre: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for genre, document, sid in gold_sentences(campaign).values_list(
        "sentence__document__genre__code", "sentence__document__name", "sentence__sid"
    ):
        by_genre[genre].append((document, sid))
    return dict(by_genre)


def sample_test_subset(
    campaign: Campaign,
    *,
    ratio: float,
    dev_ratio: float = 0.0,
    key: str | None = None,
    actor=None,
    request=None,
) -> SampleSummary:
    """Draw, per genre, ``ratio`` of the annotated sentences as the test set and ``dev_ratio`` as the
    development sample; the rest become unused.

    ``key`` (hex) replays a draw made with it; by default a fresh secret key is made. The key is kept
    on the campaign (organisers and the server only) and the audit entry records its fingerprint, the
    ratios and the counts per genre: never the key, never a seed.
    """
    if not 0 < ratio <= 1:
        raise SubsetRefused(_("The test ratio must be in (0, 1], not %(ratio)s.") % {"ratio": ratio})
    if not 0 <= dev_ratio < 1 or ratio + dev_ratio > 1:
        raise SubsetRefused(
            (_("The development ratio must be in [0, 1) and leave room for the test set (test %(ratio)s + dev "
               "%(dev_ratio)s > 1).") if dev_ratio >= 0 else
             _("The development ratio must be in [0, 1), not %(dev_ratio)s.")) % {"ratio": ratio, "dev_ratio": dev_ratio}
        )
    _check_may_change(campaign, Subset.TEST)
    if key is None:
        key = new_draw_key()
    elif len(key) != 64 or any(c not in "0123456789abcdef" for c in key):
        raise SubsetRefused(_("A draw key is 64 lower-case hexadecimal digits (256 bits)."))
    else:
        _check_not_practice_key(campaign, key)
    by_genre = _annotated_by_genre(campaign)
    if not by_genre:
        raise SubsetRefused(_("Campaign %(name)r has no annotated sentence to sample from.") % {"name": campaign.name})
    membership, per_genre = draw(key, by_genre, ratio, dev_ratio)
    summary = SampleSummary(key_fingerprint=key_fingerprint(key), ratio=ratio, dev_ratio=dev_ratio,
                            per_genre=per_genre)
    rows = gold_sentences(campaign).values_list("pk", "sentence__document__name", "sentence__sid")
    assignment: dict[str, list[int]] = {s: [] for s in Subset.values}
    for pk, document, sid in rows:
        assignment[membership[(document, sid)]].append(pk)
    with transaction.atomic():
        for subset, ids in assignment.items():
            GoldSentence.objects.filter(pk__in=ids).update(subset=subset)
        Campaign.objects.filter(pk=campaign.pk).update(draw_key=key)
        campaign.draw_key = key
        audit.record(
            audit.SUBSET_SAMPLED,
            actor=actor,
            campaign=campaign,
            target=campaign.slug,
            details={"draw": DRAW_METHOD, "key_sha256": summary.key_fingerprint, "ratio": ratio,
                     "dev_ratio": dev_ratio, "per_genre": summary.per_genre, "counts": summary.totals},
            request=request,
        )
    return summary


def verify_draw(campaign: Campaign) -> list[str]:
    """Replay the campaign's last keyed draw with its stored key: the differences with today's membership
    (empty when every sentence is where the draw put it). For organisers who audit the draw."""
    entry = audit.entries(campaign, action=audit.SUBSET_SAMPLED).first()
    if not campaign.draw_key or entry is None or "key_sha256" not in entry.details:
        return ["The subsets were not drawn with a key: there is no keyed draw to replay."]
    if entry.details["key_sha256"] != key_fingerprint(campaign.draw_key):
        return ["The stored key is not the one the last draw's audit entry names."]
    membership, _ = draw(campaign.draw_key, _annotated_by_genre(campaign), entry.details["ratio"],
                         entry.details["dev_ratio"])
    out = []
    for document, sid, subset in gold_sentences(campaign).values_list(
        "sentence__document__name", "sentence__sid", "subset"
    ).order_by("sentence__document__order", "sentence__document__name", "sentence__position"):
        if membership.get((document, sid)) != subset:
            out.append(f"{document} {sid}: {subset}, the draw says {membership.get((document, sid), 'nothing')}")
    return out


def draw_warning(campaign: Campaign) -> str | None:
    """The organisers' warning when membership was decided by a number a person chose (the old seeded
    draw) or by the open demo's published practice key (drawn before the draw refused it), which anyone
    can replay from the public development sample; ``None`` otherwise."""
    entry = audit.entries(campaign, action=audit.SUBSET_SAMPLED).first()
    if (entry is not None and campaign.slug != PRACTICE_SLUG
            and entry.details.get("key_sha256") == key_fingerprint(PRACTICE_KEY)):
        return ("The test set and development sample were drawn with the open demo's practice key, published "
                "in the code: anyone can replay the draw and recover the test set. "
                + _draw_again(campaign))
    if entry is None or "seed" not in entry.details:
        return None
    return (f"The test set and development sample were drawn with seed {entry.details['seed']} by the old "
            "seeded draw, which anyone can replay from the corpus and the public development sample to "
            f"recover the test set. {_draw_again(campaign)}")


def _draw_again(campaign: Campaign) -> str:
    return ("Draw the subsets again while the campaign is a draft: the button below, or "
            f"`manage.py sample_test_subset {campaign.slug} --ratio R --dev-ratio D`."
            if campaign.state == CampaignState.DRAFT else
            "The campaign is no longer a draft, so the subsets cannot be drawn again: treat the test set as "
            "known to any team that read the code, and weigh the results accordingly.")


def sentence_ids_by_document(campaign: Campaign, subset: str) -> dict[str, set[str]]:
    """``{document name: {sentence id}}`` of one subset: what the scoring worker scores a run on
    (``test`` for evaluation runs, ``dev`` for development-sample checks)."""
    out: dict[str, set[str]] = defaultdict(set)
    for name, sid in gold_sentences(campaign).filter(subset=subset).values_list(
        "sentence__document__name", "sentence__sid"
    ):
        out[name].add(sid)
    return dict(out)


def sentences_to_cover(campaign: Campaign, run_scope: str) -> dict[str, set[str]] | None:
    """``{document name: {sentence id}}`` a run of this scope must hold, in corpus order (``None``: every
    sentence of every document).

    A development-sample check covers only the development sentences (public once the campaign is
    open), so the development sample a team downloads is a complete run of that scope as it is. A
    test-scope run always covers the whole corpus: what it is checked against never depends on the
    hidden test subset.
    """
    if run_scope != "dev":
        return None
    return sentence_ids_by_document(campaign, Subset.DEV)


def documents_to_check(campaign: Campaign, cover: dict[str, set[str]] | None, file_names) -> list:
    """The corpus documents a run's validation goes through, in corpus order: every one, or for a
    development check (``cover`` from :func:`sentences_to_cover`) those of the development sample and
    any other the run has a file for."""
    documents = list(campaign.documents.order_by("order", "name"))
    if cover is None:
        return documents
    return [d for d in documents if d.name in cover or d.name in file_names]


def missing_document_message(document: str, cover: dict[str, set[str]] | None) -> str:
    return (f"no file for corpus document {document}: a run must cover every document"
            + (" of the development sample" if cover is not None else ""))


def scoring_subset(run_scope: str) -> str:
    """The subset a run of this scope is scored on."""
    return Subset.DEV if run_scope == "dev" else Subset.TEST


def _zip_documents(campaign: Campaign, subsets, folder: str, listing: bool = False) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        # Each document's gold sentences of these subsets, in its kind's own format.
        wanted: dict[str, set[str]] = defaultdict(set)
        for subset in subsets:
            for name, sids in sentence_ids_by_document(campaign, subset).items():
                wanted[name] |= sids
        for filename, data in kinds.for_campaign(campaign).gold_files(campaign, wanted).items():
            zf.writestr(f"{folder}/{filename}", data)
        if listing:
            rows = ["document\tsentence\tsubset"]
            for name, sid, subset in gold_sentences(campaign).filter(subset__in=subsets).order_by(
                "sentence__document__order", "sentence__document__name", "sentence__position"
            ).values_list("sentence__document__name", "sentence__sid", "subset"):
                rows.append(f"{name}\t{sid}\t{subset}")
            zf.writestr(f"{folder}/subsets.tsv", "\n".join(rows) + "\n")
    return buf.getvalue()


def dev_sample_zip(campaign: Campaign) -> bytes:
    """A zip of the development sample's gold (one EASY file per document that has dev sentences)."""
    return _zip_documents(campaign, (Subset.DEV,), "dev")


def released_gold_zip(campaign: Campaign) -> bytes:
    """What the gold release publishes: the gold of the test set and of the development sample, and
    ``subsets.tsv`` saying which sentence was in which."""
    return _zip_documents(campaign, (Subset.TEST, Subset.DEV), "gold", listing=True)
