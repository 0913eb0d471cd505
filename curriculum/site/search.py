"""/search/?q=: the readers' search page (a plain GET form: no JavaScript needed)."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from curriculum.domain.search import SearchRefused, search


def search_page(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("q", "")
    hits, refusal = [], None
    if query.strip():
        try:
            hits = search(query=query)
        except SearchRefused as error:
            refusal = str(error)
    status = 400 if refusal else 200
    return render(
        request,
        "site/search.html",
        {
            "query": query,
            "hits": hits,
            "refusal": refusal,
            "searched": bool(query.strip()),
            "max_chars": settings.LIMIT_SEARCH_CHARS,
        },
        status=status,
    )
