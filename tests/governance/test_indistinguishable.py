"""Nothing a team sees of a test run before release may depend on which sentences are test sentences.

For every campaign kind (and EASY runs sent as CoNLL-U, converted on validation),
two open campaigns are built on the same corpus and differ only in their test
subset: in campaign T the sentence P is the test
sentence, in campaign N it is not (another one is). The same adversarial run
files (a tree nested to the limit and beyond, a sentence with thousands of
nodes, relations or empty nodes, content that only the scorer reads) are
uploaded through the API to both, as a team member; a real Celery worker
process validates and scores them; then every response the team can get about
those runs (API JSON, pages, the live status, the upload answer) must be the
same in T and N once run ids, the campaign's slug and the upload time are
masked. Besides the run's own responses, each campaign is read once as the team
and once as the public: its significance document (API and JSON), the ranking
and comparison pages; and the team got in through the admission flow
(organiser approval: the pending team's page and its refused upload are
compared too). Every time on them but the upload's must be absent, or it shows
as a difference: the two campaigns' workers finish at different moments. The
self-tests plant a difference and check that it is caught.

Written as a generator: kinds x payloads x responses, counted in the summary
the test prints (``-s``).
"""
from __future__ import annotations

import io
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import dateformat, timezone
from lxml import etree

from parseval.annotations import plausibility
from parseval.annotations.limits import MAX_SENTENCE_RELATIONS, MAX_SENTENCE_WORDS, MAX_TREE_DEPTH
from annotations.models import GoldSentence
from campaign.models import CampaignKind, Run, RunStatus
from tests import factories
from tests.conftest import DATA
from tests.kinds.conftest import gold_bytes
from tests.integration import test_worker_scoring as real_worker
from tests.integration.test_worker_scoring import api_for, require_services

# the fixtures that start a real worker process on Redis, shared with the worker integration test
broker_queue, worker_storage, workers = real_worker.broker_queue, real_worker.worker_storage, real_worker.workers

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

WAIT_SECONDS = 240
XLINK = "http://www.w3.org/1999/xlink"


# -- payloads: each turns the gold file into a run file with something odd in sentence P -------------------

def easy_relations(count: int | None, *, null_args: bool = False):
    """``count`` more JUXT relations in sentence P; ``None``: as many as the plausibility bound allows."""
    def build(gold: bytes, sid: str) -> bytes:
        root = etree.fromstring(gold, etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True))
        sentence = root.find(f"E[@id='{sid}']")
        items = [e.get("id") for e in sentence.iter("F", "Groupe")]
        relations = sentence.find("relations")
        if relations is None:
            relations = etree.SubElement(sentence, "relations")
        pairs = [(a, b) for a in items for b in items if a != b]
        n = count
        if n is None:
            words = len(sentence.findall(".//F"))
            types = [r.get("type") for r in sentence.iter("relation")]
            n = min(plausibility.bound("relations_of_one_type", words) - types.count("JUXT"),
                    plausibility.bound("relations", words) - len(types))
        for k in range(n):
            a, b = (f"{sid}F0", items[k % len(items)]) if null_args else pairs[k % len(pairs)]
            rel = etree.SubElement(relations, "relation", {f"{{{XLINK}}}type": "extended", "type": "JUXT",
                                                          "id": f"{sid}R9{k}"})
            etree.SubElement(rel, "premier", {f"{{{XLINK}}}type": "locator", f"{{{XLINK}}}href": a})
            etree.SubElement(rel, "suivant", {f"{{{XLINK}}}type": "locator", f"{{{XLINK}}}href": b})
        return etree.tostring(root, xml_declaration=True, encoding="UTF-8")
    return build


def tree_payload(transform):
    def build(gold: bytes, sid: str) -> bytes:
        from parseval.annotations.trees.penn import parse_penn

        lines = [tree.to_penn() for tree in parse_penn(gold.decode("utf-8"))]
        index = int(sid) - 1
        lines[index] = transform(lines[index])  # as text: the reader would refuse a tree beyond the limit
        return "".join(line + "\n" for line in lines).encode("utf-8")
    return build


