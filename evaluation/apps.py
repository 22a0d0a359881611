from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "evaluation"
    verbose_name = "Evaluation results"

    def ready(self) -> None:
        # The one place this app imports inside a function, as Django's app loading requires: these modules
        # import models, which cannot be imported before every app is loaded (ready() runs after that).
        # The campaign layer reaches kinds and the scoring task by name; this app provides both.
        from campaign import kinds as registry, results

        from evaluation import kinds
        # Every feature's Celery tasks, registered with the worker (Celery's autodiscovery looks for a
        # top-level ``tasks`` module, which this app no longer has).
        from evaluation.analysis import tasks as analysis_tasks
        from evaluation.bundle import tasks as bundle_tasks  # noqa: F401
        from evaluation.consensus import tasks as consensus_tasks
        from evaluation.lab import tasks as lab_tasks  # noqa: F401
        from evaluation.pipeline import recovery, sharding, signals, tasks  # noqa: F401
        from evaluation.provider import ResultsProvider
        from evaluation.results import summaries
        from evaluation.significance import sets as significance, tasks as significance_tasks  # noqa: F401
        from evaluation.significance import precomputed as significance_pages
        from evaluation import upkeep  # noqa: F401  (its tasks)

        for kind in kinds.KINDS.values():
            registry.register(kind)
        results.provide(ResultsProvider())
        # What follows a test run's scoring, in this order (the pipeline sends, it imports neither).
        signals.test_result_stored.connect(significance.on_test_result_stored, dispatch_uid="significance")
        signals.test_result_stored.connect(consensus_tasks.on_test_result_stored, dispatch_uid="consensus")
        signals.test_result_stored.connect(analysis_tasks.on_test_result_stored, dispatch_uid="analysis")
        signals.test_result_stored.connect(summaries.on_test_result_stored, dispatch_uid="results-cells-json")
        # What the design aid and the ranking read of a significance set, computed once it is stored.
        significance.set_stored.connect(significance_pages.on_set_stored, dispatch_uid="significance-pages")
