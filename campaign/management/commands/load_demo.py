"""``python manage.py load_demo``: a complete, published demo campaign.

Builds "EASY reference (demo)" from the shared EASY reference corpus with its
six genres (through the corpus import service), an organiser, four teams of
one member each and two synthetic runs per team (the gold perturbed as
documented in :mod:`campaign.demo`), uploads them through the run service,
scores them synchronously, and walks the campaign through its life cycle to
``published`` so that the public results page has a snapshot.

Idempotent: a second call finds what is there, resets the demo passwords
and does only what is missing; a run left unfinished by an interrupted or
failed first call is made again. The URLs and logins are printed last.
"""
from __future__ import annotations

import tempfile
import zipfile
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.files import File
from django.core.management.base import BaseCommand, CommandError
from django.db.models import Q
from django.urls import reverse

from parseval.annotations.easy import read_document, write_document, DEFAULT_SCHEMA
from parseval.annotations.errors import InputError
from parseval.annotations.names import EASY_GENRE_NAMES, genre_of
from annotations.models import AnnotationGuide, GuideVersion
from campaign import demo_parses, demo_kinds, demo, kinds
from campaign.demo_open import OPEN_SLUG, RUNS_DIR, load_open_demo
from campaign.lifecycle import TransitionRefused, transition
from campaign.models import Campaign, CampaignState, Publication, Run, RunStatus, TeamAdmission, TeamFigures
from campaign.services.corpus import import_corpus
from campaign.services.runs import upload_run
from campaign.services.teams import create_team
from campaign.subsets import sample_test_subset, subset_counts
from campaign.visibility import state_at_least
from config.celery import app

DEFAULT_SLUG = "easy-reference-demo"
NAME = "EASY reference (demo)"
ORGANISER = ("organiser", "demo-organiser-pw")
GENRE_NAMES = EASY_GENRE_NAMES
DEV_RATIO = 0.1  # of each genre's annotated sentences: the public development sample
GUIDE_FILE = "easy-annotation-guide-examples.zip"
PATH_TO_PUBLISHED = [CampaignState.OPEN, CampaignState.CLOSED, CampaignState.SCORED,
                     CampaignState.RELEASED, CampaignState.PUBLISHED]


def member_password(username: str) -> str:
    return f"demo-{username}-pw"


def guide_archive(schema) -> bytes:
    """The demo's guide document: the EASY schema in words and the annotation guide's 150 examples (MIT)."""
    import io

    folder = Path(settings.DATA_DIR) / "easy-guide"
    lines = ["EASY annotation guide (demo)", "", "Constituent types: " + ", ".join(schema.group_types), "",
             "Relation types and their roles:"]
    lines += [f"  {rtype}: {', '.join(roles)}" for rtype, roles in schema.relation_roles.items()]
    lines += ["", "examples/: the 150 example sentences of the EASY annotation guide, annotated",
              "(from aymara/lima, (c) 2022 CEA LIST, MIT licence: see LICENSE).", ""]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("README.txt", "\n".join(lines))
        zf.write(folder / "LICENSE", "LICENSE")
        for path in sorted((folder / "ref").glob("*.xml")):
            zf.write(path, f"examples/{path.name}")
    return buf.getvalue()


def organisers_group() -> Group:
    """The "Organisers" group: the model permissions of the three apps, deletes excluded."""
    group, _ = Group.objects.get_or_create(name="Organisers")
    group.permissions.set(Permission.objects.filter(
        Q(content_type__app_label__in=["campaign", "annotations", "evaluation"])
        & ~Q(codename__startswith="delete_")
    ))
    return group


