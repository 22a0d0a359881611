"""Stored scores. A result is never overwritten: re-scoring adds a new one."""
from __future__ import annotations

from django.conf import settings
from django.db import models


class Result(models.Model):
    run = models.ForeignKey("campaign.Run", on_delete=models.CASCADE, related_name="results")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    metric = models.CharField(max_length=50, help_text="Engine that produced it (easy, evalb, leaf-ancestor, deps...)")
    signature = models.TextField()
    scorer_version = models.CharField(max_length=32)
    gold_sha256 = models.CharField(max_length=64)
    parameters = models.JSONField(default=dict, blank=True)
    document = models.JSONField(help_text="The engine's JSON output, unchanged")

    class Meta:
        ordering = ["-created_at", "-pk"]
        get_latest_by = "created_at"

    def __str__(self) -> str:
        return f"{self.metric} result for {self.run} at {self.created_at:%Y-%m-%d %H:%M}"


class ResultCell(models.Model):
    """One queryable row of a result (layer x mode x match x genre x type)."""

    class Aggregation(models.TextChoices):
        MICRO = "micro", "Pooled counts"
        MACRO = "macro", "Mean of per-type F"

    result = models.ForeignKey(Result, on_delete=models.CASCADE, related_name="cells")
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


class PublishedSnapshot(models.Model):
    """The results of a campaign frozen at publication; public pages read only this."""

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.PROTECT, related_name="snapshots")
    created_at = models.DateTimeField(auto_now_add=True)
    data = models.JSONField()
    sha256 = models.CharField(max_length=64, help_text="Checksum of the canonical JSON of data")

    class Meta:
        ordering = ["-created_at", "-pk"]
        get_latest_by = "created_at"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("A published snapshot is immutable.")
        super().save(*args, **kwargs)


def error_lab_upload_to(instance: "ErrorLabJob", filename: str) -> str:
    return f"error-lab/{instance.campaign.slug}/{instance.token}/{filename}"


class ErrorLabJob(models.Model):
    """An organiser's run of the error-insertion lab on uploaded treebanks (never a team's)."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="error_lab_jobs")
    token = models.CharField(max_length=32, help_text="Folder of the job's files")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    status_reason = models.TextField(blank=True)
    progress = models.PositiveSmallIntegerField(default=0, help_text="Percent of (treebank, error type) steps done")
    step = models.CharField(max_length=200, blank=True, help_text="What the task is doing now")
    parameters = models.JSONField(default=dict, blank=True, help_text="Seed, insertions per type, treebank names")
    treebank_a = models.FileField(upload_to=error_lab_upload_to, max_length=300)
    treebank_b = models.FileField(upload_to=error_lab_upload_to, max_length=300, blank=True)
    labels_file = models.FileField(upload_to=error_lab_upload_to, max_length=300, blank=True)
    result = models.JSONField(null=True, blank=True, help_text="run_error_lab's document, unchanged")
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
