"""One EASY run scored in shards across workers (evaluation.pipeline.sharding), in process: the stored result is byte
for byte the single task's; a small run stays one task; a failing shard fails the run and stores nothing; a
shard of a delivery that lost the run writes nothing; a coordinator leaves a shard another worker counts, and
the shards' watch takes it back once silent. (With real worker processes: tests/integration.)"""
from __future__ import annotations

import contextlib
import inspect
import io
import json
import random
import zipfile
from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from parseval.annotations.easy import read_document
from annotations.models import gold_storage
from annotations.models import GoldSentence
from benchmarks.easy_corpus import other_writer, perturb
from campaign.models import RunStatus
from evaluation.pipeline import delivery, sharding
from evaluation.kinds.easy import EasyKind
from parseval.evaluation.easy.gold_index import IndexedDocument
from parseval.evaluation.easy.shards import ShardCounts
from evaluation.kinds.easy import conllu as easy_conllu
from evaluation.kinds.easy import gold as easy_gold
from evaluation.kinds.easy import shards as easy_shards
from evaluation.kinds.gold import run_subset_gold
from evaluation.models import Result, ScoringShard
from tests import factories
from tests.web.helpers import deliver, stored_run

pytestmark = pytest.mark.django_db

FILES = ("general_elda.xml", "general_senat.xml", "mail_10.xml", "oral_delic_2.xml", "oral_delic_8.xml",
         "questions_trec.xml", "medical_6.xml")
SHORT = "medical_6.xml"  # its run leaves out sentences: they score as empty output


def realistic_run() -> bytes:
    """The gold perturbed and written by lxml in another shape than the reference's, one document short."""
    rnd = random.Random(11)
    files = {}
    for name in FILES:
        sentences = read_document(factories.EASY_REF / name, gold=True).sentences
        if name == SHORT:
            sentences = sentences[::2]
        files[name] = other_writer([perturb(s, rnd) for s in sentences], name, single_quotes=name < "n")
    return factories.zip_of(files)


@pytest.fixture
def campaign(storage):
    return factories.make_easy_campaign(FILES, slug="sharded", metrics={"bootstrap": 200, "seed": 5})


def scored(campaign, user, data: bytes, settings, per_shard: int, name: str):
    settings.PARSEVAL_SHARD_SENTENCES = per_shard
    team = factories.make_team(campaign, user, name=f"team {name}")
    run = stored_run(campaign, team, user, data, "run.zip", name=name)
    outcome = deliver(run.pk)
    run.refresh_from_db()
    return run, outcome


def document_bytes(run) -> bytes:
    return json.dumps(Result.objects.get(run=run).document).encode("utf-8")


@pytest.mark.parametrize("part_of_the_gold", [False, True], ids=["whole gold", "part of two gold files"])
def test_the_sharded_result_is_byte_identical_to_the_single_task_result(campaign, alice, bob, settings,
                                                                        part_of_the_gold):
    if part_of_the_gold:  # the test subset leaves out sentences of two files: the checksum lists what was scored
        for name in ("mail_10", "questions_trec"):
            sids = list(GoldSentence.objects.filter(sentence__document__campaign=campaign,
                                                    sentence__document__name=name)
                        .values_list("pk", flat=True).order_by("pk")[:7])
            GoldSentence.objects.filter(pk__in=sids).update(subset=GoldSentence.Subset.DEV)
    data = realistic_run()
    single, outcome = scored(campaign, alice, data, settings, 0, "single")
    assert outcome == "scored", (single.status_reason, single.validation_report)
    merges = mock.patch.object(EasyKind, "merge_shards", autospec=True, side_effect=EasyKind.merge_shards)
    sends = mock.patch.object(sharding.score_shard, "delay", wraps=sharding.score_shard.delay)
    with merges as merge, sends as send:
        sharded, outcome = scored(campaign, bob, data, settings, 200, "sharded")
    assert outcome == "scored", sharded.status_reason
    assert merge.call_count == 1 and send.call_count >= 3  # 669 gold sentences in shards of at most 200
    # the shards' counts are read one at a time as the merge comes to them, not all held together
    assert inspect.isgenerator(merge.call_args.args[3])
    shards = [call.args[3] for call in send.call_args_list]
    assert [n for docs in shards for n in docs] == [n.removesuffix(".xml") for n in sorted(FILES)]
    assert document_bytes(sharded) == document_bytes(single)
    result = Result.objects.get(run=sharded)
    assert (result.signature, result.gold_sha256) == (Result.objects.get(run=single).signature,
                                                      Result.objects.get(run=single).gold_sha256)
    assert result.cells.count() == Result.objects.get(run=single).cells.count()
    assert sharded.status == RunStatus.SCORED and sharded.progress == 100
    assert not ScoringShard.objects.exists()  # the shards' counts go once the result is stored
    warnings = [w["message"] for w in result.document["warnings"]]
    assert any("missing from the run" in w for w in warnings)
    if part_of_the_gold:
        assert result.document["counts"]["gold_sentences"] == 669 - 14


