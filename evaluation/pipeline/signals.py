"""What the scoring pipeline tells the features that follow a run's scoring, without importing them.

The pipeline sits below the significance tests and the consensus (docs/architecture.md): it sends,
they listen. Their receivers are connected in :meth:`evaluation.apps.EvaluationConfig.ready`, in the
order the pipeline used to call them (the significance tests first, then the consensus).
"""
from django.dispatch import Signal

#: A test run's result was stored (``run``: the run): the campaign's results table changed.
test_result_stored = Signal()
