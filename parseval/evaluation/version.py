"""The scorer's version, stamped on every result.

Bump it whenever a change can alter a figure, so that a stored score can be
traced back to the code that produced it.
"""
SCORER_VERSION = "1.2.0"


def converter_versions() -> dict[str, str]:
    """The version of every converter a run may go through before scoring (UD to EASY, UD to trees).

    Imported here on demand: the converters are heavier than this module."""
    from parseval.evaluation.deps.ud2tree import TREE_CONVERTER_VERSION
    from parseval.evaluation.ud2easy.convert import CONVERTER_VERSION

    return {"ud2easy": CONVERTER_VERSION, "ud2tree": TREE_CONVERTER_VERSION}
