"""What a body sent to the API must be: JSON, said so in its Content-Type (a chapter document
may also be YAML). A browser posts a cross-site form only as a form or text/plain, never as
JSON without asking the site first (a CORS preflight this site never grants), so a body of
another type is refused (415) before anything reads it, and a signed-in reader's session
cannot be made to check an answer from another site."""

from typing import Any

from django.http import HttpRequest

from curriculum.domain.chapter_files import json_document

JSON_TYPE = "application/json"


class UnsupportedMediaType(Exception):
    """415: the body's Content-Type is not one the route reads."""

    def __init__(self, sent: str, accepted: str = JSON_TYPE) -> None:
        self.reason = f"the Content-Type is {sent or 'missing'!r}; send it as {accepted}"
        super().__init__(f"body: {self.reason}")


def media_type(header: str | None) -> str:
    """A Content-Type's type and subtype, lowercase, without its parameters."""
    return (header or "").split(";")[0].strip().lower()


def is_json(header: str | None) -> bool:
    """application/json, or a type declared JSON by its +json suffix."""
    kind = media_type(header)
    return kind == JSON_TYPE or (kind.startswith("application/") and kind.endswith("+json"))


def json_declared(request: HttpRequest, accepted: str = JSON_TYPE) -> None:
    """UnsupportedMediaType unless the request's Content-Type says JSON."""
    sent = request.headers.get("Content-Type")
    if not is_json(sent):
        raise UnsupportedMediaType(media_type(sent), accepted)


def json_body(request: HttpRequest, accepted: str = JSON_TYPE) -> Any:
    """The body as JSON (`json_document`: every refusal with its reason), once its
    Content-Type says it is JSON; UnsupportedMediaType otherwise."""
    json_declared(request, accepted)
    return json_document(request.body)
