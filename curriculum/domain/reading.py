"""What a reader (or API client) is shown: the latest release, else the working copy.

Drafts exist only for staff. A staff preview shows the working copy with its unpublished
parts. The site and the API both read through here, so neither can leak what the other hides.
"""

import functools
import hashlib
import hmac
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connections
from django.db.models import (
    CharField,
    F,
    Max,
    OuterRef,
    QuerySet,
    StringAgg,
    Subquery,
    TextField,
    Value,
)
from django.db.models.fields.json import KT
from django.db.models.functions import MD5, Coalesce, Concat, Length
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from curriculum.models import Book, Chapter, Release

from .counting import chapter_counts
from .markup import RENDER_FORMAT
from .references import chapters_linked, links_closed
from .selectors import chapters_with_counted_parts, chapters_with_parts
from .snapshots import SNAPSHOT_FORMAT, chapter_snapshot, snapshot_for_readers

WORKING_COPY_CACHE_SECONDS = 24 * 3600


class NotVisible(Exception):
    """No such chapter or release for this reader (a 404, never a 403: drafts stay secret);
    `parameter` names what found nothing: the chapter's `code` (the default), a release's
    `number`, a problem's `key`, a book's `numeral`."""

    def __init__(self, parameter: str = "code") -> None:
        super().__init__(f"no {MISSING.get(parameter, parameter)} with this {parameter}")
        self.parameter = parameter


MISSING = {"code": "chapter", "number": "release", "key": "problem to practise", "numeral": "book"}


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

    tag: str
    last_modified: datetime


def chapter_freshness(*, code: str, staff: bool = False) -> Freshness:
    """One cheap query that decides visibility and names the tag of what a reader would get: the
    latest release, else the working copy, with the chapter's revision
    (`revisions.chapters_moved`: a release's links to Book 0 move it too) and the row's id, so a
    chapter made again under the same code is never taken for the old one."""
    row = _visible(code, staff)
    if row["latest"]:
        return _release_freshness(code, row, f"r{row['latest']}", row["released_at"])
    return Freshness(f"{code}:{_moved(row)}", row["updated_at"])


def _moved(row: Mapping[str, Any]) -> str:
    """The row's id, revision and the moment it moved (to the microsecond, moved with the
    revision): a database made again or restored from a backup counts revisions from where it
    stood, and the cache kept beside it must never take one of its texts for another's. Sent
    as a digest keyed by the site's secret: a release's tag moves with its working copy (its
    links do), and its readers are not told how often, or when, that copy is edited."""
    moment = row["updated_at"]
    moved = f"{row['pk']}.{row['revision']}.{int(moment.timestamp() * 1_000_000):x}"
    digest = hmac.new(settings.SECRET_KEY.encode(), moved.encode(), hashlib.blake2b)
    return f"w{digest.hexdigest()[:20]}"


def release_freshness(*, code: str, number: int, staff: bool = False) -> Freshness:
    """Validators for one release, from two queries that never load its snapshot."""
    row = _visible(code, staff)  # a withdrawn (draft) chapter hides its history
    created = (
        Release.objects.filter(chapter_id=row["pk"], number=number)
        .values_list("created_at", flat=True)
        .first()
    )
    if created is None:
        raise NotVisible("number")
    return _release_freshness(code, row, f"r{number}:of{row['latest']}", created)


def _visible(code: str, staff: bool) -> Mapping[str, Any]:
    """The chapter's row and its releases' latest number and date: every conditional read
    asks this, so its SQL is built once per process (`_visible_sql`)."""
    sql, params = _visible_sql()
    with connections[Chapter.objects.db].cursor() as cursor:
        cursor.execute(sql, [code if param == _CODE else param for param in params])
        found = cursor.fetchone()
    row = dict(zip(_VISIBLE, found, strict=True)) if found else None
    if row is None or (row["state"] == Chapter.State.DRAFT and not staff):
        raise NotVisible
    for moment in ("updated_at", "released_at"):
        row[moment] = _moment(row[moment])
    return row


_VISIBLE = ("pk", "state", "revision", "updated_at", "latest", "released_at")
_CODE = "\x00code"  # no chapter's code (a NUL is refused everywhere): the code's parameter


@functools.cache
def _visible_sql() -> tuple[str, tuple]:
    """Building the queryset costs four times running its SQL, which takes only the code."""
    latest = Release.objects.filter(chapter=OuterRef("pk")).order_by("-number")
    rows = (
        Chapter.objects.filter(code=_CODE)
        .order_by()  # the model's ordering would join the book for nothing
        .annotate(
            # each one probe of the (chapter, number) index, not an aggregate over the releases
            latest=Subquery(latest.values("number")[:1]),
            released_at=Subquery(latest.values("created_at")[:1]),
        )
        .values(*_VISIBLE)
    )
    return rows[:1].query.sql_with_params()


