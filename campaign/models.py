"""Campaigns, their corpus, teams, runs and the audit log.

Gold annotation and test-subset membership are *not* here: they live in
``annotations.models`` so that team-facing code, which only imports this
module's corpus models, cannot reach them by accident.
"""
from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _, pgettext_lazy

from . import kinds


class CampaignKind(models.TextChoices):
    """The names of the kinds this platform ships, for the demo builder and tests that create campaigns.

    Not the field's choices: those are the registered kinds' (:func:`campaign.kinds.choices`), so a new kind
    needs no edit here and no migration.
    """

    EASY = "easy", _("EASY (constituents and relations)")
    CONSTITUENCY = "constituency", _("Constituency trees")
    DEPENDENCY = "dependency", _("Dependency trees")


class CampaignState(models.TextChoices):
    DRAFT = "draft", pgettext_lazy("campaign state", "Draft")
    OPEN = "open", pgettext_lazy("campaign state", "Open")
    CLOSED = "closed", pgettext_lazy("campaign state", "Closed")
    SCORED = "scored", pgettext_lazy("campaign state", "Scored")
    RELEASED = "released", pgettext_lazy("campaign state", "Results released to teams")
    PUBLISHED = "published", pgettext_lazy("campaign state", "Published")
    GOLD_RELEASED = "gold_released", pgettext_lazy("campaign state", "Gold released")
    ARCHIVED = "archived", pgettext_lazy("campaign state", "Archived")


class TeamAdmission(models.TextChoices):
    """How a new team gets into a campaign: each team is a run quota and a set of probes of the test set.

    New campaigns default to organiser approval: every campaign's test set is hidden until the gold
    release, and with ``open`` each new address was a new team with its own quota (10 an hour per client
    address, the sign-up rate). An address costs nothing, so ``email`` bounds the teams by the addresses a
    person can make; approval bounds them by the organisers' judgement, a number they know, which is what
    the disclosure budget multiplies by (docs/governance.md). The open demo's practice campaign, whose draw
    key is public, is ``open``."""

    OPEN = "open", _("Open: any account may register a team")
    EMAIL = "email", _("E-mail verification: the registering account has verified its address")
    APPROVAL = "approval", _("Organiser approval: a team may upload and download once an organiser admits it")


class Publication(models.TextChoices):
    NAMED = "named", _("Teams under their names")
    CODED = "coded", _("Teams under codes (A, B, C...) unless they opt in")


class TeamFigures(models.TextChoices):
    """What a team sees of its own test runs' figures before the gold release (docs/threat-model.md)."""

    PRIMARY = "primary", _("One figure per layer (F of all genres and types, to 0.1 point) of each team's primary run "
                           "(its latest active one), none where the measured secrecy budget would exceed 1 bit per "
                           "run or 1 %; the rest from the gold release")
    POOLED = "pooled", _("Pooled rates only: P, R, F of all genres and types together, per way, to 0.1 point; "
                        "the rest from the gold release")
    RATES = "rates", _("Rates (P, R, F to 0.1 point) per genre and type, for genres with enough scored sentences; "
                      "counts (fc, fp, cr) from the gold release")
    FULL = "full", _("Every cell with its counts: exact, but a crafted run reads from its own counts which "
                    "sentences are scored")


