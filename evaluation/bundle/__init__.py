"""The publication bundle: the citable archive of what a campaign published (docs/bundle.md).

``publication`` (the bundle built from the newest published snapshot, in the library's format
:mod:`parseval.evaluation.bundle_format`, which ``parseval reproduce`` reads back), ``tasks`` (built on the
significance queue) and ``views`` (its download).

May import: the library (``parseval``), ``campaign``, ``evaluation.consensus`` (the consensus treebank it
carries), ``evaluation.kinds``, ``evaluation.pipeline``, ``evaluation.results`` and ``evaluation.models``:
it is the top feature, and none imports it.
"""