def _moment(value: Any) -> Any:
    """A timestamp as the ORM would give it: SQLite's raw cursor returns an aggregate's as
    text, in UTC."""
    if isinstance(value, str):
        value = parse_datetime(value)
    if isinstance(value, datetime) and timezone.is_naive(value):
        value = timezone.make_aware(value, UTC)
    return value


def _release_freshness(
    code: str, row: Mapping[str, Any], release: str, created: datetime
) -> Freshness:
    """A release's text is fixed, but which Book 0 entries it may link moves with the chapter's
    revision. Its Last-Modified is the release's own (only the ETag answers 304): the working
    copy's would tell readers when it was last edited."""
    return Freshness(f"{code}:{release}:{_moved(row)}", created)


def _links_open(snapshot: dict[str, Any]) -> dict[str, Any]:
    """A release links only the Book 0 entries readers can open now, and no chapter withdrawn
    since (a reference to it keeps its words, unlinked): neither is sent to a 404. A chapter
    deleted since stays linked: one made again under its code moves nothing that named the
    old one, so an unlinked body would outlive it under the same ETag; each withdrawal and
    showing again of a chapter that exists moves the chapters naming it
    (`revisions.chapters_moved`)."""
    entries = [entry["code"] for entry in snapshot["apparatus"]]
    linked = chapters_linked(snapshot)
    if not entries and not linked:
        return snapshot
    drafts: set[str] = set()
    shown: set[str] = set()
    for code, state in Chapter.objects.filter(code__in={*entries, *linked}).values_list(
        "code", "state"
    ):
        (drafts if state == Chapter.State.DRAFT else shown).add(code)
    kept = [entry for entry in snapshot["apparatus"] if entry["code"] in shown]
    if len(kept) != len(entries):
        snapshot = {**snapshot, "apparatus": kept}
    hidden = linked & drafts
    return links_closed(snapshot, hidden) if hidden else snapshot


def chapter_for_reader(*, code: str, staff: bool = False, preview: bool = False) -> ReaderView:
    """The latest release if there is one, else the working copy of a non-draft chapter.

    A draft is hidden even when it has releases: putting a chapter back to draft withdraws it.
    The working copy is built once per tag and cached, never per request.
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
        return reader_view(code, _links_open(release.snapshot), release, release.number)
    freshness = chapter_freshness(code=code, staff=staff)
    key = f"working:{SNAPSHOT_FORMAT}:{RENDER_FORMAT}:{freshness.tag}"
    view = cache.get(key)
    if view is None:
        view = reader_view(code, chapter_snapshot(chapters_with_parts().get(code=code)), None, None)
        cache.set(key, view, timeout=WORKING_COPY_CACHE_SECONDS)
    return view


def release_for_reader(*, code: str, number: int, staff: bool = False) -> ReaderView:
    chapter_freshness(code=code, staff=staff)  # a withdrawn (draft) chapter hides its history
    release = Release.objects.filter(chapter__code=code, number=number).first()
    if release is None:
        raise NotVisible("number")
    latest = Release.objects.filter(chapter__code=code).aggregate(n=Max("number"))["n"]
    return reader_view(code, _links_open(release.snapshot), release, latest)


def releases_for_reader(*, code: str, staff: bool = False) -> list[Release]:
    chapter_freshness(code=code, staff=staff)
    return list(Release.objects.filter(chapter__code=code).order_by("number"))


@dataclass(frozen=True)
class ChapterOverview:
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
        released=Subquery(latest.values("overview")[:1]),
        shown_maturity=Coalesce(
            Subquery(latest.annotate(m=KT("overview__maturity")).values("m")[:1]),
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


def _overviews(chapters: list[Any]) -> list[ChapterOverview]:
    """A released chapter from its release's overview; only the others are counted, from their
    parts, loaded for all of them at once."""
    counted = [c.pk for c in chapters if c.released is None]
    loaded = chapters_with_counted_parts().in_bulk(counted) if counted else {}
    return [_overview(chapter, loaded.get(chapter.pk)) for chapter in chapters]


def _overview(chapter: Any, loaded: Chapter | None) -> ChapterOverview:
    overview = chapter.released
    if overview is None:
        counts = chapter_counts(loaded or chapter)
        overview = {
            "title": chapter.title,
            "maturity": chapter.maturity,
            "maturity_name": counts.level.name,
            "strands": [
                {"kind": s.kind, "done": s.done, "target": s.target} for s in counts.strands
            ],
            "owes": counts.owes,
        }
    return ChapterOverview(
        code=chapter.code,
        book=chapter.book.numeral,
        number=chapter.number,
        title=overview["title"],
        maturity=overview["maturity"],
        maturity_name=overview["maturity_name"],
        state=chapter.state,
        latest_release=chapter.latest_release,
        strands=overview["strands"],
        owes=overview["owes"],
    )


def chapters_listing(
    *,
    staff: bool = False,
    numeral: str | None = None,
    maturity: str | None = None,
    state: str | None = None,
) -> Listing[ChapterOverview]:
    """Chapters of every book in order, with their progress; filtered in the database."""
    return Listing(
        _chapters(staff=staff, numeral=numeral, maturity=maturity, state=state), _overviews
    )


def books_listing(
    *,
    staff: bool = False,
    numeral: str | None = None,
    maturity: str | None = None,
    state: str | None = None,
) -> Listing[tuple[Book, list[ChapterOverview]]]:
    """Books in order, each with the chapters this reader may see (filtered) and their progress."""
    books = Book.objects.all() if numeral is None else Book.objects.filter(numeral=numeral)

    def build(page: list[Book]) -> list[tuple[Book, list[ChapterOverview]]]:
        listed = _chapters(staff=staff, numeral=None, maturity=maturity, state=state)
        chapters = list(listed.filter(book__in=page))
        by_book: dict[int, list[ChapterOverview]] = {}
        for chapter, overview in zip(chapters, _overviews(chapters), strict=True):
            by_book.setdefault(chapter.book_id, []).append(overview)
        return [(book, by_book.get(book.pk, [])) for book in page]

    return Listing(books.order_by("position"), build)


def books_for_reader(
    *, staff: bool = False, numeral: str | None = None
) -> list[tuple[Book, list[ChapterOverview]]]:
    """Every book (or the one named) with its chapters, for the site's contents pages."""
    return list(books_listing(staff=staff, numeral=numeral))


