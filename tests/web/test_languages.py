"""The pages in French and English: chosen by the browser, by the switch, or by the campaign; figures written
with the page's decimal separator, the JSON unchanged."""
from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from tests import factories
from tests.web.helpers import stored_run

FRENCH_DECIMAL = re.compile(r">\s*\d{1,3},\d\s*<")


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def test_a_browser_that_asks_for_french_gets_french_pages_and_english_stays_the_default(campaign):
    french = Client(HTTP_ACCEPT_LANGUAGE="fr-FR,fr;q=0.9,en;q=0.5").get("/").content.decode()
    assert '<html lang="fr">' in french
    assert "Campagnes d&#x27;évaluation" in french or "Campagnes d'évaluation" in french
    assert "Se connecter" in french and "Evaluation campaigns" not in french
    english = Client().get("/").content.decode()
    assert '<html lang="en">' in english and "Evaluation campaigns" in english and "Log in" in english


def test_the_switch_on_every_page_sets_the_language(campaign):
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    for url in ("/", f"/campaigns/{campaign.slug}/", "/accounts/login/", "/docs/"):
        page = client.get(url).content.decode()
        assert 'action="/i18n/setlang/"' in page and 'name="language" value="fr"' in page, url
    response = client.post("/i18n/setlang/", {"language": "fr", "next": f"/campaigns/{campaign.slug}/"})
    assert response.status_code == 302 and response["Location"] == f"/campaigns/{campaign.slug}/"
    page = client.get(f"/campaigns/{campaign.slug}/").content.decode()
    # the choice wins over the browser's English, and the switch now offers English back
    assert '<html lang="fr">' in page and 'name="language" value="en"' in page


def test_a_campaign_speaks_its_language_when_the_browser_names_none_of_ours(campaign):
    campaign.page_language = "fr"
    campaign.save(update_fields=["page_language"])
    silent = Client()  # no Accept-Language at all
    assert '<html lang="fr">' in silent.get(f"/campaigns/{campaign.slug}/").content.decode()
    assert '<html lang="fr">' in Client(HTTP_ACCEPT_LANGUAGE="de").get(f"/campaigns/{campaign.slug}/").content.decode()
    # the browser's choice wins, and pages of no campaign keep the site's default
    assert '<html lang="en">' in Client(HTTP_ACCEPT_LANGUAGE="en-GB").get(f"/campaigns/{campaign.slug}/").content.decode()
    assert '<html lang="en">' in silent.get("/").content.decode()


def test_figures_take_a_decimal_comma_in_french_and_the_json_does_not_change(campaign, team_a, alice,
                                                                           django_capture_on_commit_callbacks):
    organiser = factories.make_user("org")
    campaign.organisers.add(organiser)
    stored_run(campaign, team_a, alice, data=factories.gold_run_zip(), capture=django_capture_on_commit_callbacks)
    english, french = Client(HTTP_ACCEPT_LANGUAGE="en"), Client(HTTP_ACCEPT_LANGUAGE="fr")
    english.force_login(organiser)
    french.force_login(organiser)
    page_en = english.get(f"/results/{campaign.slug}/").content.decode()
    page_fr = french.get(f"/results/{campaign.slug}/").content.decode()
    assert "100.0" in page_en and not FRENCH_DECIMAL.search(page_en)
    assert FRENCH_DECIMAL.search(page_fr) and "100,0" in page_fr
    # the server-side charts' numbers too (their tooltips), never their coordinates
    charts_fr = "".join(re.findall(r"<svg.*?</svg>", page_fr, re.S))
    assert re.search(r"\d,\d%", charts_fr) and not re.search(r'="\d+,\d', charts_fr)
    # what programs read is the same whatever the reader's language
    json_en = json.loads(english.get(f"/results/{campaign.slug}/data.json").content)
    json_fr = json.loads(french.get(f"/results/{campaign.slug}/data.json").content)
    for doc in (json_en, json_fr):
        doc["data"].pop("generated_at")  # the moment of each answer
    assert json_fr == json_en


def test_messages_and_refusals_follow_the_language(campaign, alice):
    client = Client(HTTP_ACCEPT_LANGUAGE="fr")
    client.force_login(alice)
    page = client.post(f"/campaigns/{campaign.slug}/team/create/", {"name": ""}, follow=True).content.decode()
    assert "Donnez un nom à l&#x27;équipe." in page or "Donnez un nom à l'équipe." in page
    api = Client(HTTP_ACCEPT_LANGUAGE="fr")
    api.force_login(alice)
    refused = api.post(f"/api/campaigns/{campaign.slug}/runs/", {})
    assert refused.status_code == 403
    assert refused.json()["detail"] == "Rejoignez ou créez une équipe de cette campagne avant de déposer un run."



