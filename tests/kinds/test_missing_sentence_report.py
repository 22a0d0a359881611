"""A run that left out one sentence: the report names that sentence, once, and nothing after it.

The commonest invalid run there is: a parser that dropped one sentence. Read by position, every later
sentence looked wrong and the missing one was named after the last corpus sentence. For each kind the
report must name the missing sentence by its corpus id, say where the file skips it (the file's
neighbouring sentences, by ``sent_id`` where the format has one), and report no other sentence.
"""
from __future__ import annotations

import pytest

from campaign.models import RunStatus
from tests import factories
from tests.web.test_conllu_runs import ACCEPTS, E1, E3, conllu_run, easy_campaign

from .conftest import gold_bytes
from .helpers import upload


@pytest.fixture
def elda_gold(tmp_path):
    """general_elda cut to its first three sentences (E1-E3): a one-document EASY corpus."""
    data = factories.gold_bytes("general_elda.xml").decode("utf-8")
    path = tmp_path / "gold" / "general_elda.xml"
    path.parent.mkdir()
    path.write_text(data[:data.index('<E id="E4">')] + "</DOCUMENT>\n", encoding="utf-8")
    return path


def blocks(text: str) -> list[str]:
    return [b + "\n\n" for b in text.strip("\n").split("\n\n")]


def sent_id(block: str) -> str:
    return next(line.split("=", 1)[1].strip() for line in block.splitlines() if line.startswith("# sent_id"))


def test_dependency_run_missing_one_sentence_names_it_and_says_the_rest_is_shifted(
        dep_campaign, dep_gold, alice, django_capture_on_commit_callbacks):
    team = factories.make_team(dep_campaign, alice, name="Team D")
    gsd = blocks(next(p for p in dep_gold if p.name == "gsd.conllu").read_text(encoding="utf-8"))
    dropped = gsd.pop(4)  # the fifth of ten sentences, as in the open demo's invalid run
    sequoia = next(p for p in dep_gold if p.name == "sequoia.conllu").read_text(encoding="utf-8")
    run = upload(dep_campaign, team, alice, {"gsd.conllu": "".join(gsd), "sequoia.conllu": sequoia},
                 django_capture_on_commit_callbacks)

    assert run.status == RunStatus.INVALID
    [problem] = run.validation_report["problems"]  # one row, not one per later sentence
    assert problem["file"] == "gsd.conllu"
    assert problem["sentence"] == sent_id(dropped)  # the corpus id of what is missing, not of the last sentence
    message = problem["message"]
    assert message.startswith("9 sentences where the corpus document has 10")
    assert f"sentence {sent_id(dropped)} (sentence 5 of the corpus document) is missing" in message
    # where the file skips it, by the file's own sent_id of its neighbours
    assert f"sent_id {sent_id(gsd[3])}" in message and f"sent_id {sent_id(gsd[4])}" in message
    assert "shifted by 1 place" in message
    first_line_after = sum(len(b.splitlines()) + 0 for b in gsd[:4]) + 1
    assert problem["line"] >= first_line_after


def test_dependency_run_missing_a_sentence_and_changing_another_reports_both_where_they_are(
        dep_campaign, dep_gold, alice, django_capture_on_commit_callbacks):
    team = factories.make_team(dep_campaign, alice, name="Team D")
    gsd = blocks(next(p for p in dep_gold if p.name == "gsd.conllu").read_text(encoding="utf-8"))
    gone = sent_id(gsd.pop(2))
    changed = sent_id(gsd[6])  # corpus sentence 8, the file's 7th
    lines = gsd[6].split("\n")
    word = next(i for i, line in enumerate(lines) if line[:1].isdigit())
    cols = lines[word].split("\t")
    cols[1] = cols[1] + "x"
    lines[word] = "\t".join(cols)
    gsd[6] = "\n".join(lines)
    sequoia = next(p for p in dep_gold if p.name == "sequoia.conllu").read_text(encoding="utf-8")
    run = upload(dep_campaign, team, alice, {"gsd.conllu": "".join(gsd), "sequoia.conllu": sequoia},
                 django_capture_on_commit_callbacks)

    problems = run.validation_report["problems"]
    assert [p["sentence"] for p in problems] == [gone, changed]
    assert "corpus sentence 8" in problems[1]["message"] and "the file's sentence 7" in problems[1]["message"]
    assert f"{cols[1]!r} where the corpus text has {cols[1][:-1]!r}" in problems[1]["message"]


