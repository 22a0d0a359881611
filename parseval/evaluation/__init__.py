"""The metrics and their engines: EASY (``easy``), constituency trees (``trees``), dependencies (``deps``),
the metric registry (``metrics``), statistics and paired tests (``stats``, ``paired``, ``figure_sets``,
``design``, ``calibration``), signatures and the scorer's version, the converters (``ud2easy``,
``deps.ud2tree``), the consensus engine (``consensus``), the publication bundle's format and its
``reproduce`` (``bundle_format``, ``sentence_rescore``), and the command line (``cli``).

Imports :mod:`parseval.annotations`, never Django nor the web app (an import-linter contract, run by
``make test``, fails the build otherwise)."""
