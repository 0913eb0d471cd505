"""GET /search?q=: the readers' search as JSON, over exactly what the site's search finds."""

from ninja import Query, Router, Schema

from curriculum.domain.search import MAX_QUERY_LENGTH, MAX_RESULTS, search

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
    q: str = Query(..., max_length=MAX_QUERY_LENGTH, description="Words to find."),
    limit: int = Query(20, ge=1, le=MAX_RESULTS),
):
    """Ranked parts of chapters readers may see, each with a link to its place on the page and
    a snippet whose matched words are in `<mark>` (the rest is escaped text)."""
    hits = search(query=q, limit=limit)  # q's max_length is the domain's: never refused here
    return [
        {
            **hit.__dict__,
            "url": f"/chapters/{hit.code}/" + (f"#{hit.anchor}" if hit.anchor else ""),
        }
        for hit in hits
    ]
