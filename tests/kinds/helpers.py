from __future__ import annotations

from pathlib import Path

from django.core.files.uploadedfile import SimpleUploadedFile

from parseval.annotations.trees.detect import read_trees
from parseval.annotations.trees.penn import write_penn
from campaign.services.runs import upload_run
from parseval.evaluation.deps.errorlab import insert_errors
from tests import factories


def damaged_trees(path: Path, error_type: str = "ATTACH I", seed: int = 1, per_type: int = 3) -> str:
    """The trees of ``path`` with a few sentences damaged by the error lab, one tree per line."""
    trees = read_trees(path)
    out = insert_errors(trees, error_type, seed=seed, per_type=per_type)
    for i, tree in zip(out["indices"], out["damaged"]):
        trees[i] = tree
    return write_penn(trees)


def upload(campaign, team, user, files: dict[str, bytes | str], capture, *, name: str = "run"):
    data = {k: v.encode("utf-8") if isinstance(v, str) else v for k, v in files.items()}
    if len(data) == 1:
        filename, payload = next(iter(data.items()))
    else:
        filename, payload = "run.zip", factories.zip_of(data)
    with capture(execute=True):
        run = upload_run(campaign=campaign, team=team, user=user, name=name,
                         uploaded_file=SimpleUploadedFile(filename, payload))
    run.refresh_from_db()
    return run
