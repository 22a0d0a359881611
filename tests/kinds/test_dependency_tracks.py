"""Dependency tracks: runs on the gold words and runs in the parser's own tokenisation and segmentation.

The hand-made case: one document, two gold sentences.

* a1 "Il parle du chat." -- 5 tokens, 6 words (``du`` = ``de`` + ``le``), content words Il (nsubj),
  parle (root), chat (obl): 3.
* a2 "Il part à 12 h." -- 6 tokens, 6 words, content words Il, part, 12 (obl), h (flat): 4.

The raw-text run cuts a1 in two ("Il parle" | "du chat ."), splits ``du`` the same way, attaches ``chat``
to the root wrongly (it is the root of its own sentence) and ``.`` to ``chat``, and merges "12 h" into
"12h". Per gold sentence (system items go to the gold sentence holding their first character):

============  =========  =========  =========  ==========  ===========
gold          Tokens     Sentences  Words      LAS         CLAS (MLAS, BLEX)
              c/g/s      c/g/s      c/g/s      c/g/s       c/g/s
============  =========  =========  =========  ==========  ===========
a1            5/5/5      0/1/2      6/6/6      4/6/6       2/3/3
a2            4/6/5      1/1/1      4/6/5      3/6/5       2/4/3
all           9/11/10    1/2/3      10/12/11   7/12/11     4/7/6
============  =========  =========  =========  ==========  ===========

a1: Il, parle, de, le keep head and relation (4); chat and "." lose their head. a2: "12" and "h" are not
aligned (one system token "12h" covers both), "à" is aligned but its head "12h" has no gold partner, so
Il, part and "." are right (3). UPOS: every aligned word (6 + 4 = 10).
"""
from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from campaign.models import CampaignKind, RunStatus
from campaign.rules import UploadRefused
from campaign.services.runs import upload_run
from evaluation.__main__ import main
from tests import factories

GOLD = """\
# sent_id = a1
# text = Il parle du chat.
1\tIl\til\tPRON\t_\t_\t2\tnsubj\t_\t_
2\tparle\tparler\tVERB\t_\t_\t0\troot\t_\t_
3-4\tdu\t_\t_\t_\t_\t_\t_\t_\t_
3\tde\tde\tADP\t_\t_\t5\tcase\t_\t_
4\tle\tle\tDET\t_\t_\t5\tdet\t_\t_
5\tchat\tchat\tNOUN\t_\t_\t2\tobl\t_\tSpaceAfter=No
6\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_

# sent_id = a2
# text = Il part à 12 h.
1\tIl\til\tPRON\t_\t_\t2\tnsubj\t_\t_
2\tpart\tpartir\tVERB\t_\t_\t0\troot\t_\t_
3\tà\tà\tADP\t_\t_\t4\tcase\t_\t_
4\t12\t12\tNUM\t_\t_\t2\tobl\t_\t_
5\th\th\tNOUN\t_\t_\t4\tflat\t_\tSpaceAfter=No
6\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_

"""

RAW_RUN = """\
# sent_id = s1
1\tIl\til\tPRON\t_\t_\t2\tnsubj\t_\t_
2\tparle\tparler\tVERB\t_\t_\t0\troot\t_\t_

# sent_id = s2
1-2\tdu\t_\t_\t_\t_\t_\t_\t_\t_
1\tde\tde\tADP\t_\t_\t3\tcase\t_\t_
2\tle\tle\tDET\t_\t_\t3\tdet\t_\t_
3\tchat\tchat\tNOUN\t_\t_\t0\troot\t_\t_
4\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\t_

# sent_id = s3
1\tIl\til\tPRON\t_\t_\t2\tnsubj\t_\t_
2\tpart\tpartir\tVERB\t_\t_\t0\troot\t_\t_
3\tà\tà\tADP\t_\t_\t4\tcase\t_\t_
4\t12h\t12h\tNUM\t_\t_\t2\tobl\t_\t_
5\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_

"""