def test_team_refusals_and_the_consensus_choice_refusal_read_in_french(campaign, team_a, alice, bob):
    from django.utils import translation

    from parseval.annotations.errors import InputError
    from campaign.problem_texts import translated
    from evaluation.consensus import runs as consensus_runs

    def french_page(user, url: str, data: dict) -> str:
        client = Client(HTTP_ACCEPT_LANGUAGE="fr")
        client.force_login(user)
        return client.post(url, data, follow=True).content.decode().replace("&#x27;", "'")

    # a code that opens no team, and a second team for someone who has one: the service's refusals
    assert "Ce code d'invitation n'est pas valide" in french_page(bob, f"/campaigns/{campaign.slug}/team/join/",
                                                                  {"code": "no-such-code"})
    assert "Vous faites déjà partie d'une équipe de cette campagne" in french_page(
        alice, f"/campaigns/{campaign.slug}/team/create/", {"name": "Team A bis"})
    # the organiser's consensus choice: a run that is not one of the team's, stored in English, shown in French
    try:
        consensus_runs.choose(campaign, {team_a.pk: 987654}, weighting=None, actor=alice)
    except InputError as exc:
        stored = str(exc.problems[0].message if exc.problems else exc)
    assert stored.startswith("run 987654 cannot be combined for team")
    with translation.override("fr"):
        assert translated(stored).startswith(f"le run 987654 ne peut pas être combiné pour l'équipe {team_a.pk}")


def test_an_archives_refusals_read_in_the_readers_language(tmp_path):
    import zipfile

    from django.utils import translation

    from campaign.services.archives import ArchiveRefused, Limits, kind_of, unpack
    from evaluation.kinds.easy.conllu import EASY_OR_CONLLU

    archive = tmp_path / "run.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("notes.txt", "not a run")
    with translation.override("fr"):
        with pytest.raises(ArchiveRefused) as refused:
            kind_of("run.docx", EASY_OR_CONLLU)
        assert "type de fichier non pris en charge" in str(refused.value) and ".xml EASY ou .conllu CoNLL-U" in str(
            refused.value)
        with pytest.raises(ArchiveRefused) as refused:
            unpack(archive, "run.zip", tmp_path / "out", Limits(10_000_000), suffixes=EASY_OR_CONLLU)
        assert str(refused.value).startswith("membre de l'archive 'notes.txt'\u00a0: pas un fichier .xml ou .conllu")
    with translation.override("en"):
        with pytest.raises(ArchiveRefused) as refused:
            kind_of("run.docx", EASY_OR_CONLLU)
        assert "unsupported file type; upload one EASY .xml or CoNLL-U .conllu file" in str(refused.value)

def test_the_librarys_report_texts_are_stored_in_english_and_shown_in_the_readers_language():
    from django.utils import translation

    from parseval.annotations.conllu import parse_conllu
    from parseval.annotations.errors import InputError
    from campaign.problem_texts import library_templates, translated

    try:
        parse_conllu("1\tLe\tle\tDET\t_\t_\t1\tdet\t_\t_\n\n", file="run.conllu")
    except InputError as exc:
        stored = exc.problems[0].as_dict()
    assert stored["message"] == "word 1 is its own head"  # what the library stores: English, as before
    assert "word %(id)s is its own head" in library_templates()
    with translation.override("fr"):
        assert translated(stored["message"]) == "le mot 1 est sa propre tête"
        # a value written as a repr stays as written; a fixed text is a catalogue entry as it stands
        assert translated("HEAD 'x' of word 3 is not an integer") == "le HEAD 'x' du mot 3 n'est pas un entier"
        assert translated("empty input: no tree found") == "entrée vide : aucun arbre trouvé".replace(" :", "\u00a0:")
        assert translated("a text of some external validator") == "a text of some external validator"
    with translation.override("en"):
        assert translated(stored["message"]) == "word 1 is its own head"


