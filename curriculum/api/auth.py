"""Who is calling: a bearer token, a staff session (the admin's browser), or an anonymous reader.

Reads accept all three; writes accept only a token, with the scope the route names. A token
that is sent but unknown, revoked, expired, or whose user is no longer active staff is refused
(401) rather than read as anonymous; one without the route's scope, or whose holder's role no
longer allows it, gets 403 (`domain.tokens` decides both; this only calls it). A
request that changes something (a signed-in reader's answer check is kept as an attempt) and
rides on a session rather than a token needs the session's CSRF token, as a form on the site
does (403 without it).
"""

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest
from ninja.errors import HttpError
from ninja.security import HttpBearer
from ninja.utils import check_csrf

from curriculum.domain.tokens import TokenInvalid, TokenOutOfScope, token_user

from .media import json_declared


@dataclass(frozen=True)
class Caller:
    user: Any = None  # a User, or None for an anonymous reader
    via: str = "anonymous"

    @property
    def anonymous(self) -> bool:
        return self.user is None

    @property
    def staff(self) -> bool:
        return self.user is not None

    def require(self, permission: str) -> None:
        if self.user is None or not self.user.has_perm(permission):
            raise TokenRefused(403, f"this token lacks the permission {permission}", "forbidden")


class TokenRefused(HttpError):
    """A refusal of the credentials sent, as an error item about the header that carries them
    and, for a bearer, the challenge RFC 6750 asks of a 401 or a 403 (`challenge`)."""

    def __init__(self, status: int, message: str, code: str, *, scope: str | None = None):
        super().__init__(status, message)
        self.code, self.scope = code, scope

    def item(self) -> dict[str, str]:
        return {"header": self.header, "code": self.code, "detail": self.message}

    @property
    def header(self) -> str:
        return "X-CSRFToken" if self.code == "csrf_failed" else "Authorization"

    def challenge(self) -> str | None:
        """`invalid_token` for a token that names nothing usable, `insufficient_scope` with
        the scope for one that may not do this; none for a session's refusal."""
        if self.code == "invalid_token":
            said = _quoted(self.message)
            return f'{BEARER_CHALLENGE}, error="invalid_token", error_description="{said}"'
        if self.code == "insufficient_scope":
            return f'{BEARER_CHALLENGE}, error="insufficient_scope", scope="{self.scope}"'
        return None


def _quoted(text: str) -> str:
    """RFC 6750's error_description: printable ASCII without `"` or `\\`."""
    return "".join(c for c in text if " " <= c <= "~" and c not in '"\\')


class BearerToken(HttpBearer):
    """A bearer token that may be used for `scope` (read, write or publish)."""

    def __init__(self, scope: str = "read") -> None:
        super().__init__()
        self.scope = scope

    def authenticate(self, request: HttpRequest, token: str) -> Caller:
        try:
            user = token_user(secret=token, scope=self.scope)
        except TokenInvalid as invalid:
            raise TokenRefused(401, str(invalid), "invalid_token") from invalid
        except TokenOutOfScope as beyond:
            raise TokenRefused(403, str(beyond), "insufficient_scope", scope=self.scope) from beyond
        return Caller(user, "token")


def bearer_sent(request: HttpRequest) -> bool:
    """Whether the request names the bearer scheme, so `BearerToken` judges its token (401 if
    none is valid) before any route reads the body: read as ninja's HttpBearer reads it."""
    sent = request.headers.get(BearerToken.header) or ""
    return sent.split(" ")[0].lower() == BearerToken.openapi_scheme


SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
CSRF_REFUSAL = (
    "CSRF check failed: a signed-in session's POST needs its CSRF token (the csrftoken "
    "cookie's value as X-CSRFToken); a script uses a bearer token instead"
)


def session_csrf(request: HttpRequest) -> None:
    """Decides no caller: refuses (403) a session's unsafe request without its CSRF token, for
    every route that reads sessions (a token, checked before it, needs none). Its body must be
    JSON first (415), as every such route's is: Django's check would parse a form's body
    itself, and a multipart one then could not be read again."""
    if request.method not in SAFE_METHODS and request.user.is_authenticated:
        json_declared(request)
        if check_csrf(request) is not None:
            raise TokenRefused(403, CSRF_REFUSAL, "csrf_failed")


def staff_session(request: HttpRequest) -> Caller | None:
    user = request.user
    if user.is_authenticated and user.is_active and user.is_staff:
        return Caller(user, "session")
    return None


def anonymous(request: HttpRequest) -> Caller:
    return Caller()


def caller(request: HttpRequest) -> Caller:
    return request.auth  # type: ignore[attr-defined]


# What a 401 answers in WWW-Authenticate (RFC 9110, RFC 6750): the scheme that is accepted;
# a refused token adds why (`TokenRefused.challenge`).
BEARER_CHALLENGE = 'Bearer realm="curriculum"'
# A route that takes only tokens, called without one (ninja's bare 401).
TOKEN_REQUIRED = {
    "header": "Authorization",
    "code": "token_required",
    "detail": "send a bearer token: Authorization: Bearer <token>",
}
READ_AUTH = [BearerToken(), session_csrf, staff_session, anonymous]
TOKEN_READ_AUTH = [BearerToken("read")]
WRITE_AUTH = [BearerToken("write")]
PUBLISH_AUTH = [BearerToken("publish")]
# OpenAPI: reads work without credentials; the empty requirement says so.
READ_SECURITY: dict[str, Any] = {"security": [{}]}