class Campaign(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(unique=True)
    description = models.TextField(blank=True)
    language = models.CharField(max_length=16, default="fr", help_text=_("ISO 639 code of the corpus language"))
    page_language = models.CharField(
        max_length=8, choices=settings.LANGUAGES, default="en", blank=True, verbose_name=_("language of the pages"),
        help_text=_("The language of the campaign's pages for a visitor whose browser asks for none of the site's "
                  "languages (docs/languages.md)"))
    kind = models.CharField(max_length=20, choices=kinds.choices, default=CampaignKind.EASY)
    state = models.CharField(max_length=20, choices=CampaignState.choices, default=CampaignState.DRAFT, db_index=True)
    organisers = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="organised_campaigns", blank=True)

    # Scheduled dates: when set, a periodic task applies the transition once due.
    opens_at = models.DateTimeField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True, help_text=_("Runs are refused after this moment"))
    results_release_at = models.DateTimeField(null=True, blank=True)
    publish_at = models.DateTimeField(null=True, blank=True)
    gold_release_at = models.DateTimeField(null=True, blank=True)
    archive_at = models.DateTimeField(null=True, blank=True)
    # Set when the gold is released; archiving afterwards must not hide it again, and
    # archiving a campaign whose gold was never released must not reveal it.
    gold_released_at = models.DateTimeField(null=True, blank=True, editable=False)

    runs_per_team = models.PositiveSmallIntegerField(default=3)
    invalid_uploads_per_day = models.PositiveSmallIntegerField(default=10)
    # Quotas over any 24 hours, whatever became of the runs (invalid, withdrawn, scored): so that
    # withdrawing is not a way around the run limit, nor uploading a way to probe the test set.
    uploads_per_day = models.PositiveSmallIntegerField(
        default=10, help_text=_("Uploads a team may make in any 24 hours, whatever became of them"))
    withdrawals_per_day = models.PositiveSmallIntegerField(
        default=2, help_text=_("Runs a team may withdraw in any 24 hours"))
    max_upload_bytes = models.PositiveBigIntegerField(default=200 * 1024 * 1024)
    publication = models.CharField(max_length=10, choices=Publication.choices, default=Publication.CODED)
    team_admission = models.CharField(max_length=10, choices=TeamAdmission.choices, default=TeamAdmission.APPROVAL)
    corpus_public = models.BooleanField(default=False, help_text=_("Anyone may download the corpus text"))
    dev_sample_public = models.BooleanField(default=False, help_text=_("Anyone may download the development sample"))
    bundle_run_files = models.BooleanField(
        default=False, verbose_name=_("runs' files in the publication bundle"),
        help_text=_("The published bundle carries every published run's files (the teams agreed to publish their "
                  "output), so that anyone can score them again; otherwise only their checksums (docs/bundle.md)"))
    metrics = models.JSONField(default=dict, blank=True, help_text=_("Scoring options (metric names and parameters)"))
    team_figures = models.CharField(
        max_length=8, choices=TeamFigures.choices, default=TeamFigures.PRIMARY,
        verbose_name=_("figures teams see before the gold release"),
        help_text=_("One figure per layer of each team's primary run keeps the test set hidden until the gold release "
                    "(at most about one sentence per team, measured); pooled rates let a team that pads chosen "
                    "sentences read 7 to 14 of them per extra run, rates per genre and type hundreds; full figures let "
                    "a crafted run read it from its own counts (docs/threat-model.md, the console's secrecy budget)"))
    min_genre_sentences = models.PositiveSmallIntegerField(
        default=20, verbose_name=_("scored sentences a genre needs for its figures"),
        help_text=_("Before the gold release, with rates or pooled rates: a genre with fewer scored sentences shows "
                  "no figures of its own (it counts in the all-genres row); no figure at all below it in total"))
    # The draw's secret key (campaign.subsets): organisers and the server only; never in a form or a team's page.
    draw_key = models.CharField(max_length=64, blank=True, editable=False)

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("portal:campaign", kwargs={"slug": self.slug})

    def is_organiser(self, user) -> bool:
        if not user.is_authenticated:
            return False
        return user.is_superuser or self.organisers.filter(pk=user.pk).exists()

    @property
    def accepts_runs(self) -> bool:
        if self.state != CampaignState.OPEN:
            return False
        return self.deadline is None or timezone.now() < self.deadline


class Genre(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="genres")
    code = models.SlugField(max_length=50)
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order", "code"]
        constraints = [models.UniqueConstraint(fields=["campaign", "code"], name="unique_genre_code")]

    def __str__(self) -> str:
        return self.name


def corpus_upload_to(instance: "CorpusDocument", filename: str) -> str:
    return f"corpus/{instance.campaign.slug}/{instance.name}{_suffix(filename)}"


def _suffix(filename: str) -> str:
    dot = filename.rfind(".")
    return filename[dot:] if dot > 0 else ""