class Command(BaseCommand):
    help = ("Load the demo campaigns (EASY reference corpus, four teams, synthetic and real scored runs, published; "
            "constituency and dependency demos; an open practice campaign where the demo teams can upload).")

    def add_arguments(self, parser):
        parser.add_argument("--slug", default=DEFAULT_SLUG, help=f"campaign slug (default {DEFAULT_SLUG})")
        parser.add_argument("--data", help="folder of EASY gold files (default: DATA_DIR/easy-ref/ref, shipped in data/)")
        parser.add_argument("--documents", type=int, default=0,
                            help="use only the first N documents of each genre (0: all; for quick tries)")
        parser.add_argument("--bootstrap", type=int,
                            help="bootstrap resamples for the intervals (default: the engine's)")
        parser.add_argument("--base-url", default="http://127.0.0.1:8000", help="printed in the summary")
        parser.add_argument("--no-kinds", action="store_true",
                            help="skip the constituency (French Sequoia trees) and dependency (UD French) demo campaigns")
        parser.add_argument("--no-real", action="store_true",
                            help="skip the real parser runs (spaCy), which parse the corpora the first time")
        parser.add_argument("--no-open", action="store_true",
                            help="skip the open campaign where the demo teams can try uploads (French UD practice)")

    def handle(self, *args, **options):
        # Each run scored in process would recompute its campaign's paired tests: once per campaign at the end.
        with kinds.coalesced(kinds.SIGNIFICANCE_TASK):
            summary = self._build(**options)
            self.stdout.write("Computing the paired significance tests of each campaign ...")  # at the block's end
        self._summary(*summary)  # last, so that the URLs and logins end the output

    def _build(self, *, slug, data, documents, bootstrap, base_url, no_kinds=False, no_real=False, no_open=False,
               **options):
        source = Path(data) if data else Path(settings.DATA_DIR) / "easy-ref" / "ref"
        gold_paths = self._gold_paths(source, documents)
        organiser = self._organiser()
        campaign = self._campaign(slug, organiser, bootstrap)
        if not campaign.documents.exists():
            self._import(campaign, gold_paths, organiser)
        self._dev_sample(campaign, organiser)
        self._guide(campaign)
        self._advance(campaign, organiser, until=CampaignState.OPEN)
        teams = self._teams(campaign)
        real_team = self._real_team(campaign) if not no_real else None
        if campaign.state == CampaignState.OPEN:
            self._runs(campaign, teams, gold_paths)
            if real_team:
                self._real_runs(campaign, real_team, gold_paths)

        demo_kinds.build_consensus(campaign, self.stdout.write)
        self._advance(campaign, organiser, until=CampaignState.PUBLISHED)
        if real_team:
            teams.append(real_team)
        if not no_kinds:
            self._kinds(organiser, teams, base_url)
        if not no_open:
            self._open(organiser, teams, base_url)
        return campaign, teams, base_url

    # -- steps -------------------------------------------------------------------------------

    def _gold_paths(self, source: Path, documents: int) -> list[Path]:
        paths = sorted(source.glob("*.xml"))
        if not paths:
            raise CommandError(f"No EASY gold file (*.xml) in {source}: the project ships them in data/easy-ref/ref "
                               "(see data/README.md); pass --data to use another folder.")
        if documents:
            per_genre: dict[str, list[Path]] = {}
            for p in paths:
                per_genre.setdefault(genre_of(p.stem), []).append(p)
            paths = sorted(p for group in per_genre.values() for p in group[:documents])
        return paths

    def _organiser(self):
        user_model = get_user_model()
        user, _ = user_model.objects.get_or_create(username=ORGANISER[0], defaults={"email": "organiser@example.org"})
        user.is_staff = True
        user.set_password(ORGANISER[1])
        user.save()
        user.groups.add(organisers_group())
        return user

    def _campaign(self, slug: str, organiser, bootstrap: int | None) -> Campaign:
        campaign, created = Campaign.objects.get_or_create(slug=slug, defaults={
            "name": NAME,
            "description": (
                "A demonstration of the platform on the EASY reference corpus as revised in PASSAGE "
                "(CEA LIST, MIT licence; annotation from the EASY and PASSAGE campaigns). The runs of the "
                "teams alpha to delta are synthetic: gold annotation perturbed in documented ways, not a parser. "
                "The spaCy baseline's runs are real: UD parses uploaded as CoNLL-U and converted to EASY on upload."
            ),
            "language": "fr",
            "publication": Publication.CODED,
            "corpus_public": True,
            "dev_sample_public": True,
            # A demonstration shows every figure; its console says what that choice costs a real campaign.
            "team_figures": TeamFigures.FULL,
            # and admits its synthetic teams without an organiser's approval (a real campaign's default)
            "team_admission": TeamAdmission.OPEN,
            "runs_per_team": 3,
            # Real parsers' runs come as CoNLL-U (UD), converted to EASY on upload.
            "metrics": {"run_formats": ["easy-xml", "conllu"]},
        })
        if created and bootstrap is not None:
            campaign.metrics = {**campaign.metrics, "bootstrap": bootstrap}
            campaign.save(update_fields=["metrics"])
        campaign.organisers.add(organiser)
        self.stdout.write(f"{'Created' if created else 'Found'} campaign {campaign.name!r} ({campaign.state}).")
        return campaign

    def _import(self, campaign: Campaign, gold_paths: list[Path], organiser) -> None:
        try:
            summary = import_corpus(campaign, gold_paths, actor=organiser)
        except InputError as exc:
            raise CommandError(f"The corpus could not be imported:\n{exc}") from None
        for genre in campaign.genres.all():
            if genre.code in GENRE_NAMES:
                genre.name = GENRE_NAMES[genre.code]
                genre.save(update_fields=["name"])
        self.stdout.write(f"Imported {summary.documents} documents, {summary.sentences} sentences, "
                          f"{summary.words} words in {len(summary.genres) or campaign.genres.count()} genres.")

    def _dev_sample(self, campaign: Campaign, organiser) -> None:
        """A tenth of each genre's annotated sentences, drawn under a secret key, as the public development sample."""
        if campaign.state == CampaignState.DRAFT and not subset_counts(campaign)["dev"]:
            summary = sample_test_subset(campaign, ratio=1 - DEV_RATIO, dev_ratio=DEV_RATIO,
                                         actor=organiser)
            self.stdout.write(f"Development sample: {summary.totals['dev']} sentences "
                              f"(test set: {summary.totals['test']}).")

    def _guide(self, campaign: Campaign) -> None:
        from django.core.files.base import ContentFile

        guide, _ = AnnotationGuide.objects.get_or_create(campaign=campaign, defaults={"title": "EASY annotation guide"})
        version, _ = GuideVersion.objects.get_or_create(guide=guide, version="1.0", defaults={
            "notes": "The EASY schema: 6 constituent types, 14 relation types.", "schema": DEFAULT_SCHEMA.to_dict(),
        })
        if not version.document:
            version.document.save(GUIDE_FILE, ContentFile(guide_archive(DEFAULT_SCHEMA)), save=True)

    def _advance(self, campaign: Campaign, organiser, *, until: str) -> None:
        for state in PATH_TO_PUBLISHED[: PATH_TO_PUBLISHED.index(until) + 1]:
            if state_at_least(campaign, state):
                continue
            try:
                transition(campaign, state, actor=organiser)
            except TransitionRefused as exc:
                raise CommandError(str(exc)) from None
            self.stdout.write(f"Campaign moved to {campaign.state}.")

    def _teams(self, campaign: Campaign) -> list:
        user_model = get_user_model()
        teams = []
        for spec in demo.TEAMS:
            user, _ = user_model.objects.get_or_create(username=spec["user"],
                                                       defaults={"email": f"{spec['user']}@example.org"})
            user.set_password(member_password(spec["user"]))
            user.save()
            team = campaign.teams.filter(name=spec["name"]).first()
            if team is None:
                if campaign.state != CampaignState.OPEN:
                    raise CommandError(f"Team {spec['name']!r} is missing and the campaign is no longer open.")
                team = create_team(campaign, user, name=spec["name"], affiliation="Demo (synthetic)")
            teams.append((spec, team, user))
        return teams

    def _runs(self, campaign: Campaign, teams, gold_paths: list[Path]) -> None:
        docs = [read_document(p, gold=True, strict=True, name=p.name) for p in gold_paths]
        eager = app.conf.task_always_eager
        app.conf.task_always_eager = True  # score here and now, whatever broker is configured
        try:
            with tempfile.TemporaryDirectory(prefix="demo-runs-") as tmp:
                for spec, team, user in teams:
                    for recipe in spec["runs"]:
                        if demo_kinds.has_scored_run(team, recipe.name):
                            continue
                        archive = Path(tmp) / f"{recipe.name.split()[0]}.zip"
                        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
                            for doc in docs:
                                member = Path(tmp) / doc.name
                                write_document(demo.perturb(doc, recipe), member)
                                zf.write(member, doc.name)
                                member.unlink()
                        self.stdout.write(f"Scoring {team.name} / {recipe.name} ...")
                        with archive.open("rb") as fh:
                            run = upload_run(campaign=campaign, team=team, user=user, name=recipe.name,
                                             uploaded_file=File(fh, name=archive.name),
                                             system_description=recipe.description)
                        Run.objects.filter(pk=run.pk).update(synthetic=True)
                        run.refresh_from_db()
                        if run.status != RunStatus.SCORED:
                            raise CommandError(f"The demo run {recipe.name!r} ended {run.status}: {run.status_reason}")
        finally:
            app.conf.task_always_eager = eager

    def _real_team(self, campaign: Campaign):
        """The "spaCy baseline" team and its member, as a ``(spec, team, user)`` triple like the synthetic teams'."""
        name, username = demo_kinds.REAL_TEAM
        user, _ = get_user_model().objects.get_or_create(username=username,
                                                          defaults={"email": f"{username}@example.org"})
        user.set_password(member_password(username))
        user.save()
        team = campaign.teams.filter(name=name).first()
        if team is None:
            if campaign.state != CampaignState.OPEN:
                return None  # a demo built before the real runs existed: leave it as it is
            team = create_team(campaign, user, name=name, affiliation="Demo (real parser)")
        return ({"name": name, "user": username, "runs": []}, team, user)

    def _real_runs(self, campaign: Campaign, real_team, gold_paths: list[Path]) -> None:
        """spaCy's parses of the corpus (cached), uploaded as CoNLL-U runs that the platform converts to EASY."""
        _, team, user = real_team
        formats = (campaign.metrics or {}).get("run_formats") or ["easy-xml"]
        if "conllu" not in formats:  # a demo database made before the campaign took CoNLL-U
            campaign.metrics = {**(campaign.metrics or {}), "run_formats": [*formats, "conllu"]}
            campaign.save(update_fields=["metrics"])
        docs = [read_document(p, gold=True, strict=True, name=p.name) for p in gold_paths]
        cache = demo_parses.default_cache()
        eager = app.conf.task_always_eager
        app.conf.task_always_eager = True
        try:
            with tempfile.TemporaryDirectory(prefix="demo-real-") as tmp:
                for model in demo_parses.REAL_MODELS:
                    name, description = demo_parses.real_easy_run(model)
                    if demo_kinds.has_scored_run(team, name):
                        continue
                    archive = Path(tmp) / f"{model}.zip"
                    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
                        for member, content in demo_parses.real_easy_files(cache, model, docs).items():
                            zf.writestr(member, content)
                    self.stdout.write(f"Scoring {team.name} / {name} ...")
                    with archive.open("rb") as fh:
                        run = upload_run(campaign=campaign, team=team, user=user, name=name,
                                         uploaded_file=File(fh, name=archive.name), system_description=description)
                    if run.status != RunStatus.SCORED:
                        run.refresh_from_db()
                    if run.status != RunStatus.SCORED:
                        raise CommandError(f"The demo run {name!r} ended {run.status}: {run.status_reason}")
        finally:
            app.conf.task_always_eager = eager

    def _kinds(self, organiser, teams, base_url: str) -> None:
        users = {spec["user"]: user for spec, _, user in teams}
        try:
            built = demo_kinds.load_kind_demos(organiser, users, self.stdout.write)
        except (InputError, RuntimeError) as exc:
            raise CommandError(f"The constituency/dependency demo could not be built: {exc}") from None
        self.kind_lines = [
            f"  {campaign.name} ({campaign.get_kind_display()}, {campaign.state}): "
            f"{base_url}{reverse('results:campaign', args=[campaign.slug])}" for campaign in built]
        self.kind_lines.append(f"  Error lab: {base_url}{reverse('lab:error_lab', args=[built[0].slug])}  (organiser)")

    def _open(self, organiser, teams, base_url: str) -> None:
        open_campaign = load_open_demo(organiser, {spec["user"]: user for spec, _, user in teams},
                                       {spec["user"]: spec["name"] for spec, _, _ in teams}, self.stdout.write)
        self.open_lines = [
            f"  {open_campaign.name} ({open_campaign.state}): {base_url}{open_campaign.get_absolute_url()}",
            f"  every demo user's team may upload there; files to try: data/{RUNS_DIR}/{OPEN_SLUG}/ (see its README)"]

    def _summary(self, campaign: Campaign, teams, base_url: str) -> None:
        scored = campaign.runs.filter(status=RunStatus.SCORED, withdrawn_at__isnull=True)
        runs = scored.filter(synthetic=True).count()
        real = scored.filter(synthetic=False, team__system=False).count()
        consensus = scored.filter(team__system=True).first()
        self.stdout.write(self.style.SUCCESS(
            f"\nDemo ready: {campaign.name!r}, state {campaign.state}, {campaign.teams.filter(system=False).count()} "
            f"teams, {runs} scored synthetic runs, {real} real parser runs"
            + (f", and their {consensus.name.lower()}." if consensus else ".")
        ))
        self.stdout.write(f"  Results:   {base_url}{reverse('results:campaign', args=[campaign.slug])}")
        self.stdout.write(f"  Campaign:  {base_url}{campaign.get_absolute_url()}")
        self.stdout.write(f"  Console:   {base_url}{reverse('console:dashboard', args=[campaign.slug])}  "
                          f"(admin: {base_url}{reverse('admin:index')})")
        if getattr(self, "kind_lines", None):
            self.stdout.write("Other kinds:")
            for line in self.kind_lines:
                self.stdout.write(line)
        if getattr(self, "open_lines", None):
            self.stdout.write("Try it as a team (open campaign):")
            for line in self.open_lines:
                self.stdout.write(line)
        self.stdout.write("Logins (user name / password):")
        self.stdout.write(f"  {ORGANISER[0]:<10} / {ORGANISER[1]:<20} organiser (console and admin)")
        for spec, team, user in teams:
            self.stdout.write(f"  {user.username:<10} / {member_password(user.username):<20} member of {team.name}")
