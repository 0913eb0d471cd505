"""Reads: a chapter with every part loaded in a fixed number of queries."""

from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import OuterRef, Prefetch, QuerySet, Subquery

from curriculum.models import ApparatusLink, Chapter, Problem, Release

from .documents import chapter_document
from .locks import chapters_lock
from .verification.state import with_verdict_state


def chapters_with_parts() -> QuerySet[Chapter]:
    return Chapter.objects.select_related("book").prefetch_related(
        "strand_items",
        "figures",
        "notation",
        "propositions",
        Prefetch("apparatus_links", _apparatus_links()),
        Prefetch("problems", with_verdict_state(Problem.objects.all())),
    )


def chapters_with_counted_parts() -> QuerySet[Chapter]:
    """Only what counting reads (strand items, proofs, problems and verdicts), for lists."""
    return Chapter.objects.prefetch_related(
        "strand_items",
        "propositions",
        Prefetch("problems", with_verdict_state(Problem.objects.all())),
    )


def _apparatus_links() -> QuerySet[ApparatusLink]:
    """Each Book 0 entry with the title readers know it by: its latest release's, if any."""
    released = Release.objects.filter(chapter=OuterRef("entry")).order_by("-number")
    return ApparatusLink.objects.select_related("entry").annotate(
        entry_released_title=Subquery(released.values("snapshot__title")[:1])
    )


def chapter_with_parts(*, code: str) -> Chapter:
    return chapters_with_parts().get(code=code)


class ChapterDocuments:
    """Chapters with their documents, for several readers in turn (what a commit keeps of them:
    `documents_revised`): read once, under the chapters' lock, so no write is half seen; a
    chapter moved since it was read (its revision) is read again, so each reader gets them as
    they stand when it asks."""

    def __init__(self, chapter_ids: Iterable[int]) -> None:
        self.chapter_ids = frozenset(chapter_ids)
        self._read: dict[int, tuple[int, Chapter, dict[str, Any]]] = {}

    def __call__(self) -> list[tuple[Chapter, dict[str, Any]]]:
        """Each of the chapters that still exists, in primary-key order, with its document."""
        with transaction.atomic():
            locked = chapters_lock(chapter_ids=self.chapter_ids)
            now = dict(Chapter.objects.filter(pk__in=locked).values_list("pk", "revision"))
            moved = [pk for pk in locked if pk not in self._read or self._read[pk][0] != now[pk]]
            for chapter in chapters_with_parts().filter(pk__in=moved) if moved else ():
                self._read[chapter.pk] = (chapter.revision, chapter, chapter_document(chapter))
        return [(self._read[pk][1], self._read[pk][2]) for pk in locked]
