"""Sign-up, log in, home, campaign page, teams, corpus and guide downloads."""
from __future__ import annotations

import io
import zipfile

from django.core.files.base import ContentFile
from django.urls import reverse

from campaign.models import AuditEntry, Membership, Team
from campaign.services.teams import create_invitation
from tests import factories


def test_sign_up_sends_the_link_then_the_account_logs_in(client, db):
    # sign-up logs nobody in: its answer must be the same whether or not the address had an account
    response = client.post(reverse("portal:signup"), {"username": "newcomer", "email": "newcomer@example.org",
                                                      "password1": "a-long-pass-phrase-42", "password2": "a-long-pass-phrase-42"})
    assert response.status_code == 302 and response["Location"] == reverse("portal:signup_done")
    assert "Check your mail" in client.get(response["Location"]).content.decode()
    client.post(reverse("login"), {"username": "newcomer", "password": "a-long-pass-phrase-42"})
    assert "newcomer" in client.get(reverse("portal:home")).content.decode()


def test_log_in_page(client, alice):
    assert client.get(reverse("login")).status_code == 200
    response = client.post(reverse("login"), {"username": "alice", "password": "pw-for-tests-1"})
    assert response.status_code == 302 and response["Location"] == reverse("portal:home")


def test_home_lists_visible_campaigns_only(client, campaign, db):
    draft = factories.make_campaign(slug="hidden-draft", state="draft", name="Hidden draft")
    page = client.get(reverse("portal:home")).content.decode()
    assert campaign.name in page and draft.name not in page
    assert client.get(reverse("portal:campaign", kwargs={"slug": draft.slug})).status_code == 404
    organiser = factories.make_user("orga")
    draft.organisers.add(organiser)
    client.force_login(organiser)
    assert draft.name in client.get(reverse("portal:home")).content.decode()


def test_campaign_page_shows_genres_and_team_forms(client, campaign, alice):
    client.force_login(alice)
    page = client.get(reverse("portal:campaign", kwargs={"slug": campaign.slug})).content.decode()
    for genre in ("General press", "E-mail", "Oral transcripts"):
        assert genre in page
    assert "Create a team" in page and "Join a team" in page


def test_create_then_join_a_team(client, campaign, alice, bob):
    client.force_login(alice)
    client.post(reverse("portal:team_create", kwargs={"slug": campaign.slug}), {"name": "Parsers United"})
    team = Team.objects.get(campaign=campaign)
    assert team.slug == "parsers-united" and team.code == "A"
    assert Membership.objects.get(user=alice).role == "leader"
    client.post(reverse("portal:invitation_create", kwargs={"slug": campaign.slug}), {"days": 7})
    page = client.get(reverse("portal:campaign", kwargs={"slug": campaign.slug})).content.decode()
    code = team.invitations.get().token
    assert code in page
    # one team per user and campaign
    response = client.post(reverse("portal:team_create", kwargs={"slug": campaign.slug}), {"name": "Another"}, follow=True)
    assert "already in a team" in response.content.decode()
    assert Team.objects.filter(campaign=campaign).count() == 1
    client.force_login(bob)
    bad = client.post(reverse("portal:team_join", kwargs={"slug": campaign.slug}), {"code": code + "x"}, follow=True)
    assert "not valid" in bad.content.decode()
    client.post(reverse("portal:team_join", kwargs={"slug": campaign.slug}), {"code": code})
    assert set(team.members.all()) == {alice, bob}
    assert AuditEntry.objects.filter(action="team.join", actor=bob).exists()


def test_invitation_of_another_campaign_is_refused(client, campaign, alice, bob, db):
    other = factories.make_campaign(slug="other")
    team = factories.make_team(other, alice)
    client.force_login(bob)
    response = client.post(reverse("portal:team_join", kwargs={"slug": campaign.slug}),
                           {"code": create_invitation(team, alice).token}, follow=True)
    # The same answer as for a code that does not exist: codes of other campaigns cannot be probed.
    assert "not valid" in response.content.decode()
    assert not Membership.objects.filter(user=bob).exists()


