"""PDFs on the site: the page the worker prints for a release or a book (the chapter's own
article, with the print stylesheet), and the answers to /chapters/CODE/releases/N/pdf and
/books/NUMERAL/pdf. A PDF not made yet is a page saying so (503, try again shortly), never
printed in the request: `domain.printing` decides what exists and asks the worker for it."""

import base64
import functools
import re
from pathlib import Path

from django.contrib.staticfiles import finders
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import get_conditional_response
from django.utils.http import quote_etag
from django.utils.safestring import mark_safe

from curriculum.domain.media import media_file
from curriculum.domain.printing import book_pdf, pdf_bytes, pdfs_made, release_pdf
from curriculum.domain.reading import NotVisible, release_for_reader, release_freshness
from curriculum.models import Book, PrintedPdf, Release

from .present import chapter_page

STYLESHEETS = ("site/site.css", "site/code.css", "site/print.css")
RETRY_SECONDS = 30
State = PrintedPdf.State


def _stylesheets() -> list[str]:
    """The site's own stylesheets by file:// address (their fonts are found beside them)."""
    return [Path(str(finders.find(sheet))).as_uri() for sheet in STYLESHEETS]


def _chapter_context(release: Release) -> dict:
    view = release_for_reader(code=release.chapter.code, number=release.number, staff=True)
    return {"view": view, "c": view.snapshot, "page": chapter_page(view.snapshot)}


@functools.cache
def _media() -> re.Pattern[str]:
    prefix = re.escape(reverse("site:media", args=["x"])[:-1])
    return re.compile(rf'src="{prefix}([^"/]+)"( loading="lazy")?')


def _media_inline(html: str) -> str:
    """Media library images as data: addresses (the page has no server to ask), loaded at
    once (a lazy image below the first page would be printed blank)."""

    def inline(found: re.Match) -> str:
        image = media_file(found[1])
        if image is None:
            return found[0]
        data = base64.b64encode(bytes(image.data)).decode()
        return f'src="data:{image.content_type};base64,{data}"'

    return _media().sub(inline, html)


_TARGET = re.compile(r'(\s(?:id|aria-labelledby)="|\s(?:xlink:)?href="#|url\(#)([^"\s)]+)')


def _anchored(html: str, prefix: str) -> str:
    """A chapter's ids and links to them, made its own inside a book of many chapters."""
    return _TARGET.sub(lambda found: f"{found[1]}{prefix}-{found[2]}", html)


def pdf_page(printed: PrintedPdf, releases: list[Release]) -> str:
    """The HTML the worker prints for `printed`: one release, or a book's edition."""
    sheets = _stylesheets()
    if printed.release_id is not None:
        context = _chapter_context(releases[0]) | {"stylesheets": sheets}
        return _media_inline(render_to_string("print/chapter.html", context))
    chapters = []
    for release in releases:
        code = release.chapter.code
        article = render_to_string("site/_chapter_article.html", _chapter_context(release))
        chapters.append(
            {
                "anchor": f"chapter-{code}",
                "code": code,
                "number": release.chapter.number if release.chapter.book.numeral != "0" else None,
                "title": release.snapshot["title"],
                "release": release.number,
                "article": mark_safe(_anchored(article, code)),  # rendered here, from our templates
            }
        )
    context = {
        "book": releases[0].chapter.book,
        "chapters": chapters,
        "printed_on": timezone.now(),
        "stylesheets": sheets,
    }
    return _media_inline(render_to_string("print/book.html", context))


def _answer(
    request: HttpRequest, printed: PrintedPdf | None, *, name: str, what: str
) -> HttpResponse:
    """The PDF, or the page saying why there is none yet."""
    if printed is None or printed.state != State.MADE:
        state = "none" if printed is None else printed.state
        status = 503 if state == State.PENDING else 404
        context = {
            "what": what,
            "state": state,
            "message": printed.message if printed else "",
            "worker": pdfs_made(),
        }
        pending = render(request, "site/pdf_pending.html", context, status=status)
        if status == 503:
            pending["Retry-After"] = str(RETRY_SECONDS)
        pending["Cache-Control"] = "no-store"
        return pending
    etag = quote_etag(printed.digest)
    unchanged = get_conditional_response(request, etag=etag)
    if unchanged is not None:
        response = unchanged
    else:
        response = HttpResponse(pdf_bytes(printed), content_type="application/pdf")
        response["Content-Disposition"] = f'inline; filename="{name}.pdf"'
    response["ETag"] = etag
    response["Cache-Control"] = "public, no-cache"
    response["X-Content-Type-Options"] = "nosniff"
    return response


def release_pdf_view(request: HttpRequest, code: str, number: int) -> HttpResponse:
    try:
        release_freshness(code=code, number=number, staff=request.user.is_staff)
    except NotVisible as error:
        raise Http404("no such release") from error
    release = Release.objects.get(chapter__code=code, number=number)
    printed = release_pdf(release)
    return _answer(
        request, printed, name=f"{code}-release-{number}", what=f"{code}, release {number}"
    )


def book_pdf_view(request: HttpRequest, numeral: str) -> HttpResponse:
    book = Book.objects.filter(numeral=numeral).first()
    if book is None:
        raise Http404("no such book")
    printed = book_pdf(book)
    return _answer(request, printed, name=f"book-{numeral}", what=f"Book {numeral}")