class CorpusDocument(models.Model):
    """One document of the corpus as teams receive it: text and ids, no annotation."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="documents")
    genre = models.ForeignKey(Genre, on_delete=models.PROTECT, related_name="documents")
    name = models.CharField(max_length=200, help_text=_("Base file name; runs are paired with documents by it"))
    text_file = models.FileField(upload_to=corpus_upload_to)
    sha256 = models.CharField(max_length=64)
    sentence_count = models.PositiveIntegerField(default=0)
    word_count = models.PositiveIntegerField(default=0)
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["order", "name"]
        constraints = [models.UniqueConstraint(fields=["campaign", "name"], name="unique_document_name")]

    def __str__(self) -> str:
        return self.name


class Sentence(models.Model):
    """A sentence of the corpus. Whether it has gold is recorded elsewhere (annotations)."""

    document = models.ForeignKey(CorpusDocument, on_delete=models.CASCADE, related_name="sentences")
    sid = models.CharField(max_length=64, help_text=_("Sentence id as in the files (E12)"))
    position = models.PositiveIntegerField()
    word_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["document", "position"]
        constraints = [models.UniqueConstraint(fields=["document", "sid"], name="unique_sentence_id")]

    def __str__(self) -> str:
        return f"{self.document.name}:{self.sid}"


class Team(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="teams")
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80)
    code = models.CharField(max_length=8, blank=True, help_text=_("Code shown instead of the name in coded publication"))
    show_name = models.BooleanField(default=False, help_text=_("The team opts in to being published under its name"))
    affiliation = models.CharField(max_length=200, blank=True)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, through="Membership", related_name="teams")
    admitted = models.BooleanField(default=True, help_text=_("False while the team awaits an organiser's approval"))
    # The platform's own team, whose runs are consensus pseudo-runs (evaluation.consensus.runs): no member,
    # so nobody logs in as it or uploads for it; its runs are ordinary runs, scored and shown by the same rules.
    system = models.BooleanField(default=False, editable=False,
                                 help_text=_("The platform's consensus team: no member, no upload"))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign", "name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "slug"], name="unique_team_slug"),
            models.UniqueConstraint(fields=["campaign", "name"], name="unique_team_name"),
        ]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    class Role(models.TextChoices):
        LEADER = "leader", _("Leader")
        MEMBER = "member", _("Member")

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    # Denormalised from team so the database can enforce one team per user per campaign.
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.MEMBER)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "user"], name="one_team_per_campaign")]

    def save(self, *args, **kwargs):
        self.campaign_id = self.team.campaign_id
        super().save(*args, **kwargs)

    def __str__(self) -> str:
        return f"{self.user} in {self.team}"


class VerifiedEmail(models.Model):
    """An account's e-mail address, proved by following a signed link sent to it (campaign.accounts).

    Valid while the account's address is still this one: changing the address needs a new proof."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="verified_email")
    email = models.EmailField()
    verified_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.email} of {self.user}"


def new_invitation_token() -> str:
    return secrets.token_urlsafe(24)  # 192 random bits


class Invitation(models.Model):
    """A code that lets people join one team: random, kept here, revocable, expiring, optionally limited.

    The code proves nothing by itself (it is not signed): it is valid only while this
    row says so, and the team can revoke it at any time.
    """

    DEFAULT_DAYS = 7
    MAX_DAYS = 30

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="invitations")
    token = models.CharField(max_length=64, unique=True, default=new_invitation_token, editable=False)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    max_uses = models.PositiveSmallIntegerField(null=True, blank=True, help_text=_("Empty: any number of people"))
    uses = models.PositiveSmallIntegerField(default=0)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"invitation {self.pk} to {self.team}"

    def save(self, *args, **kwargs):
        if self.expires_at is None:
            self.expires_at = (self.created_at or timezone.now()) + timedelta(days=self.DEFAULT_DAYS)
        super().save(*args, **kwargs)

    def refusal(self, now=None) -> str:
        """Why this invitation cannot be used now ("" if it can)."""
        now = now or timezone.now()
        if self.revoked_at is not None:
            return str(_("This invitation was revoked by the team; ask a member for a new one."))
        if now >= self.expires_at:
            return str(_("This invitation has expired; ask a member of the team for a new one."))
        if self.max_uses is not None and self.uses >= self.max_uses:
            return str(_("This invitation has been used as many times as the team allowed; ask a member for a new one."))
        return ""