@pytest.fixture
def both_tracks(db, storage, tmp_path, organiser):
    from evaluation.kinds import get

    campaign = factories.make_campaign(slug="tracks", kind=CampaignKind.DEPENDENCY, organisers=[organiser],
                                       metrics={"tracks": ["gold-tokens", "raw-text"]})
    gold = tmp_path / "doc.conllu"
    gold.write_text(GOLD, encoding="utf-8")
    get("dependency").import_corpus(campaign, [gold], genres={"doc": "news"})
    return campaign


def _upload(campaign, team, user, text: str, capture, *, track: str = "", name: str = "run"):
    with capture(execute=True):
        run = upload_run(campaign=campaign, team=team, user=user, name=name, track=track,
                         uploaded_file=SimpleUploadedFile("doc.conllu", text.encode("utf-8")))
    run.refresh_from_db()
    return run


def _row(doc, name):
    r = doc["rows"][name]
    return r["correct"], r["gold"], r["system"]


# -- options ---------------------------------------------------------------------------------

def test_tracks_option_is_checked():
    from django import forms

    from campaign.admin_forms import check_metrics

    check_metrics("dependency", {"tracks": ["raw-text"]})
    check_metrics("dependency", {"tracks": ["gold-tokens", "raw-text"]})
    for bad, said in ((["raw"], "unknown track(s) 'raw'"), ([], "non-empty list"), ("raw-text", "non-empty list"),
                      (["raw-text", "raw-text"], "listed twice")):
        with pytest.raises(forms.ValidationError, match=said.replace("(", r"\(").replace(")", r"\)")):
            check_metrics("dependency", {"tracks": bad})
    with pytest.raises(forms.ValidationError, match="Unknown option"):
        check_metrics("constituency", {"tracks": ["raw-text"]})


def test_a_track_the_campaign_does_not_accept_is_refused(dep_campaign, alice, django_capture_on_commit_callbacks):
    team = factories.make_team(dep_campaign, alice, name="Team R")
    with pytest.raises(UploadRefused, match="does not accept runs in the raw text track .'raw-text'.; "
                                            "it accepts 'gold-tokens'"):
        _upload(dep_campaign, team, alice, RAW_RUN, django_capture_on_commit_callbacks, track="raw-text")
    assert not dep_campaign.runs.exists()


def test_the_api_refuses_an_unaccepted_track_with_the_message(client, dep_campaign, alice):
    team = factories.make_team(dep_campaign, alice, name="Team R")
    client.force_login(alice)
    response = client.post(reverse("api:campaign-runs", kwargs={"slug": dep_campaign.slug}),
                           {"name": "r", "track": "raw-text", "file": SimpleUploadedFile("x.conllu", b"x")})
    assert response.status_code == 400, response.content
    assert "does not accept runs in the raw text track" in response.content.decode()
    assert not team.runs.exists()


# -- download ----------------------------------------------------------------------------------

def test_download_holds_raw_text_and_gold_tokenisation(client, both_tracks, alice):
    factories.make_team(both_tracks, alice, name="Team T")
    client.force_login(alice)
    response = client.get(reverse("portal:corpus_download", kwargs={"slug": both_tracks.slug}))
    assert response.status_code == 200
    with zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content))) as zf:
        assert sorted(zf.namelist()) == ["doc.tok", "doc.tokens.conllu", "doc.txt"]
        # one paragraph: the sentences' "# text" joined by a space
        assert zf.read("doc.txt").decode() == "Il parle du chat. Il part à 12 h.\n"
        tokens = zf.read("doc.tokens.conllu").decode()
    assert tokens.startswith("# sent_id = a1\n# text = Il parle du chat.\n1\tIl\t_\t_\t_\t_\t_\t_\t_\t_\n")
    assert "3-4\tdu\t_\t_\t_\t_\t_\t_\t_\t_\n3\tde\t_\t_\t_\t_\t_\t_\t_\t_\n4\tle\t_" in tokens
    # nothing of the gold but ids and forms: no lemma, tag, head or relation
    assert "parler" not in tokens and "nsubj" not in tokens and "PRON" not in tokens


