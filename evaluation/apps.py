from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "evaluation"
    verbose_name = "Evaluation results"

    def ready(self) -> None:
        # The campaign layer reaches kinds and the scoring task by name; this app provides both.
        from campaign import kinds as registry, results

        from evaluation import kinds
        from evaluation.bundle import tasks as bundle_tasks  # noqa: F401  (registers the bundle task with Celery)
        from evaluation.pipeline import tasks  # noqa: F401  (registers the scoring tasks with Celery)
        from evaluation.pipeline.services import ResultsProvider

        for kind in kinds.KINDS.values():
            registry.register(kind)
        results.provide(ResultsProvider())
