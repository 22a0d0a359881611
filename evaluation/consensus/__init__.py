"""The consensus of a campaign's runs, as a pseudo-run of the platform (docs/consensus.md).

``runs`` (one run per team combined by the library's engine, :mod:`parseval.evaluation.consensus`, into a
run scored like any other; the per-sentence oracle), ``tasks`` (built on the scoring queue when test runs
are scored) and ``views`` (the organisers' page, the treebank download).

May import: the library (``parseval``), ``campaign``, ``evaluation.kinds``, ``evaluation.pipeline``,
``evaluation.results`` and ``evaluation.models``. Not the significance tests, the error lab or the bundle (above
it: the significance pages link the consensus treebank, the bundle carries it).
"""