def wrap_first_word(depth_total: int):
    """The first preterminal wrapped in unary X nodes until ``depth_total`` brackets enclose its word."""
    def transform(penn: str) -> str:
        m = re.search(r"\(([^\s()]+) ([^\s()]+)\)", penn)
        depth = penn[:m.start()].count("(") - penn[:m.start()].count(")") + 1
        extra = depth_total - depth
        return penn[:m.start()] + "(X " * extra + m.group(0) + ")" * extra + penn[m.end():]
    return transform


def wrap_first_word_to_bound(penn: str) -> str:
    """The first preterminal wrapped in as many unary X nodes as the plausibility bound allows the tree."""
    from parseval.annotations.trees.penn import parse_penn

    tree = parse_penn(penn)[0]
    extra = plausibility.bound("brackets", len(tree.words())) - plausibility.tree_counts(tree)["brackets"]
    m = re.search(r"\(([^\s()]+) ([^\s()]+)\)", penn)
    return penn[:m.start()] + "(X " * extra + m.group(0) + ")" * extra + penn[m.end():]


def wrap_every_word(times: int):
    def transform(penn: str) -> str:
        return re.sub(r"\(([^\s()]+) ([^\s()]+)\)", lambda m: "(U " * times + m.group(0) + ")" * times, penn)
    return transform


def scorer_only_tree(penn: str) -> str:
    """Null elements, empty and unlabelled nodes, odd labels: nothing validation compares."""
    m = re.search(r"\(([^\s()]+) ([^\s()]+)\)", penn)
    odd = "(-NONE- *T*-1) (=NP-SBJ=2 (-NONE- *U*)) ( (-NONE- *)) (PRN (NP (-NONE- 0))) "
    return penn[:m.start()] + odd + penn[m.start():]


def empty_bracket(penn: str) -> str:
    """A bracket over nothing: the head rules of the dependency conversion would fail on it (found by this
    test), so validation refuses it."""
    m = re.search(r"\(([^\s()]+) ([^\s()]+)\)", penn)
    return penn[:m.start()] + "(NP ) " + penn[m.start():]


def conllu_payload(change):
    def build(gold: bytes, sid: str) -> bytes:
        blocks = gold.decode("utf-8").strip("\n").split("\n\n")
        for i, block in enumerate(blocks):
            if f"# sent_id = {sid}\n" in block + "\n":
                blocks[i] = change(block)
        return ("\n\n".join(blocks) + "\n\n").encode("utf-8")
    return build


def empty_nodes(count: int):
    def change(block: str) -> str:
        lines = block.split("\n")
        first = next(i for i, line in enumerate(lines) if line and line[0].isdigit())
        extra = [f"1.{k}\tvide\tvide\tNOUN\t_\t_\t_\t_\t1:dep\t_" for k in range(1, count + 1)]
        return "\n".join(lines[:first + 1] + extra + lines[first + 1:])
    return change


def odd_heads(block: str) -> str:
    """Every head unknown (``_``) but the first, which points at the root; relations nobody uses."""
    out = []
    for line in block.split("\n"):
        cols = line.split("\t")
        if len(cols) == 10 and cols[0].isdigit():
            cols[6] = "0" if cols[0] == "1" else "_"
            cols[7] = "root:odd:x" if cols[0] == "1" else "_"
            cols[3] = "PUNCT"
        out.append("\t".join(cols))
    return "\n".join(out)


def easy_as_conllu(change):
    """The EASY gold's forms as CoNLL-U (a flat parse: every word on the first), sentence P's block changed:
    a CoNLL-U run of an EASY campaign that takes them, converted on validation."""
    def build(gold: bytes, sid: str) -> bytes:
        from parseval.annotations.easy.reader import read_document

        blocks = []
        for sentence in read_document(io.BytesIO(gold), gold=True, name="mail_10.xml").sentences:
            lines = [f"# sent_id = {sentence.id}"] + [
                "\t".join([str(k), form.text, "_", "X", "_", "_", "0" if k == 1 else "1", "root" if k == 1 else "dep",
                           "_", "_"]) for k, form in enumerate(sentence.forms, 1)]
            block = "\n".join(lines)
            blocks.append(change(block) if sentence.id == sid else block)
        return ("\n\n".join(blocks) + "\n\n").encode("utf-8")
    return build


