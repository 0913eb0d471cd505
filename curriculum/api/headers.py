"""The response headers the API sends, documented in its schema where they are sent: a generated
client reads what the schema names, so a header left out of it is one no client sees.

Sent on every operation: the RateLimit fields on a request that was counted (an anonymous read,
an answer check: `middleware._announce`). On every 401, the bearer challenge; on a token's 403,
why (`auth.TokenRefused`); on a 429, Retry-After. The rest are each operation's own."""

from typing import Any

_INTEGER = {"type": "integer", "minimum": 0}
_STRING = {"type": "string"}

HEADERS: dict[str, tuple[str, dict[str, Any]]] = {
    "RateLimit-Limit": ("Requests allowed in the window, when the request was counted.", _INTEGER),
    "RateLimit-Remaining": ("Requests left in the window.", _INTEGER),
    "RateLimit-Reset": ("Seconds until the window ends.", _INTEGER),
    "Retry-After": ("Seconds to wait before asking again.", _INTEGER),
    "WWW-Authenticate": (
        'The bearer challenge (RFC 6750): `Bearer realm="curriculum"`, and for a token '
        'refused `error="invalid_token"` (401) or `error="insufficient_scope", scope="write"` '
        "(403).",
        _STRING,
    ),
    "ETag": (
        "The version served (on a 412, the current one): send it back as If-None-Match or "
        "If-Match.",
        _STRING,
    ),
    "Last-Modified": ("For information: only the ETag decides a 304.", _STRING),
    "Release-Unchanged": (
        "Nothing readers see changed: no release was made; this is the latest's number.",
        _INTEGER,
    ),
    "Location": ("The URL of the release just made.", _STRING),
}

BOTH = {"ETag": True, "Last-Modified": True}
VALIDATORS = {"200": {"ETag": False, "Last-Modified": False}, "304": BOTH, "412": BOTH}
# operationId -> status -> header -> whether every such response carries it
OWN: dict[str, dict[str, dict[str, bool]]] = {
    "chapter_read": VALIDATORS,  # a staff preview (?preview=true) is never stored: no ETag
    "release_read": VALIDATORS,
    "chapter_source": dict.fromkeys(("200", "304", "412"), {"ETag": True}),
    "chapter_put": {"200": {"ETag": True}, "201": {"ETag": True}},
    "chapter_publish": {"200": {"Release-Unchanged": True}, "201": {"Location": True}},
}
BY_STATUS = {"401": {"WWW-Authenticate": True}, "403": {"WWW-Authenticate": False}}
COUNTED = {"RateLimit-Limit": False, "RateLimit-Remaining": False, "RateLimit-Reset": False}


def headers_documented(operation: dict[str, Any]) -> None:
    """Each of the operation's responses names the headers it may carry (and must, where
    `required`)."""
    own = OWN.get(operation.get("operationId", ""), {})
    for status, response in operation.get("responses", {}).items():
        status = str(status)
        sent = COUNTED | BY_STATUS.get(status, {}) | own.get(status, {})
        if status == "429":
            sent = sent | {"Retry-After": True, "RateLimit-Remaining": True}
        response["headers"] = {name: _header(name, required) for name, required in sent.items()}


def _header(name: str, required: bool) -> dict[str, Any]:
    description, schema = HEADERS[name]
    return {"description": description, "required": required, "schema": schema}
