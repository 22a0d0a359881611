"""Reading the test set from a run's own counts, attacked as a team that reads the code.

The attack (finding 2 of the secrecy review): a valid EASY run whose sentences carry 1, 2, 4, ... 2^j
distinct relations of one type, 8 sentences per genre × type cell. At the results release the team
sees its run's cells, and ``fp`` of a cell is the run's relations of that type in the *scored*
sentences of that genre: its bits say which of the 8 sentences are test sentences.

* The crafted run is refused at validation by the plausibility bound (parseval/annotations/plausibility.py),
  with the same report whatever the test set.
* A run that encodes within the bound (6 bits per cell, in sentences long enough) is accepted; what
  its team then sees before the gold release holds no count, so the decoder reads nothing, while
  under the organisers' other choice (full figures) the same decoder reads every encoded sentence's
  membership: the consequence the console states.
* A real parser's run (spaCy fr_core_news_sm on the corpus forms, converted from UD) is accepted.
"""
from __future__ import annotations

import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from lxml import etree

from parseval.annotations import plausibility
from parseval.annotations.easy import DEFAULT_SCHEMA
from annotations.models import GoldSentence
from campaign import lifecycle
from campaign.models import CampaignState, RunStatus
from campaign.services.runs import upload_run
from campaign.subsets import sample_test_subset
from tests import factories

pytestmark = pytest.mark.django_db

XLINK = "http://www.w3.org/1999/xlink"
PARSER = etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True)
# binary relation types, so that each relation is a distinct (first, second) pair of forms
TYPES = [t for t in DEFAULT_SCHEMA.relation_types if len(DEFAULT_SCHEMA.roles(t)) == 2]
WAY = ("relations", "HYP", "EQUAL")


def corpus_texts(campaign) -> dict[str, tuple[str, bytes]]:
    """``{document: (genre, corpus text)}``: the forms-only files every team downloads."""
    out = {}
    for doc in campaign.documents.select_related("genre").order_by("order", "name"):
        with doc.text_file.open("rb") as fh:
            out[doc.name] = (doc.genre.code, fh.read())
    return out


def crafted_run(campaign, bits: int, *, within_bound: bool) -> tuple[bytes, dict]:
    """The encoding run: per genre and relation type, ``bits`` sentences, the j-th with 2^j distinct
    relations of that type. Returns the zip and ``{(genre, type): [(document, sentence id) by bit]}``.
    ``within_bound`` picks, for bit j, only sentences long enough for 2^j relations to be plausible."""
    files, plan = {}, {}
    queue: dict[str, list] = {}
    roots = {}
    for name, (genre, text) in corpus_texts(campaign).items():
        root = etree.fromstring(text, PARSER)
        roots[name] = root
        for e in root.iter("E"):
            queue.setdefault(genre, []).append((name, e))
    for genre, sentences in queue.items():
        for rtype in TYPES:
            chosen = []
            for j in range(bits):
                need = 2 ** j
                for k, (name, e) in enumerate(sentences):
                    words = len(e.findall(".//F"))
                    if words * (words - 1) >= need and (not within_bound or
                                                        need <= plausibility.bound("relations_of_one_type", words)):
                        chosen.append((name, e))
                        del sentences[k]
                        break
            if len(chosen) < bits:
                continue
            plan[(genre, rtype)] = [(name, e.get("id")) for name, e in chosen]
            first, second = DEFAULT_SCHEMA.roles(rtype)
            for j, (name, e) in enumerate(chosen):
                forms = [f.get("id") for f in e.iter("F")]
                pairs = [(a, b) for a in forms for b in forms if a != b][: 2 ** j]
                relations = etree.SubElement(e, "relations")
                for n, (a, b) in enumerate(pairs):
                    rel = etree.SubElement(relations, "relation", {f"{{{XLINK}}}type": "extended", "type": rtype,
                                                                  "id": f"{e.get('id')}R{n + 1}"})
                    etree.SubElement(rel, first, {f"{{{XLINK}}}type": "locator", f"{{{XLINK}}}href": a})
                    etree.SubElement(rel, second, {f"{{{XLINK}}}type": "locator", f"{{{XLINK}}}href": b})
    for name, root in roots.items():
        files[f"{name}.xml"] = etree.tostring(root, xml_declaration=True, encoding="UTF-8")
    return factories.zip_of(files), plan


