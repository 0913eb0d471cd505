"""What a reader (or API client) is shown: the latest release, else the working copy.

Drafts exist only for staff. A staff preview shows the working copy with its unpublished
parts. The site and the API both read through here, so neither can leak what the other hides.
"""

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db import connections
from django.db.models import (
    CharField,
    Count,
    F,
    Max,
    OuterRef,
    Q,
    QuerySet,
    StringAgg,
    Subquery,
    TextField,
    Value,
)
from django.db.models.fields.json import KT
from django.db.models.functions import MD5, Coalesce, Concat, Length

from curriculum.models import Book, Chapter, Release
from curriculum.queries import Prepared

from .counting import chapter_counts
from .markup import RENDER_VERSION
from .selectors import chapters_with_counted_parts, chapters_with_parts
from .snapshots import SNAPSHOT_FORMAT, chapter_snapshot, snapshot_for_readers

WORKING_COPY_CACHE_SECONDS = 24 * 3600


class NotVisible(Exception):
    """No such chapter or release for this reader (a 404, never a 403: drafts stay secret)."""


@dataclass(frozen=True)
class ReaderView:
    code: str
    snapshot: dict[str, Any]
    release: Release | None  # None: the working copy is shown
    latest_release: int | None


def reader_view(
    code: str, snapshot: dict[str, Any], release: Release | None, latest: int | None
) -> ReaderView:
    """The one way a snapshot leaves for a reader, staff included: as readers are given it."""
    return ReaderView(code, snapshot_for_readers(snapshot), release, latest)


@dataclass(frozen=True)
class Freshness:
    """What a reader is shown of a chapter, as HTTP validators: ETag and Last-Modified."""

    version: str
    last_modified: datetime


_SHOWN_ENTRY = ~Q(apparatus_links__entry__state=Chapter.State.DRAFT)


def _freshness(code: str) -> QuerySet[Any, Any]:
    return (
        Chapter.objects.filter(code=code)
        .annotate(
            latest=Max("releases__number"),
            released_at=Max("releases__created_at"),
            leaned=Max("apparatus_links__entry__updated_at", filter=_SHOWN_ENTRY),
            shown_entries=Count("apparatus_links", filter=_SHOWN_ENTRY, distinct=True),
        )
        .values(
            "state",
            "updated_at",
            "latest",
            "released_at",
            "leaned",
            "shown_entries",
            "book__title",
        )
    )


_FRESHNESS = Prepared("chapter_freshness", _freshness, "code")


def chapter_freshness(*, code: str, staff: bool = False) -> Freshness:
    """One cheap query that decides visibility and names the version a reader would get.

    The working copy's version moves with every edit (`updated_at` is touched by every writer,
    verdicts included), with the Book 0 entries it shows (the newest edit among them and how
    many there are, so withdrawing one moves it, while a draft's edits move nothing and so say
    nothing of it), and with its book's title. Its SQL is built once (a 304 is this query
    alone).
    """
    row = _FRESHNESS.first(code=code)
    if row is None or (row["state"] == Chapter.State.DRAFT and not staff):
        raise NotVisible
    if row["latest"]:
        return Freshness(f"{code}:r{row['latest']}", row["released_at"])
    stamps = [row["updated_at"]] + ([row["leaned"]] if row["leaned"] else [])
    parts = (
        f"{code}|{'|'.join(t.isoformat() for t in stamps)}|{row['shown_entries']}"
        f"|{row['book__title']}"
    )
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
        return reader_view(code, chapter_snapshot(chapter, include_unpublished=True), None, latest)
    releases = Release.objects.filter(chapter__code=code)
    if not staff:
        releases = releases.exclude(chapter__state=Chapter.State.DRAFT)
    release = releases.order_by("-number").first()
    if release is not None:
        return reader_view(code, release.snapshot, release, release.number)
    freshness = chapter_freshness(code=code, staff=staff)
    key = f"working:{SNAPSHOT_FORMAT}:{RENDER_VERSION}:{freshness.version}"
    view = cache.get(key)
    if view is None:
        view = reader_view(code, chapter_snapshot(chapters_with_parts().get(code=code)), None, None)
        cache.set(key, view, timeout=WORKING_COPY_CACHE_SECONDS)
    return view


