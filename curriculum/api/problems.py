"""Every refusal below /api/ as an RFC 9457 problem (`application/problem+json`):
`{"type": "about:blank", "title": <the status's name>, "status", "detail", "errors": [...]}`,
each error `{"code", "detail"}` plus the part of the request it is about: a `pointer` (RFC 6901,
into the body sent: `/problems/0/inputs/seq_len`; `""` is the whole body; for a publish the gate
refused, into the chapter file it reads), a `parameter` (a query or path parameter's name) or a
`header` (`Content-Type`, `If-Match`, `Authorization`). Only a rate limit's refusal names none:
it is about the client's count, not the request. Made here alone, for the API's handlers, its
middleware (Django's own 404, 405, 500 and CSRF pages) and the throttle on the schema."""

import json
import re
from http import HTTPStatus
from typing import Any

from django.http import HttpResponse

PROBLEM_TYPE = "application/problem+json"
CODES = (
    "invalid",  # a value the importer or a route refused
    "limit",  # refused by a limit named in settings (LIMIT_...), named in its detail
    "invalid_json",  # a body that does not parse
    "unsupported_media_type",  # a body of a type the route does not read (415)
    "not_publishable",  # a rule the publication gate holds (409, 412)
    "source_changed",  # a write or publish guarded by a version no longer current (412)
    "precondition_failed",  # a read's If-Match or If-Unmodified-Since that fails (412)
    "not_found",  # a path parameter that names nothing this caller may see (404)
    "token_required",  # a route for tokens, called without one (401)
    "invalid_token",  # unknown, revoked or expired, or its holder gone (401)
    "insufficient_scope",  # beyond the token's scopes or its holder's role (403)
    "forbidden",  # the token's holder may not read this (403)
    "csrf_failed",  # a session's change without its CSRF token (403)
    "rate_limited",  # past a rate (429)
)
"""Every code an error item carries, besides pydantic's error types for a parameter or a body's
field (`missing`, `int_parsing`, ...): the schema lists them all."""
# A path as the importer writes it before ": ": `problems[0].inputs.seq_len`, `body`.
PATH = re.compile(
    r"(?P<path>top level|[A-Za-z_][\w-]*(?:\[\d+\]|\.[A-Za-z_][\w-]*)*): (?P<detail>.*)", re.S
)
STEP = re.compile(r"\[(\d+)\]|\.?([^.\[]+)")
NAMED_LIMIT = re.compile(r"\bLIMIT_[A-Z_]+")  # a limit's setting, named in its refusal
WHOLE = (
    "body",
    "file",
    "top level",
    "chapter",
)  # the importer's name for the whole document, not a key in it
PARAMETERS = ("query", "path", "header", "cookie")  # where ninja finds a parameter


def pointer(path: str) -> str:
    """`problems[0].inputs.seq_len` as the JSON pointer `/problems/0/inputs/seq_len`; `body`
    (the whole document) as `""`."""
    steps = [index or key for index, key in STEP.findall(path)]
    if steps and steps[0] in WHOLE:
        steps = steps[1:]
    return _joined(steps)


def _joined(steps: list[str]) -> str:
    return "".join("/" + step.replace("~", "~0").replace("/", "~1") for step in steps)


def located(message: str, code: str) -> dict[str, str]:
    """An error written `path: message` as an error object: its pointer and its words; one
    that names no key (a YAML error's `line 3, column 5: ...`) is about the whole body (`""`),
    its words kept whole."""
    found = PATH.fullmatch(message)
    if found is None:
        return {"pointer": "", "code": code, "detail": message}
    return {"pointer": pointer(found["path"]), "code": code, "detail": found["detail"]}


def reason_item(reason: str, code: str) -> dict[str, str]:
    """A domain action's refusal (`actions.Reason`): at its place in the chapter file where it
    names one (the path is not repeated in its words), else at the whole file."""
    path = getattr(reason, "path", None)
    if path is None:
        return {"pointer": "", "code": code, "detail": str(reason)}
    return {"pointer": pointer(path), "code": code, "detail": reason.removeprefix(f"{path}: ")}


def limit_or(code: str, message: str) -> dict[str, str]:
    """A chapter-file error: `limit` where a limit named in settings refused it, else `code`."""
    return located(message, _limit_or(code, message))


def _limit_or(code: str, message: str) -> str:
    return "limit" if NAMED_LIMIT.search(message) else code


def validation_error(error: dict[str, Any]) -> dict[str, str]:
    """One of pydantic's errors as ninja reports it (`loc`: where, then the parameter's name,
    then the path inside a body); the API's own refusals of a parameter say the same."""
    where, *rest = [str(step) for step in error.get("loc", ())] or ["body"]
    message = str(error.get("msg", ""))
    item = {"code": _limit_or("invalid", message), "detail": message}
    if "type" in error:  # pydantic's: `missing`, `int_parsing`, ...
        item["code"] = str(error["type"])
    if where == "header" and rest:
        return {"header": rest[-1]} | item
    if where in PARAMETERS and rest:
        return {"parameter": rest[-1]} | item
    # after the body parameter's own name, which the client never sends
    return {"pointer": _joined(rest[1:])} | item


TITLES = {422: "Unprocessable Content"}
"""RFC 9110's name where Python's HTTPStatus gives an older one until 3.13 (RFC 4918's
"Unprocessable Entity"): the title the README documents, whichever Python serves it."""


def problem(status: int, detail: str, errors: list[dict[str, str]] | None = None) -> dict:
    try:
        title = TITLES.get(status) or HTTPStatus(status).phrase
    except ValueError:
        title = "Error"
    return {
        "type": "about:blank",
        "title": title,
        "status": status,
        "detail": detail,
        "errors": errors or [],
    }


def problem_response(
    status: int, detail: str, errors: list[dict[str, str]] | None = None
) -> HttpResponse:
    return HttpResponse(
        json.dumps(problem(status, detail, errors)), status=status, content_type=PROBLEM_TYPE
    )
