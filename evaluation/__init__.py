"""The evaluation app: the metrics' scoring tasks and results in the web app (the metrics themselves are the
library's, :mod:`parseval.evaluation`).

By feature, each subpackage's docstring saying what it holds and may import, each importing only the ones
below it (the ``features`` contract of ``.importlinter``; docs/architecture.md):

    apps, urls, admin, management      the app's wiring (tasks registered, receivers connected in ready())
    provider | bundle                  what campaign reads of results; the publication bundle
    lab | significance                 the error lab; paired significance (rankings link the consensus treebank)
    consensus                          the consensus pseudo-run
    kinds                              the campaign kinds behind one contract
    pipeline                           validation, scoring, delivery, recovery, sharding
    results                            results and their disclosure, the results pages and charts
    models                             the app's models (its migrations are its history)
"""
