"""The error-insertion lab in the web app: an organiser uploads treebanks, a task runs the library's lab
(:mod:`parseval.evaluation.deps.errorlab`) and the page draws its figures.

``services`` (checks and stores a job), ``tasks`` (runs it on the significance queue), ``views``, ``forms``,
``urls`` and ``word_view`` (the leaf-ancestor word view).

May import: the library (``parseval``), ``campaign``, ``evaluation.kinds``, ``evaluation.pipeline`` (the
worker's options), ``evaluation.results`` (the charts) and ``evaluation.models``. Not the significance tests (a
sibling) or the bundle (above).
"""