# -- raw-text runs -------------------------------------------------------------------------------

def test_raw_text_run_scored_per_gold_sentence_and_equal_to_the_cli(both_tracks, alice, tmp_path, capsys,
                                                                      django_capture_on_commit_callbacks):
    team = factories.make_team(both_tracks, alice, name="Team T")
    run = _upload(both_tracks, team, alice, RAW_RUN, django_capture_on_commit_callbacks, track="raw-text")
    assert run.track == "raw-text"
    assert run.status == RunStatus.SCORED, (run.status_reason, run.validation_report)
    result = run.results.get()
    doc = result.document["metrics"]["conll18"]
    assert result.document["parameters"]["track"] == "raw-text"
    assert list(result.document["metrics"]) == ["conll18"]  # Lin's triples need sentence pairing
    assert _row(doc, "Tokens") == (9, 11, 10)
    assert _row(doc, "Sentences") == (1, 2, 3)
    assert _row(doc, "Words") == (10, 12, 11)
    assert _row(doc, "UPOS") == (10, 12, 11)
    assert _row(doc, "LAS") == (7, 12, 11)
    for name in ("CLAS", "MLAS", "BLEX"):
        assert _row(doc, name) == (4, 7, 6)
    cells = {c.layer: c for c in result.cells.filter(genre="ALL", type="ALL")}
    assert cells["conll18-las"].f == pytest.approx(2 * 7 / (12 + 11))
    assert cells["conll18-clas"].f == pytest.approx(8 / 13)
    assert cells["conll18-upos"].f == pytest.approx(20 / 23)
    assert "deps-las" not in cells
    assert result.cells.get(layer="conll18-las", genre="news", type="ALL").f == pytest.approx(14 / 23)

    # the same figures as the shared task's definitions on the two files
    gold_path, run_path = tmp_path / "g.conllu", tmp_path / "r.conllu"
    gold_path.write_text(GOLD, encoding="utf-8")
    run_path.write_text(RAW_RUN, encoding="utf-8")
    assert main(["deps", "--preset", "conll18", "--gold", str(gold_path), "--test", str(run_path),
                 "--json", "-"]) == 0
    cli = json.loads(capsys.readouterr().out)
    for name, row in cli["rows"].items():
        assert _row(doc, name) == (row["correct"], row["gold"], row["system"]), name
        assert doc["rows"][name]["f1"] == pytest.approx(row["f1"])

    # per gold sentence: the rows the paired tests and the intervals read
    from parseval.evaluation.metrics.conll18 import METRIC

    keys, strata, rows = both_tracks_kind().sentence_rows(result)
    assert keys == ["doc/a1", "doc/a2"] and strata == ["news", "news"]
    las = METRIC.columns.index("las")
    words_system = METRIC.columns.index("words_system")
    assert rows[:, las].tolist() == [4, 3] and rows[:, words_system].tolist() == [6, 5]


def both_tracks_kind():
    from evaluation.kinds import get

    return get("dependency")


def test_only_test_subset_sentences_count(both_tracks, alice, django_capture_on_commit_callbacks):
    from annotations.models import GoldSentence

    # a2 moves to the development sample: the test figures are a1's alone, aligned over the whole document
    GoldSentence.objects.filter(sentence__sid="a2").update(subset=GoldSentence.Subset.DEV)
    team = factories.make_team(both_tracks, alice, name="Team T")
    run = _upload(both_tracks, team, alice, RAW_RUN, django_capture_on_commit_callbacks, track="raw-text")
    assert run.status == RunStatus.SCORED, (run.status_reason, run.validation_report)
    result = run.results.get()
    doc = result.document["metrics"]["conll18"]
    assert [s["sid"] for s in result.document["sentences"]] == ["a1"]
    assert _row(doc, "LAS") == (4, 6, 6) and _row(doc, "Sentences") == (0, 1, 2)


