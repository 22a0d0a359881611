"""The scoring pipeline: a run from upload to stored result.

``tasks`` (the validation and scoring tasks), ``delivery`` (each delivery claims the run, every write fenced
by the claim), ``recovery`` (the sweep that re-queues what a lost worker left), ``sharding`` (a large run
counted across workers), ``services`` (validate, score and store through the campaign's kind), ``worker``
(retry and time-limit options every task shares) and ``signals`` (what it tells the features above).

May import: the library (``parseval``), ``campaign``, ``config``, ``evaluation.results`` and
``evaluation.models``. The kinds, the significance tests, the consensus, the publication bundle and the
error lab sit above it: the pipeline never imports them; a stored test result is announced by
:data:`signals.test_result_stored`, to which the features that follow scoring listen.
"""
