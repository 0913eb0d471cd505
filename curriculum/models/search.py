"""What readers can search: one row per searchable part of what a reader is shown."""

from django.contrib.postgres.search import SearchVectorField
from django.db import models

from .course import Chapter


class SearchEntry(models.Model):
    """Built from the chapter as readers see it (its latest release, else its working copy),
    tagged with the chapter's revision it was built from."""

    chapter = models.ForeignKey(Chapter, on_delete=models.CASCADE, related_name="+")
    revision = models.PositiveBigIntegerField()
    position = models.PositiveIntegerField()
    title = models.CharField(max_length=200, help_text="The chapter's title, as readers see it.")
    kind = models.CharField(max_length=40)
    anchor = models.CharField(max_length=120, blank=True)
    heading = models.CharField(max_length=400)
    body = models.TextField(blank=True)
    # PostgreSQL only (a GIN index in the migration); SQLite leaves it empty and uses icontains.
    vector = SearchVectorField(null=True)

    class Meta:
        ordering = ["chapter", "position"]
        indexes = [models.Index(fields=["chapter", "revision"], name="search_chapter_revision")]
        constraints = [
            models.UniqueConstraint(fields=["chapter", "position"], name="search_entry_once")
        ]

    def __str__(self) -> str:
        return self.heading
