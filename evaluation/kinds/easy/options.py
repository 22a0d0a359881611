"""An EASY campaign's options: the schema of its guide and the parameters it scores with."""
from __future__ import annotations

from django.core.exceptions import ObjectDoesNotExist

from parseval.annotations.easy import DEFAULT_SCHEMA, EasySchema
from parseval.evaluation.easy.ranges import MATCHES, MODES
from parseval.evaluation.easy.scoring import DEFAULT_BOOTSTRAP, DEFAULT_SEED


def campaign_schema(campaign) -> EasySchema:
    """The schema of the current guide version, or the engine's default. ValueError if malformed."""
    try:
        version = campaign.guide.current
    except ObjectDoesNotExist:  # the campaign has no guide
        version = None
    if version is not None and version.schema:
        return EasySchema.from_dict(version.schema)
    return DEFAULT_SCHEMA


def scoring_parameters(campaign) -> dict:
    """Range functions, modes, bootstrap size and seed: the engine's defaults unless the campaign sets them."""
    metrics = campaign.metrics or {}
    return {
        "matches": list(metrics.get("matches") or MATCHES),
        "modes": list(metrics.get("modes") or MODES),
        "bootstrap": int(metrics.get("bootstrap", DEFAULT_BOOTSTRAP)),
        "seed": int(metrics.get("seed", DEFAULT_SEED)),
    }
