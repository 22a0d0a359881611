"""A run's track, as the campaign layer handles it: the stored ``Run.track`` and a team's choice at upload.

Which tracks exist and which a campaign takes is its kind's business (the contract's
:meth:`~evaluation.kinds.contract.Kind.tracks`; the dependency kind defines them); this module resolves a
team's choice against that, and names tracks in forms and pages. A kind without tracks takes runs with
an empty track.
"""
from __future__ import annotations

from . import kinds
from .problem_texts import translated


def accepted_tracks(campaign) -> list[str]:
    """The tracks ``campaign`` accepts (in the organiser's order, the first the default); none for a kind
    without tracks."""
    return list(kinds.for_campaign(campaign).tracks(campaign))


def choices() -> list[tuple[str, str]]:
    """Every track any registered kind knows, with its label in the reader's language (the API's and the
    upload form's choices; the kinds write them in English)."""
    out: dict[str, str] = {}
    for kind in kinds.registered().values():
        out.update({track: translated(label) for track, label in kind.all_tracks().items()})
    return list(out.items())


def track_label(track: str) -> str:
    return dict(choices()).get(track, track)


def track_order() -> list[str]:
    """Tracks in the order their kinds declare them (sections and rankings follow it)."""
    return [t for t, _ in choices()]


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
    known = dict(choices())
    if track not in known:
        raise ValueError(f"Unknown track {track!r}; this campaign accepts "
                         f"{', '.join(repr(t) for t in accepted)}.")
    if track not in accepted:
        raise ValueError(f"The campaign {campaign.name!r} does not accept runs in the {known[track].lower()} "
                         f"track ({track!r}); it accepts {', '.join(repr(t) for t in accepted)}.")
    return track


def track_of(run, campaign=None) -> str:
    """The track ``run`` is scored in, by its kind (``campaign``: the run's, when the caller has it at hand)."""
    return kinds.for_campaign(campaign or run.campaign).track_of(run)
