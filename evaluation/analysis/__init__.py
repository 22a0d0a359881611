"""The analysis explorer (issue 38): a run's figures by attributes of its items, the pairwise comparison per
bucket, confusions and common errors, and the sentences behind every number, drawn as SVG.

``store`` (each result's analysis, computed once by its kind and kept: :class:`evaluation.models.RunAnalysis`),
``access`` (who may read a run's analysis: the results' disclosure rules), ``pairwise`` (two runs per bucket, the
campaign's paired test, Benjamini–Hochberg across an attribute's buckets, the detectable effect), ``services``
(what each page shows, the errors most runs share among them), ``tasks`` (the analysis computed after a test
run's scoring) and ``views`` (routed in ``evaluation/urls.py``).

May import: the library (``parseval``), ``campaign``, ``annotations`` and the features below it
(``significance``, ``consensus``, ``kinds``, ``pipeline``, ``results``, ``models``); the bundle imports it.
"""
