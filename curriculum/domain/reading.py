"""What a reader (or API client) is shown: the latest release, else the working copy.

Drafts exist only for staff. A staff preview shows the working copy with its unpublished
parts. The site and the API both read through here, so neither can leak what the other hides.
"""

from dataclasses import dataclass
from typing import Any

from django.db.models import Max, OuterRef, Subquery

from curriculum.models import Book, Chapter, Release

from .counting import chapter_counts
from .selectors import chapters_with_parts
from .snapshots import chapter_snapshot


class NotVisible(Exception):
    """No such chapter or release for this reader (a 404, never a 403: drafts stay secret)."""


@dataclass(frozen=True)
class ReaderView:
    code: str
    snapshot: dict[str, Any]
    release: Release | None  # None: the working copy is shown
    latest_release: int | None


def _visible(chapter: Chapter | None, staff: bool) -> Chapter:
    if chapter is None or (chapter.state == Chapter.State.DRAFT and not staff):
        raise NotVisible
    return chapter


def chapter_for_reader(*, code: str, staff: bool = False, preview: bool = False) -> ReaderView:
    """The latest release if there is one, else the working copy of a non-draft chapter."""
    if preview and staff:
        chapter = _visible(chapters_with_parts().filter(code=code).first(), staff)
        latest = chapter.releases.aggregate(n=Max("number"))["n"]
        return ReaderView(code, chapter_snapshot(chapter, include_unpublished=True), None, latest)
    release = Release.objects.filter(chapter__code=code).order_by("-number").first()
    if release is not None:
        return ReaderView(code, release.snapshot, release, release.number)
    chapter = _visible(chapters_with_parts().filter(code=code).first(), staff)
    return ReaderView(code, chapter_snapshot(chapter), None, None)


def release_for_reader(*, code: str, number: int) -> ReaderView:
    release = Release.objects.filter(chapter__code=code, number=number).first()
    if release is None:
        raise NotVisible
    latest = Release.objects.filter(chapter__code=code).aggregate(n=Max("number"))["n"]
    return ReaderView(code, release.snapshot, release, latest)


def releases_for_reader(*, code: str, staff: bool = False) -> list[Release]:
    chapter = _visible(Chapter.objects.filter(code=code).first(), staff)
    return list(chapter.releases.order_by("number").select_related("created_by"))


def chapter_version(*, code: str, staff: bool = False) -> str:
    """A cheap validator for caching: changes whenever what `chapter_for_reader` shows changes."""
    row = (
        Chapter.objects.filter(code=code)
        .annotate(latest=Max("releases__number"))
        .values("state", "updated_at", "latest")
        .first()
    )
    if row is None or (row["state"] == Chapter.State.DRAFT and not staff):
        raise NotVisible
    if row["latest"]:
        return f"{code}:r{row['latest']}"
    return f"{code}:w{row['updated_at'].timestamp():.6f}"


@dataclass(frozen=True)
class ChapterSummary:
    code: str
    number: int
    title: str
    maturity: str
    maturity_name: str
    state: str
    latest_release: int | None
    strands: list[dict[str, Any]]
    owes: int


def _summary(chapter: Any) -> ChapterSummary:
    """A released chapter is summarised from its release, never from its working copy."""
    derived = chapter.released
    title, maturity = chapter.title, chapter.maturity
    if derived is not None:
        title, maturity = chapter.released_title, chapter.released_maturity
    else:
        counts = chapter_counts(chapter)
        derived = {
            "maturity_name": counts.level.name,
            "strands": [
                {"kind": s.kind, "done": s.done, "target": s.target} for s in counts.strands
            ],
            "owes": counts.owes,
        }
    return ChapterSummary(
        code=chapter.code,
        number=chapter.number,
        title=title,
        maturity=maturity,
        maturity_name=derived["maturity_name"],
        state=chapter.state,
        latest_release=chapter.latest_release,
        strands=[{k: s[k] for k in ("kind", "done", "target")} for s in derived["strands"]],
        owes=derived["owes"],
    )


def books_for_reader(
    *, staff: bool = False, numeral: str | None = None
) -> list[tuple[Book, list[ChapterSummary]]]:
    """Books in order, each with the chapters this reader may see and their progress."""
    books = Book.objects.all() if numeral is None else Book.objects.filter(numeral=numeral)
    latest = Release.objects.filter(chapter=OuterRef("pk")).order_by("-number")
    chapters = chapters_with_parts().annotate(
        latest_release=Subquery(latest.values("number")),
        released=Subquery(latest.values("snapshot__derived")),
        released_title=Subquery(latest.values("snapshot__title")),
        released_maturity=Subquery(latest.values("snapshot__maturity")),
    )
    if not staff:
        chapters = chapters.exclude(state=Chapter.State.DRAFT)
    if numeral is not None:
        chapters = chapters.filter(book__numeral=numeral)
    by_book: dict[int, list[ChapterSummary]] = {}
    for chapter in chapters:
        by_book.setdefault(chapter.book_id, []).append(_summary(chapter))
    return [(book, by_book.get(book.pk, [])) for book in books]
