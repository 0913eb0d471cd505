"""PDFs of chapters and books: which exist, when they are made, and what readers are told.

A chapter's PDF is one release, printed once. A book's PDF is an edition: the latest release
of each chapter readers see, in order, named by a digest of the book's title and those releases,
so a new release, a withdrawal or a renamed book is a new edition and the old one is no longer
served. Nothing is printed inside a request: a release asks for its PDF and its book's when it
is committed, a request for one not yet made asks for it (once: the row is the ask), and the
worker prints it (`pdf_print`, Chromium in `domain.chromium`). A print that fails is recorded
with its reason and not tried again; one whose task was lost is asked for again by the sweep,
up to PDF_ATTEMPTS times. With no broker (the embedded first look) there is no worker, and no
PDF is asked for."""

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, OuterRef, Subquery
from django.utils import timezone

from curriculum.models import Book, Chapter, PrintedPdf, Release

from .chromium import UNAVAILABLE, PrintFailed, chromium_present, html_to_pdf
from .revisions import chapters_moved
from .verification.dispatch import LAST_LEVEL, task_send

PRINT_PDF = "curriculum.tasks.print_pdf"
PDF_ATTEMPTS = 3  # a print whose worker died (killed past its time limit) this often has failed
GAVE_UP = f"the print was stopped {PDF_ATTEMPTS} times before it finished"
State = PrintedPdf.State


@dataclass(frozen=True)
class Edition:
    """What a book's PDF holds now: its key and the releases, in the book's order."""

    book: Book
    key: str
    releases: list[Release]


def pdfs_made() -> bool:
    """Whether a worker makes PDFs here: not in the embedded first look, which has no broker."""
    return not settings.CELERY_TASK_ALWAYS_EAGER


def release_key(release_id: int) -> str:
    return f"release:{release_id}"


def book_edition(book: Book) -> Edition | None:
    """The book's edition as readers see it now; None when no chapter of it is released."""
    latest = Release.objects.filter(chapter=OuterRef("pk")).order_by("-number").values("pk")[:1]
    ids = list(
        Chapter.objects.filter(book=book)
        .exclude(state=Chapter.State.DRAFT)
        .annotate(latest=Subquery(latest))
        .filter(latest__isnull=False)
        .order_by("number", "code")
        .values_list("latest", flat=True)
    )
    if not ids:
        return None
    releases = Release.objects.select_related("chapter").in_bulk(ids)
    digest = hashlib.sha256(f"{book.title}\n{book.description}\n{ids}".encode()).hexdigest()
    return Edition(book, f"book:{book.pk}:{digest[:32]}", [releases[pk] for pk in ids])


def _ask(key: str, **about) -> PrintedPdf | None:
    """The PDF under `key`, asked for (after commit) if it never was; None with no worker."""
    if not pdfs_made():
        return PrintedPdf.objects.defer("data").filter(key=key).first()
    printed, asked = PrintedPdf.objects.defer("data").get_or_create(
        key=key, defaults={**about, "requested_at": timezone.now()}
    )
    if asked:
        transaction.on_commit(lambda: _send(key))
    return printed


def _send(key: str) -> bool:
    # behind every check of an answer: a PDF is never what a reader waits on
    return task_send(PRINT_PDF, (key,), level=LAST_LEVEL, what=f"the PDF {key}")


def pdfs_ask_for_release(release: Release) -> None:
    """A new release: its PDF, and its book's new edition."""
    _ask(release_key(release.pk), release=release)
    edition = book_edition(release.chapter.book)
    if edition is not None:
        _ask(edition.key, book=edition.book)


def release_pdf(release: Release) -> PrintedPdf | None:
    """The release's PDF (asked for if it never was), without its bytes."""
    return _ask(release_key(release.pk), release=release)


def book_pdf(book: Book) -> PrintedPdf | None:
    """The book's current edition (asked for if it never was), without its bytes; None when
    no chapter of it is released."""
    edition = book_edition(book)
    return None if edition is None else _ask(edition.key, book=book)


def pdf_bytes(printed: PrintedPdf) -> bytes:
    return bytes(PrintedPdf.objects.values_list("data", flat=True).get(pk=printed.pk))


