"""The EASY kind: the existing pipeline (``campaign.services.corpus`` and ``evaluation.services``), named here
so that every kind is reached the same way."""
from __future__ import annotations


class EasyKind:
    name = "easy"
    label = "EASY (constituents and relations)"
    suffixes = (".xml",)
    file_label = "EASY .xml file"

    def import_corpus(self, campaign, gold_paths, *, subset: str = "test", actor=None, **options):
        from campaign.services.corpus import import_corpus

        return import_corpus(campaign, gold_paths, subset=subset, actor=actor, **options)

    def validate_run_files(self, run, files, progress=None) -> dict:
        from evaluation import services

        return services.validate_run_files(run, files, services.campaign_schema(run.campaign), progress)

    def score_run_files(self, run, files, progress=None) -> dict:
        from evaluation import services

        return services.score_run_files(run, files, services.campaign_schema(run.campaign), progress)

    def parameters(self, campaign) -> dict:
        from evaluation import services

        return services.scoring_parameters(campaign)
