"""Stored scores. A result is never overwritten: re-scoring adds a new one."""
from __future__ import annotations

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import models, transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class ImmutableQuerySet(models.QuerySet):
    """Stored scores and snapshots are evidence: no update or delete through the ORM.

    Cascades cannot reach them either (their foreign keys PROTECT), and on PostgreSQL a
    trigger refuses UPDATE and DELETE of their rows whatever the client (migration
    ``0003_immutable_results``). Re-scoring adds a new result.
    """

    def update(self, **kwargs):
        raise PermissionDenied(f"{self.model._meta.verbose_name_plural} are immutable: update refused.")

    def delete(self):
        raise PermissionDenied(f"{self.model._meta.verbose_name_plural} are immutable: delete refused.")

    def bulk_update(self, objs, fields, batch_size=None):
        raise PermissionDenied(f"{self.model._meta.verbose_name_plural} are immutable: update refused.")


class ImmutableModel(models.Model):
    objects = ImmutableQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise PermissionDenied(f"A stored {self._meta.verbose_name} is immutable: re-scoring adds a new one.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise PermissionDenied(f"A stored {self._meta.verbose_name} cannot be deleted.")


class Result(ImmutableModel):
    run = models.ForeignKey("campaign.Run", on_delete=models.PROTECT, related_name="results")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    metric = models.CharField(max_length=50, help_text=_("Engine that produced it (easy, evalb, leaf-ancestor, deps...)"))
    signature = models.TextField()
    scorer_version = models.CharField(max_length=32)
    gold_sha256 = models.CharField(max_length=64)
    parameters = models.JSONField(default=dict, blank=True)
    document = models.JSONField(help_text=_("The engine's JSON output, unchanged"))
    scoring_round = models.PositiveIntegerField(default=1, help_text=_("The run's scoring round this result closes"))

    class Meta:
        ordering = ["-created_at", "-pk"]
        get_latest_by = "created_at"
        constraints = [
            # Exactly-once in effect: a second delivery of the same scoring cannot add a second result.
            models.UniqueConstraint(fields=["run", "scoring_round", "scorer_version"],
                                    name="one_result_per_run_round_and_scorer_version"),
        ]

    def __str__(self) -> str:
        return f"{self.metric} result for {self.run} at {self.created_at:%Y-%m-%d %H:%M}"


class ResultCell(ImmutableModel):
    """One queryable row of a result (layer x mode x match x genre x type)."""

    class Aggregation(models.TextChoices):
        MICRO = "micro", _("Pooled counts")
        MACRO = "macro", _("Mean of per-type F")

    result = models.ForeignKey(Result, on_delete=models.PROTECT, related_name="cells")
    aggregation = models.CharField(max_length=5, choices=Aggregation.choices, default=Aggregation.MICRO)
    layer = models.CharField(max_length=20)
    mode = models.CharField(max_length=10, blank=True)
    match = models.CharField(max_length=20, blank=True)
    genre = models.CharField(max_length=50)
    type = models.CharField(max_length=50)
    fc = models.PositiveIntegerField(null=True)
    fp = models.PositiveIntegerField(null=True)
    cr = models.PositiveIntegerField(null=True)
    p = models.FloatField(null=True)
    r = models.FloatField(null=True)
    f = models.FloatField(null=True)
    ci_low = models.FloatField(null=True)
    ci_high = models.FloatField(null=True)

    class Meta:
        indexes = [models.Index(fields=["result", "layer", "mode", "match"])]


class ResultCellsText(models.Model):
    """A result's cells as the results JSON download writes them (:func:`evaluation.results.summaries.cells_json`),
    kept once when the result is stored: the download with every cell writes each result's text from here
    rather than building and serialising its thousands of cells per request. ``version``: the shape of the
    text; a row of another version is written again."""

    result = models.OneToOneField(Result, on_delete=models.CASCADE, primary_key=True, related_name="+")
    version = models.PositiveSmallIntegerField()
    text = models.TextField()

    def __str__(self) -> str:
        return f"cells of result {self.result_id} as JSON"


class PublishedSnapshot(ImmutableModel):
    """The results of a campaign frozen at publication; public pages read only this."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.PROTECT, related_name="snapshots")
    created_at = models.DateTimeField(auto_now_add=True)
    data = models.JSONField()
    sha256 = models.CharField(max_length=64, help_text=_("Checksum of the canonical JSON of data"))

    class Meta:
        ordering = ["-created_at", "-pk"]
        get_latest_by = "created_at"


def bundle_upload_to(instance: "PublicationBundle", filename: str) -> str:
    return f"bundles/{instance.campaign.slug}/{filename}"


class PublicationBundle(models.Model):
    """The citable archive of a published campaign (:mod:`evaluation.bundle.publication`), built from its
    snapshot at publication, at the gold release and on an organiser's demand; the newest is served.

    Built from the same stored results and state it gives the same bytes, so a rebuild that changes nothing
    adds no row. Kept through Django's storage API, wherever the deployment keeps files."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="bundles")
    snapshot = models.ForeignKey(PublishedSnapshot, on_delete=models.PROTECT, related_name="bundles")
    created_at = models.DateTimeField(auto_now_add=True)
    file = models.FileField(upload_to=bundle_upload_to, max_length=300)
    sha256 = models.CharField(max_length=64, help_text=_("Checksum of the archive's bytes"))
    size = models.PositiveBigIntegerField(default=0)
    with_rows = models.BooleanField(default=False, help_text=_("Carries the per-sentence rows (after the gold release)"))
    with_run_files = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created_at", "-pk"]
        get_latest_by = "created_at"

    def __str__(self) -> str:
        return f"bundle {self.sha256[:12]} of {self.campaign}"


def error_lab_upload_to(instance: "ErrorLabJob", filename: str) -> str:
    return f"error-lab/{instance.campaign.slug}/{instance.token}/{filename}"


class ErrorLabJob(models.Model):
    """An organiser's run of the error-insertion lab on uploaded treebanks (never a team's)."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="error_lab_jobs")
    token = models.CharField(max_length=32, help_text=_("Folder of the job's files"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    status_reason = models.TextField(blank=True)
    progress = models.PositiveSmallIntegerField(default=0, help_text=_("Percent of (treebank, error type) steps done"))
    step = models.CharField(max_length=200, blank=True, help_text=_("What the task is doing now"))
    parameters = models.JSONField(default=dict, blank=True, help_text=_("Seed, insertions per type, treebank names"))
    treebank_a = models.FileField(upload_to=error_lab_upload_to, max_length=300)
    treebank_b = models.FileField(upload_to=error_lab_upload_to, max_length=300, blank=True)
    labels_file = models.FileField(upload_to=error_lab_upload_to, max_length=300, blank=True)
    result = models.JSONField(null=True, blank=True, help_text=_("run_error_lab's document, unchanged"))
    task_id = models.CharField(max_length=64, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"error lab {self.pk} of {self.campaign}"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)


class SentenceRows(models.Model):
    """A result's per-sentence rows of sufficient statistics, kept for the paired significance tests.

    ``data`` is a compressed numpy archive (``rows``, ``keys`` = document/sentence id per row,
    ``strata`` = genre per row), rows sorted by key so two runs line up sentence by sentence.
    """

    result = models.OneToOneField(Result, on_delete=models.CASCADE, related_name="sentence_rows")
    created_at = models.DateTimeField(auto_now_add=True)
    data = models.BinaryField()


class SignificanceSet(models.Model):
    """The paired tests between every two runs of a campaign, computed once by a worker (never per request)."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="significance_sets")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    method = models.CharField(max_length=12, help_text=_("bootstrap (paired, genre-stratified) or ar"))
    resamples = models.PositiveIntegerField()
    seed = models.BigIntegerField()
    alpha = models.FloatField()
    signature = models.TextField(help_text=_("How the tests were made (method, resamples, seed, strata, correction)"))
    results = models.JSONField(default=list, help_text=_("Ids of the results compared"))
    skipped = models.JSONField(default=list, blank=True, help_text=_("Results left out, with the reason"))
    seconds = models.FloatField(default=0.0, help_text=_("Computation time"))
    sentences = models.JSONField(default=dict, blank=True,
                                 help_text=_("Test sentences per genre (and ALL) the runs were compared on"))
    complete = models.BooleanField(default=True, help_text=_(
        "False while a computation is still storing its pairs: readers never see such a set"))
    stored = models.PositiveIntegerField(default=0)  # (pair, figure) headlines with a difference

    class Meta:
        ordering = ["-created_at", "-pk"]
        get_latest_by = "created_at"

    def __str__(self) -> str:
        return f"significance of {self.campaign} at {self.created_at:%Y-%m-%d %H:%M}"


class CoalescedRequest(models.Model):
    """Campaign-wide work that many events ask for and one worker does at a time (the significance tests, the
    consensus): the requests are counted, and a queued request that a finished computation already covered
    exits at once.

    ``requested`` counts the requests (one per scored test run, publication...); ``computed`` is the
    request number the newest finished computation covered (what had been requested when it started)."""

    requested = models.PositiveBigIntegerField(default=0)
    computed = models.PositiveBigIntegerField(default=0)
    requested_at = models.DateTimeField(null=True, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True

    @classmethod
    def ask(cls, campaign_id: int) -> int:
        """Count one more request for the campaign; its number, which the task message carries."""
        with transaction.atomic():
            cls.objects.get_or_create(campaign_id=campaign_id)
            marker = cls.objects.select_for_update().get(campaign_id=campaign_id)
            marker.requested += 1
            marker.requested_at = timezone.now()
            marker.save(update_fields=["requested", "requested_at"])
        return marker.requested

    def covered(self, requested: int | None) -> bool:
        """Whether request number ``requested`` was already covered by a finished computation."""
        return requested is not None and self.computed >= requested

    @classmethod
    def mark_computed(cls, campaign_id: int, covers: int) -> None:
        """A computation that started when ``covers`` requests had been made has finished."""
        cls.objects.filter(campaign_id=campaign_id).update(computed=Greatest(F("computed"), covers),
                                                           computed_at=timezone.now())


class SignificanceRequest(CoalescedRequest):
    """The pending significance computation of a campaign: at most one does the work (evaluation.significance.tasks)."""

    campaign = models.OneToOneField("campaign.Campaign", on_delete=models.CASCADE, primary_key=True,
                                    related_name="significance_request")

    def __str__(self) -> str:
        return f"significance of {self.campaign_id}: requested {self.requested}, computed {self.computed}"


class SignificanceFigure(models.Model):
    """One figure (one page table) of a significance set, for every pair of one track: packed arrays.

    ``results``: the result ids compared, ascending; the pairs are (results[i], results[j]) for i < j in that
    order (pair k of :func:`evaluation.significance.sets.pair_index`), each a − b. ``heads`` (packed by
    :mod:`evaluation.significance.packing`): per pair the raw headline difference, standard error and p-value
    (all genres, all types), the Holm-adjusted p-value across the pairs (``family`` of them: those with a
    p-value) and the agreement across genres. ``context`` names what a pair's values depend on besides its
    two runs (method, resamples, seed, sentences, figures, α): pairs of the same context are reused as runs
    arrive.
    """

    set = models.ForeignKey(SignificanceSet, on_delete=models.CASCADE, related_name="figures")
    track = models.CharField(max_length=40, blank=True)
    figure = models.CharField(max_length=100)
    context = models.CharField(max_length=64)
    results = models.JSONField(default=list)
    family = models.PositiveIntegerField(default=0)
    heads = models.BinaryField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["set", "track", "figure"], name="significance_figure_once")]
        indexes = [models.Index(fields=["set", "figure"])]


