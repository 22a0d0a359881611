"""Gold annotation, test-subset membership and annotation guides.

Gold is stored apart from the corpus (its own storage root, its own tables).
Only organiser views and the scoring worker import the gold models; a test
checks that no team-facing module does.
"""
from __future__ import annotations

from django.conf import settings
from django.core.files.storage import FileSystemStorage, storages
from django.db import models
from django.utils.functional import LazyObject
from django.utils.translation import gettext_lazy as _


class GoldFileSystemStorage(FileSystemStorage):
    """The embedded default for gold: files under ``GOLD_ROOT``, apart from the media root, never served."""

    def __init__(self, location=None, base_url=None, **options):
        super().__init__(location=location or settings.GOLD_ROOT, base_url=base_url, **options)


class GoldStorage(LazyObject):
    """The ``gold`` entry of ``STORAGES`` (config/storage.py): a folder of its own, or the gold prefix or
    bucket of the object store. Built afresh when reset, so a test that moves ``GOLD_ROOT`` gets a new one."""

    def _setup(self):
        self._wrapped = storages.create_storage(settings.STORAGES["gold"])


gold_storage = GoldStorage()


def select_gold_storage() -> GoldStorage:
    # A callable keeps the machine's GOLD_ROOT out of the migrations.
    return gold_storage


def gold_upload_to(instance: "GoldDocument", filename: str) -> str:
    doc = instance.document
    return f"{doc.campaign.slug}/{doc.name}.gold.xml"


class GoldDocument(models.Model):
    """The gold annotation of one corpus document (only its annotated sentences)."""

    document = models.OneToOneField("campaign.CorpusDocument", on_delete=models.CASCADE, related_name="gold")
    file = models.FileField(upload_to=gold_upload_to, storage=select_gold_storage, max_length=300)
    sha256 = models.CharField(max_length=64)
    sentence_count = models.PositiveIntegerField(default=0)
    uploaded_at = models.DateTimeField(auto_now_add=True)
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    def __str__(self) -> str:
        return f"gold of {self.document}"


class GoldSentence(models.Model):
    """A sentence that has gold, and which subset it belongs to."""

    class Subset(models.TextChoices):
        TEST = "test", _("Hidden test set")
        DEV = "dev", _("Public development sample")
        UNUSED = "unused", _("Annotated, not scored")

    sentence = models.OneToOneField("campaign.Sentence", on_delete=models.CASCADE, related_name="gold_membership")
    subset = models.CharField(max_length=10, choices=Subset.choices, default=Subset.TEST, db_index=True)

    def __str__(self) -> str:
        return f"{self.sentence} ({self.subset})"


class AnnotationGuide(models.Model):
    campaign = models.OneToOneField("campaign.Campaign", on_delete=models.CASCADE, related_name="guide")
    title = models.CharField(max_length=200)

    def __str__(self) -> str:
        return self.title

    @property
    def current(self) -> "GuideVersion | None":
        return self.versions.order_by("-created_at", "-pk").first()


def guide_upload_to(instance: "GuideVersion", filename: str) -> str:
    return f"guides/{instance.guide.campaign.slug}/{instance.version}/{filename}"


class GuideVersion(models.Model):
    """A version of the guide: the document for humans and the schema for validation."""

    guide = models.ForeignKey(AnnotationGuide, on_delete=models.CASCADE, related_name="versions")
    version = models.CharField(max_length=32)
    document = models.FileField(upload_to=guide_upload_to, blank=True)
    notes = models.TextField(blank=True)
    schema = models.JSONField(
        default=dict,
        blank=True,
        help_text=_("Constituent types and relation types with their roles, used by run validation"),
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [models.UniqueConstraint(fields=["guide", "version"], name="unique_guide_version")]

    def __str__(self) -> str:
        return f"{self.guide} v{self.version}"