def test_corpus_download_streams_every_document(client, campaign, team_a, alice):
    client.force_login(alice)
    response = client.get(reverse("portal:corpus_download", kwargs={"slug": campaign.slug}))
    assert response.status_code == 200 and response.streaming
    data = b"".join(response.streaming_content)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert sorted(zf.namelist()) == ["general_elda.xml", "mail_10.xml", "oral_delic_2.xml"]
        for doc in campaign.documents.all():
            assert zf.read(f"{doc.name}.xml") == open(doc.text_file.path, "rb").read()
    assert AuditEntry.objects.filter(action="corpus.download", actor=alice, campaign=campaign).exists()


def test_corpus_download_needs_a_team_unless_public(client, campaign, bob):
    url = reverse("portal:corpus_download", kwargs={"slug": campaign.slug})
    assert client.get(url).status_code == 302  # anonymous: to the log-in page
    client.force_login(bob)
    assert client.get(url).status_code == 404
    campaign.corpus_public = True
    campaign.save()
    assert client.get(url).status_code == 200


def test_guide_download(client, campaign, db):
    from annotations.models import AnnotationGuide, GuideVersion

    url = reverse("portal:guide_download", kwargs={"slug": campaign.slug})
    assert client.get(url).status_code == 404
    guide = AnnotationGuide.objects.create(campaign=campaign, title="Guide")
    version = GuideVersion(guide=guide, version="1.2")
    version.document.save("guide.pdf", ContentFile(b"%PDF-1.4 guide"), save=True)
    response = client.get(url)
    assert response.status_code == 200 and b"".join(response.streaming_content) == b"%PDF-1.4 guide"
    assert "version 1.2" in client.get(reverse("portal:campaign", kwargs={"slug": campaign.slug})).content.decode()


def test_team_facing_modules_do_not_import_gold_models():
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for path in [*(root / "campaign" / "views").glob("*.py"), *(root / "campaign" / "api").glob("*.py"),
                 root / "campaign" / "services" / "runs.py", root / "campaign" / "services" / "downloads.py",
                 root / "campaign" / "forms.py"]:
        text = path.read_text()
        tree = ast.parse(text)
        names = {a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for a in node.names}
        assert not names & {"GoldDocument", "GoldSentence"}, path
        assert "services.corpus" not in text, path


def test_campaign_page_links_each_role_to_its_governance_pages(client, campaign, alice, bob):
    team = factories.make_team(campaign, alice)
    url = reverse("portal:campaign", kwargs={"slug": campaign.slug})
    dev_sample = reverse("governance:dev_sample", kwargs={"slug": campaign.slug})
    opt_in = reverse("governance:team_publication", kwargs={"pk": team.pk})
    audit_log = reverse("governance:audit_log", kwargs={"slug": campaign.slug})
    gold = reverse("governance:gold", kwargs={"slug": campaign.slug})

    client.force_login(alice)
    page = client.get(url).content.decode()
    # no development sample yet: no link (the download would answer 404)
    assert opt_in in page and dev_sample not in page and client.get(dev_sample).status_code == 404
    from annotations.models import GoldSentence

    first = GoldSentence.objects.filter(sentence__document__campaign=campaign).order_by("pk").first()
    GoldSentence.objects.filter(pk=first.pk).update(subset="dev")
    page = client.get(url).content.decode()
    assert dev_sample in page and opt_in in page and client.get(dev_sample).status_code == 200
    assert audit_log not in page and gold not in page  # gold is not released while the campaign is open

    client.force_login(bob)  # registered, in no team
    page = client.get(url).content.decode()
    assert opt_in not in page and dev_sample not in page

    campaign.organisers.add(bob)
    page = client.get(url).content.decode()
    assert audit_log in page and gold in page