class RunStatus(models.TextChoices):
    UPLOADED = "uploaded", _("Uploaded")
    VALIDATING = "validating", _("Validating")
    INVALID = "invalid", _("Invalid")
    QUEUED = "queued", _("Queued for scoring")
    SCORING = "scoring", _("Scoring")
    SCORED = "scored", _("Scored")
    FAILED = "failed", _("Failed")


def run_upload_to(instance: "Run", filename: str) -> str:
    return f"runs/{instance.campaign.slug}/{instance.team.slug}/{instance.sha256[:16]}{_suffix(filename)}"


def converted_upload_to(instance: "Run", filename: str) -> str:
    return f"runs/{instance.campaign.slug}/{instance.team.slug}/{filename}"


class RunQuerySet(models.QuerySet):
    def update(self, **kwargs):
        frozen = set(kwargs) & (set(Run.IMMUTABLE_FIELDS) | {"campaign_id", "team_id"})
        if frozen:
            raise PermissionDenied(f"A run's {', '.join(sorted(frozen))} cannot change after upload.")
        return super().update(**kwargs)


class Run(models.Model):
    """A team's parser output. The file is immutable once stored."""

    class Scope(models.TextChoices):
        TEST = "test", _("Evaluation run")
        DEV = "dev", _("Development-sample check")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="runs")
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="runs")
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    name = models.CharField(max_length=100)
    system_description = models.TextField(blank=True)
    scope = models.CharField(max_length=10, choices=Scope.choices, default=Scope.TEST)
    synthetic = models.BooleanField(default=False, help_text=_("A demo run made by perturbing gold, not a real parser"))
    track = models.CharField(max_length=20, blank=True, default="",
                             help_text=_("Dependency campaigns: gold-tokens or raw-text (see campaign.tracks)"))

    file = models.FileField(upload_to=run_upload_to, max_length=300)
    original_filename = models.CharField(max_length=255)
    # A run in another format (CoNLL-U for EASY) is converted during validation: the EASY XML that is
    # scored is kept here beside the upload, which stays as the team sent it (evaluation.kinds.easy.conllu).
    converted_file = models.FileField(upload_to=converted_upload_to, max_length=300, blank=True,
                                      help_text=_("The EASY XML (a zip) converted from the uploaded file, if any"))
    converter = models.CharField(max_length=40, blank=True, help_text=_("The converter that made converted_file"))
    # A consensus pseudo-run: what it was combined from (runs, their results, weights, thresholds), so that
    # it can be recomputed; and its oracle upper bound. Empty for a team's run.
    combination = models.JSONField(default=dict, blank=True, editable=False,
                                   help_text=_("A consensus pseudo-run's chosen runs, weights and thresholds"))
    sha256 = models.CharField(max_length=64, db_index=True)
    size = models.PositiveBigIntegerField()

    status = models.CharField(max_length=12, choices=RunStatus.choices, default=RunStatus.UPLOADED, db_index=True)
    status_reason = models.TextField(blank=True)
    status_changed_at = models.DateTimeField(default=timezone.now)
    progress = models.PositiveSmallIntegerField(default=0, help_text=_("Percent done in the current step"))
    validation_report = models.JSONField(default=dict, blank=True)
    task_id = models.CharField(max_length=64, blank=True)

    uploaded_at = models.DateTimeField(default=timezone.now, db_index=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    disqualified = models.BooleanField(default=False)
    disqualified_reason = models.TextField(blank=True)

    # Delivery of the scoring task (evaluation.pipeline.delivery, evaluation.pipeline.recovery): an outbox mark committed with
    # the upload, the delivery holding the run and its heartbeat, and the round a re-score starts.
    dispatch_pending = models.BooleanField(default=False, db_index=True,
                                           help_text=_("Scoring still to be queued (set with the upload, cleared once queued)"))
    dispatched_at = models.DateTimeField(null=True, blank=True, help_text=_("When scoring was last queued"))
    claimed_by = models.CharField(max_length=200, blank=True, help_text=_("The task delivery scoring the run now"))
    heartbeat_at = models.DateTimeField(null=True, blank=True, help_text=_("Last sign of life of that delivery"))
    scoring_attempts = models.PositiveSmallIntegerField(default=0, help_text=_("Deliveries that started this round"))
    scoring_round = models.PositiveIntegerField(default=1, help_text=_("Raised by each re-score"))

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["-uploaded_at"]
        indexes = [models.Index(fields=["campaign", "status"]), models.Index(fields=["team", "uploaded_at"])]

    def __str__(self) -> str:
        return f"{self.team} / {self.name}"

    @property
    def is_active(self) -> bool:
        return self.withdrawn_at is None and not self.disqualified

    # The receipt given to the team: none of these may change once the run is stored.
    IMMUTABLE_FIELDS = ("file", "sha256", "size", "original_filename", "campaign", "team", "scope", "track")

    def save(self, *args, **kwargs):
        update_fields = kwargs.get("update_fields")
        if self.pk is not None and (update_fields is None or set(update_fields) & set(self.IMMUTABLE_FIELDS)):
            stored = type(self).objects.filter(pk=self.pk).values(*[
                f + "_id" if f in ("campaign", "team") else f for f in self.IMMUTABLE_FIELDS
            ]).first()
            if stored is not None:
                for name in self.IMMUTABLE_FIELDS:
                    attr = name + "_id" if name in ("campaign", "team") else name
                    current = getattr(self, attr)
                    current = current.name if hasattr(current, "name") and name == "file" else current
                    # An empty stored value is a two-step creation (row first, then the file).
                    if stored[attr] not in ("", None) and current != stored[attr]:
                        raise PermissionDenied(f"A run's {name} cannot change after upload.")
        super().save(*args, **kwargs)

    def set_status(self, status: str, reason: str = "", progress: int | None = None) -> None:
        self.status = status
        self.status_reason = reason
        self.status_changed_at = timezone.now()
        if progress is not None:
            self.progress = progress
        self.save(update_fields=["status", "status_reason", "status_changed_at", "progress"])


class AuditQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise PermissionDenied("The audit log is append-only.")

    def delete(self):
        raise PermissionDenied("The audit log is append-only.")

    def bulk_update(self, objs, fields, batch_size=None):
        raise PermissionDenied("The audit log is append-only.")


class AuditEntry(models.Model):
    """Who did what, when, from where. Append-only: no code path updates or deletes."""

    at = models.DateTimeField(default=timezone.now, db_index=True)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    actor_name = models.CharField(max_length=150, blank=True, help_text=_("Kept even if the account is renamed"))
    campaign = models.ForeignKey(Campaign, null=True, blank=True, on_delete=models.PROTECT, related_name="audit_entries")
    action = models.CharField(max_length=64, db_index=True)
    target = models.CharField(max_length=255, blank=True)
    details = models.JSONField(default=dict, blank=True)
    ip_address = models.GenericIPAddressField(null=True, blank=True)

    objects = AuditQuerySet.as_manager()

    class Meta:
        ordering = ["-at", "-pk"]
        verbose_name_plural = "audit entries"

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_name or 'system'} {self.action} {self.target}"

    def details_items(self) -> list[str]:
        """The details as short ``key: value`` lines (lists joined by commas), for the log page.

        Keys are sorted: PostgreSQL's jsonb keeps no insertion order."""
        def text(value) -> str:
            if isinstance(value, (list, tuple)):
                return ", ".join(text(v) for v in value)
            if isinstance(value, dict):
                return ", ".join(f"{k}={text(v)}" for k, v in value.items())
            return "" if value is None else str(value)

        details = self.details if isinstance(self.details, dict) else {"": self.details}
        return [f"{key}: {text(value)}" if key else text(value) for key, value in sorted(details.items())]

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise PermissionDenied("Audit entries cannot be edited.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise PermissionDenied("Audit entries cannot be deleted.")
