"""Helpers shared by the portal and API tests."""
from __future__ import annotations

from django.core.files.uploadedfile import SimpleUploadedFile

from campaign.models import Run
from campaign.services.runs import upload_run
from tests import factories


def stored_run(campaign, team, user, data: bytes | None = None, filename: str = "run.zip", *,
               capture=None, name: str = "run", scope: str = "test") -> Run:
    """A run uploaded through the service; scored in process when ``capture`` (the on-commit fixture) is given."""
    data = factories.gold_run_zip() if data is None else data
    upload = SimpleUploadedFile(filename, data)
    if capture is None:
        return upload_run(campaign=campaign, team=team, user=user, name=name, uploaded_file=upload, scope=scope)
    with capture(execute=True):
        run = upload_run(campaign=campaign, team=team, user=user, name=name, uploaded_file=upload, scope=scope)
    run.refresh_from_db()
    return run


def with_wrong_form(name: str, sentence: str, form: str, text: str) -> bytes:
    """The gold file ``name`` with the text of one form changed."""
    data = factories.gold_bytes(name).decode("utf-8")
    start = data.index(f'<F id="{form}">')
    end = data.index("</F>", start)
    return (data[:start] + f'<F id="{form}">{text}' + data[end:]).encode("utf-8")


def deliver(run_id: int) -> str:
    """Both steps of a run in process, one after the other as the two queues' workers run them: the outcome of
    the last step that ran (validation's, or scoring's once validation handed the run on)."""
    from unittest import mock

    from evaluation.pipeline.tasks import QUEUED, score_run, validate_run

    with mock.patch("evaluation.pipeline.tasks.enqueue_scoring"):  # no chaining: this helper sends the next step itself
        outcome = validate_run.apply(args=[run_id]).get()
    if outcome != QUEUED:
        return outcome
    return score_run.apply(args=[run_id]).get()
