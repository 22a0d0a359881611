"""Real worker processes score one run in shards (evaluation.pipeline.sharding): two scoring workers share the
shards, the task that counts the last one merges and stores, and the result is the engine's single pass; a
shard worker killed mid-shard is taken back by its heartbeat while the coordinator's process scores other
runs. Needs PostgreSQL and Redis; fails, never skips, without them."""
from __future__ import annotations

import json
import os
import random
import re
import signal
import time
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from parseval.annotations.easy import read_document
from benchmarks.easy_corpus import other_writer, perturb
from campaign.models import Run, RunStatus
from config import queues
from parseval.evaluation.easy.files import gold_sha256
from parseval.evaluation.easy.scoring import score_corpus
from evaluation.models import Result, ScoringShard
from evaluation.pipeline.services import scoring_parameters
from tests import factories

from .test_worker_scoring import (  # noqa: F401 (fixtures)
    WAIT_SECONDS, api_for, broker_queue, wait_for_final_status, worker_storage, workers,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

FILES = ("general_elda.xml", "general_senat.xml", "mail_10.xml", "oral_delic_2.xml", "questions_trec.xml")
SHARDS = {"PARSEVAL_SHARD_SENTENCES": "100"}  # 494 gold sentences: five shards of one document


def test_two_scoring_workers_share_the_shards_and_store_the_single_pass_result(workers, tmp_path):  # noqa: F811
    validation, validation_log = workers.start("validation", roles=(queues.VALIDATION,), **SHARDS)
    scorers = [workers.start(f"scoring-{k}", roles=(queues.SCORING,), **SHARDS) for k in (1, 2)]
    campaign, api, run_files = sharded_upload("sharded-workers")
    run_id = upload(api, campaign, "sharded", run_files)
    run = wait_for_final_status(run_id, validation, validation_log)
    logs = "\n".join(log.read_text(errors="replace") for _, log in [(validation, validation_log), *scorers])
    assert run.status == RunStatus.SCORED, f"{run.status}: {run.status_reason}\n{logs}"

    # every shard counted once, and by both scoring workers between them (the coordinator's too, once it left)
    counted = re.findall(r"run \d+ shard (\d+): counted", logs)
    assert len(counted) == len(set(counted)) and counted, logs
    workers_counting = [k for k, (_, log) in enumerate(scorers) if "score_run" in log.read_text(errors="replace")
                        or re.search(r"shard \d+: counted", log.read_text(errors="replace"))]
    assert len(workers_counting) == 2, logs
    assert not ScoringShard.objects.exists()

    assert_single_pass(campaign, run, run_files, tmp_path)


def sharded_upload(slug: str):
    """A campaign of :data:`FILES` and a team's API client; the perturbed run files it uploads."""
    campaign = factories.make_easy_campaign(FILES, slug=slug, metrics={"bootstrap": 100, "seed": 3})
    user = factories.make_user(slug)
    factories.make_team(campaign, user, name=f"{slug} team")
    rnd = random.Random(5)
    run_files = {name: other_writer([perturb(s, rnd) for s in read_document(factories.EASY_REF / name,
                                                                              gold=True).sentences],
                                    name, single_quotes=False) for name in FILES}
    return campaign, api_for(user), run_files


def upload(api, campaign, name: str, files: dict[str, bytes]) -> int:
    response = api.post(f"/api/campaigns/{campaign.slug}/runs/",
                        {"name": name, "file": SimpleUploadedFile("run.zip", factories.zip_of(files))},
                        format="multipart")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def assert_single_pass(campaign, run, run_files: dict[str, bytes], tmp_path: Path) -> None:
    """The run's stored result is the engine's single pass over the same files, in this process."""
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


# The short lease of a shard, well below a run's (60 s, the default kept): its worker's death is noticed by
# the shards' watch (beat, every second here) once the shard is silent for it.
SHORT_LEASE = {**SHARDS, "PARSEVAL_SHARD_HEARTBEAT_SECONDS": "1", "PARSEVAL_SHARD_LEASE_SECONDS": "20",
               "PARSEVAL_SHARD_WATCH_SECONDS": "1"}


def pid_of(token: str) -> int:
    return int(token.split(":")[1])  # host:pid:task:nonce (evaluation.pipeline.delivery.new_token)


def test_a_shard_worker_killed_while_the_coordinator_waits(workers, tmp_path):  # noqa: F811
    """Two one-process scoring workers: the one that is not the coordinator is killed while it counts a shard.
    The coordinator's process does not wait for it: another team's run, uploaded after the kill, is scored on
    that process while the killed shard is still silent; the shard is taken back by its heartbeat (not by the
    run's lease: the run is never taken over) and the run is scored once, the single pass's result."""
    validation, validation_log = workers.start("validation", roles=(queues.VALIDATION,), **SHORT_LEASE)
    # beat's tasks, the shards' watch among them, go to the periodic worker, as in the compose file
    periodic, periodic_log = workers.start("periodic", roles=(queues.PERIODIC,), **SHORT_LEASE)
    beat, beat_log = workers.spawn("beat", ["beat", "--loglevel=INFO", "--schedule",
                                            str(workers.var_dir / "beat-schedule")], **SHORT_LEASE)
    scorers = [workers.start(f"scoring-{k}", roles=(queues.SCORING,), **SHORT_LEASE) for k in (1, 2)]
    logs = [validation_log, periodic_log, beat_log, *(log for _, log in scorers)]

    def shown() -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-5000:]}" for p in logs)

    campaign, api, run_files = sharded_upload("killed-shard")
    run_id = upload(api, campaign, "sharded", run_files)
    # one document, one shard: scored by one task, wherever it lands
    small_campaign = factories.make_easy_campaign(("mail_10.xml",), slug="one-document")
    small_user = factories.make_user("one-document")
    factories.make_team(small_campaign, small_user, name="One-document team")

    pids = {proc.pid for proc, _ in scorers}
    deadline, victim = time.monotonic() + WAIT_SECONDS, None
    while victim is None and time.monotonic() < deadline:  # a shard counted by the worker that is not the coordinator
        run = Run.objects.get(pk=run_id)
        assert run.status not in (RunStatus.SCORED, RunStatus.FAILED), \
            f"no shard was seen counted on the other worker before the run ended\n{shown()}"
        coordinator = pid_of(run.claimed_by) if run.claimed_by and run.status == RunStatus.SCORING else None
        if coordinator in pids:
            others = pids - {coordinator}
            victim = next((pid_of(t) for t in ScoringShard.objects.filter(
                run_id=run_id, status=ScoringShard.Status.RUNNING).values_list("taken_by", flat=True)
                if pid_of(t) in others), None)
        time.sleep(0.005)
    assert victim is not None, shown()
    os.kill(victim, signal.SIGKILL)
    killed_shard = ScoringShard.objects.get(run_id=run_id, taken_by__contains=f":{victim}:")
    survivor = next((proc, log) for proc, log in scorers if proc.pid != victim)

    other_id = upload(api_for(small_user), small_campaign, "while the shard is silent",
                      {"mail_10.xml": factories.gold_bytes("mail_10.xml")})
    other = wait_for_final_status(other_id, *survivor)
    run = Run.objects.get(pk=run_id)
    assert other.status == RunStatus.SCORED, f"{other.status}: {other.status_reason}\n{shown()}"
    # scored on the coordinator's process, now the only scoring process, while the sharded run waited for the
    # killed shard: the coordinator did not hold its process
    assert run.status == RunStatus.SCORING, f"{run.status}\n{shown()}"

    run = wait_for_final_status(run_id, *survivor)
    assert run.status == RunStatus.SCORED, f"{run.status}: {run.status_reason}\n{shown()}"
    assert Result.objects.filter(run=run).count() == 1
    assert run.scoring_attempts == 1, shown()  # never taken over: the first delivery's claim, kept for its shards
    text = shown()
    assert "taking over from" not in text
    assert re.search(rf"run {run_id}: shard {killed_shard.index + 1} \(documents [^)]*\) silent since .* taken back",
                     periodic_log.read_text(errors="replace")), text
    survivor_log = survivor[1].read_text(errors="replace")
    assert f"run {run_id} shard {killed_shard.index}: counted" in survivor_log, text
    assert not ScoringShard.objects.exists()
    assert_single_pass(campaign, run, run_files, tmp_path)