def test_the_shards_read_the_stored_gold_index_and_only_their_documents_files(campaign, alice, bob, settings):
    """Sharded first, the shards build and store each gold file's index; then no shard parses gold XML, each
    worker unpacks only its own documents' files, and both results are the single task's, byte for byte."""
    data = realistic_run()
    first, outcome = scored(campaign, alice, data, settings, 200, "sharded first")
    assert outcome == "scored", first.status_reason
    stored = sorted(gold_storage.listdir(f"{campaign.slug}/index")[1])
    assert [name.split(".")[0] for name in stored] == [n.removesuffix(".xml") for n in sorted(FILES)]
    real = EasyKind.score_shard
    seen = []

    def recording(self, run, files, setup, documents):
        with index_reads() as (whole, ids_only):
            counts = real(self, run, files, setup, documents)
        seen.append((set(files), set(documents), whole.call_count, ids_only.call_count))
        return counts

    with mock.patch("evaluation.kinds.easy.gold._build", side_effect=AssertionError("gold XML parsed")), \
            mock.patch("evaluation.kinds.easy.gold.cut", side_effect=AssertionError("gold XML parsed")), \
            mock.patch.object(EasyKind, "score_shard", recording):
        again, outcome = scored(campaign, bob, data, settings, 200, "sharded again")
    assert outcome == "scored", again.status_reason
    assert len(seen) >= 3 and all(files <= documents for files, documents, _, _ in seen)
    assert set().union(*(files for files, _, _, _ in seen)) == {n.removesuffix(".xml") for n in FILES}
    # a shard loads each of its documents' index once, when the document's run comes; nothing reads it ahead
    assert [(whole, ids_only) for _, _, whole, ids_only in seen] == [(len(d), 0) for _, d, _, _ in seen]
    settings.PARSEVAL_SHARD_SENTENCES = 0
    real_single, loads = EasyKind.score_run_files, []

    def single_recording(self, run, files, setup, progress=None):
        with index_reads() as (whole, ids_only):
            document = real_single(self, run, files, setup, progress)
        loads.append((whole.call_count, ids_only.call_count))
        return document

    with mock.patch.object(EasyKind, "score_run_files", single_recording):
        single, outcome = scored(campaign, factories.make_user("carol"), data, settings, 0, "single")
    assert outcome == "scored", single.status_reason
    # the single task reads the sentence ids ahead (for the checksum), then loads each whole index once
    assert loads == [(len(FILES), len(FILES))]
    assert document_bytes(first) == document_bytes(again) == document_bytes(single)


@contextlib.contextmanager
def index_reads():
    """Mocks counting the stored gold indexes read whole and those read for their sentence ids alone."""
    with mock.patch.object(IndexedDocument, "from_bytes", wraps=IndexedDocument.from_bytes) as whole, \
            mock.patch.object(IndexedDocument, "sentence_ids_from_bytes",
                              wraps=IndexedDocument.sentence_ids_from_bytes) as ids_only:
        yield whole, ids_only


