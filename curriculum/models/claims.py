"""What the engine said of one claim or property, keyed by the fingerprint of what it states.

A claim (a number typed in a text, marked with what it must equal) or a proposition's property
is content-addressed: its fingerprint covers the statement and everything it is computed from,
so an edit makes a new row and the old verdict never counts for the new content. Rows are
shared by every chapter, release and working copy that states the same thing.
"""

from django.db import models


class ClaimVerdict(models.Model):
    class Kind(models.TextChoices):
        CLAIM = "claim", "claim"
        PROPERTY = "property", "property"

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        VERIFIED = "verified", "verified"
        MISMATCH = "mismatch", "mismatch"
        ERROR = "error", "error"

    fingerprint = models.CharField(max_length=64, unique=True)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    spec = models.JSONField(help_text="What is checked, as the worker reads it.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    requested_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)
    engine_value = models.JSONField(null=True, blank=True)
    engine_version = models.CharField(max_length=40, blank=True)
    message = models.TextField(blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    chapters = models.ManyToManyField(
        "curriculum.Chapter",
        related_name="claim_verdicts",
        blank=True,
        help_text="Chapters that have stated it: their pages move when it is decided.",
    )

    class Meta:
        indexes = [models.Index(fields=["status", "requested_at"])]

    def __str__(self) -> str:
        return f"{self.kind} {self.status}"
