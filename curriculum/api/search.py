"""GET /search?q=: the readers' search as JSON, over exactly what the site's search finds."""

from django.conf import settings
from ninja import Query, Router, Schema
from ninja.errors import ValidationError

from curriculum.domain.search import MAX_RESULTS, SearchRefused, search

from .auth import READ_AUTH, READ_SECURITY
from .schemas import READ_ERRORS

router = Router(tags=["search"], auth=READ_AUTH)


class SearchHit(Schema):
    code: str
    chapter_title: str
    kind: str
    heading: str
    url: str
    snippet_html: str


@router.get("/search", response={200: list[SearchHit], **READ_ERRORS}, openapi_extra=READ_SECURITY)
def search_read(
    request,
    q: str = Query(
        ...,
        description='Words to find (all of them); "quoted words" in that order, -word left out, '
        f"`or` between alternatives. At most {settings.LIMIT_SEARCH_CHARS} characters "
        f"(LIMIT_SEARCH_CHARS) and {settings.LIMIT_SEARCH_TERMS} terms (LIMIT_SEARCH_TERMS), "
        "or 422 naming the limit.",
    ),
    limit: int = Query(20, ge=1, le=MAX_RESULTS),
):
    """Ranked parts of chapters readers may see, each with a link to its place on the page and
    a snippet whose matched words are in `<mark>` (the rest is escaped text)."""
    try:
        hits = search(query=q, limit=limit)
    except SearchRefused as refused:
        raise ValidationError([{"loc": ["query", "q"], "msg": str(refused)}]) from refused
    return [
        {
            **hit.__dict__,
            "url": f"/chapters/{hit.code}/" + (f"#{hit.anchor}" if hit.anchor else ""),
        }
        for hit in hits
    ]
