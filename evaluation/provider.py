"""What the campaign layer reads of results and asks of this app (:mod:`campaign.results`), handed over from
:meth:`evaluation.apps.EvaluationConfig.ready`.

Beside ``apps`` and ``urls`` above the features: it may import any of them (the pipeline's services, the
results, the consensus), and none of them imports it.
"""
from __future__ import annotations

from evaluation.consensus import runs as consensus_runs
from evaluation.pipeline.services import latest_result, public_result_document, rescore, result_summary
from evaluation.results import disclosure, summaries
from evaluation.results.secrecy_shape import campaign_budget


class ResultsProvider:
    """What the campaign layer reads of results (:mod:`campaign.results`), looked up here at each call."""

    def latest_result(self, run):
        return latest_result(run)

    def result_summary(self, result):
        return result_summary(result)

    def public_result_document(self, result):
        return public_result_document(result)

    def secrecy_budget(self, campaign):
        return campaign_budget(campaign)

    def limited_summary(self, rows, campaign, run=None):
        return disclosure.limit_summary(rows, campaign, run)

    def rescore(self, run, actor, *, request=None):
        return rescore(run, actor, request=request)

    def campaign_results(self, campaign, *, runs=None):
        return summaries.campaign_results(campaign, runs=runs)

    def build_consensus(self, campaign):
        return consensus_runs.build(campaign)
