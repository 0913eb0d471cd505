"""Chapter bodies on the wire, with the HTTP validators that let clients skip them.

A chapter or release body is the domain's snapshot served verbatim (a release exactly as
it was released) plus which release it is. The ETag and Last-Modified come from cheap
validators-only queries (`reading.chapter_freshness`; for a release, its number and date and
the latest number), so a conditional request is answered (304) before any snapshot is built
or loaded, and a 200 is served from the bytes cached under that version.

Only the ETag decides a 304: Last-Modified is the chapter's own time to the second, while what
is served also moves with its neighbours, its releases and edits within one second, so an
If-Modified-Since alone gets the body (RFC 9110 lets a server ignore it).
"""

import json
from collections.abc import Callable
from datetime import datetime

from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, HttpResponse
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import http_date, quote_etag

from curriculum.bodies import body_cached
from curriculum.domain.reading import Freshness, ReaderView

from .auth import Caller


def reader_body(view: ReaderView) -> dict:
    release = view.release
    return {
        **view.snapshot,
        "release": release.number if release else None,
        "latest_release": view.latest_release,
        "released_at": release.created_at if release else None,
        "release_notes": release.notes if release else "",
    }


def json_bytes(body: object) -> bytes:
    return json.dumps(body, cls=DjangoJSONEncoder, ensure_ascii=False).encode()


def json_response(body: object, status: int = 200) -> HttpResponse:
    return HttpResponse(json_bytes(body), status=status, content_type="application/json")


def _cache_headers(response: HttpResponse, who: Caller) -> HttpResponse:
    """Staff may see drafts: their responses stay out of shared caches."""
    scope = "public" if who.anonymous else "private"
    response["Cache-Control"] = f"{scope}, max-age=0, must-revalidate"
    patch_vary_headers(response, ["Authorization", "Cookie"])
    return response


def conditional_json(
    request: HttpRequest,
    who: Caller,
    *,
    tag: str,
    last_modified: datetime,
    build: Callable[[], dict],
) -> HttpResponse:
    """304 (or 412) from the ETag alone; `build` runs only when this tag's body is not
    cached yet. Last-Modified is sent for information only (above)."""
    etag = quote_etag(tag)
    stamp = int(last_modified.timestamp())
    response = get_conditional_response(request, etag=etag)
    if response is None:
        fresh = Freshness(tag, last_modified)
        body = body_cached(kind="json", freshness=fresh, make=lambda: json_bytes(build()))
        response = HttpResponse(body, content_type="application/json")
    response["ETag"] = etag
    response["Last-Modified"] = http_date(stamp)
    return _cache_headers(response, who)


def uncached_json(body: object) -> HttpResponse:
    """A staff preview: never stored, by any cache."""
    response = json_response(body)
    response["Cache-Control"] = "private, no-store"
    patch_vary_headers(response, ["Authorization", "Cookie"])
    return response
