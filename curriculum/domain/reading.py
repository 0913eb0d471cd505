"""What a reader (or API client) is shown: the latest release, else the working copy.

Drafts exist only for staff. A staff preview shows the working copy with its unpublished
parts. The site and the API both read through here, so neither can leak what the other hides.
"""

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db.models import Max, OuterRef, Q, Subquery

from curriculum.models import Book, Chapter, Release

from .counting import chapter_counts
from .markup import RENDER_VERSION
from .selectors import chapters_with_parts
from .snapshots import SNAPSHOT_FORMAT, chapter_snapshot

WORKING_COPY_CACHE_SECONDS = 24 * 3600


class NotVisible(Exception):
    """No such chapter or release for this reader (a 404, never a 403: drafts stay secret)."""


@dataclass(frozen=True)
class ReaderView:
    code: str
    snapshot: dict[str, Any]
    release: Release | None  # None: the working copy is shown
    latest_release: int | None


@dataclass(frozen=True)
class Freshness:
    """What a reader is shown of a chapter, as HTTP validators: ETag and Last-Modified."""

    version: str
    last_modified: datetime


def chapter_freshness(*, code: str, staff: bool = False) -> Freshness:
    """One cheap query that decides visibility and names the version a reader would get.

    The working copy's version moves with every edit (`updated_at` is touched by every writer,
    verdicts included), with its Book 0 entries' titles, and with its book's title. A draft
    entry is not shown to anyone reading the chapter, so editing it moves nothing.
    """
    row = (
        Chapter.objects.filter(code=code)
        .annotate(
            latest=Max("releases__number"),
            released_at=Max("releases__created_at"),
            leaned=Max(
                "apparatus_links__entry__updated_at",
                filter=~Q(apparatus_links__entry__state=Chapter.State.DRAFT),
            ),
        )
        .values("state", "updated_at", "latest", "released_at", "leaned", "book__title")
        .first()
    )
    if row is None or (row["state"] == Chapter.State.DRAFT and not staff):
        raise NotVisible
    if row["latest"]:
        return Freshness(f"{code}:r{row['latest']}", row["released_at"])
    stamps = [row["updated_at"]] + ([row["leaned"]] if row["leaned"] else [])
    parts = f"{code}|{'|'.join(t.isoformat() for t in stamps)}|{row['book__title']}"
    digest = hashlib.sha256(parts.encode()).hexdigest()[:16]
    return Freshness(f"{code}:w{digest}", max(stamps))


def release_freshness(*, code: str, number: int, staff: bool = False) -> Freshness:
    """Validators for one release, from one query that never loads its snapshot."""
    chapter_freshness(code=code, staff=staff)  # a withdrawn (draft) chapter hides its history
    newest = Release.objects.filter(chapter=OuterRef("chapter")).order_by("-number")
    row = (
        Release.objects.filter(chapter__code=code, number=number)
        .annotate(latest=Subquery(newest.values("number")[:1]))
        .values("created_at", "latest")
        .first()
    )
    if row is None:
        raise NotVisible
    return Freshness(f"{code}:r{number}:of{row['latest']}", row["created_at"])


def chapter_for_reader(*, code: str, staff: bool = False, preview: bool = False) -> ReaderView:
    """The latest release if there is one, else the working copy of a non-draft chapter.

    A draft is hidden even when it has releases: putting a chapter back to draft withdraws it.
    The working copy is built once per version and cached, never per request.
    """
    if preview and staff:
        chapter = chapters_with_parts().filter(code=code).first()
        if chapter is None:
            raise NotVisible
        latest = chapter.releases.aggregate(n=Max("number"))["n"]
        return ReaderView(code, chapter_snapshot(chapter, include_unpublished=True), None, latest)
    releases = Release.objects.filter(chapter__code=code)
    if not staff:
        releases = releases.exclude(chapter__state=Chapter.State.DRAFT)
    release = releases.order_by("-number").first()
    if release is not None:
        return ReaderView(code, release.snapshot, release, release.number)
    freshness = chapter_freshness(code=code, staff=staff)
    key = f"working:{SNAPSHOT_FORMAT}:{RENDER_VERSION}:{freshness.version}"
    snapshot = cache.get(key)
    if snapshot is None:
        snapshot = chapter_snapshot(chapters_with_parts().get(code=code))
        cache.set(key, snapshot, timeout=WORKING_COPY_CACHE_SECONDS)
    return ReaderView(code, snapshot, None, None)


def release_for_reader(*, code: str, number: int, staff: bool = False) -> ReaderView:
    chapter_freshness(code=code, staff=staff)  # a withdrawn (draft) chapter hides its history
    release = Release.objects.filter(chapter__code=code, number=number).first()
    if release is None:
        raise NotVisible
    latest = Release.objects.filter(chapter__code=code).aggregate(n=Max("number"))["n"]
    return ReaderView(code, release.snapshot, release, latest)


def releases_for_reader(*, code: str, staff: bool = False) -> list[Release]:
    chapter_freshness(code=code, staff=staff)
    return list(
        Release.objects.filter(chapter__code=code).order_by("number").select_related("created_by")
    )


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