def chain_with_unknown_heads(block: str) -> str:
    """Each word on the one before, every other head unknown: an odd tree the converter still takes."""
    out = []
    for line in block.split("\n"):
        cols = line.split("\t")
        if len(cols) == 10:
            k = int(cols[0])
            cols[6], cols[7] = ("0", "root") if k == 1 else ("_", "_") if k % 2 else (str(k - 1), "nmod")
        out.append("\t".join(cols))
    return "\n".join(out)


def wrong_first_token(block: str) -> str:
    lines = block.split("\n")
    cols = lines[1].split("\t")
    cols[1] = "Zzyzx"
    lines[1] = "\t".join(cols)
    return "\n".join(lines)


def unknown_sent_id(block: str) -> str:
    head, _, rest = block.partition("\n")
    return "# sent_id = E999\n" + rest


@dataclass
class Kind:
    name: str
    kind: str
    gold: list[Path]
    test_sid: str  # P: a test sentence in campaign T, not in N
    other_sid: str  # the test sentence of campaign N
    payloads: dict
    metrics: dict
    run_name: str = ""  # the uploaded file's name (default: the gold file's)


def kinds(tmp: Path) -> list[Kind]:
    tmp.mkdir(parents=True, exist_ok=True)
    easy = tmp / "mail_10.xml"
    easy.write_bytes(factories.gold_bytes("mail_10.xml"))
    tree = tmp / "annodis.mrg"
    tree.write_bytes(gold_bytes("annodis"))  # Sequoia trees, shipped in data/
    blocks = (DATA / "ud-french" / "fr_sequoia-ud-test.conllu").read_text(encoding="utf-8").strip("\n").split("\n\n")
    deps = tmp / "sequoia.conllu"
    deps.write_text("\n\n".join(blocks[:3]) + "\n\n", encoding="utf-8")
    dep_ids = [re.search(r"# sent_id = (\S+)", b).group(1) for b in blocks[:2]]
    return [
        Kind("easy", CampaignKind.EASY, [easy], "E3", "E2", {
            # the plausibility bound (parseval/annotations/plausibility.py) comes before the scorability limits
            "relations-at-bound": easy_relations(None),
            "relations-implausible-refused": easy_relations(MAX_SENTENCE_RELATIONS - 10),
            "relations-beyond-limit": easy_relations(MAX_SENTENCE_RELATIONS + 1),
            "null-arguments": easy_relations(8, null_args=True),
        }, {"bootstrap": 20}),
        Kind("easy-conllu", CampaignKind.EASY, [easy], "E3", "E2", {
            "conllu-odd-tree": easy_as_conllu(chain_with_unknown_heads),
            "conllu-wrong-token-refused": easy_as_conllu(wrong_first_token),
            "conllu-unknown-sent-id-refused": easy_as_conllu(unknown_sent_id),
        }, {"bootstrap": 20, "run_formats": ["easy-xml", "conllu"]}, run_name="mail_10.conllu"),
        Kind("constituency", CampaignKind.CONSTITUENCY, [tree], "1", "2", {
            "depth-at-bound": tree_payload(wrap_first_word_to_bound),
            "depth-implausible-refused": tree_payload(wrap_first_word(MAX_TREE_DEPTH)),
            "depth-beyond-limit": tree_payload(wrap_first_word(5 * MAX_TREE_DEPTH)),
            "many-nodes-refused": tree_payload(wrap_every_word(150)),
            "scorer-only-content": tree_payload(scorer_only_tree),
            "empty-bracket-refused": tree_payload(empty_bracket),
        }, {"tree_metrics": ["evalb", "geig1991", "conformance", "leaf-ancestor"],
            "dependency_via_head_rules": True}),
        Kind("dependency", CampaignKind.DEPENDENCY, [deps], dep_ids[0], dep_ids[1], {
            "empty-nodes-at-limit": conllu_payload(empty_nodes(MAX_SENTENCE_WORDS - 200)),
            "empty-nodes-beyond-limit": conllu_payload(empty_nodes(MAX_SENTENCE_WORDS + 1)),
            "scorer-only-heads": conllu_payload(odd_heads),
        }, {}),
    ]


