"""Which annotated sentences form the hidden test set and which the public development sample.

Membership lives in :class:`annotations.models.GoldSentence` (``subset``:
test, dev, unused). Organisers set it by hand (:func:`mark_subset`) or by a
seeded per-genre sample (:func:`sample_test_subset`), both audited. Once the
campaign is open the development gold is public, so from then on nothing may
move into ``test`` or ``dev``; taking a sentence out of scoring (``unused``)
stays possible.

This module reads gold: organiser views and the scoring worker only.
"""
from __future__ import annotations

import io
import random
import zipfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from django.db import transaction

from annotations.models import GoldSentence
from campaign import audit, kinds
from campaign.models import Campaign, CampaignState, CorpusDocument, Sentence

Subset = GoldSentence.Subset


class SubsetRefused(Exception):
    """A subset change the campaign's state does not allow. The message is for the organiser."""


@dataclass
class SampleSummary:
    seed: int
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
        raise SubsetRefused(f"{subset!r} is not a subset; use one of {', '.join(Subset.values)}.")
    if campaign.state != CampaignState.DRAFT and subset != Subset.UNUSED:
        raise SubsetRefused(
            f"Campaign {campaign.name!r} is {campaign.state}: its development sample may already be public, "
            f"so sentences can no longer be put into the {subset} subset (only taken out of scoring, as unused)."
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
        raise SubsetRefused("Give the sentences or documents to mark.")
    foreign = Sentence.objects.filter(pk__in=sentence_ids).exclude(document__campaign=campaign)
    if foreign.exists() or len(Sentence.objects.filter(pk__in=sentence_ids)) != len(sentence_ids):
        raise SubsetRefused("Some of the sentences given are not in this campaign.")
    if CorpusDocument.objects.filter(pk__in=document_ids).exclude(campaign=campaign).exists():
        raise SubsetRefused("Some of the documents given are not in this campaign.")
    without_gold = Sentence.objects.filter(pk__in=sentence_ids, gold_membership__isnull=True)
    if without_gold.exists():
        names = ", ".join(str(s) for s in without_gold[:5])
        raise SubsetRefused(f"These sentences have no gold and cannot be in a subset: {names}.")
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


def sample_test_subset(
    campaign: Campaign,
    *,
    ratio: float,
    seed: int,
    dev_ratio: float = 0.0,
    actor=None,
    request=None,
) -> SampleSummary:
    """Sample, per genre, ``ratio`` of the annotated sentences as the test set and ``dev_ratio`` as the
    development sample; the rest become unused. The same seed on the same corpus gives the same subsets.
    Sampling is over sentences in random order, so test ids are neither contiguous nor patterned."""
    if not 0 < ratio <= 1:
        raise SubsetRefused(f"The test ratio must be in (0, 1], not {ratio}.")
    if not 0 <= dev_ratio < 1 or ratio + dev_ratio > 1:
        raise SubsetRefused(
            f"The development ratio must be in [0, 1) and leave room for the test set "
            f"(test {ratio} + dev {dev_ratio} > 1)." if dev_ratio >= 0 else
            f"The development ratio must be in [0, 1), not {dev_ratio}."
        )
    _check_may_change(campaign, Subset.TEST)
    rows = list(
        gold_sentences(campaign)
        .select_related("sentence__document__genre")
        .order_by("sentence__document__order", "sentence__document__name", "sentence__position")
    )
    if not rows:
        raise SubsetRefused(f"Campaign {campaign.name!r} has no annotated sentence to sample from.")
    by_genre: dict[str, list[GoldSentence]] = defaultdict(list)
    for row in rows:
        by_genre[row.sentence.document.genre.code].append(row)
    rng = random.Random(seed)
    summary = SampleSummary(seed=seed, ratio=ratio, dev_ratio=dev_ratio)
    assignment: dict[str, list[int]] = {s: [] for s in Subset.values}
    for genre in sorted(by_genre):
        members = by_genre[genre]
        order = list(range(len(members)))
        rng.shuffle(order)
        n_test = max(1, round(len(members) * ratio))
        n_dev = min(round(len(members) * dev_ratio), len(members) - n_test)
        picks = {
            Subset.TEST: order[:n_test],
            Subset.DEV: order[n_test:n_test + n_dev],
            Subset.UNUSED: order[n_test + n_dev:],
        }
        summary.per_genre[genre] = {str(s): len(idx) for s, idx in picks.items()}
        for subset, idx in picks.items():
            assignment[subset].extend(members[i].pk for i in idx)
    with transaction.atomic():
        for subset, ids in assignment.items():
            GoldSentence.objects.filter(pk__in=ids).update(subset=subset)
        audit.record(
            audit.SUBSET_SAMPLED,
            actor=actor,
            campaign=campaign,
            target=campaign.slug,
            details={"seed": seed, "ratio": ratio, "dev_ratio": dev_ratio, "per_genre": summary.per_genre,
                     "counts": summary.totals},
            request=request,
        )
    return summary


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