def test_a_shard_whose_counting_loads_no_gold_reports_the_same_sentences(campaign, alice, settings, tmp_path):
    """What the merge needs of each document (whole, the sentences kept) is noted when the counting loads its
    gold; a document the counting did not load is read for its sentence ids alone: the same shard either way."""
    for name in ("mail_10", "questions_trec"):  # part of two files: not whole
        sids = list(GoldSentence.objects.filter(sentence__document__campaign=campaign, sentence__document__name=name)
                    .values_list("pk", flat=True).order_by("pk")[:7])
        GoldSentence.objects.filter(pk__in=sids).update(subset=GoldSentence.Subset.DEV)
    data = realistic_run()
    run, outcome = scored(campaign, alice, data, settings, 0, "single")
    assert outcome == "scored", run.status_reason
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        archive.extractall(tmp_path / "run")
    files = {path.stem: path for path in (tmp_path / "run").glob("*.xml")}
    documents = ["mail_10", "oral_delic_2", "questions_trec"]
    setup = EasyKind().setup(run)
    noted = ShardCounts.from_bytes(easy_shards.score_shard(run, files, setup, documents))

    _, wanted, found = run_subset_gold(run)
    golds = {g.document.name: g for g in found}
    real = easy_shards.count_shard

    def ahead(gold_docs, *args, **kwargs):  # the indexes loaded here, never through the shard's loaders
        return real({name: easy_gold.gold_index(golds[name], setup.context["schema"])
                     .restricted(wanted[golds[name].document.pk]) for name in gold_docs}, *args, **kwargs)

    with mock.patch.object(easy_shards, "count_shard", ahead), index_reads() as (_, ids_only):
        alone = ShardCounts.from_bytes(easy_shards.score_shard(run, files, setup, documents))
    assert ids_only.call_count == len(documents)
    assert noted.extra == alone.extra and noted.extra["kept"] == {}  # every wanted sentence is in its file
    assert noted.extra["whole"] == {"mail_10": False, "oral_delic_2": True, "questions_trec": False}


def test_a_sharded_conllu_run_is_scored_on_its_conversion_as_the_single_task(storage, alice, bob, settings,
                                                                            tmp_path):
    """A CoNLL-U run's shards read only their documents of its stored conversion; the result is the single
    task's, converter and all."""
    from campaign.services.corpus import import_corpus
    from tests.web.test_conllu_runs import ACCEPTS, PARSES

    data = factories.gold_bytes("general_elda.xml").decode("utf-8")
    three = data[:data.index('<E id="E4">')] + "</DOCUMENT>\n"  # the sentences PARSES parses
    gold = [tmp_path / "general_copy.xml", tmp_path / "general_elda.xml"]  # imported in this order: corpus order
    for path in gold:
        path.write_text(three, encoding="utf-8")
    campaign = factories.make_campaign(metrics=ACCEPTS, slug="sharded-conllu")
    import_corpus(campaign, gold)
    data = factories.zip_of({"general_copy.conllu": PARSES, "general_elda.conllu": PARSES})
    single, outcome = scored(campaign, alice, data, settings, 0, "single")
    assert outcome == "scored", single.validation_report.get("problems")
    real, real_converted = EasyKind.score_shard, easy_conllu.converted_files
    seen, converted = [], []

    def recording(self, run, files, setup, documents):
        seen.append((sorted(files), documents))
        return real(self, run, files, setup, documents)

    @contextlib.contextmanager
    def converting(run, staging, documents=None):
        with real_converted(run, staging, documents) as files:
            if documents is not None:  # a shard's (the stored result's diagnostics read every document)
                converted.append(sorted(files))
            yield files

    with mock.patch.object(EasyKind, "score_shard", recording), \
            mock.patch.object(easy_conllu, "converted_files", converting):
        sharded, outcome = scored(campaign, bob, data, settings, 3, "sharded")
    assert outcome == "scored", sharded.status_reason
    assert seen == [(["general_copy"], ["general_copy"]), (["general_elda"], ["general_elda"])]
    assert converted == [["general_copy"], ["general_elda"]]
    assert Result.objects.get(run=sharded).document["parameters"]["converter"]
    assert document_bytes(sharded) == document_bytes(single)