def release_for_reader(*, code: str, number: int, staff: bool = False) -> ReaderView:
    chapter_freshness(code=code, staff=staff)  # a withdrawn (draft) chapter hides its history
    release = Release.objects.filter(chapter__code=code, number=number).first()
    if release is None:
        raise NotVisible
    latest = Release.objects.filter(chapter__code=code).aggregate(n=Max("number"))["n"]
    return reader_view(code, release.snapshot, release, latest)


def releases_for_reader(*, code: str, staff: bool = False) -> list[Release]:
    chapter_freshness(code=code, staff=staff)
    return list(
        Release.objects.filter(chapter__code=code).order_by("number").select_related("created_by")
    )


@dataclass(frozen=True)
class ChapterSummary:
    code: str
    book: str
    number: int
    title: str
    maturity: str
    maturity_name: str
    state: str
    latest_release: int | None
    strands: list[dict[str, Any]]
    owes: int


LONGEST_LIST = 2**31


class Listing[T]:
    """A list filtered, ordered, counted and sliced in the database: only the slice asked for
    is built, in the same few queries however long the list is."""

    def __init__(self, rows: QuerySet, build: Callable[[list], list[T]]):
        self.rows, self.build = rows, build

    def all(self) -> "Listing[T]":
        return self

    def count(self) -> int:
        return self.rows.count()

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, window: slice) -> list[T]:
        if (window.start or 0) >= LONGEST_LIST:  # past the end: empty, not a database error
            return []
        return self.build(list(self.rows[window]))

    def __iter__(self) -> Iterator[T]:
        return iter(self.build(list(self.rows)))


def _chapters(
    *, staff: bool, numeral: str | None, maturity: str | None, state: str | None
) -> QuerySet[Chapter]:
    """The chapters a reader may list, with what their latest release says of them."""
    latest = Release.objects.filter(chapter=OuterRef("pk")).order_by("-number")
    chapters = Chapter.objects.select_related("book").annotate(
        latest_release=Subquery(latest.values("number")[:1]),
        released=Subquery(latest.values("summary")[:1]),
        shown_maturity=Coalesce(
            Subquery(latest.annotate(m=KT("summary__maturity")).values("m")[:1]),
            F("maturity"),
            output_field=CharField(),
        ),
    )
    if not staff:
        chapters = chapters.exclude(state=Chapter.State.DRAFT)
    if numeral is not None:
        chapters = chapters.filter(book__numeral=numeral)
    if maturity is not None:
        chapters = chapters.filter(shown_maturity=maturity)
    if state is not None:
        chapters = chapters.filter(state=state)
    return chapters.order_by("book__position", "number", "code")


def _summaries(chapters: list[Any]) -> list[ChapterSummary]:
    """A released chapter from its release's summary; only the others are counted, from their
    parts, loaded for all of them at once."""
    counted = [c.pk for c in chapters if c.released is None]
    loaded = chapters_with_counted_parts().in_bulk(counted) if counted else {}
    return [_summary(chapter, loaded.get(chapter.pk)) for chapter in chapters]


def _summary(chapter: Any, loaded: Chapter | None) -> ChapterSummary:
    summary = chapter.released
    if summary is None:
        counts = chapter_counts(loaded or chapter)
        summary = {
            "title": chapter.title,
            "maturity": chapter.maturity,
            "maturity_name": counts.level.name,
            "strands": [
                {"kind": s.kind, "done": s.done, "target": s.target} for s in counts.strands
            ],
            "owes": counts.owes,
        }
    return ChapterSummary(
        code=chapter.code,
        book=chapter.book.numeral,
        number=chapter.number,
        title=summary["title"],
        maturity=summary["maturity"],
        maturity_name=summary["maturity_name"],
        state=chapter.state,
        latest_release=chapter.latest_release,
        strands=summary["strands"],
        owes=summary["owes"],
    )


