"""Who is calling: a bearer token, a staff session (the admin's browser), or an anonymous reader.

Reads accept all three; writes accept only a token. A token that is sent but unknown, revoked,
or whose user is no longer active staff is refused (401) rather than read as anonymous.
"""

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest
from ninja.errors import AuthenticationError, AuthorizationError
from ninja.security import HttpBearer

from curriculum.domain.tokens import token_user


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
            raise AuthorizationError(message=f"this token lacks the permission {permission}")


class BearerToken(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> Caller:
        user = token_user(secret=token)
        if user is None:
            raise AuthenticationError(message="unknown or revoked token")
        return Caller(user, "token")


def staff_session(request: HttpRequest) -> Caller | None:
    user = request.user
    if user.is_authenticated and user.is_active and user.is_staff:
        return Caller(user, "session")
    return None


def anonymous(request: HttpRequest) -> Caller:
    return Caller()


def caller(request: HttpRequest) -> Caller:
    return request.auth  # type: ignore[attr-defined]


READ_AUTH = [BearerToken(), staff_session, anonymous]
WRITE_AUTH = [BearerToken()]
# OpenAPI: reads work without credentials; the empty requirement says so.
READ_SECURITY: dict[str, Any] = {"security": [{}]}
