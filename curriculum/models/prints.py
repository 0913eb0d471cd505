"""Printed PDFs: a chapter's release, or a book as its released chapters stand, made by the
worker with headless Chromium (`domain.printing`) and kept in the database, like the media
library, for the site to serve."""

from django.db import models

from .course import Book
from .releases import Release


class PrintedPdf(models.Model):
    class State(models.TextChoices):
        PENDING = "pending"
        MADE = "made"
        FAILED = "failed"

    # "release:<id>", or "book:<id>:<edition>": an edition names the releases it holds
    key = models.CharField(max_length=120, unique=True)
    release = models.ForeignKey(Release, null=True, on_delete=models.CASCADE, related_name="+")
    book = models.ForeignKey(Book, null=True, on_delete=models.CASCADE, related_name="+")
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    data = models.BinaryField(default=b"", editable=False)
    digest = models.CharField(max_length=64, blank=True)  # SHA-256: the served ETag
    message = models.TextField(blank=True)  # why it failed, as the page says it
    attempts = models.PositiveSmallIntegerField(default=0)  # prints started
    requested_at = models.DateTimeField()
    made_at = models.DateTimeField(null=True)

    class Meta:
        verbose_name = "printed PDF"

    def __str__(self) -> str:
        return f"{self.key} ({self.state})"