def test_raw_text_run_of_another_text_is_refused_with_its_place(both_tracks, alice,
                                                                django_capture_on_commit_callbacks):
    team = factories.make_team(both_tracks, alice, name="Team T")
    wrong = RAW_RUN.replace("4\t12h\t12h", "4\t13h\t13h")
    run = _upload(both_tracks, team, alice, wrong, django_capture_on_commit_callbacks, track="raw-text")
    assert run.status == RunStatus.INVALID
    report = run.validation_report
    assert report["valid"] is False and report["problem_count"] == 1
    problem = report["problems"][0]
    # "Ilparleduchat." is 14 characters (0-13), "Ilpartà" 7 more (14-20), "1" is 21: the "2" is character 22,
    # on line 16 of the run (its token "13h"), in corpus sentence a2
    assert problem["file"] == "doc.conllu" and problem["line"] == 16 and problem["sentence"] == "a2"
    assert "non-whitespace character 22 (corpus sentence a2, run sentence s3)" in problem["message"]
    assert "'3h.'" in problem["message"] and "'2h.'" in problem["message"]


def test_gold_token_run_gets_conll18_figures_beside_lin(both_tracks, alice, django_capture_on_commit_callbacks):
    team = factories.make_team(both_tracks, alice, name="Team T")
    run = _upload(both_tracks, team, alice, GOLD, django_capture_on_commit_callbacks)
    assert run.track == "gold-tokens"  # the campaign's first track when none is given
    assert run.status == RunStatus.SCORED, (run.status_reason, run.validation_report)
    cells = {c.layer: c.f for c in run.results.get().cells.filter(genre="ALL", type="ALL")}
    assert {"deps-lin", "deps-las", "conll18-upos", "conll18-las", "conll18-clas", "conll18-mlas",
            "conll18-blex"} <= set(cells)
    assert "conll18-tokens" not in cells  # 100% by construction on the gold words
    assert all(cells[k] == pytest.approx(1.0) for k in cells if k.startswith("conll18"))


def test_results_page_ranks_each_track_apart(client, both_tracks, alice, organiser,
                                             django_capture_on_commit_callbacks):
    team = factories.make_team(both_tracks, alice, name="Team T")
    _upload(both_tracks, team, alice, GOLD, django_capture_on_commit_callbacks, track="gold-tokens", name="gold-run")
    _upload(both_tracks, team, alice, RAW_RUN, django_capture_on_commit_callbacks, track="raw-text", name="raw-run")
    client.force_login(organiser)
    html = client.get(reverse("results:campaign", kwargs={"slug": both_tracks.slug})).content.decode()
    gold_at, raw_at = html.index('id="track-gold-tokens"'), html.index('id="track-raw-text"')
    assert gold_at < raw_at
    gold_section, raw_section = html[gold_at:raw_at], html[raw_at:]
    assert "gold-run" in gold_section and "raw-run" not in gold_section
    assert "raw-run" in raw_section and "gold-run" not in raw_section.split("explain")[0]
    for header in ("UPOS F1 (CoNLL 2018)", "LAS F1 (CoNLL 2018)", "CLAS F1 (CoNLL 2018)", "MLAS F1 (CoNLL 2018)",
                   "BLEX F1 (CoNLL 2018)"):
        assert header in gold_section and header in raw_section
    assert "Lin 1998 F" in gold_section and "Lin 1998 F" not in raw_section.split('id="explain')[0]
    assert "Words F1 (CoNLL 2018)" in raw_section


