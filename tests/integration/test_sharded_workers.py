"""Real worker processes score one run in shards (evaluation.pipeline.sharding): two scoring workers share the
shards, the delivery holding the run merges and stores, and the result is the engine's single pass.
Needs PostgreSQL and Redis; fails, never skips, without them."""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from parseval.annotations.easy import read_document
from benchmarks.easy_corpus import other_writer, perturb
from campaign.models import RunStatus
from config import queues
from parseval.evaluation.easy.files import gold_sha256
from parseval.evaluation.easy.scoring import score_corpus
from evaluation.models import Result, ScoringShard
from evaluation.pipeline.services import scoring_parameters
from tests import factories

from .test_worker_scoring import (  # noqa: F401 (fixtures)
    api_for, broker_queue, wait_for_final_status, worker_storage, workers,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

FILES = ("general_elda.xml", "general_senat.xml", "mail_10.xml", "oral_delic_2.xml", "questions_trec.xml")
SHARDS = {"PARSEVAL_SHARD_SENTENCES": "100"}  # 494 gold sentences: five shards of one document


def test_two_scoring_workers_share_the_shards_and_store_the_single_pass_result(workers, tmp_path):  # noqa: F811
    validation, validation_log = workers.start("validation", roles=(queues.VALIDATION,), **SHARDS)
    scorers = [workers.start(f"scoring-{k}", roles=(queues.SCORING,), **SHARDS) for k in (1, 2)]
    campaign = factories.make_easy_campaign(FILES, slug="sharded-workers", metrics={"bootstrap": 100, "seed": 3})
    user = factories.make_user("sharded")
    factories.make_team(campaign, user, name="Sharded team")
    rnd = random.Random(5)
    run_files = {name: other_writer([perturb(s, rnd) for s in read_document(factories.EASY_REF / name,
                                                                              gold=True).sentences],
                                    name, single_quotes=False) for name in FILES}
    response = api_for(user).post(f"/api/campaigns/{campaign.slug}/runs/",
                                  {"name": "sharded", "file": SimpleUploadedFile("run.zip", factories.zip_of(run_files))},
                                  format="multipart")
    assert response.status_code == 201, response.content
    run = wait_for_final_status(response.json()["id"], validation, validation_log)
    logs = "\n".join(log.read_text(errors="replace") for _, log in [(validation, validation_log), *scorers])
    assert run.status == RunStatus.SCORED, f"{run.status}: {run.status_reason}\n{logs}"

    # every shard counted once, and by both scoring workers between them (the coordinator counts too)
    counted = re.findall(r"run \d+ shard (\d+): counted", logs)
    assert len(counted) == len(set(counted)) and counted, logs
    workers_counting = [k for k, (_, log) in enumerate(scorers) if "score_run" in log.read_text(errors="replace")
                        or re.search(r"shard \d+: counted", log.read_text(errors="replace"))]
    assert len(workers_counting) == 2, logs
    assert not ScoringShard.objects.exists()

    # the engine's single pass over the same files, in this process
    gold_paths = factories.easy_gold_paths(FILES)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    for name, data in run_files.items():
        (run_dir / name).write_bytes(data)
    params = scoring_parameters(campaign)
    expected = score_corpus([read_document(p, gold=True) for p in gold_paths],
                            {p.stem: run_dir / p.name for p in gold_paths},
                            matches=params["matches"], modes=params["modes"], bootstrap=params["bootstrap"],
                            seed=params["seed"], gold_sha256=gold_sha256(gold_paths))
    stored = Result.objects.get(run=run).document
    # the database's JSON keeps no key order: compared as canonical JSON
    assert json.dumps(stored, sort_keys=True) == json.dumps(json.loads(json.dumps(expected)), sort_keys=True)
    assert Path(run.file.path).exists()
