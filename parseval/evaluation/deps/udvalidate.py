"""The Universal Dependencies project's own validator on a CoNLL-U file, its findings as located problems.

A dependency campaign may ask that runs be valid CoNLL-U the way UD defines it
(``{"ud_validation": 2}`` in ``Campaign.metrics``; the IWPT 2020 and 2021
shared tasks required level 2): levels 1 (the file's structure: columns,
ids, multiword ranges) to 5 (the language's features, relations and
auxiliaries). The checks are the UD project's, from its ``udtools`` package
(the official validator, pinned in requirements.txt, with the language data
it ships: it runs offline); each error it reports becomes a
:class:`~parseval.annotations.errors.Problem` with the run file's name, the line and
the sentence id, its level, class and test id in the message, so that a team
can look the test up in UD's documentation. Its warnings are not reported
(they never make a file invalid). The project's own reader still reads the
run for scoring; this is a check, not another reader.
"""
from __future__ import annotations

import importlib.metadata
from pathlib import Path

from parseval.annotations.errors import N_, Problem, missing_extra

LEVELS = (1, 2, 3, 4, 5)
OPTION = "ud_validation"


def validator_version() -> str:
    return f"udtools {importlib.metadata.version('udtools')}"


def check_level(value) -> int | None:
    """The option's value as a level (None or 0: no UD validation); ValueError for anything else."""
    if value in (None, 0):
        return None
    if isinstance(value, bool) or value not in LEVELS:
        raise ValueError(f"{OPTION} must be a UD validation level, one of {', '.join(map(str, LEVELS))} "
                         "(2 is what the IWPT shared tasks required), or 0 for none")
    return value


def ud_problems(path: Path, display: str, level: int, lang: str | None = None) -> list[Problem]:
    """The UD validator's errors on ``path`` at ``level`` (and below), located in ``display``.

    ``lang``: the ISO code of the language (its data decides the level 3-5 tests); unknown or None,
    the validator's generic ``ud``.
    """
    try:
        from udtools import Validator  # GPL: the `ud-validate` extra, never the library's core
    except ModuleNotFoundError:
        raise missing_extra("The UD validator (udtools)", "ud-validate") from None
    try:
        validator = Validator(lang=lang or "ud", level=level, output=None)
    except Exception:  # a language the validator has no data for: its generic tests
        validator = Validator(lang="ud", level=level, output=None)
    state = validator.validate_files([str(path)])
    errors = sorted((i for i in state.error_tracker if i.is_error()), key=lambda i: (i.lineno or 0, str(i.testid)))
    return [Problem(N_('UD validation (level %(level)s): %(message)s [level %(level2)s %(testclass)s %(testid)s]') % {"level": level, "message": i.message, "level2": i.level, "testclass": i.testclass, "testid": i.testid},
                    file=display, line=i.lineno or None, sentence=i.sentid or None)
            for i in errors]