def test_tree_run_missing_one_sentence_names_it_and_says_the_rest_is_shifted(
        tree_campaign, alice, django_capture_on_commit_callbacks):
    team = factories.make_team(tree_campaign, alice, name="Team A")
    trees = gold_bytes("annodis").decode("utf-8").splitlines()
    del trees[2]
    run = upload(tree_campaign, team, alice, {"annodis.mrg": "\n".join(trees) + "\n",
                                              "frwiki.mrg": gold_bytes("frwiki")},
                 django_capture_on_commit_callbacks)

    assert run.status == RunStatus.INVALID
    [problem] = run.validation_report["problems"]
    assert problem["file"] == "annodis.mrg" and problem["sentence"] == "3" and problem["line"] == 3
    message = problem["message"]
    assert "5 sentences where the corpus document has 6" in message
    assert "(sentence 3 of the corpus document) is missing between the file's sentence 2 and the file's sentence 3" \
        in message
    assert "shifted by 1 place" in message


def test_tree_run_with_one_sentence_too_many_names_it(tree_campaign, alice, django_capture_on_commit_callbacks):
    team = factories.make_team(tree_campaign, alice, name="Team A")
    trees = gold_bytes("annodis").decode("utf-8").splitlines()
    trees.insert(1, "(SENT (NC intrus))")
    run = upload(tree_campaign, team, alice, {"annodis.mrg": "\n".join(trees) + "\n",
                                              "frwiki.mrg": gold_bytes("frwiki")},
                 django_capture_on_commit_callbacks)

    [problem] = run.validation_report["problems"]
    assert problem["line"] == 2
    assert "the file's sentence 2 is not a sentence of the corpus text: one too many" in problem["message"]


def test_easy_conllu_run_missing_one_sentence_names_it_where_the_file_skips_it(
        db, storage, elda_gold, alice, django_capture_on_commit_callbacks):
    campaign = easy_campaign(elda_gold, **ACCEPTS)
    team = factories.make_team(campaign, alice)
    run = conllu_run(campaign, team, alice, django_capture_on_commit_callbacks,
                     data=(E1 + E3).encode("utf-8"))

    assert run.status == RunStatus.INVALID
    [problem] = run.validation_report["problems"]  # E3, read by its sent_id, is not reported
    e3_line = len(E1.splitlines()) + 2
    assert problem["sentence"] == "E2" and problem["line"] == e3_line
    assert "have no parse: E2 (the file goes from sent_id E1 to E3 at line" in problem["message"]


def test_easy_xml_run_missing_one_sentence_is_valid_and_names_it(
        db, storage, elda_gold, alice, django_capture_on_commit_callbacks):
    # EASY sentences carry their corpus id: a missing one scores as empty output, said as a warning
    xml_campaign = easy_campaign(elda_gold, bootstrap=20)
    team = factories.make_team(xml_campaign, alice)
    data = factories.gold_bytes("general_elda.xml").decode("utf-8")
    data = data[:data.index('<E id="E4">')] + "</DOCUMENT>\n"
    start, end = data.index('<E id="E2">'), data.index('<E id="E3">')
    run = conllu_run(xml_campaign, team, alice, django_capture_on_commit_callbacks,
                     data=(data[:start] + data[end:]).encode("utf-8"), filename="general_elda.xml")

    report = run.validation_report
    assert report["valid"] and not report["problems"]
    [warning] = report["warnings"]
    assert warning["message"].endswith("missing from the run (a valid run scores them as empty output): E2")
