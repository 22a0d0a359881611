"""Paired significance between the runs of a campaign: computed by a worker, stored, read by pages and the API.

``sets`` (every pair on every figure, stored as one set; what a user is shown of it), ``tasks`` (the
computation on its own queue, at most one pending per campaign), ``views`` (rankings with ties,
comparisons of two runs) and ``api`` (the same as JSON).

May import: the library (``parseval``: the paired tests, the figures), ``campaign``, ``evaluation.consensus``
(the ranking links the consensus treebank), ``evaluation.kinds``, ``evaluation.pipeline`` (the worker's
options), ``evaluation.results`` and ``evaluation.models``. Not the error lab (a sibling) or the bundle
(above); it hears of scored runs through :data:`evaluation.pipeline.signals.test_result_stored`.
"""