def test_paired_significance_compares_runs_within_their_track(both_tracks, alice,
                                                              django_capture_on_commit_callbacks):
    from evaluation.significance import sets as significance

    team = factories.make_team(both_tracks, alice, name="Team T")
    gold_run = _upload(both_tracks, team, alice, GOLD, django_capture_on_commit_callbacks, name="gold-run")
    raw_a = _upload(both_tracks, team, alice, RAW_RUN, django_capture_on_commit_callbacks, track="raw-text",
                    name="raw-a")
    raw_b = _upload(both_tracks, team, alice, GOLD, django_capture_on_commit_callbacks, track="raw-text",
                    name="raw-b")  # the gold itself, in the raw-text track: every figure 100%
    computed = significance.compute(both_tracks)
    results = {r.run_id: r.pk for r in (gold_run.results.get(), raw_a.results.get(), raw_b.results.get())}
    assert sorted(computed.results) == sorted(results.values()) and computed.skipped == []
    heads = significance.stored_headlines(computed)
    pairs = {(d["result_a_id"], d["result_b_id"]) for d in heads}
    assert pairs == {tuple(sorted((results[raw_a.pk], results[raw_b.pk])))}
    figures = {d["figure"] for d in heads}
    assert any("conll18-las" in f for f in figures) and not any("deps-las" in f for f in figures)


def test_portal_form_offers_the_campaign_tracks_and_refuses_others(client, dep_campaign, both_tracks, alice,
                                                                   django_capture_on_commit_callbacks):
    team = factories.make_team(dep_campaign, alice, name="Team R")
    factories.make_team(both_tracks, alice, name="Team T")
    client.force_login(alice)
    url = reverse("portal:run_upload", kwargs={"slug": dep_campaign.slug})
    page = client.get(url).content.decode()
    assert 'name="track"' in page and 'value="gold-tokens"' in page and 'value="raw-text"' not in page
    both = client.get(reverse("portal:run_upload", kwargs={"slug": both_tracks.slug})).content.decode()
    assert 'value="gold-tokens"' in both and 'value="raw-text"' in both
    response = client.post(url, {"name": "r", "track": "raw-text", "scope": "test",
                                 "file": SimpleUploadedFile("doc.conllu", RAW_RUN.encode())})
    assert response.status_code == 400
    assert "This campaign does not accept runs in the track raw-text; it accepts &#x27;gold-tokens&#x27;." in (
        response.content.decode())
    assert not team.runs.exists()


def test_development_check_in_the_raw_text_track_spells_the_dev_sentences(both_tracks, alice,
                                                                         django_capture_on_commit_callbacks):
    from annotations.models import GoldSentence

    GoldSentence.objects.filter(sentence__sid="a2").update(subset=GoldSentence.Subset.DEV)
    team = factories.make_team(both_tracks, alice, name="Team T")
    a2 = RAW_RUN[RAW_RUN.index("# sent_id = s3"):]
    with django_capture_on_commit_callbacks(execute=True):
        run = upload_run(campaign=both_tracks, team=team, user=alice, name="dev", track="raw-text", scope="dev",
                         uploaded_file=SimpleUploadedFile("doc.conllu", a2.encode()))
    run.refresh_from_db()
    assert run.status == RunStatus.SCORED, (run.status_reason, run.validation_report)
    doc = run.results.get().document["metrics"]["conll18"]
    assert _row(doc, "LAS") == (3, 6, 5) and _row(doc, "Sentences") == (1, 1, 1)  # a2's row of the table above
    # the whole document is not the development sample's text
    with django_capture_on_commit_callbacks(execute=True):
        whole = upload_run(campaign=both_tracks, team=team, user=alice, name="dev2", track="raw-text", scope="dev",
                           uploaded_file=SimpleUploadedFile("doc.conllu", RAW_RUN.encode()))
    whole.refresh_from_db()
    assert whole.status == RunStatus.INVALID
    assert "corpus sentence a2" in whole.validation_report["problems"][0]["message"]