def books_contents(
    *, staff: bool = False, numeral: str | None = None
) -> list[tuple[Book, list[tuple[str, str]]]]:
    """Every book (or the one named) with its chapters' codes and titles as readers see them:
    the contents without counting a working copy's parts (two queries, whatever the course)."""
    found = Book.objects.all() if numeral is None else Book.objects.filter(numeral=numeral)
    books = list(found.order_by("position"))
    by_book: dict[int, list[tuple[str, str]]] = {}
    listed = _chapters(staff=staff, numeral=numeral, maturity=None, state=None)
    chapter: Any  # annotated with its latest release's overview (`released`)
    for chapter in listed.filter(book__in=books):
        title = chapter.released["title"] if chapter.released else chapter.title
        by_book.setdefault(chapter.book_id, []).append((chapter.code, title))
    return [(book, by_book.get(book.pk, [])) for book in books]


def _joined(*fields: Any) -> Concat:
    """Fields as text, each followed by "|", in groups of four (one long Concat nests too deep
    for SQLite's parser)."""
    parts = [part for field in fields for part in (field, Value("|"))]
    groups = (Concat(*parts[i : i + 4], output_field=TextField()) for i in range(0, len(parts), 4))
    return Concat(*groups, output_field=TextField())


def _course() -> QuerySet[Any, Any]:
    """Every book's fields, then each chapter's id, book, state, revision and the moment it
    moved, as one digest.
    Texts are preceded by their lengths, so no two courses read alike. Where the database cannot
    order an aggregate (SQLite before 3.44) the rows come in its own order: another order of the
    same rows only costs a list being made again."""
    ordered = connections[Book.objects.db].features.supports_aggregate_order_by_clause
    book = _joined(
        "id", "numeral", "position", Length("title"), "title", Length("description"), "description"
    )
    every_book = StringAgg(book, Value("\n"), order_by=("position", "id") if ordered else None)
    books = Book.objects.annotate(one=Value(1)).values("one").order_by().values(every=every_book)
    chapter = _joined("id", "book_id", "state", "revision", "updated_at")  # as `_moved`
    chapters = StringAgg(chapter, Value("\n"), order_by=("id",) if ordered else None)
    digest = MD5(Concat(Subquery(books), Value("\n"), chapters, output_field=TextField()))
    return Chapter.objects.annotate(one=Value(1)).values("one").order_by().values(digest=digest)


def course_tag() -> str:
    """One query over every book and chapter that moves whenever anything a list shows may
    have: a book's fields, a chapter added, removed, moved or withdrawn, and any edit, verdict
    or release (every writer moves the chapter's revision). A draft counts too: staff lists
    show it. A few microseconds a chapter (300: about half a millisecond), no row read twice."""
    with connections[Chapter.objects.db].cursor() as cursor:
        cursor.execute(*_course_sql())
        row = cursor.fetchone()
    return (row[0] if row else None) or "empty"


@functools.cache
def _course_sql() -> tuple[str, tuple]:
    """The course query as SQL, built once per process: it takes no arguments, and building it
    costs ten times what running it does (psycopg then prepares it on each connection)."""
    return _course().query.sql_with_params()
