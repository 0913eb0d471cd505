"""Review and scheduled publishing: an Author asks an Editor to review a chapter; an Editor
returns it with comments, publishes it, or schedules its publish for a time."""

from django.conf import settings
from django.db import models

from .course import Chapter


class Review(models.Model):
    """A chapter's review request (one at most): submitted with the author's note, or returned
    with the Editor's comments. Publishing the chapter ends it."""

    class Status(models.TextChoices):
        SUBMITTED = "submitted", "submitted"
        RETURNED = "returned", "returned to the author"

    chapter = models.OneToOneField(Chapter, on_delete=models.CASCADE, related_name="review")
    status = models.CharField(max_length=20, choices=Status.choices)
    note = models.TextField(blank=True, help_text="The author's note to the Editor.")
    submitted_by = models.CharField(max_length=150, help_text="Who submitted it (the username).")
    submitted_at = models.DateTimeField()
    comments = models.TextField(blank=True, help_text="The Editor's comments, once returned.")
    returned_by = models.CharField(max_length=150, blank=True)
    returned_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["submitted_at", "pk"]
        verbose_name = "review request"
        verbose_name_plural = "review queue"
        indexes = [models.Index(fields=["status", "submitted_at"], name="review_queue")]

    def __str__(self) -> str:
        return f"{self.chapter.code}: {self.get_status_display()}"


class PublishSchedule(models.Model):
    """A publish an Editor set for a time: the gate runs then, as that Editor; a refusal is
    kept here with its reasons, and a run that made no release with the notes it could not
    record, until the Editor schedules again or cancels."""

    class Status(models.TextChoices):
        WAITING = "waiting", "waiting"
        REFUSED = "refused", "refused by the gate"
        UNRELEASED = "unreleased", "ran, with nothing to release"

    chapter = models.OneToOneField(Chapter, on_delete=models.CASCADE, related_name="schedule")
    publish_at = models.DateTimeField()
    # the Editor it runs as: a schedule goes with its Editor's account, never runs as the system
    scheduled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    notes = models.TextField(blank=True, help_text="The release notes the publish will record.")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.WAITING)
    reasons = models.JSONField(default=list, blank=True, help_text="The gate's, when refused.")
    tried_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["publish_at", "pk"]
        verbose_name = "scheduled publish"
        indexes = [models.Index(fields=["status", "publish_at"], name="schedule_due")]

    def __str__(self) -> str:
        return f"{self.chapter.code} at {self.publish_at:%Y-%m-%d %H:%M} UTC"