def decode(data: dict, plan: dict) -> dict[tuple[str, str], bool]:
    """The adversary's decoder: each encoded sentence's membership, read from the bits of ``fp`` in the
    run's cell of its genre and type; nothing where no count is shown."""
    found = {}
    for run in data["runs"]:
        for cell in run["cells"]:
            key = (cell["genre"], cell["type"])
            if (cell["layer"], cell["mode"], cell["match"]) != WAY or cell["aggregation"] != "micro" \
                    or key not in plan or cell["fp"] is None:
                continue
            for j, sentence in enumerate(plan[key]):
                found[sentence] = bool(cell["fp"] >> j & 1)
    return found


def membership(campaign) -> dict[tuple[str, str], bool]:
    return {(d, s): sub == "test" for d, s, sub in GoldSentence.objects.filter(
        sentence__document__campaign=campaign).values_list("sentence__document__name", "sentence__sid", "subset")}


@pytest.fixture
def drawn(organiser, alice, django_capture_on_commit_callbacks):
    """Two campaigns on the same corpus with independently drawn test sets, a team in each."""
    def make(slug):
        c = factories.make_easy_campaign(slug=slug, name=slug, state=CampaignState.DRAFT, organisers=[organiser])
        sample_test_subset(c, ratio=0.5, dev_ratio=0.1)
        c.state = CampaignState.OPEN
        c.save()
        return c, factories.make_team(c, alice, name=f"Team {slug}")

    def upload(campaign, team, data: bytes, name="probe", scope="test"):
        with django_capture_on_commit_callbacks(execute=True):
            run = upload_run(campaign=campaign, team=team, user=alice, name=name, scope=scope,
                             uploaded_file=SimpleUploadedFile("run.zip", data))
        run.refresh_from_db()
        return run

    return make, upload


def release(campaign, organiser):
    for state in ("closed", "scored", "released"):
        lifecycle.transition(campaign, state, actor=organiser)


def test_the_crafted_run_is_refused_the_same_way_whatever_the_test_set(drawn):
    make, upload = drawn
    (one, team_one), (two, team_two) = make("enc-one"), make("enc-two")
    assert membership(one) != membership(two)
    data, plan = crafted_run(one, 8, within_bound=False)
    assert len(plan) >= 3 * 5  # every genre, several relation types: 8 sentences per cell
    reports = []
    for campaign, team in ((one, team_one), (two, team_two)):
        run = upload(campaign, team, data)
        assert run.status == RunStatus.INVALID
        report = run.validation_report
        implausible = [p for p in report["problems"] if "implausible sentence" in p["message"]]
        assert implausible and all(p["sentence"] and p["line"] and p["file"].endswith(".xml") for p in implausible)
        assert any("relations of one type in a sentence of" in p["message"] for p in implausible)
        reports.append({k: v for k, v in report.items() if k != "checked_at"})
    assert reports[0] == reports[1]


def test_an_encoding_within_the_bound_shows_its_team_no_count_to_decode(drawn, organiser, alice):
    make, upload = drawn
    campaign, team = make("enc-within")
    data, plan = crafted_run(campaign, 6, within_bound=True)
    assert len(plan) >= 3 * 5
    run = upload(campaign, team, data)
    assert run.status == RunStatus.SCORED, run.validation_report.get("problems", [])[:3]
    release(campaign, organiser)
    client = Client()
    client.force_login(alice)
    truth = membership(campaign)
    encoded = [s for sentences in plan.values() for s in sentences]

    seen = client.get(f"/results/{campaign.slug}/data.json").json()["data"]
    assert seen["runs"] and all(c["fp"] is None and c["fc"] is None and c["cr"] is None
                                for r in seen["runs"] for c in r["cells"])
    assert decode(seen, plan) == {}  # nothing to read: no better than a guess
    api = client.get(reverse("api:run-results", kwargs={"pk": run.pk})).json()
    assert api["result"]["cells"] and all(c.get("fp") is None for c in api["result"]["cells"])

    # Rates per genre and type show no count either.
    campaign.team_figures = "rates"
    campaign.min_genre_sentences = 1
    campaign.save()
    seen = client.get(f"/results/{campaign.slug}/data.json").json()["data"]
    assert any(c["genre"] != "ALL" for c in seen["runs"][0]["cells"]) and decode(seen, plan) == {}

    # The organisers' other choice: full figures. The same decoder then reads the test set.
    campaign.team_figures = "full"
    campaign.save()
    seen = client.get(f"/results/{campaign.slug}/data.json").json()["data"]
    decoded = decode(seen, plan)
    assert len(decoded) == len(encoded) and all(decoded[s] == truth[s] for s in encoded)
    assert any(decoded.values()) and not all(decoded.values())

    # From the gold release the counts are shown whatever the choice: membership is public then.
    campaign.team_figures = "rates"
    campaign.save()
    for state in ("published", "gold_released"):
        lifecycle.transition(campaign, state, actor=organiser)
    seen = client.get(f"/results/{campaign.slug}/data.json").json()["data"]
    assert decode(seen, plan) == {s: truth[s] for s in encoded}


