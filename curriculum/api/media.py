"""What a body sent to the API must be: JSON, said so in its Content-Type as application/json
(a chapter document may also be YAML), in UTF-8, the one charset read. A browser posts a
cross-site form only as a form or text/plain, never as JSON without asking the site first (a
CORS preflight this site never grants), so a body of another type is refused (415) before
anything reads it, and a signed-in reader's session cannot be made to check an answer from
another site."""

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from curriculum.domain.chapter_files import (
    JsonUnreadable,
    NumbersUnheld,
    json_document,
    json_read,
)

from .problems import problem_response

JSON_TYPE = "application/json"


class UnsupportedMediaType(Exception):
    """415: the body's Content-Type is not one the route reads."""

    def __init__(self, sent: str, accepted: str = JSON_TYPE, reason: str = "") -> None:
        said = f"the Content-Type is {sent!r}" if sent else "no Content-Type was sent"
        self.reason = reason or f"{said}; send it as {accepted}"
        super().__init__(f"body: {self.reason}")


class BodyTooLarge(Exception):
    """413: a body past LIMIT_API_BODY_BYTES, on any route (`too_large`)."""


class JsonRefused(Exception):
    """400: a body that does not read as JSON (or nests past LIMIT_JSON_DEPTH), on every route
    that reads one; `errors` are `json_document`'s reasons. One that reads but holds more than
    a chapter file may is a refused document (422), as in YAML."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


def too_large(setting: str = "LIMIT_API_BODY_BYTES", note: str = "") -> HttpResponse:
    """The 413 for a body past LIMIT_API_BODY_BYTES, whatever the route (its middleware, from
    the Content-Length, before anything reads it; a route, for one sent without it), or past
    another limit `setting` names."""
    said = f"at most {getattr(settings, setting):,} bytes ({setting}){note}"
    item = {"pointer": "", "code": "limit", "detail": said}
    return problem_response(413, "the body is too large", [item])


def declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def body_bytes(request: HttpRequest) -> bytes:
    """The body, once it is known to be within LIMIT_API_BODY_BYTES (BodyTooLarge)."""
    if declared_length(request) > settings.LIMIT_API_BODY_BYTES:
        raise BodyTooLarge
    body = request.body
    if len(body) > settings.LIMIT_API_BODY_BYTES:
        raise BodyTooLarge
    return body


def media_type(header: str | None) -> str:
    """A Content-Type's type and subtype, lowercase, without its parameters."""
    return (header or "").split(";")[0].strip().lower()


def is_json(header: str | None) -> bool:
    """Whether a response is JSON: application/json, or a type declared JSON by its +json
    suffix (application/problem+json). A request's body is read by `body_type` alone."""
    kind = media_type(header)
    return kind == JSON_TYPE or (kind.startswith("application/") and kind.endswith("+json"))


def body_type(
    request: HttpRequest, types: tuple[str, ...] = (JSON_TYPE,), accepted: str = JSON_TYPE
) -> str:
    """The body's media type when it is one of `types` exactly, as the route documents them
    (a +json type is another format, such as a merge patch, and is not read as a document), in
    UTF-8: any other charset would be read as UTF-8 regardless. UnsupportedMediaType else."""
    sent = request.headers.get("Content-Type")
    kind = media_type(sent)
    if kind not in types:
        raise UnsupportedMediaType(kind, accepted)
    said = (request.content_params or {}).get("charset", "utf-8").lower()  # Django parsed it
    if said != "utf-8":
        reason = f"the body must be UTF-8, but the Content-Type says charset={said}"
        raise UnsupportedMediaType(kind, reason=f"{reason}; send charset=utf-8, or no charset")
    return kind


def json_declared(request: HttpRequest, accepted: str = JSON_TYPE) -> None:
    """UnsupportedMediaType unless the request's Content-Type says application/json, UTF-8."""
    body_type(request, accepted=accepted)


def json_body(request: HttpRequest, accepted: str = JSON_TYPE, *, document: bool = False) -> Any:
    """The body as JSON (`json_read`, or for a chapter `document` `json_document`: every refusal
    with its reason, as JsonRefused; a document past a chapter file's limits, ChapterFileError),
    once its Content-Type says it is JSON (UnsupportedMediaType otherwise) and its size is
    within bounds (BodyTooLarge)."""
    json_declared(request, accepted)
    body = body_bytes(request)
    try:
        return json_document(body) if document else json_read(body)
    except NumbersUnheld:  # JSON that reads: refused at each number's place (422)
        raise
    except JsonUnreadable as refused:
        raise JsonRefused(refused.errors) from refused
