"""The readers' site: thin views over `domain.reading`, which decides what a reader may see."""

import hashlib
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles.storage import staticfiles_storage
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import http_date, quote_etag

from curriculum.bodies import body_cached, listing_cached
from curriculum.domain.claims.examples import CLAIMS, LANGUAGE, PROPERTIES
from curriculum.domain.drafts import DRAFT_PROBLEM
from curriculum.domain.markup import RENDER_FORMAT
from curriculum.domain.operations import SELECTORS, operations_reference
from curriculum.domain.printing import book_printed, printed_releases
from curriculum.domain.progress import progress_tag
from curriculum.domain.reading import (
    Freshness,
    NotVisible,
    ReaderView,
    books_for_reader,
    chapter_for_reader,
    chapter_freshness,
    release_for_reader,
    release_freshness,
)
from curriculum.domain.wayfinding import Neighbours, chapter_neighbours

from .present import chapter_page, strand_shown
from .progress import PRIVATE, signed_in, with_book_progress, with_chapter_progress


def _books(request: HttpRequest, numeral: str | None = None):
    return [
        (
            book,
            [(c, [strand_shown(s) for s in c.strands]) for c in chapters],
        )
        for book, chapters in books_for_reader(staff=request.user.is_staff, numeral=numeral)
    ]


def _reader(request: HttpRequest) -> str:
    return "staff" if request.user.is_staff else "reader"


def home(request: HttpRequest) -> HttpResponse:
    """Rendered once per version of the course (for readers, and for staff who see drafts)."""
    return HttpResponse(
        listing_cached(
            kind=f"home:{_reader(request)}",
            make=lambda: render(request, "site/home.html", {"books": _books(request)}).content,
        )
    )


def book(request: HttpRequest, numeral: str) -> HttpResponse:
    """As the home page; a book that does not exist is a 404, never kept. A signed-in reader
    gets the same bytes with their progress in its place, as a private answer."""

    def make() -> bytes:
        books = _books(request, numeral)
        if not books:
            raise Http404("no such book")
        # a PDF made moves its chapters' revisions, so the course's tag, and this page
        context = {"book": books[0][0], "chapters": books[0][1], "pdf": book_printed(numeral)}
        return render(request, "site/book.html", context).content

    body = listing_cached(kind=f"book:{numeral}:{_reader(request)}", make=make)
    reader = signed_in(request)
    if reader is None:
        return HttpResponse(body)
    staff = request.user.is_staff
    response = HttpResponse(with_book_progress(body, reader=reader, numeral=numeral, staff=staff))
    response["Cache-Control"] = PRIVATE
    return response


def chapter_context(
    request: HttpRequest, view: ReaderView, *, preview: bool, neighbours: Neighbours | None = None
) -> dict:
    """What site/chapter.html is given: for readers, and for admin's preview of unsaved edits."""
    return {
        "view": view,
        "c": view.snapshot,
        "page": chapter_page(view.snapshot),
        "preview": preview,
        "draft_problem": DRAFT_PROBLEM,
        # a PDF made moves the chapter's revision: cached pages are made again with it
        "pdf": bool(view.release and view.release.number in printed_releases(view.code)),
        "neighbours": neighbours or chapter_neighbours(code=view.code, staff=request.user.is_staff),
    }


def _chapter(
    request: HttpRequest, view: ReaderView, *, preview: bool, neighbours: Neighbours | None = None
) -> HttpResponse:
    response = render(
        request,
        "site/chapter.html",
        chapter_context(request, view, preview=preview, neighbours=neighbours),
    )
    if preview:
        response["Cache-Control"] = "private, no-store"
    return response


def _pages_format() -> str:
    """Changes when the chapter template, the rendering or the static files a page links (by
    their hashed names, in production) do, so a deploy refreshes pages."""
    templates = sorted((Path(settings.BASE_DIR) / "templates/site").glob("*.html"))
    digest = hashlib.sha256(RENDER_FORMAT.encode())
    for template in templates:
        digest.update(template.read_bytes())
    digest.update(str(getattr(staticfiles_storage, "manifest_hash", "")).encode())
    return digest.hexdigest()[:12]


PAGES_FORMAT = _pages_format()


def chapter(request: HttpRequest, code: str) -> HttpResponse:
    """Answers a conditional request with 304 from one cheap query when nothing changed. A
    signed-in reader's page is the shared bytes with their progress in its place: private, and
    its ETag moves with their attempts too."""
    staff = request.user.is_staff
    preview = staff and request.GET.get("preview") == "1"
    try:
        if preview:
            return _chapter(
                request, chapter_for_reader(code=code, staff=True, preview=True), preview=True
            )
        freshness = chapter_freshness(code=code, staff=staff)
        # the links to the chapters either side are part of the page: their move is a new page
        neighbours = chapter_neighbours(code=code, staff=staff)
        tag = f"{freshness.tag}:{neighbours.tag}:{PAGES_FORMAT}"
        validators = {
            "ETag": quote_etag(tag),
            "Last-Modified": http_date(freshness.last_modified.timestamp()),
            "Cache-Control": f"{'private' if staff else 'public'}, no-cache",
        }
        reader = signed_in(request)
        if reader is not None:
            validators["ETag"] = quote_etag(f"{tag}:{progress_tag(reader=reader, code=code)}")
            validators["Cache-Control"] = PRIVATE
        response = get_conditional_response(request, etag=validators["ETag"])
        if response is None:
            response = _page(
                request,
                freshness,
                staff,
                lambda: chapter_for_reader(code=code, staff=staff),
                neighbours,
            )
            if reader is not None:
                response.content = with_chapter_progress(
                    response.content, reader=reader, code=code, staff=staff
                )
    except NotVisible as error:
        raise Http404("no such chapter") from error
    for header, value in validators.items():
        response[header] = value
    patch_vary_headers(response, ["Cookie"])
    return response


def _page(
    request: HttpRequest,
    freshness: Freshness,
    staff: bool,
    view: Callable[[], ReaderView],
    neighbours: Neighbours,
) -> HttpResponse:
    """The page's bytes, made once per version (and template version, and neighbours) and
    then cached."""
    body = body_cached(
        kind=f"page:{PAGES_FORMAT}:{neighbours.tag}:{'staff' if staff else 'reader'}",
        freshness=freshness,
        make=lambda: _chapter(request, view(), preview=False, neighbours=neighbours).content,
    )
    return HttpResponse(body)


def release(request: HttpRequest, code: str, number: int) -> HttpResponse:
    staff = request.user.is_staff
    try:
        return _page(
            request,
            release_freshness(code=code, number=number, staff=staff),
            staff,
            lambda: release_for_reader(code=code, number=number, staff=staff),
            chapter_neighbours(code=code, staff=staff),
        )
    except NotVisible as error:
        raise Http404("no such release") from error


def operations(request: HttpRequest) -> HttpResponse:
    """The operations reference for authors, generated from the engine's registry."""
    return render(
        request,
        "site/operations.html",
        {
            "operations": operations_reference(),
            "selectors": SELECTORS,
            "claims": CLAIMS,
            "properties": PROPERTIES,
            "language": LANGUAGE,
        },
    )
