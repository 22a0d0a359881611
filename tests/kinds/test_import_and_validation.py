"""Importing tree and CoNLL-U corpora, and validating runs against the corpus text."""
from __future__ import annotations

import pytest

from parseval.annotations.errors import InputError
from annotations.models import GoldDocument, GoldSentence
from campaign.models import CampaignKind, CorpusDocument, RunStatus, Sentence
from evaluation.kinds import get
from evaluation.kinds.sentence.tokens import read_tokens
from tests import factories

from .conftest import gold_bytes
from .helpers import damaged_trees, upload


def test_tree_import_keeps_words_only_in_the_corpus_text(tree_campaign):
    docs = {d.name: d for d in CorpusDocument.objects.filter(campaign=tree_campaign)}
    assert set(docs) == {"annodis", "frwiki"}
    assert {d.genre.code for d in docs.values()} == {"news", "wiki"}
    with docs["annodis"].text_file.open("rb") as fh:
        text = fh.read()
    sentences = read_tokens(text, file="annodis.tok")
    assert sentences[0].words == ("Gutenberg",) and sentences[1].words[:3] == ("Cette", "exposition", "nous")
    assert b"(" not in text and b"NPP" not in text and b"SENT" not in text
    assert docs["frwiki"].sentence_count == Sentence.objects.filter(document=docs["frwiki"]).count() > 20
    gold = GoldDocument.objects.get(document=docs["annodis"])
    assert gold.file.read() == gold_bytes("annodis")
    assert GoldSentence.objects.filter(sentence__document__campaign=tree_campaign).count() == sum(
        d.sentence_count for d in docs.values())


def test_null_elements_are_not_words(db, storage, tmp_path):
    # Penn Treebank style: traces and empty complementisers are -NONE- leaves, not words of the text.
    gold = tmp_path / "nulls.mrg"
    gold.write_text("( (S (NP-SBJ (-NONE- *-1)) (VP (VBD said) (SBAR (-NONE- 0) (S (NP (PRP it)) "
                    "(VP (VBD rained) (NP (-NONE- *T*-2)) (NP (-NONE- *U*))))))))\n", encoding="utf-8")
    campaign = factories.make_campaign(kind=CampaignKind.CONSTITUENCY)
    get("constituency").import_corpus(campaign, [gold])
    doc = CorpusDocument.objects.get(campaign=campaign, name="nulls")
    with doc.text_file.open("rb") as fh:
        sentences = read_tokens(fh.read(), file="x")
    assert [s.words for s in sentences] == [("said", "it", "rained")]


def test_dependency_import_uses_sent_ids(dep_campaign):
    sids = list(Sentence.objects.filter(document__name="sequoia").values_list("sid", flat=True))
    assert sids[0] == "Europar.550_00011" and len(sids) == 12


def test_bad_gold_is_refused_whole_with_file_and_line(db, storage, tmp_path, organiser):
    good = tmp_path / "good.mrg"
    good.write_bytes(gold_bytes("annodis"))
    bad = tmp_path / "bad.mrg"
    bad.write_text("( (S (NP (DT the) (NN cat)) (VP (VBD sat)))\n( (S (NP the cat)\n", encoding="utf-8")
    campaign = factories.make_campaign(kind=CampaignKind.CONSTITUENCY)
    with pytest.raises(InputError) as caught:
        get("constituency").import_corpus(campaign, [good, bad])
    problem = caught.value.problems[0]
    assert problem.file == "bad.mrg" and problem.line is not None
    assert not CorpusDocument.objects.filter(campaign=campaign).exists()
    assert not GoldDocument.objects.exists()


def test_wrong_suffix_is_refused(db, storage, tmp_path):
    path = tmp_path / "trees.xml"
    path.write_text("(S (NN x))\n", encoding="utf-8")
    campaign = factories.make_campaign(kind=CampaignKind.CONSTITUENCY)
    with pytest.raises(InputError, match="expected .mrg"):
        get("constituency").import_corpus(campaign, [path])


@pytest.fixture
def team(tree_campaign, alice):
    return factories.make_team(tree_campaign, alice, name="Team A")


def test_run_with_a_changed_word_is_invalid_with_file_line_sentence(tree_campaign, team, alice, tree_gold,
                                                                    django_capture_on_commit_callbacks):
    first = tree_gold[0].read_text(encoding="utf-8").replace("Gutenberg", "Gutenburg", 1)
    run = upload(tree_campaign, team, alice, {"annodis.mrg": first, "frwiki.mrg": tree_gold[1].read_text()},
                 django_capture_on_commit_callbacks)
    assert run.status == RunStatus.INVALID
    [problem] = run.validation_report["problems"]
    assert problem["file"] == "annodis.mrg" and problem["sentence"] == "1" and problem["line"] == 1
    assert "'Gutenburg' where the corpus text has 'Gutenberg'" in problem["message"]
    assert not run.results.exists()