def test_pooled_by_default_rates_rounded_small_genres_hidden(drawn, organiser, alice):
    make, upload = drawn
    campaign, team = make("enc-gold")
    run = upload(campaign, team, factories.gold_run_zip())
    assert run.status == RunStatus.SCORED
    client = Client()
    client.force_login(alice)
    dev_sample = client.get(f"/governance/campaigns/{campaign.slug}/dev-sample.zip").content
    dev = upload(campaign, team, dev_sample, name="dev check", scope="dev")
    assert dev.status == RunStatus.SCORED, dev.validation_report.get("problems", [])[:3]
    release(campaign, organiser)
    cells = client.get(f"/results/{campaign.slug}/data.json").json()["data"]["runs"][0]["cells"]
    # the default: one figure per layer of the primary run, F alone
    assert cells and all(c["genre"] == "ALL" and c["type"] == "ALL" and c["p"] is None for c in cells)
    assert len(cells) == len({c["layer"] for c in cells})
    campaign.team_figures = "pooled"
    campaign.save()
    cells = client.get(f"/results/{campaign.slug}/data.json").json()["data"]["runs"][0]["cells"]
    assert cells and all(c["genre"] == "ALL" and c["type"] == "ALL" for c in cells)
    # A development check is scored on the public development gold: its team sees it in full.
    dev_cells = client.get(reverse("api:run-results", kwargs={"pk": dev.pk})).json()["result"]["cells"]
    assert any(c["fp"] is not None and c["genre"] != "ALL" for c in dev_cells)
    assert all(c["f"] is None or c["f"] == round(c["f"], 3) for c in cells)
    campaign.team_figures = "rates"
    campaign.min_genre_sentences = 1
    campaign.save()
    cells = client.get(f"/results/{campaign.slug}/data.json").json()["data"]["runs"][0]["cells"]
    assert {c["genre"] for c in cells} > {"ALL"} and {c["type"] for c in cells} > {"ALL"}
    assert all(c["fp"] is None and (c["f"] is None or c["f"] == round(c["f"], 3)) for c in cells)
    small = min(GoldSentence.objects.filter(sentence__document__campaign=campaign, subset="test")
                .values_list("sentence__document__genre__code", flat=True).distinct(),
                key=lambda g: GoldSentence.objects.filter(sentence__document__campaign=campaign, subset="test",
                                                          sentence__document__genre__code=g).count())
    campaign.min_genre_sentences = GoldSentence.objects.filter(
        sentence__document__campaign=campaign, subset="test", sentence__document__genre__code=small).count() + 1
    campaign.save()
    cells = client.get(f"/results/{campaign.slug}/data.json").json()["data"]["runs"][0]["cells"]
    assert cells and small not in {c["genre"] for c in cells}
    campaign.min_genre_sentences = 10_000
    campaign.save()
    assert client.get(f"/results/{campaign.slug}/data.json").json()["data"]["runs"][0]["cells"] == []
    page = client.get(reverse("portal:run", kwargs={"pk": run.pk})).content.decode()
    assert "Signature" in page and 'class="figures"' not in page  # not even the pooled figures


def test_a_real_parsers_run_passes(drawn, organiser, tmp_path):
    from campaign.demo_parses import ParseCache, real_easy_files
    from parseval.annotations.easy import read_document

    make, upload = drawn
    campaign, team = make("enc-real")
    campaign.metrics = {"run_formats": ["easy-xml", "conllu"]}
    campaign.save()
    docs = [read_document(p, gold=True) for p in factories.easy_gold_paths()]
    files = real_easy_files(ParseCache(tmp_path / "parses"), "fr_core_news_sm", docs)
    run = upload(campaign, team, factories.zip_of(files), name="spaCy")
    assert run.status == RunStatus.SCORED, run.validation_report.get("problems", [])[:3]
    assert sum(len(d.sentences) for d in docs) == 280  # every sentence of the three documents, none refused
    with zipfile.ZipFile(io.BytesIO(run.converted_file.open("rb").read())) as zf:
        relations = sum(zf.read(n).count(b"<relation ") for n in zf.namelist())
    assert relations > 1000  # a real parse, converted, with its relations: not an empty run
