"""Tracks of a dependency campaign: which input a run was parsed from.

* ``gold-tokens``: the corpus's own words, one run sentence per corpus
  sentence (the campaign's first and default track);
* ``raw-text``: the parser's own tokenisation and sentence segmentation of the
  raw text, aligned with the gold by characters as in the CoNLL 2018 shared
  task.

The organiser lists the tracks a campaign accepts in its scoring options
(``Campaign.metrics["tracks"]``, checked by the dependency kind); a team
picks one per run at upload. Runs of different tracks are not comparable and
are ranked apart. Other kinds have no track (``Run.track`` stays empty). The campaign layer knows
tracks only through the kind's contract (:meth:`evaluation.kinds.contract.Kind.tracks`) and the stored
``Run.track``; :mod:`campaign.tracks` resolves a team's choice against them.
"""
from __future__ import annotations

from parseval.annotations.errors import N_

GOLD_TOKENS = "gold-tokens"
RAW_TEXT = "raw-text"
TRACKS = {GOLD_TOKENS: N_("Gold tokens"), RAW_TEXT: N_("Raw text")}  # shown through campaign.tracks
DEFAULT = (GOLD_TOKENS,)
# What the results page says of a track's section.
NOTES = {GOLD_TOKENS: N_("parsed on the gold words, one sentence per corpus sentence"),
         RAW_TEXT: N_("the parsers tokenised and segmented the raw text themselves; their words are aligned with "
                      "the gold by characters (CoNLL 2018)")}


def check_tracks(value) -> list[str]:
    """The ``tracks`` option as a list, or ValueError saying what is wrong."""
    if not isinstance(value, list) or not value:
        raise ValueError(f"tracks: a non-empty list of {', '.join(repr(t) for t in TRACKS)}")
    unknown = [t for t in value if t not in TRACKS]
    if unknown:
        raise ValueError(f"tracks: unknown track(s) {', '.join(repr(t) for t in unknown)}; "
                         f"known: {', '.join(TRACKS)}")
    if len(set(value)) != len(value):
        raise ValueError("tracks: a track is listed twice")
    return list(value)
