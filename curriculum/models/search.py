"""What readers can search: one row per searchable part of what a reader is shown."""

from django.contrib.postgres.search import SearchVectorField
from django.db import models

from .course import Chapter


class SearchChapter(models.Model):
    """A chapter's place in the index: the chapter's revision its entries and words were built
    from. One row per chapter, so a move that changes no searched text (a verdict) rewrites it
    alone, and a rebuild rewrites only the entries whose text changed: the entries' table stays
    as small as what it holds, which a broad query reads through."""

    chapter = models.OneToOneField(
        Chapter, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    revision = models.PositiveBigIntegerField()

    def __str__(self) -> str:
        return f"{self.chapter_id}@{self.revision}"


class SearchEntry(models.Model):
    """Built from the chapter as readers see it (its latest release, else its working copy)."""

    chapter = models.ForeignKey(Chapter, on_delete=models.CASCADE, related_name="+")
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
