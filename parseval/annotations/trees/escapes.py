"""The Penn Treebank's escapes for brackets inside words.

A bracketed file cannot hold ``(`` or ``)`` in a word, so the Penn Treebank
writes ``-LRB-``/``-RRB-`` (and ``-LCB-``/``-RCB-``, ``-LSB-``/``-RSB-`` for
curly and square brackets); Sequoia's bracketed trees do the same, also
inside a word (``-LRB-S-RRB-`` for *(S)*). A tool that reads words as text
(a parser given the sentence, a scorer aligning on characters) wants the
brackets themselves: :func:`unescape_word` gives them, :func:`escape_word`
writes a word back for a bracketed file.
"""
from __future__ import annotations

import re

PENN_ESCAPES = {"-LRB-": "(", "-RRB-": ")", "-LCB-": "{", "-RCB-": "}", "-LSB-": "[", "-RSB-": "]"}
_ESCAPE = re.compile("|".join(map(re.escape, PENN_ESCAPES)))


def unescape_word(word: str) -> str:
    """``-LRB-`` -> ``(`` and the other bracket escapes, wherever they are in the word."""
    return _ESCAPE.sub(lambda m: PENN_ESCAPES[m.group()], word) if "-" in word else word


def escape_word(word: str) -> str:
    """``(`` -> ``-LRB-``, ``)`` -> ``-RRB-``: the two characters a Penn word cannot hold.

    Curly and square brackets are legal inside Penn words and stay as they are.
    """
    return word.replace("(", "-LRB-").replace(")", "-RRB-") if "(" in word or ")" in word else word
