"""Releases: numbered, immutable snapshots of a chapter that readers and the API serve."""

from django.conf import settings
from django.db import models
from django.urls import reverse

from .course import Chapter


class Release(models.Model):
    chapter = models.ForeignKey(Chapter, on_delete=models.PROTECT, related_name="releases")
    number = models.PositiveIntegerField()
    snapshot = models.JSONField()
    overview = models.JSONField(
        default=dict, editable=False, help_text="What lists show of it (never the snapshot)."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    made_by = models.CharField(
        max_length=200,
        default="system",
        editable=False,
        help_text="Who made it, as lists show it: the user's name, or the system and what ran it.",
    )
    notes = models.TextField(
        blank=True, help_text="The release notes readers are shown: what changed, and why."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["chapter", "-number"]
        get_latest_by = "number"
        constraints = [
            models.UniqueConstraint(fields=["chapter", "number"], name="release_number_once")
        ]

    def __str__(self) -> str:
        return f"{self.chapter.code} release {self.number}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise ValueError("a release is immutable; publish again to make a new one")
        self.overview = release_overview(self.snapshot)
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("site:release", args=[self.chapter.code, self.number])


def release_overview(snapshot: dict) -> dict:
    """The few fields a list shows of a release, kept apart so lists never read snapshots."""
    derived = snapshot["derived"]
    return {
        "title": snapshot["title"],
        "maturity": snapshot["maturity"],
        "maturity_name": derived["maturity_name"],
        "strands": [{k: s[k] for k in ("kind", "done", "target")} for s in derived["strands"]],
        "owes": derived["owes"],
    }