def printed_releases(code: str) -> list[int]:
    """The numbers of the chapter's releases whose PDF is made, in order."""
    return sorted(
        PrintedPdf.objects.filter(release__chapter__code=code, state=State.MADE).values_list(
            "release__number", flat=True
        )
    )


def book_printed(numeral: str) -> bool:
    """Whether the book's current edition is made (its page links it)."""
    book = Book.objects.filter(numeral=numeral).first()
    edition = None if book is None else book_edition(book)
    return edition is not None and (
        PrintedPdf.objects.filter(key=edition.key, state=State.MADE).exists()
    )


def pdf_print(key: str, compose: Callable[[PrintedPdf, list[Release]], str]) -> str:
    """Print the PDF asked for under `key` (the worker's task): `compose` gives the page for
    the row and the releases it holds. Returns its state; a PDF made or failed is left be."""
    with transaction.atomic():
        printed = PrintedPdf.objects.select_for_update().defer("data").filter(key=key).first()
        if printed is None or printed.state != State.PENDING:
            return printed.state if printed else "gone"
        printed.attempts = F("attempts") + 1
        printed.save(update_fields=["attempts"])
        printed.refresh_from_db(fields=["attempts"])
    if printed.attempts > PDF_ATTEMPTS:
        return _failed(printed, GAVE_UP)
    releases = _releases(printed)
    if releases is None:  # its book holds other releases now: a newer edition is asked for
        PrintedPdf.objects.filter(pk=printed.pk).delete()
        return "gone"
    try:
        data = html_to_pdf(compose(printed, releases))
    except PrintFailed as failure:
        return _failed(printed, str(failure))
    with transaction.atomic():
        PrintedPdf.objects.filter(pk=printed.pk).update(
            state=State.MADE,
            data=data,
            digest=hashlib.sha256(data).hexdigest(),
            message="",
            made_at=timezone.now(),
        )
        # the pages that link it are made again: their chapters' revisions move
        chapters_moved({release.chapter_id for release in releases}, searched=False)
    if printed.book_id is not None:  # earlier editions are no longer served
        PrintedPdf.objects.filter(
            book_id=printed.book_id, requested_at__lt=printed.requested_at
        ).delete()
    return State.MADE


def _releases(printed: PrintedPdf) -> list[Release] | None:
    if printed.release_id is not None:
        return [Release.objects.select_related("chapter__book").get(pk=printed.release_id)]
    edition = book_edition(Book.objects.get(pk=printed.book_id or 0))
    return edition.releases if edition is not None and edition.key == printed.key else None


def _failed(printed: PrintedPdf, why: str) -> str:
    PrintedPdf.objects.filter(pk=printed.pk).update(state=State.FAILED, message=why)
    return State.FAILED


def pdfs_sweep() -> int:
    """Ask for what no task is making: the latest release of every chapter readers see and
    every book's current edition, never asked for; PDFs asked for long ago and still not made
    (their task lost); those that failed for want of Chromium, once it is installed. Returns
    how many were sent."""
    if not pdfs_made():
        return 0
    if chromium_present():
        PrintedPdf.objects.filter(state=State.FAILED, message=UNAVAILABLE).delete()
    latest = Release.objects.filter(chapter=OuterRef("pk")).order_by("-number").values("pk")[:1]
    shown = (
        Chapter.objects.exclude(state=Chapter.State.DRAFT)
        .annotate(latest=Subquery(latest))
        .filter(latest__isnull=False)
        .values_list("latest", flat=True)
    )
    for release in Release.objects.filter(pk__in=list(shown)):
        _ask(release_key(release.pk), release=release)
    for book in Book.objects.all():
        book_pdf(book)
    before = timezone.now() - timedelta(seconds=settings.PDF_SWEEP_AFTER_SECONDS)
    lost = PrintedPdf.objects.filter(state=State.PENDING, requested_at__lt=before)
    keys = list(lost.values_list("key", flat=True))
    lost.filter(key__in=keys).update(requested_at=timezone.now())
    return sum(_send(key) for key in keys)