def chapters_listing(
    *,
    staff: bool = False,
    numeral: str | None = None,
    maturity: str | None = None,
    state: str | None = None,
) -> Listing[ChapterSummary]:
    """Chapters of every book in order, with their progress; filtered in the database."""
    return Listing(
        _chapters(staff=staff, numeral=numeral, maturity=maturity, state=state), _summaries
    )


def books_listing(
    *,
    staff: bool = False,
    numeral: str | None = None,
    maturity: str | None = None,
    state: str | None = None,
) -> Listing[tuple[Book, list[ChapterSummary]]]:
    """Books in order, each with the chapters this reader may see (filtered) and their progress."""
    books = Book.objects.all() if numeral is None else Book.objects.filter(numeral=numeral)

    def build(page: list[Book]) -> list[tuple[Book, list[ChapterSummary]]]:
        listed = _chapters(staff=staff, numeral=None, maturity=maturity, state=state)
        chapters = list(listed.filter(book__in=page))
        by_book: dict[int, list[ChapterSummary]] = {}
        for chapter, summary in zip(chapters, _summaries(chapters), strict=True):
            by_book.setdefault(chapter.book_id, []).append(summary)
        return [(book, by_book.get(book.pk, [])) for book in page]

    return Listing(books.order_by("position"), build)


def books_for_reader(
    *, staff: bool = False, numeral: str | None = None
) -> list[tuple[Book, list[ChapterSummary]]]:
    """Every book (or the one named) with its chapters, for the site's contents pages."""
    return list(books_listing(staff=staff, numeral=numeral))


def _joined(*fields: Any) -> Concat:
    """Fields as text, each followed by "|", in groups of four (one long Concat nests too deep
    for SQLite's parser)."""
    parts = [part for field in fields for part in (field, Value("|"))]
    groups = (Concat(*parts[i : i + 4], output_field=TextField()) for i in range(0, len(parts), 4))
    return Concat(*groups, output_field=TextField())


def _course() -> QuerySet[Any, Any]:
    """Every book's fields, then each chapter's id, book, state and last touch, as one digest.
    Texts are preceded by their lengths, so no two courses read alike. Where the database cannot
    order an aggregate (SQLite before 3.44) the rows come in its own order: another order of the
    same rows only costs a list being made again."""
    ordered = connections[Book.objects.db].features.supports_aggregate_order_by_clause
    book = _joined(
        "id", "numeral", "position", Length("title"), "title", Length("description"), "description"
    )
    every_book = StringAgg(book, Value("\n"), order_by=("position", "id") if ordered else None)
    books = Book.objects.annotate(one=Value(1)).values("one").order_by().values(every=every_book)
    chapter = _joined("id", "book_id", "state", "updated_at")
    chapters = StringAgg(chapter, Value("\n"), order_by=("id",) if ordered else None)
    digest = MD5(Concat(Subquery(books), Value("\n"), chapters, output_field=TextField()))
    return Chapter.objects.annotate(one=Value(1)).values("one").order_by().values(digest=digest)


_COURSE = Prepared("course_version", _course)


def course_version() -> str:
    """One query over every book and chapter that moves whenever anything a list shows may
    have: a book's fields, a chapter added, removed, moved or withdrawn, and any edit, verdict
    or release (every writer touches the chapter's `updated_at`, as `chapter_freshness` relies
    on). A draft counts too: staff lists show it. A few microseconds a chapter (300: about half
    a millisecond), no row read twice."""
    row = _COURSE.first()
    return (row or {}).get("digest") or "empty"
