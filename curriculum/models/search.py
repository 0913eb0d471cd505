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
    body = models.TextField(blank=True, help_text="The part's text as readers see it.")
    heading_words = models.TextField(blank=True, help_text="The heading's words (search_words).")
    words = models.TextField(blank=True, help_text="The heading's and body's words, in order.")
    # PostgreSQL only (a GIN index in the migration): `words` with their positions. SQLite
    # leaves it empty and matches `words` itself: the same words, so the same answers.
    vector = SearchVectorField(null=True)

    class Meta:
        ordering = ["chapter", "position"]
        indexes = [models.Index(fields=["chapter", "revision"], name="search_chapter_revision")]
        constraints = [
            models.UniqueConstraint(fields=["chapter", "position"], name="search_entry_once")
        ]

    def __str__(self) -> str:
        return self.heading


class SearchWord(models.Model):
    """A word a chapter's entries hold: the course's words, which a word it does not hold is
    read as the nearest of (a trigram GIN index on PostgreSQL, in the migration)."""

    chapter = models.ForeignKey(Chapter, on_delete=models.CASCADE, related_name="+")
    word = models.CharField(max_length=40)

    class Meta:
        indexes = [models.Index(fields=["word"], name="search_word")]
        constraints = [models.UniqueConstraint(fields=["chapter", "word"], name="search_word_once")]

    def __str__(self) -> str:
        return self.word
