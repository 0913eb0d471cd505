"""Lists: books with their chapters, and chapters across books, filtered and paginated.

Everything comes from `reading`'s listings, which filter, count and slice in the database, so
a page costs the same few queries however large the course; a released chapter is summarised
from its release and a draft appears only to staff.
"""

from dataclasses import asdict

from ninja import Router
from ninja.pagination import LimitOffsetPagination, paginate

from curriculum.domain.reading import Listing, NotVisible, books_listing, chapters_listing

from .auth import READ_AUTH, READ_SECURITY, caller
from .params import BOOK_FILTER, NUMERAL
from .schemas import READ_ERRORS, BookOut, ChapterSummary, Error, Maturity, State

router = Router(tags=["books and chapters"], auth=READ_AUTH)


def _books(request, numeral: str | None, maturity: str | None, state: str | None) -> Listing:
    listing = books_listing(
        staff=caller(request).staff, numeral=numeral, maturity=maturity, state=state
    )

    def book_out(page: list) -> list[dict]:
        return [
            {
                "numeral": book.numeral,
                "title": book.title,
                "slug": book.slug,
                "description": book.description,
                "chapters": [asdict(summary) for summary in summaries],
            }
            for book, summaries in listing.build(page)
        ]

    return Listing(listing.rows, book_out)


@router.get("/books", response={200: list[BookOut], **READ_ERRORS}, openapi_extra=READ_SECURITY)
@paginate(LimitOffsetPagination)
def book_list(request, maturity: Maturity | None = None, state: State | None = None):
    """Books in order, each with the chapters you may see (filtered by maturity and state)."""
    return _books(request, None, maturity, state)


@router.get(
    "/books/{numeral}",
    response={200: BookOut, 404: Error, **READ_ERRORS},
    openapi_extra=READ_SECURITY,
)
def book_read(
    request, numeral: str = NUMERAL, maturity: Maturity | None = None, state: State | None = None
):
    """One book and its chapters in order."""
    books = _books(request, numeral, maturity, state)[:1]
    if not books:
        raise NotVisible
    return books[0]


@router.get(
    "/chapters", response={200: list[ChapterSummary], **READ_ERRORS}, openapi_extra=READ_SECURITY
)
@paginate(LimitOffsetPagination)
def chapter_list(
    request,
    book: str | None = BOOK_FILTER,
    maturity: Maturity | None = None,
    state: State | None = None,
):
    """Chapters of every book in order, with their progress; filter by book, maturity, state."""
    listing = chapters_listing(
        staff=caller(request).staff, numeral=book, maturity=maturity, state=state
    )
    return Listing(listing.rows, lambda page: [asdict(s) for s in listing.build(page)])