def test_a_small_run_stays_one_task(campaign, alice, settings):
    with mock.patch.object(sharding.score_shard, "delay") as send, \
            mock.patch.object(EasyKind, "merge_shards") as merge:
        run, outcome = scored(campaign, alice, realistic_run(), settings, 669, "small")
    assert outcome == "scored" and run.status == RunStatus.SCORED
    assert send.call_count == 0 and merge.call_count == 0
    assert not ScoringShard.objects.exists()


def test_a_failing_shard_fails_the_run_with_its_location_and_stores_nothing(campaign, alice, settings):
    real = EasyKind.score_shard

    def failing(self, run, files, setup, documents):
        if "oral_delic_2" in documents:
            raise RuntimeError("boom")
        return real(self, run, files, setup, documents)

    with mock.patch.object(EasyKind, "score_shard", failing):
        run, outcome = scored(campaign, alice, realistic_run(), settings, 200, "failing")
    assert outcome == "failed" and run.status == RunStatus.FAILED
    assert "internal error (RuntimeError) in shard 4 (documents oral_delic_2 to oral_delic_8)" in run.status_reason
    assert run.status_reason.startswith("not caused by the run")
    assert not Result.objects.filter(run=run).exists()
    assert not ScoringShard.objects.exists()


def test_a_shard_of_a_delivery_that_lost_the_run_writes_nothing(campaign, alice, settings):
    settings.PARSEVAL_SHARD_SENTENCES = 200
    team = factories.make_team(campaign, alice, name="stale")
    run = stored_run(campaign, team, alice, realistic_run(), "run.zip", name="stale")
    with mock.patch("evaluation.pipeline.tasks.enqueue_scoring"):
        from evaluation.pipeline.tasks import validate_run
        validate_run.apply(args=[run.pk]).get()
    held = delivery.claim(run.pk, "coordinator-A", delivery.SCORING)
    delivery.write(held, status=RunStatus.SCORING)
    plan = [["general_elda", "general_senat"], ["mail_10", "oral_delic_2"]]
    sharding._record(held, plan)
    # a duplicated message of shard 1 while A holds the run: counted once, the duplicate does nothing
    assert sharding.score_shard.apply(args=[run.pk, held.token, 1, plan[1]]).get().endswith("counted")
    assert "not pending" in sharding.score_shard.apply(args=[run.pk, held.token, 1, plan[1]]).get()
    # the run is taken over (A was paused past its lease): A's shard 0 counts but stores nothing
    type(run).objects.filter(pk=run.pk).update(claimed_by="coordinator-B")
    assert sharding.score_shard.apply(args=[run.pk, held.token, 0, plan[0]]).get().endswith("stale: nothing written")
    shard0 = ScoringShard.objects.get(token=held.token, index=0)
    assert shard0.counts is None and shard0.status == ScoringShard.Status.RUNNING
    # and A, as coordinator, finds it lost the claim and stores nothing
    run.refresh_from_db()
    with pytest.raises(delivery.LostClaim):
        sharding.score(run, EasyKind().setup(run), held, {}, plan)
    assert not Result.objects.filter(run=run).exists()