class SignificanceTable(models.Model):
    """One figure's genre × type tables of the pairs (a, result_b), a in ``others`` (each a < result_b): per
    pair the raw headline (``heads``: difference, standard error, p-value, agreement across genres) and the
    cells (``cells``: difference, standard error, p-value per genre and type), packed by
    :mod:`evaluation.significance.packing`. Computed once per ``context`` and shared by the sets of that
    context that compare both results: a new run adds its rows, the others are kept as they are."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="+")
    context = models.CharField(max_length=64)
    figure = models.CharField(max_length=100)
    result_b = models.ForeignKey(Result, on_delete=models.CASCADE, related_name="+")
    others = models.JSONField(default=list)
    strata = models.JSONField(default=list)
    types = models.JSONField(default=list)
    heads = models.BinaryField()
    cells = models.BinaryField()

    class Meta:
        indexes = [models.Index(fields=["context", "result_b", "figure"]), models.Index(fields=["campaign"])]


class ConsensusSetting(CoalescedRequest):
    """A campaign's consensus: the organiser's choice of runs and weights, and its pending builds.

    ``enabled``: the organiser asked for a consensus (it then follows every scoring and the publication).
    ``chosen`` maps a team id (as a string) to the run the organiser chose for it, or to 0 to leave the team
    out; a team it does not name contributes its default run (:mod:`evaluation.consensus.runs`).
    ``requested``/``computed`` coalesce the builds (:class:`CoalescedRequest`)."""

    class Weighting(models.TextChoices):
        EQUAL = "equal", _("Equal weights")
        DEVELOPMENT = "development", _("Learned from the runs' scores on the development sample")

    campaign = models.OneToOneField("campaign.Campaign", on_delete=models.CASCADE, primary_key=True,
                                    related_name="consensus_setting")
    enabled = models.BooleanField(default=False, help_text=_("Build the consensus of the runs, scored as a pseudo-run"))
    weighting = models.CharField(max_length=12, choices=Weighting.choices, default=Weighting.EQUAL)
    chosen = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"consensus of {self.campaign_id}: {self.weighting}, requested {self.requested}"


class ScoringShard(models.Model):
    """One shard of a run scored across workers (:mod:`evaluation.pipeline.sharding`): its documents and, once
    counted, what it leaves for the merge. Rows belong to one scoring delivery (``token``, the run's claim)
    and are deleted when the result is stored or the run fails; a delivery that took the run over plans anew,
    and the shards' watch drops the rows of a delivery that no longer holds its run."""

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    run = models.ForeignKey("campaign.Run", on_delete=models.CASCADE, related_name="scoring_shards")
    token = models.CharField(max_length=200, help_text=_("The claim of the scoring delivery the shard belongs to"))
    index = models.PositiveIntegerField(help_text=_("Position of the shard in corpus order"))
    documents = models.JSONField(default=list, help_text=_("Corpus documents of the shard, in corpus order"))
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    taken_by = models.CharField(max_length=200, blank=True, help_text=_("The process counting it now"))
    beat_at = models.DateTimeField(null=True, blank=True, help_text=_("Last sign of life of that process"))
    counts = models.BinaryField(null=True, blank=True, help_text=_("What the kind's merge reads (its own format)"))
    reason = models.TextField(blank=True, help_text=_("Why the shard failed"))
    interrupted = models.PositiveSmallIntegerField(default=0,
                                                   help_text=_("Times it was taken back from a silent worker"))

    class Meta:
        constraints = [models.UniqueConstraint(fields=["token", "index"], name="one_shard_per_delivery_index")]
        ordering = ["run", "token", "index"]

    def __str__(self) -> str:
        return f"run {self.run_id} shard {self.index} ({self.status})"


class SignificanceSummary(models.Model):
    """What the design aid and the ranking read of a significance set, computed once after the set is stored
    (:mod:`evaluation.significance.precomputed`), never by a page: one row per figure (the pairs' headlines,
    standard errors and detectable differences per genre) and one row for the set (``figure`` empty).

    ``set_id`` and ``stamp`` (a digest of what the set compared and how) name the set the rows were computed
    from, ``version`` the shape of ``data``: rows of another set, stamp or version are never read."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="+")
    set_id = models.PositiveBigIntegerField(help_text=_("The significance set the rows were computed from"))
    stamp = models.CharField(max_length=64, help_text=_("Digest of the set's results, method and signature"))
    version = models.PositiveSmallIntegerField(help_text=_("Shape of the stored values"))
    figure = models.CharField(max_length=100, blank=True, help_text=_("aggregation|layer|mode|match; empty: the set's row"))
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["set_id", "figure"])]

    def __str__(self) -> str:
        return f"summary of significance set {self.set_id} ({self.figure or 'set'})"


class RunAnalysis(models.Model):
    """A result's analysis (issue 38): its figures broken down by attributes of the items, computed once per result
    and analysis schema by its kind (:meth:`evaluation.kinds.contract.Kind.analyse`), never per page view.

    ``document`` is the library's analysis document (``docs/metrics/analysis.md``: bucket tables with intervals,
    confusions), what the explorer's pages draw and the publication bundle carries; ``index`` is zlib-compressed
    JSON (:mod:`evaluation.analysis.store`): per bucket and confusion cell the sentences behind it and their
    counts, and the run's errors item by item, read only by the pages that need them.
    """

    result = models.ForeignKey(Result, on_delete=models.CASCADE, related_name="analyses")
    schema = models.CharField(max_length=40)
    created_at = models.DateTimeField(auto_now_add=True)
    seconds = models.FloatField(default=0, help_text=_("How long computing it took"))
    document = models.JSONField()
    index = models.BinaryField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["result", "schema"], name="one_analysis_per_result_schema")]


class AnalysisValue(models.Model):
    """What an analysis page shows that several stored analyses make together, computed once by a worker and kept
    (:mod:`evaluation.analysis.precomputed`), never by a page view: the errors a run shares with the runs its
    reader may see, and two runs compared bucket by bucket (a resampling test).

    ``key`` is a digest of everything the value depends on (its page, the results, the reader's visible
    results, the options, the analysis schema and the stored value's version): another key is never read.
    ``data`` is JSON text: the numbers come back as they were written (a jsonb column rewrites them).
    ``read_at``: when a page last read it (or a worker stored it), refreshed at most once per
    :data:`evaluation.analysis.precomputed.READ_REFRESH_SECONDS`; the upkeep removes values not read for
    ``PARSEVAL_ANALYSIS_VALUE_IDLE_SECONDS`` (:func:`evaluation.analysis.precomputed.sweep`)."""

    result = models.ForeignKey(Result, on_delete=models.CASCADE, related_name="analysis_values")
    page = models.CharField(max_length=20)
    key = models.CharField(max_length=64, unique=True)
    data = models.TextField()
    seconds = models.FloatField(default=0, help_text=_("How long computing it took"))
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(default=timezone.now, db_index=True)

    def __str__(self) -> str:
        return f"{self.page} of result {self.result_id}"