def test_real_spacy_raw_text_run_equals_the_cli(db, storage, tmp_path, organiser, alice,
                                               django_capture_on_commit_callbacks):
    # spaCy fr_core_news_sm on the raw text of two Sequoia sentences (see tests/deps/test_conll18.py)
    from parseval.evaluation.deps.conll18 import score_files
    from evaluation.kinds import get

    data = Path(__file__).parents[1] / "deps" / "data"
    campaign = factories.make_campaign(slug="spacy", kind=CampaignKind.DEPENDENCY, organisers=[organiser],
                                       metrics={"tracks": ["raw-text"]})
    gold = tmp_path / "sequoia.conllu"
    gold.write_bytes((data / "sequoia-2.gold.conllu").read_bytes())
    get("dependency").import_corpus(campaign, [gold])
    team = factories.make_team(campaign, alice, name="Team S")
    run = _upload(campaign, team, alice, (data / "sequoia-2.sm-raw.conllu").read_text(encoding="utf-8"),
                  django_capture_on_commit_callbacks)
    assert run.track == "raw-text"  # the campaign's only track
    assert run.status == RunStatus.SCORED, (run.status_reason, run.validation_report)
    doc = run.results.get().document["metrics"]["conll18"]
    cli = score_files(data / "sequoia-2.gold.conllu", data / "sequoia-2.sm-raw.conllu")
    assert doc["rows"] == cli["rows"]


def test_download_is_the_same_whatever_the_subsets(client, both_tracks, organiser, tmp_path):
    from annotations.models import GoldSentence
    from evaluation.kinds import get

    other = factories.make_campaign(slug="tracks-2", kind=CampaignKind.DEPENDENCY, organisers=[organiser],
                                    metrics={"tracks": ["raw-text"]})
    gold = tmp_path / "doc.conllu"
    get("dependency").import_corpus(other, [gold], genres={"doc": "news"}, subset="dev")
    GoldSentence.objects.filter(sentence__document__campaign=other, sentence__sid="a2").update(
        subset=GoldSentence.Subset.UNUSED)
    client.force_login(organiser)

    def contents(campaign):
        response = client.get(reverse("portal:corpus_download", kwargs={"slug": campaign.slug}))
        with zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content))) as zf:
            return {name: zf.read(name) for name in zf.namelist()}

    assert contents(both_tracks) == contents(other)


def test_ranking_page_ranks_one_track_at_a_time(client, both_tracks, alice, organiser,
                                                django_capture_on_commit_callbacks):
    team = factories.make_team(both_tracks, alice, name="Team T")
    _upload(both_tracks, team, alice, GOLD, django_capture_on_commit_callbacks, name="gold-run")
    _upload(both_tracks, team, alice, RAW_RUN, django_capture_on_commit_callbacks, track="raw-text", name="raw-run")
    client.force_login(organiser)
    url = reverse("results:ranking", kwargs={"slug": both_tracks.slug})
    first = client.get(url).content.decode()
    assert '<strong data-track="gold-tokens">' in first and "gold-run" in first and "raw-run" not in first
    raw = client.get(url + "?track=raw-text&figure=micro|conll18-las||").content.decode()
    assert '<strong data-track="raw-text">' in raw and "raw-run" in raw and "gold-run" not in raw


def test_raw_text_run_on_a_corpus_imported_before_tracks_is_told_why(both_tracks, alice,
                                                                     django_capture_on_commit_callbacks):
    doc = both_tracks.documents.get()
    storage = doc.text_file.storage
    storage.delete(doc.text_file.name.replace(".tok", ".tokens.conllu"))  # as stored before tracks existed
    team = factories.make_team(both_tracks, alice, name="Team T")
    run = _upload(both_tracks, team, alice, RAW_RUN, django_capture_on_commit_callbacks, track="raw-text")
    assert run.status == RunStatus.INVALID
    [problem] = run.validation_report["problems"]
    assert problem["file"] == "doc.tokens.conllu" and "imported before raw-text runs existed" in problem["message"]


def test_the_api_takes_the_track_and_shows_it(client, both_tracks, alice, django_capture_on_commit_callbacks):
    factories.make_team(both_tracks, alice, name="Team T")
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("api:campaign-runs", kwargs={"slug": both_tracks.slug}),
                               {"name": "r", "track": "raw-text",
                                "file": SimpleUploadedFile("doc.conllu", RAW_RUN.encode())})
    assert response.status_code == 201, response.content
    assert response.json()["track"] == "raw-text"
    assert both_tracks.runs.get().track == "raw-text"
