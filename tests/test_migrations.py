"""Migrations match the models and hold nothing of the machine that made them."""
from __future__ import annotations

import pytest
from django.core.management import call_command

from tests.conftest import REPO_ROOT


@pytest.mark.django_db
def test_models_have_no_change_without_a_migration():
    # --check exits non-zero when a model changed and its migration is missing.
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def test_migrations_name_no_path_of_this_machine():
    offenders = [
        str(path.relative_to(REPO_ROOT))
        for path in REPO_ROOT.glob("*/migrations/*.py")
        if str(REPO_ROOT) in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