def test_the_teams_guide_is_served_in_the_readers_language_and_other_pages_say_they_are_english(db):
    english = Client(HTTP_ACCEPT_LANGUAGE="en").get("/docs/teams.md").content.decode()
    french = Client(HTTP_ACCEPT_LANGUAGE="fr").get("/docs/teams.md").content.decode()
    assert "<h1>Taking part: a team&#x27;s guide to uploading runs</h1>" in english or "guide to uploading" in english
    assert "le guide de dépôt des runs" in french and "guide to uploading" not in french
    # the links between pages are the English ones, so that they hold in both languages
    assert 'href="metrics/easy.md"' in french and 'href="results-pages.md"' in french
    assert 'id="english-only"' not in french
    # the results pages' explanation, which the teams' guide links
    results_fr = Client(HTTP_ACCEPT_LANGUAGE="fr").get("/docs/results-pages.md").content.decode()
    assert "<h1>Les pages de résultats</h1>" in results_fr and 'id="english-only"' not in results_fr
    assert 'href="significance.md"' in results_fr and "Who sees what" not in results_fr
    assert "<h1>The results pages</h1>" in Client(HTTP_ACCEPT_LANGUAGE="en").get("/docs/results-pages.md").content.decode()
    bundle_fr = Client(HTTP_ACCEPT_LANGUAGE="fr").get("/docs/bundle.md").content.decode()
    assert "<h1>L&#x27;archive de publication</h1>" in bundle_fr or "<h1>L'archive de publication</h1>" in bundle_fr
    untranslated_page = Client(HTTP_ACCEPT_LANGUAGE="fr").get("/docs/significance.md").content.decode()
    assert 'id="english-only"' in untranslated_page and "Cette page n" in untranslated_page
    assert 'id="english-only"' not in Client(HTTP_ACCEPT_LANGUAGE="en").get("/docs/significance.md").content.decode()


def test_a_missing_sentence_report_is_shown_whole_in_french_sentence_names_included():
    from django.utils import translation

    from campaign.problem_texts import translated
    from evaluation.kinds.sentence import Parsed
    from evaluation.kinds.sentence.alignment import order_problems
    from evaluation.kinds.sentence.tokens import TextSentence

    expected = [TextSentence(f"s{i}", (f"mot{i}", "et", f"fin{i}")) for i in range(1, 6)]
    parsed = [Parsed(None, list(e.words), str(j), 10 * j) for j, e in enumerate(expected[:2] + expected[3:], 1)]
    [problem] = order_problems(parsed, expected, "run.conllu", "the corpus document")
    assert problem.message.startswith("4 sentences where the corpus document has 5: sentence s3 (sentence 3 of")
    assert "between the file's sentence 2 and the file's sentence 3" in problem.message  # stored in English
    with translation.override("fr"):
        shown = translated(problem.message)
    assert shown.startswith("4 phrases là où the corpus document en a 5\u00a0: la phrase s3 (phrase 3 de"), shown
    # the sentence names inside the report are library texts too, translated in turn
    assert "entre la phrase 2 du fichier et la phrase 3 du fichier" in shown and "file's" not in shown


def test_the_mail_of_a_sign_up_reads_in_the_language_of_the_page_that_asked(db, monkeypatch):
    from django.core import mail
    from django.urls import reverse
    from django.utils import translation

    from campaign import account_tasks

    factories.make_user("owner", password="owners-own-pass-phrase", email="owner@example.org")
    # the task runs later, in a worker with no request: it writes in the language it is given
    with translation.override("en"):
        account_tasks.complete_sign_up("prober", "owner@example.org", "!", site="http://testserver", language="fr")
        account_tasks.complete_sign_up("newcomer", "new@example.org", "!", site="http://testserver", language="fr")
        account_tasks.send_password_reset("owner@example.org", domain="testserver", use_https=False, language="fr")
    known, new, reset = mail.outbox
    assert known.subject == "Un compte a déjà cette adresse" and "Bonjour owner," in known.body
    assert "Pour vous connecter\u00a0: http://testserver/" in known.body
    assert new.subject == "Confirmez votre adresse électronique" and "Bonjour newcomer," in new.body
    assert "Bonjour owner," in reset.body
    # and the page that asks hands the task its language
    given = []
    monkeypatch.setattr(account_tasks.complete_sign_up, "delay", lambda *a, **kw: given.append(kw))
    Client(HTTP_ACCEPT_LANGUAGE="fr").post(reverse("portal:signup"), {
        "username": "other", "email": "other@example.org", "password1": "a-long-pass-phrase-9",
        "password2": "a-long-pass-phrase-9"})
    assert given and given[0]["language"] == "fr"


def test_the_upload_page_names_the_run_file_in_the_readers_language(campaign, alice, team_a):
    client = Client(HTTP_ACCEPT_LANGUAGE="fr")
    client.force_login(alice)
    page = client.get(f"/campaigns/{campaign.slug}/upload/").content.decode()
    assert "Nommez chaque fichier EASY .xml d&#x27;après" in page or "Nommez chaque fichier EASY .xml d'après" in page
