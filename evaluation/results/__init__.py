"""Results and their disclosure: what the pages, exports and the published snapshot show of stored results.

``summaries`` (stored rows shaped into the results dict every page draws from), ``disclosure`` (what teams
and the public see of test-run figures before the gold release), ``secrecy_budget`` and ``secrecy_shape``
(how many test-set memberships what a team reads could give away, measured), ``sentence_rows`` (a result's
per-sentence rows, counted again through its kind), ``views`` (the results pages), ``text`` (how every page
writes a figure, in the page's language) and the server-side SVG charts (``charts``, ``heatmap``,
``ranking_chart``).

May import: the library (``parseval``), ``campaign`` and ``evaluation.models``; nothing else of this app
(the lowest feature: every other one reads results through it).
"""
