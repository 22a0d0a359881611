"""UD dependency parses -> EASY constituents and relations (pure Python, no Django).

:func:`~parseval.evaluation.ud2easy.convert.convert_document` is the entry point; the
mapping itself is documented in docs/conversion/ud-to-easy.md.
"""
