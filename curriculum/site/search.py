"""/search/?q=&offset=: the readers' search page (a plain GET form: no JavaScript needed), a
page of results at a time with the total and links to the next and previous pages."""

import re

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from curriculum.domain.search import SearchRefused, search
from curriculum.domain.search_terms import query_normal

OFFSET = re.compile(r"0|[1-9][0-9]{0,8}", re.ASCII)
"""An offset as the page's own links write it: ASCII digits, no sign or leading zero."""


def search_page(request: HttpRequest) -> HttpResponse:
    query = query_normal(request.GET.get("q", ""))  # shown as searched: no control characters
    results, refusal = None, None
    raw_offset = request.GET.get("offset", "0")
    if query.strip():
        try:
            if not OFFSET.fullmatch(raw_offset):
                raise SearchRefused(
                    f"offset is 0 to {settings.LIMIT_SEARCH_OFFSET} (LIMIT_SEARCH_OFFSET)"
                )
            results = search(query=query, offset=int(raw_offset))
        except SearchRefused as error:
            refusal = str(error)
    status = 400 if refusal else 200
    return render(
        request,
        "site/search.html",
        {
            "query": query,
            "results": results,
            "hits": results.hits if results else [],
            "refusal": refusal,
            "searched": bool(query.strip()),
            "max_chars": settings.LIMIT_SEARCH_CHARS,
        },
        status=status,
    )
