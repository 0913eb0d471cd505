"""Lists: books with their chapters, and chapters across books, filtered and paginated.

Everything comes from `reading`'s listings, which filter, count and slice in the database, so
a page costs the same few queries however large the course; a released chapter is summarised
from its release and a draft appears only to staff.
"""

from collections.abc import Callable
from dataclasses import asdict
from functools import wraps

from django.http import HttpRequest, HttpResponse
from ninja import Router, Schema
from ninja.pagination import paginate

from curriculum.bodies import PROCESS_BODIES, listing_key
from curriculum.domain.reading import Listing, NotVisible, books_listing, chapters_listing

from .auth import READ_AUTH, READ_SECURITY, caller
from .pages import Paged
from .params import BOOK_FILTER, NUMERAL
from .schemas import READ_ERRORS, BookOut, ChapterSummary, Error, Maturity, State

router = Router(tags=["books and chapters"], auth=READ_AUTH)
JSON = "application/json; charset=utf-8"  # what ninja's renderer says of its bytes


def kept_per_course_tag(view: Callable[..., object]) -> Callable[..., object]:
    """A list's bytes made once per version of the course (`reading.listing_key`) for the
    caller's kind and the validated parameters, then served from this process's copy: after
    authentication and throttling, a hit costs the version query and a memory read. On a miss
    the view runs as ever and `CurriculumAPI.create_response` keeps the bytes ninja made."""

    @wraps(view)
    def serve(request: HttpRequest, **params: object) -> object:
        given = sorted(
            (name, value.model_dump() if isinstance(value, Schema) else value)
            for name, value in params.items()
        )
        reader = "staff" if caller(request).staff else "reader"
        here = request.build_absolute_uri(request.path)  # the page's links name it
        key = listing_key(f"api:{view.__name__}:{reader}:{here}:{given!r}")
        body = PROCESS_BODIES.get(key)
        if body is not None:
            return HttpResponse(body, content_type=JSON)
        request.keep_body_as = key  # type: ignore[attr-defined]
        return view(request, **params)

    return serve


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
                "description_html": book.description_html,
                "chapters": [asdict(summary) for summary in summaries],
            }
            for book, summaries in listing.build(page)
        ]

    return Listing(listing.rows, book_out)


@router.get("/books", response={200: list[BookOut], **READ_ERRORS}, openapi_extra=READ_SECURITY)
@kept_per_course_tag
@paginate(Paged)
def book_list(request, maturity: Maturity | None = None, state: State | None = None):
    """Books in order, each with the chapters you may see (filtered by maturity and state)."""
    return _books(request, None, maturity, state)


@router.get(
    "/books/{numeral}",
    response={200: BookOut, 404: Error, **READ_ERRORS},
    openapi_extra=READ_SECURITY,
)
@kept_per_course_tag
def book_read(
    request, numeral: str = NUMERAL, maturity: Maturity | None = None, state: State | None = None
):
    """One book and its chapters in order."""
    books = _books(request, numeral, maturity, state)[:1]
    if not books:
        raise NotVisible("numeral")
    return books[0]


@router.get(
    "/chapters", response={200: list[ChapterSummary], **READ_ERRORS}, openapi_extra=READ_SECURITY
)
@kept_per_course_tag
@paginate(Paged)
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