# -- the campaigns and the runs ------------------------------------------------------------------------

def make_campaign(kind: Kind, slug: str, test_sid: str):
    from evaluation.kinds import get

    campaign = factories.make_campaign(slug=slug, name="Probe campaign", kind=kind.kind, metrics=kind.metrics,
                                       runs_per_team=50)
    get(kind.kind).import_corpus(campaign, kind.gold)
    golds = GoldSentence.objects.filter(sentence__document__campaign=campaign)
    golds.update(subset=GoldSentence.Subset.UNUSED)
    assert golds.filter(sentence__sid=test_sid).update(subset=GoldSentence.Subset.TEST) == 1
    return campaign


def upload(api, campaign, name: str, filename: str, data: bytes):
    response = api.post(f"/api/campaigns/{campaign.slug}/runs/",
                        {"name": name, "file": SimpleUploadedFile(filename, data)}, format="multipart")
    assert response.status_code == 201, response.content
    return response


def wait_for(run_ids: list[int], proc, log_path: Path) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    final = (RunStatus.SCORED, RunStatus.INVALID, RunStatus.FAILED)
    while Run.objects.filter(pk__in=run_ids).exclude(status__in=final).exists():
        if proc.poll() is not None:
            pytest.fail(f"the worker exited with {proc.returncode}:\n{log_path.read_text(errors='replace')}")
        if time.monotonic() > deadline:
            pytest.fail(f"runs still working after {WAIT_SECONDS}s:\n{log_path.read_text(errors='replace')}")
        time.sleep(0.3)


# -- what a team sees, masked ----------------------------------------------------------------------------

def mask(text: str, campaign, runs: list[Run]) -> str:
    text = text.replace(campaign.slug, "<campaign>")
    text = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', 'name="csrfmiddlewaretoken" value=""', text)
    text = re.sub(r'<code class="invite">[^<]*</code>', '<code class="invite"></code>', text)  # one per team
    for run in runs:
        uploaded = timezone.localtime(run.uploaded_at)
        for shown in {run.uploaded_at.isoformat().replace("+00:00", "Z"), uploaded.isoformat(),
                      dateformat.format(uploaded, "Y-m-d H:i")}:
            text = text.replace(shown, "<uploaded>")
        text = re.sub(rf"/runs/{run.pk}/", "/runs/<id>/", text)
        text = re.sub(rf'"(id|run)":( ?){run.pk}([,}}])', r'"\1":\2"<id>"\3', text)
    for team in campaign.teams.all():
        text = text.replace(f"/teams/{team.pk}/", "/teams/<id>/")
    return text


def team_views(client: Client, api, campaign, run: Run, upload_body: str) -> dict[str, str]:
    """Every response the team can get about one run (and the campaign's lists), as text."""
    runs = list(campaign.runs.order_by("pk"))
    views = {
        "upload answer (API)": upload_body,
        "run (API)": api.get(f"/api/runs/{run.pk}/").content.decode(),
        "run results (API)": api.get(f"/api/runs/{run.pk}/results/").content.decode(),
        "runs list (API)": api.get(f"/api/campaigns/{campaign.slug}/runs/").content.decode(),
        "run page": client.get(f"/runs/{run.pk}/").content.decode(),
        "live status": client.get(f"/runs/{run.pk}/status/").content.decode(),
        "campaign page": client.get(f"/campaigns/{campaign.slug}/").content.decode(),
        "run results page": client.get(f"/results/{campaign.slug}/runs/{run.pk}/").content.decode(),
        **analysis_views(client, campaign, run),
    }
    return {name: mask(body, campaign, runs) for name, body in views.items()}


