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

from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, HttpResponse
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import http_date, quote_etag

from curriculum.bodies import body_cached
from curriculum.domain.reading import Freshness, ReaderView
from curriculum.domain.snapshots import exercises_held

from .auth import Caller
from .problems import problem_response


def reader_body(view: ReaderView, *, whole: bool) -> dict:
    """The chapter's JSON: `whole` for staff (a preview, a publish, a token's read), else with
    each exercise's solution, hints and feedback held back (`snapshots.exercises_held`) until
    the practice route is asked for them, as the page holds them until the reader asks."""
    release = view.release
    snapshot = view.snapshot if whole else exercises_held(view.snapshot)
    return {
        **snapshot,
        "release": release.number if release else None,
        "latest_release": view.latest_release,
        "released_at": release.created_at if release else None,
        "release_notes": release.notes if release else "",
    }


def json_bytes(body: object) -> bytes:
    return json.dumps(body, cls=DjangoJSONEncoder, ensure_ascii=False).encode()


def json_response(body: object, status: int = 200) -> HttpResponse:
    return HttpResponse(json_bytes(body), status=status, content_type="application/json")


def conditional(request: HttpRequest, etag: str) -> HttpResponse | None:
    """Django's answer to the request's conditions on `etag`: a 304, a 412 as a problem naming
    the header whose condition failed, or None to serve the body."""
    response = get_conditional_response(request, etag=etag)
    if response is None or response.status_code != 412:
        return response
    header = "If-Match" if "If-Match" in request.headers else "If-Unmodified-Since"
    failed = {
        "header": header,
        "code": "precondition_failed",
        "detail": f"the current version is {etag}",
    }
    return problem_response(412, f"{header} does not hold for the current version", [failed])


def _cache_headers(response: HttpResponse, who: Caller) -> HttpResponse:
    """Staff may see drafts: their responses stay out of shared caches."""
    scope = "public" if who.anonymous else "private"
    response["Cache-Control"] = f"{scope}, max-age=0, must-revalidate"
    patch_vary_headers(response, ["Authorization", "Cookie"])
    return response


def conditional_json(
    request: HttpRequest, who: Caller, *, fresh: Freshness, view: Callable[[], ReaderView]
) -> HttpResponse:
    """304 (or 412) from the ETag alone; `view` is read only when this tag's body is not
    cached yet. Last-Modified is sent for information only (above). Staff get the chapter
    whole and everyone else with its exercises held (`reader_body`): two bodies, so the whole
    one has a tag of its own, and with it its own ETag and its own place in the cache."""
    if who.staff:
        fresh = Freshness(f"{fresh.tag}:whole", fresh.last_modified)
    etag = quote_etag(fresh.tag)
    stamp = int(fresh.last_modified.timestamp())
    response = conditional(request, etag)
    if response is None:
        body = body_cached(
            kind="json",
            freshness=fresh,
            make=lambda: json_bytes(reader_body(view(), whole=who.staff)),
        )
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
