"""GET /search?q=&offset=&limit=: the readers' search as JSON, over exactly what the site's
search finds, a page at a time with the total."""

from typing import Annotated

from django.conf import settings
from ninja import Query, Router, Schema
from ninja.errors import ValidationError

from curriculum.domain.search import PAGE, SearchRefused, search

from .auth import READ_AUTH, READ_SECURITY
from .pages import window_url
from .params import named_bound
from .schemas import READ_ERRORS

router = Router(tags=["search"], auth=READ_AUTH)


class SearchHit(Schema):
    code: str
    chapter_title: str
    kind: str
    heading: str
    url: str
    snippet_html: str


class SearchPage(Schema):
    items: list[SearchHit]
    count: int  # every part the query finds, whatever the window
    offset: int
    limit: int
    next: str | None  # the next window's URL, if there is one within LIMIT_SEARCH_OFFSET
    previous: str | None
    read_as: dict[str, list[str]]  # a word no chapter holds: the course's words it was read as


@router.get("/search", response={200: SearchPage, **READ_ERRORS}, openapi_extra=READ_SECURITY)
def search_read(
    request,
    q: str = Query(
        ...,
        description='Words to find (all of them); "quoted words" in that order, -word left out, '
        "`or` between alternatives; a word no chapter holds is read as the course's words most "
        f"like it (`read_as`). At most {settings.LIMIT_SEARCH_CHARS} characters "
        f"(LIMIT_SEARCH_CHARS) and {settings.LIMIT_SEARCH_TERMS} terms (LIMIT_SEARCH_TERMS), "
        "or 422 naming the limit.",
    ),
    offset: Annotated[int, named_bound("LIMIT_SEARCH_OFFSET")] = Query(
        0,
        ge=0,
        le=settings.LIMIT_SEARCH_OFFSET,
        description=f"0 to {settings.LIMIT_SEARCH_OFFSET} (LIMIT_SEARCH_OFFSET)",
    ),
    limit: Annotated[int, named_bound("LIMIT_SEARCH_PAGE")] = Query(
        PAGE,
        ge=1,
        le=settings.LIMIT_SEARCH_PAGE,
        description=f"1 to {settings.LIMIT_SEARCH_PAGE} (LIMIT_SEARCH_PAGE)",
    ),
):
    """Parts of chapters readers may see, those whose heading matches first, then in course
    order, each with a link to its place on the page and a snippet of its text as readers see
    it, matched words in `<mark>` (the rest is escaped text)."""
    try:
        results = search(query=q, offset=offset, limit=limit)
    except SearchRefused as refused:
        raise ValidationError([{"loc": ["query", refused.param], "msg": str(refused)}]) from refused

    def window(start: int | None) -> str | None:
        if start is None:
            return None
        return window_url(request, offset=start, limit=limit)

    return {
        "items": [
            {
                **hit.__dict__,
                "url": f"/chapters/{hit.code}/" + (f"#{hit.anchor}" if hit.anchor else ""),
            }
            for hit in results.hits
        ],
        "count": results.total,
        "offset": offset,
        "limit": limit,
        "next": window(results.next_offset),
        "previous": window(results.previous_offset),
        "read_as": results.read_as,
    }