def analysis_views(client: Client, campaign, run: Run, who: str = "") -> dict[str, str]:
    """The analysis explorer's routes of one run (issue 38): before the gold release a test run's analysis is
    nobody's but the organisers', so every one answers the same in both campaigns. Fetched with the status code."""
    base = f"/results/{campaign.slug}/runs/{run.pk}/analysis"
    first = GoldSentence.objects.filter(sentence__document__campaign=campaign).order_by(
        "sentence__document__order", "sentence__position").first()  # the same sentence in both campaigns
    key = f"{first.sentence.document.name}/{first.sentence.sid}" if first else ""
    routes = {"analysis page": (f"{base}/", {}), "analysis JSON": (f"{base}.json", {}),
              "analysis confusions": (f"{base}/confusions/", {}), "analysis errors": (f"{base}/errors/", {}),
              "analysis sentences": (f"{base}/sentences/", {"by": "sentence_length", "bucket": "1-10"}),
              "analysis sentence": (f"{base}/sentence/", {"key": key})}
    out = {}
    for name, (url, params) in routes.items():
        response = client.get(url, params)
        out[name + who] = f"{response.status_code} {response.content.decode()}"
    return out


def campaign_views(entry: dict) -> dict[str, str]:
    """What the team, and anyone, can read of the whole campaign once its runs are processed: read once per
    campaign (they are the same for each of its runs), with the admission pages kept while the team waited."""
    campaign, client, api = entry["campaign"], entry["client"], entry["api"]
    runs = list(campaign.runs.order_by("pk"))
    public = Client()
    slug = campaign.slug
    a, b = (runs[0].pk, runs[-1].pk) if runs else (0, 0)
    views = {
        "significance (API)": api.get(f"/api/campaigns/{slug}/significance/").content.decode(),
        "significance (JSON)": client.get(f"/results/{slug}/significance.json").content.decode(),
        "ranking page": client.get(f"/results/{slug}/ranking/").content.decode(),
        "comparison page": client.get(f"/results/{slug}/compare/{a}/{b}/").content.decode(),
        "results page": client.get(f"/results/{slug}/").content.decode(),
        "significance (API, public)": public.get(f"/api/campaigns/{slug}/significance/").content.decode(),
        "ranking page (public)": public.get(f"/results/{slug}/ranking/").content.decode(),
        "campaign page (public)": public.get(f"/campaigns/{slug}/").content.decode(),
        "analysis comparison page": _status_body(client.get(f"/results/{slug}/analysis/compare/{a}/{b}/")),
        "analysis comparison page (public)": _status_body(public.get(f"/results/{slug}/analysis/compare/{a}/{b}/")),
        **(analysis_views(public, campaign, runs[0], " (public)") if runs else {}),
    }
    return {**entry["waiting"], **{name: mask(body, campaign, runs) for name, body in views.items()}}


def _status_body(response) -> str:
    return f"{response.status_code} {response.content.decode()}"


def collect_campaigns(campaigns: dict) -> dict:
    """``{kind: {"T": views, "N": views}}``."""
    seen: dict = {}
    for (kind, side), entry in campaigns.items():
        seen.setdefault(kind, {})[side] = campaign_views(entry)
    return seen


def differences(seen_t: dict[str, str], seen_n: dict[str, str]) -> list[str]:
    out = []
    for name in seen_t:
        if seen_t[name] != seen_n[name]:
            a, b = seen_t[name], seen_n[name]
            at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            out.append(f"{name}: ...{a[max(0, at - 80):at + 80]!r} != ...{b[max(0, at - 80):at + 80]!r}")
    return out


