"""Tracks of a dependency campaign: which input a run was parsed from.

* ``gold-tokens``: the corpus's own words, one run sentence per corpus
  sentence (the campaign's first and default track);
* ``raw-text``: the parser's own tokenisation and sentence segmentation of the
  raw text, aligned with the gold by characters as in the CoNLL 2018 shared
  task.

The organiser lists the tracks a campaign accepts in its scoring options
(``Campaign.metrics["tracks"]``, checked by the dependency kind); a team
picks one per run at upload. Runs of different tracks are not comparable and
are ranked apart. Other kinds have no track (``Run.track`` stays empty).
"""
from __future__ import annotations

from .models import CampaignKind

GOLD_TOKENS = "gold-tokens"
RAW_TEXT = "raw-text"
TRACKS = {GOLD_TOKENS: "Gold tokens", RAW_TEXT: "Raw text"}
DEFAULT = (GOLD_TOKENS,)
CHOICES = list(TRACKS.items())


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


def accepted_tracks(campaign) -> list[str]:
    """The tracks ``campaign`` accepts (in the organiser's order); none for a kind without tracks."""
    if campaign.kind != CampaignKind.DEPENDENCY:
        return []
    return list((campaign.metrics or {}).get("tracks") or DEFAULT)


def resolve_track(campaign, track: str | None) -> str:
    """The track a run is stored under: ``track``, or the campaign's first when none is given.

    Raises ValueError, for the team, when the campaign does not accept ``track``.
    """
    accepted = accepted_tracks(campaign)
    if not accepted:
        if track:
            raise ValueError(f"The campaign {campaign.name!r} has no tracks: leave the track empty.")
        return ""
    if not track:
        return accepted[0]
    if track not in TRACKS:
        raise ValueError(f"Unknown track {track!r}; this campaign accepts "
                         f"{', '.join(repr(t) for t in accepted)}.")
    if track not in accepted:
        raise ValueError(f"The campaign {campaign.name!r} does not accept runs in the {TRACKS[track].lower()} "
                         f"track ({track!r}); it accepts {', '.join(repr(t) for t in accepted)}.")
    return track


def track_label(track: str) -> str:
    return TRACKS.get(track, track)


def track_of(run, campaign=None) -> str:
    """A dependency run's track (runs stored before tracks existed are gold-token runs); ``campaign``: the
    run's, when the caller has it at hand."""
    if (campaign or run.campaign).kind != CampaignKind.DEPENDENCY:
        return ""
    return run.track or GOLD_TOKENS