def test_run_missing_a_sentence_or_a_document(tree_campaign, team, alice, tree_gold,
                                              django_capture_on_commit_callbacks):
    lines = damaged_trees(tree_gold[0]).splitlines()
    run = upload(tree_campaign, team, alice, {"annodis.mrg": "\n".join(lines[:-1]) + "\n"},
                 django_capture_on_commit_callbacks)
    assert run.status == RunStatus.INVALID
    messages = [p["message"] for p in run.validation_report["problems"]]
    assert any("5 sentences where the corpus document has 6" in m for m in messages)
    assert any("no file for corpus document frwiki" in m for m in messages)


def test_unbalanced_run_tree_is_reported_where_it_is(tree_campaign, team, alice, tree_gold,
                                                     django_capture_on_commit_callbacks):
    broken = damaged_trees(tree_gold[1]).splitlines()
    broken[4] = broken[4] + ")"
    run = upload(tree_campaign, team, alice, {"annodis.mrg": damaged_trees(tree_gold[0]),
                                              "frwiki.mrg": "\n".join(broken) + "\n"},
                 django_capture_on_commit_callbacks)
    assert run.status == RunStatus.INVALID
    problem = run.validation_report["problems"][0]
    assert problem["file"] == "frwiki.mrg" and problem["line"] == 5


def test_upload_refuses_a_file_of_another_kind(tree_campaign, team, alice):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from campaign.rules import UploadRefused
    from campaign.services.runs import upload_run

    with pytest.raises(UploadRefused, match=r"\.mrg or \.tree or \.txt"):
        upload_run(campaign=tree_campaign, team=team, user=alice, name="x",
                   uploaded_file=SimpleUploadedFile("run.xml", b"<x/>"))
    with pytest.raises(UploadRefused, match="unknown document name"):
        upload_run(campaign=tree_campaign, team=team, user=alice, name="x",
                   uploaded_file=SimpleUploadedFile("run.zip", factories.zip_of({"other.mrg": b"(S (X y))"})))


def test_conllu_run_with_a_cycle_is_invalid(dep_campaign, alice, dep_gold, django_capture_on_commit_callbacks):
    team = factories.make_team(dep_campaign, alice, name="Team D")
    text = dep_gold[0].read_text(encoding="utf-8")  # gsd
    lines = text.split("\n")
    i = next(n for n, line in enumerate(lines) if line.startswith("1\t"))
    cols = lines[i].split("\t")
    j = next(n for n, line in enumerate(lines) if line.startswith("2\t"))
    cols2 = lines[j].split("\t")
    cols[6], cols2[6] = "2", "1"
    lines[i], lines[j] = "\t".join(cols), "\t".join(cols2)
    run = upload(dep_campaign, team, alice, {"gsd.conllu": "\n".join(lines), "sequoia.conllu": dep_gold[1].read_text()},
                 django_capture_on_commit_callbacks)
    assert run.status == RunStatus.INVALID
    problem = run.validation_report["problems"][0]
    assert problem["file"] == "gsd.conllu" and "cycle" in problem["message"] and problem["line"]


def test_ud_validation_level_set_by_the_organiser(dep_campaign, alice, dep_gold, client,
                                                  django_capture_on_commit_callbacks):
    """A relation that is not a UD relation ("punkt"): the project's reader takes it (it scores as a
    label like any other), so without a UD level the run is valid; with {"ud_validation": 2} the UD
    validator's level-2 test unknown-udeprel refuses it, located at the file, line and sentence id like
    the project's own problems, and the report and the run page say which level and which validator."""
    from django.urls import reverse

    team = factories.make_team(dep_campaign, alice, name="Team U")
    gsd, sequoia = dep_gold[0].read_text(encoding="utf-8"), dep_gold[1].read_text(encoding="utf-8")
    lines = gsd.split("\n")
    k = next(n for n, line in enumerate(lines) if line.split("\t")[7:8] == ["punct"])
    cols = lines[k].split("\t")
    cols[7] = "punkt"
    lines[k] = "\t".join(cols)
    sent_id = next(line.split("=", 1)[1].strip() for line in reversed(lines[:k]) if line.startswith("# sent_id"))
    files = {"gsd.conllu": "\n".join(lines), "sequoia.conllu": sequoia}
    run = upload(dep_campaign, team, alice, files, django_capture_on_commit_callbacks, name="plain")
    assert run.status != RunStatus.INVALID and "ud_validation" not in run.validation_report

    with pytest.raises(ValueError, match="ud_validation must be a UD validation level"):
        get("dependency").check_options({"ud_validation": 7})
    dep_campaign.metrics = {**dep_campaign.metrics, "ud_validation": 2}
    dep_campaign.save()
    run = upload(dep_campaign, team, alice, files, django_capture_on_commit_callbacks, name="checked")
    assert run.status == RunStatus.INVALID
    report = run.validation_report
    assert report["ud_validation"]["level"] == 2 and report["ud_validation"]["validator"].startswith("udtools ")
    (problem,) = report["problems"]
    assert (problem["file"], problem["line"], problem["sentence"]) == ("gsd.conllu", k + 1, sent_id)
    assert problem["message"].startswith("UD validation (level 2): Unknown main DEPREL type: 'punkt'")
    assert "unknown-udeprel" in problem["message"]
    client.force_login(alice)
    page = client.get(reverse("portal:run", kwargs={"pk": run.pk})).content.decode()
    assert 'data-level="2"' in page and "unknown-udeprel" in page
