"""A book's bibliography and glossary pages (domain.book_lists decides what they list)."""

from collections.abc import Callable

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from curriculum.domain.book_lists import bibliography_page, glossary_page
from curriculum.models import Book


def _page(request: HttpRequest, numeral: str, lister: Callable, template: str) -> HttpResponse:
    try:
        book, entries = lister(numeral=numeral, staff=request.user.is_staff)
    except Book.DoesNotExist as error:
        raise Http404("no such book") from error
    return render(request, template, {"book": book, "entries": entries})


def bibliography(request: HttpRequest, numeral: str) -> HttpResponse:
    return _page(request, numeral, bibliography_page, "site/bibliography.html")


def glossary(request: HttpRequest, numeral: str) -> HttpResponse:
    return _page(request, numeral, glossary_page, "site/glossary.html")