def handed_over_run(campaign, user, settings, name: str):
    """A run whose coordinator could not send shards 0, 2, 3 and 4 (the broker refused them) and sent shard 1,
    which another worker took (and beat a moment ago): it counts the four and leaves instead of waiting for
    shard 1; the run, still held by its claim, and the outcome."""
    settings.PARSEVAL_SHARD_SENTENCES = 200
    team = factories.make_team(campaign, user, name=f"team {name}")
    run = stored_run(campaign, team, user, realistic_run(), "run.zip", name=name)
    with mock.patch("evaluation.pipeline.tasks.enqueue_scoring"):
        from evaluation.pipeline.tasks import score_run, validate_run
        validate_run.apply(args=[run.pk]).get()

    def another_worker_takes_shard_1(held, shards):
        assert sharding._take(held.token, "host:999:other-worker:0", 1) is not None
        return [0, 2, 3, 4]

    with mock.patch.object(sharding, "_send", another_worker_takes_shard_1):
        outcome = score_run.apply(args=[run.pk]).get()
    run.refresh_from_db()
    return run, outcome


def test_the_coordinator_leaves_a_shard_another_worker_counts_and_the_watch_takes_it_back_when_silent(
        campaign, alice, bob, settings):
    single, outcome = scored(campaign, alice, realistic_run(), settings, 0, "single")
    assert outcome == "scored"
    run, outcome = handed_over_run(campaign, bob, settings, "handed over")
    assert outcome.endswith("1 of 5 shards left to other scoring processes; the last to finish stores the result")
    assert run.status == RunStatus.SCORING and run.claimed_by  # the claim is kept for the shard
    left = ScoringShard.objects.get(token=run.claimed_by, status=ScoringShard.Status.RUNNING)
    assert left.index == 1 and ScoringShard.objects.filter(status=ScoringShard.Status.DONE).count() == 4

    # the other worker beats: the watch leaves its shard alone, and keeps the run it was handed alive
    type(run).objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    assert sharding.watch_shards.apply().get() == {"taken_back": 0, "resent": 0, "sent": 0, "vouched": 1,
                                                   "dropped": 0}
    run.refresh_from_db()
    assert timezone.now() - run.heartbeat_at < timedelta(minutes=1)
    # then it stops beating for the short lease: taken back, sent again, counted, and the last one stores
    ScoringShard.objects.filter(pk=left.pk).update(
        beat_at=timezone.now() - timedelta(seconds=settings.PARSEVAL_SHARD_LEASE_SECONDS + 1))
    with mock.patch.object(EasyKind, "merge_shards", autospec=True, side_effect=EasyKind.merge_shards) as merge:
        assert sharding.watch_shards.apply().get()["taken_back"] == 1
    run.refresh_from_db()
    assert run.status == RunStatus.SCORED and merge.call_count == 1
    assert run.scoring_attempts == 1  # never taken over: the first delivery's claim, kept for its shards
    assert document_bytes(run) == document_bytes(single)
    assert not ScoringShard.objects.exists()


def test_a_shard_that_stops_its_worker_every_time_ends_the_run_failed(campaign, alice, settings):
    run, _ = handed_over_run(campaign, alice, settings, "killer")
    ScoringShard.objects.filter(status=ScoringShard.Status.RUNNING).update(  # its worker stops each time
        beat_at=timezone.now() - timedelta(hours=1), interrupted=settings.PARSEVAL_MAX_SCORING_ATTEMPTS - 1)
    documents = ScoringShard.objects.get(status=ScoringShard.Status.RUNNING).documents
    with mock.patch.object(sharding.score_shard, "apply_async") as send:
        assert sharding.watch_shards.apply().get()["taken_back"] == 0
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and not run.claimed_by and send.call_count == 0
    assert run.status_reason.startswith(f"scoring was interrupted {settings.PARSEVAL_MAX_SCORING_ATTEMPTS} times "
                                        f"while counting shard 2 (documents {documents[0]}")
    assert not ScoringShard.objects.exists() and not Result.objects.filter(run=run).exists()


def test_the_watch_drops_the_shards_of_a_delivery_that_lost_the_run(campaign, alice, settings):
    run, _ = handed_over_run(campaign, alice, settings, "lost")
    type(run).objects.filter(pk=run.pk).update(claimed_by="", heartbeat_at=None)  # taken back by the run's lease
    assert sharding.watch_shards.apply().get()["dropped"] == 5
    assert not ScoringShard.objects.exists()
