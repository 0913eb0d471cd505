"""What practice keeps: a signed-in reader's attempts, counts naming no reader, and reports.

A reader without an account leaves nothing here but one count in a tally; an account's attempts
go with it when it is deleted (`on_delete=CASCADE`), its tallies stay, as they name no one.
Rows name the chapter by code and the problem by key, not by foreign key: a problem re-imported,
or a chapter's working copy rewritten, keeps its history.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone

from .problems import KEY_CHARS

CODE_CHARS = 20  # Chapter.code's width
MISTAKE_CHARS = 80


class Attempt(models.Model):
    """One checked answer of a signed-in reader: what their progress is made of."""

    reader = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="attempts"
    )
    chapter_code = models.CharField(max_length=CODE_CHARS)
    problem_key = models.SlugField(max_length=KEY_CHARS, db_index=False)
    release = models.PositiveIntegerField(
        null=True, blank=True, help_text="The release practised; empty for a staff preview."
    )
    instance = models.PositiveIntegerField()
    answer = models.TextField()
    right = models.BooleanField()
    mistake = models.CharField(
        max_length=MISTAKE_CHARS, blank=True, help_text="The misconception the answer matched."
    )
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["reader", "chapter_code"], name="attempt_reader_chapter")]

    def __str__(self) -> str:
        return f"{self.chapter_code} {self.problem_key} #{self.instance}"


class PracticeTally(models.Model):
    """How often a problem was answered one way ("right", "wrong", or a misconception's name):
    the statistics authors see, counted for every reader and naming none."""

    chapter_code = models.CharField(max_length=CODE_CHARS)
    problem_key = models.SlugField(max_length=KEY_CHARS, db_index=False)
    outcome = models.CharField(max_length=MISTAKE_CHARS)
    count = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["chapter_code", "problem_key", "outcome"], name="tally_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.chapter_code} {self.problem_key} {self.outcome}: {self.count}"


class ProblemReport(models.Model):
    """A reader's "something is wrong with this exercise", with what they were looking at."""

    class Status(models.TextChoices):
        OPEN = "open", "open"
        RESOLVED = "resolved", "resolved"

    chapter_code = models.CharField(max_length=CODE_CHARS)
    problem_key = models.SlugField(max_length=KEY_CHARS, db_index=False)
    release = models.PositiveIntegerField(null=True, blank=True)
    instance = models.PositiveIntegerField(null=True, blank=True)
    answer = models.TextField(blank=True)
    message = models.TextField()
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="problem_reports",
        help_text="Empty for a reader without an account, or one since deleted.",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [
            models.Index(fields=["chapter_code", "problem_key"], name="report_problem"),
        ]

    def __str__(self) -> str:
        return f"report on {self.chapter_code} {self.problem_key}"