def run_probes(workers, tmp: Path, only: tuple[str, str] | None = None):
    """Both campaigns of every kind, every payload (or ``only`` one) uploaded to both and processed by a real
    worker process. Returns ``([(kind, payload, side, campaign, run id, upload answer, api, client)], log)``."""
    require_services()
    proc, log_path = workers.start("indistinguishable")
    out = []
    campaigns: dict = {}
    for kind in kinds(tmp / "gold"):
        if only and kind.name != only[0]:
            continue
        user = factories.make_user(f"probe-{kind.name}")
        organiser = factories.make_user(f"organiser-{kind.name}")
        api = api_for(user)
        client = Client()
        client.force_login(user)
        pair = {}
        for side, sid in (("T", kind.test_sid), ("N", kind.other_sid)):
            campaign = make_campaign(kind, f"probe-{kind.name}-{side.lower()}", sid)
            admitted_by_organiser(campaign, user, client, api, organiser, kind, side, campaigns)
            pair[side] = campaign
        gold = kind.gold[0].read_bytes()
        for payload, build in kind.payloads.items():
            if only and payload != only[1]:
                continue
            data = build(gold, kind.test_sid)
            assert data != gold
            for side in ("T", "N"):
                response = upload(api, pair[side], payload, kind.run_name or kind.gold[0].name, data)
                out.append((kind, payload, side, pair[side], response.json()["id"], response.content.decode(),
                            api, client))
    wait_for([r[4] for r in out], proc, log_path)
    return out, campaigns, log_path


def admitted_by_organiser(campaign, user, client, api, organiser, kind, side, campaigns) -> None:
    """The team registers through the portal in a campaign with organiser approval, is refused an upload while
    it waits (what it sees then is kept for the comparison), and is admitted."""
    from campaign.models import TeamAdmission
    from campaign.services.teams import admit_teams

    campaign.team_admission = TeamAdmission.APPROVAL
    campaign.save()
    campaign.organisers.add(organiser)
    client.post(f"/campaigns/{campaign.slug}/team/create/", {"name": "Probe team"})
    team = campaign.teams.get()
    assert not team.admitted
    refused = api.post(f"/api/campaigns/{campaign.slug}/runs/",
                       {"name": "early", "file": SimpleUploadedFile("early.txt", b"x")}, format="multipart")
    assert refused.status_code in (400, 403), refused.content
    waiting = {"admission: campaign page while waiting": client.get(f"/campaigns/{campaign.slug}/").content.decode(),
               "admission: refused upload": f"{refused.status_code} {refused.content.decode()}"}
    campaigns[(kind.name, side)] = {"campaign": campaign, "client": client, "api": api,
                                    "waiting": {k: mask(v, campaign, []) for k, v in waiting.items()}}
    assert admit_teams([team], organiser) == 1


def collect(probes) -> dict:
    """``{(kind, payload): {"T": views, "N": views, "runs": (run T, run N)}}``."""
    seen: dict = {}
    for kind, payload, side, campaign, run_id, upload_body, api, client in probes:
        run = Run.objects.get(pk=run_id)
        entry = seen.setdefault((kind.name, payload), {"runs": {}})
        entry["runs"][side] = run
        entry[side] = team_views(client, api, campaign, run, upload_body)
    return seen


def test_a_team_cannot_tell_test_sentences_from_the_others(workers, tmp_path):
    runs, campaigns, log_path = run_probes(workers, tmp_path)
    seen = collect(runs)
    compared = 0
    for kind, entry in collect_campaigns(campaigns).items():
        found = differences(entry["T"], entry["N"])
        assert not found, f"{kind} / the campaign: " + "\n".join(found)
        compared += len(entry["T"])
    for (kind, payload), entry in seen.items():
        run_t, run_n = entry["runs"]["T"], entry["runs"]["N"]
        # What the runs became is what validation decided, in both campaigns: no scoring failure anywhere.
        beyond = payload.endswith(("beyond-limit", "refused"))
        expected = RunStatus.INVALID if beyond else RunStatus.SCORED
        for run in (run_t, run_n):
            assert run.status == expected, (kind, payload, run.status, run.status_reason, run.validation_report,
                                             log_path.read_text(errors="replace")[-3000:])
        if beyond:  # refused with where: the file, the line and sentence P
            problem = run_t.validation_report["problems"][0]
            assert problem["file"] and problem["line"] and problem["sentence"], problem
        found = differences(entry["T"], entry["N"])
        assert not found, f"{kind} / {payload}: " + "\n".join(found)
        compared += len(entry["T"])
    kinds_n = len({k for k, _ in seen})
    print(f"\nindistinguishability: {kinds_n} kinds, {len(seen)} kind x payload pairs, {compared} responses "
          f"compared per side ({2 * compared} fetched)")
    # per run: 8 responses and the analysis explorer's 6 routes; per campaign: 10 and the explorer's 2 + 6 (public)
    assert kinds_n == 4 and compared == len(seen) * 14 + kinds_n * 18


