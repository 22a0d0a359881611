"""Stored scores. A result is never overwritten: re-scoring adds a new one."""
from __future__ import annotations

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
