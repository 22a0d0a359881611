"""The scorer's version, stamped on every result.

Bump it whenever a change can alter a figure, so that a stored score can be
traced back to the code that produced it.
"""
SCORER_VERSION = "1.2.0"