def test_self_test_catches_a_planted_difference(workers, tmp_path):
    """The comparison is not blind: the old behaviour (scoring state and times shown before release) and a
    one-figure change in one run's report both show as differences."""
    runs, campaigns, _ = run_probes(workers, tmp_path, only=("constituency", "depth-at-bound"))
    seen = collect(runs)
    entry = seen[("constituency", "depth-at-bound")]
    assert not differences(entry["T"], entry["N"])

    # 0. the significance sets, live, as every scored run used to publish them (finding 3 of issue 19):
    # computed here for both campaigns, at two moments, as the worker would after each scoring
    from evaluation.significance import sets as significance

    for side in ("T", "N"):
        significance.compute(campaigns[("constituency", side)]["campaign"])
    assert not differences(*[collect_campaigns(campaigns)["constituency"][side] for side in ("T", "N")])
    with mock.patch("campaign.visibility.can_see_significance", return_value=True), \
            mock.patch("campaign.visibility.can_see_scoring_times", return_value=True):
        leaky = collect_campaigns(campaigns)["constituency"]
    found = differences(leaky["T"], leaky["N"])
    assert any(name.startswith("significance (API)") for name in found), found
    assert any(name.startswith("significance (API, public)") for name in found), found

    # 1. the scoring state and its times, as they were shown before the rule
    with mock.patch("campaign.services.runs.can_see_scoring_state", return_value=True), \
            mock.patch("campaign.services.runs.can_see_run_scoring_time", return_value=True):
        leaky = collect(runs)[("constituency", "depth-at-bound")]
    found = differences(leaky["T"], leaky["N"])
    assert any(name.startswith("run (API)") for name in found), found
    assert any(name.startswith("live status") for name in found), found

    # 2. a planted analysis of one run, shown as the explorer shows it once the gold is out: caught; under the
    # real rule (before the gold release) nothing of it is shown, in either campaign
    from evaluation.analysis import store as analysis_store
    from evaluation.models import Result, RunAnalysis

    for side, run in entry["runs"].items():
        result = Result.objects.filter(run=run).order_by("-pk").first()
        RunAnalysis.objects.filter(result=result).delete()
        marker = "PLANTED-T-4QX" if side == "T" else "PLANTED-N-7RW"
        RunAnalysis.objects.create(result=result, schema=analysis_store.SCHEMA, index=analysis_store.pack(
            {"kind": "trees", "keys": [], "genres": [], "columns": [], "buckets": {}, "confusions": {},
             "errors": []}), document={"schema": analysis_store.SCHEMA, "signature": marker, "attributes": [],
                                       "headline": {}, "explorer": {}})
    quiet = collect(runs)[("constituency", "depth-at-bound")]
    assert not differences(quiet["T"], quiet["N"])
    with mock.patch("evaluation.analysis.access.visible_result",
                    side_effect=lambda user, run: Result.objects.filter(run=run).order_by("-pk").first()):
        leaky = collect(runs)[("constituency", "depth-at-bound")]
    found = differences(leaky["T"], leaky["N"])
    assert any(name.startswith("analysis page") for name in found), found
    assert any(name.startswith("analysis JSON") for name in found), found

    # 3. a single figure of one run's validation report
    run_t = entry["runs"]["T"]
    report = dict(run_t.validation_report, sentences=run_t.validation_report["sentences"] + 1)
    Run.objects.filter(pk=run_t.pk).update(validation_report=report)
    planted = collect(runs)[("constituency", "depth-at-bound")]
    found = differences(planted["T"], planted["N"])
    assert any(name.startswith("run (API)") for name in found), found
    assert any(name.startswith("run page") for name in found), found
    json.dumps(found)  # the messages are plain text
