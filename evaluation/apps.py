from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "evaluation"
    verbose_name = "Evaluation results"

    def ready(self) -> None:
        # The campaign layer reaches kinds and the scoring task by name; this app provides both.
        from campaign import kinds as registry, results

        from . import bundle_tasks, kinds, tasks  # noqa: F401  (registers the scoring and bundle tasks with Celery)
        from .services import ResultsProvider

        for kind in kinds.KINDS.values():
            registry.register(kind)
        results.provide(ResultsProvider())
