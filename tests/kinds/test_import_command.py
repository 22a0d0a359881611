"""The import_corpus command, through the campaign's kind."""
from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from campaign.models import CampaignKind, CorpusDocument
from tests import factories



@pytest.mark.django_db
def test_tree_files_with_genres(storage, tree_gold):
    campaign = factories.make_campaign(slug="cmd-trees", kind=CampaignKind.CONSTITUENCY)
    out = StringIO()
    call_command("import_corpus", "cmd-trees", *map(str, tree_gold), "--genre", "annodis=a", "--genre",
                 "frwiki=b", stdout=out)
    assert "Imported 2 documents" in out.getvalue()
    assert dict(CorpusDocument.objects.filter(campaign=campaign).values_list("name", "genre__code")) == {
        "annodis": "a", "frwiki": "b"}


@pytest.mark.django_db
def test_bad_file_imports_nothing(storage, tmp_path):
    factories.make_campaign(slug="cmd-bad", kind=CampaignKind.DEPENDENCY)
    bad = tmp_path / "bad.conllu"
    bad.write_text("1\tLe\tle\tDET\t_\t_\t5\tdet\t_\t_\n\n", encoding="utf-8")
    with pytest.raises(CommandError, match=r"bad.conllu, line 1.*out of range|bad.conllu, line 1"):
        call_command("import_corpus", "cmd-bad", str(bad))
    assert not CorpusDocument.objects.exists()


@pytest.mark.django_db
def test_easy_campaign_goes_through_the_easy_import(storage, tree_gold):
    from tests.factories import easy_gold_paths

    factories.make_campaign(slug="cmd-easy")
    call_command("import_corpus", "cmd-easy", *map(str, easy_gold_paths()[:1]), stdout=StringIO())
    assert CorpusDocument.objects.filter(campaign__slug="cmd-easy").count() == 1
    with pytest.raises(CommandError, match="--genre is for tree"):
        call_command("import_corpus", "cmd-easy", str(tree_gold[0]), "--genre", "a=b")
