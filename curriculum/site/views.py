"""The readers' site: thin views over `domain.reading`, which decides what a reader may see."""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from curriculum.domain.reading import (
    NotVisible,
    ReaderView,
    books_for_reader,
    chapter_for_reader,
    release_for_reader,
)

from .present import chapter_page, progress


def _books(request: HttpRequest, numeral: str | None = None):
    return [
        (book, [(c, [{**s, "bar": progress(s["done"], s["target"])} for s in c.strands])
                for c in chapters])
        for book, chapters in books_for_reader(staff=request.user.is_staff, numeral=numeral)
    ]


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "site/home.html", {"books": _books(request)})


def book(request: HttpRequest, numeral: str) -> HttpResponse:
    books = _books(request, numeral)
    if not books:
        raise Http404("no such book")
    return render(request, "site/book.html", {"book": books[0][0], "chapters": books[0][1]})


def _chapter(request: HttpRequest, view: ReaderView, *, preview: bool) -> HttpResponse:
    response = render(request, "site/chapter.html", {
        "view": view, "c": view.snapshot, "page": chapter_page(view.snapshot), "preview": preview,
    })
    if preview:
        response["Cache-Control"] = "private, no-store"
    return response


def chapter(request: HttpRequest, code: str) -> HttpResponse:
    staff = request.user.is_staff
    preview = staff and request.GET.get("preview") == "1"
    try:
        view = chapter_for_reader(code=code, staff=staff, preview=preview)
    except NotVisible as error:
        raise Http404("no such chapter") from error
    return _chapter(request, view, preview=preview)


def release(request: HttpRequest, code: str, number: int) -> HttpResponse:
    try:
        view = release_for_reader(code=code, number=number)
    except NotVisible as error:
        raise Http404("no such release") from error
    return _chapter(request, view, preview=False)
