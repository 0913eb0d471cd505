"""A chapter's release history, for readers: number, date and what changed."""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from curriculum.domain.reading import NotVisible
from curriculum.domain.wayfinding import release_history


def releases(request: HttpRequest, code: str) -> HttpResponse:
    try:
        history = release_history(code=code, staff=request.user.is_staff)
    except NotVisible as error:
        raise Http404("no such chapter") from error
    return render(request, "site/releases.html", {"code": code, "releases": history})
