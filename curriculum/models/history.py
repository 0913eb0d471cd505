"""A chapter's history: its working copy as a document after each committed write."""

import json
from typing import Any

from django.conf import settings
from django.db import models

from .course import Chapter


class ChapterRevision(models.Model):
    """The chapter document (`documents.chapter_document`, the form files and the API use) as
    one committed write left it, with who wrote it and through what; never edited."""

    chapter = models.ForeignKey(Chapter, on_delete=models.CASCADE, related_name="history")
    number = models.PositiveIntegerField()
    # JSON text, not jsonb: the file's key order is kept (the strands' order is checked on import)
    text = models.TextField()
    tag = models.CharField(max_length=40, help_text="The document's version (`source_tag`).")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    made_by = models.CharField(max_length=200, help_text="The user's name, or the system.")
    via = models.CharField(max_length=40, blank=True, help_text="admin, API, import, revert…")
    note = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["chapter", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["chapter", "number"], name="chapter_revision_once")
        ]

    def __str__(self) -> str:
        return f"{self.chapter.code} revision {self.number}"

    @property
    def document(self) -> dict[str, Any]:
        return json.loads(self.text)
