"""API tokens: issue a secret once, keep only its digest, and resolve a bearer back to its user.

A token has scopes and an expiry. Every token reads; `write` (import, re-verify) and `publish`
add what they name, and a scope is granted only if the holder's role allows it, when the token
is issued and again on every request: a token never does more than its holder may do now. A
revoked or expired token, or one whose user is inactive or no longer staff, is refused (401);
a request beyond the token's scopes, or its holder's role today, is refused too (403): by the
route's scope, and by every action the request goes on to ask for, whose permissions a missing
scope withholds (`roles.permissions_withhold`: a write token's PUT may not withdraw).
"""

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import ClassVar

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from curriculum.models import ApiToken

from .actions import Action
from .roles import (
    PUBLISH_PERMISSION,
    TOKEN_ISSUE_ANY_PERMISSION,
    TOKEN_ISSUE_PERMISSION,
    TOKEN_MANAGE_PERMISSION,
    Forbidden,
    TokenOutOfScope,
    permissions_withhold,
)

TOKEN_PREFIX = "cur_"
PREFIX_LENGTH = 12
# Recording every use would turn each read into a write; once a minute is enough to audit.
LAST_USED_RESOLUTION = timedelta(minutes=1)

SCOPES: dict[str, str | None] = {
    "read": None,  # every token: what active staff may read
    "write": "curriculum.change_chapter",  # PUT a chapter, re-verify it
    "publish": PUBLISH_PERMISSION,  # publish through the gate
}
"""Each scope and the permission its holder's role needs for it (the one place this is said)."""

HOLDERS = Q(is_staff=True, is_active=True)
"""Who may hold an API token: active staff (the one place this is said)."""


class TokenRefused(ValueError):
    """This token may not be issued: its holder, scopes or lifetime, each reason given."""


class TokenInvalid(Exception):
    """A bearer that names no usable token: unknown, revoked, expired, or its holder gone (401)."""


def token_holder(user) -> bool:
    return bool(user.is_active and user.is_staff)


def token_digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def scopes_allowed(user) -> list[str]:
    """The scopes the user's role allows now, in their order."""
    return [
        s for s, permission in SCOPES.items() if permission is None or user.has_perm(permission)
    ]


def scopes_normal(scopes) -> list[str]:
    """Known scopes first in their order, `read` always (every token reads), then the unknown."""
    asked = set(scopes)
    return [s for s in SCOPES if s == "read" or s in asked] + sorted(asked - set(SCOPES))


@dataclass(kw_only=True)
class TokenIssue(Action):
    """An unsaved token for its holder, saved with its scopes, an expiry `days` from now and a
    fresh secret: the secret is returned by execute() and never stored (only its prefix and
    digest are). Staff issue their own tokens; for another holder the issuer needs
    TOKEN_ISSUE_ANY_PERMISSION (a superuser, or the system)."""

    token: ApiToken
    scopes: list[str] | None = None  # None: every scope the holder's role allows
    days: int | None = None  # None: settings.TOKEN_MAX_DAYS

    needs: ClassVar[tuple[str, ...]] = (TOKEN_ISSUE_PERMISSION,)

    def permissions(self):
        if self.user is not None and self.token.user_id != self.user.pk:
            return (*self.needs, TOKEN_ISSUE_ANY_PERMISSION)
        return self.needs

    def check(self) -> list[str]:
        return super().check() + self.token_refusals()

    def token_refusals(self) -> list[str]:
        holder = self.token.user
        if not token_holder(holder):
            return [not_a_holder(holder)]
        refused = []
        allowed = scopes_allowed(holder)
        for scope in self.chosen():
            if scope not in SCOPES:
                refused.append(f"scopes: unknown scope {scope!r} (known: {', '.join(SCOPES)})")
            elif scope not in allowed:
                refused.append(
                    f"scopes: {holder.get_username()}'s role does not allow the scope {scope} "
                    f"(allowed: {', '.join(allowed)})"
                )
        days, most = self.lifetime(), settings.TOKEN_MAX_DAYS
        if not 1 <= days <= most:
            refused.append(f"days: a token lives 1 to {most} days (TOKEN_MAX_DAYS), not {days}")
        return refused

    def chosen(self) -> list[str]:
        return scopes_normal(
            scopes_allowed(self.token.user) if self.scopes is None else self.scopes
        )

    def lifetime(self) -> int:
        return settings.TOKEN_MAX_DAYS if self.days is None else self.days

    def refuse(self, reasons: list[str]) -> Exception:
        if refused := self.token_refusals():
            return TokenRefused("; ".join(refused))
        return super().refuse(reasons)

    def run(self) -> str:
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
        self.token.prefix, self.token.digest = secret[:PREFIX_LENGTH], token_digest(secret)
        self.token.scopes = self.chosen()
        self.token.expires_at = timezone.now() + timedelta(days=self.lifetime())
        self.token.save()
        return secret


def not_a_holder(user) -> str:
    return f"{user.get_username()} is not active staff; API tokens are for staff"


def token_issue(
    *, user, name: str, scopes: list[str] | None = None, days: int | None = None
) -> tuple[ApiToken, str]:
    """A new token for `user`, issued by the system (the command line): by default with every
    scope the holder's role allows and the longest lifetime."""
    token = ApiToken(user=user, name=name)
    return token, TokenIssue(token=token, scopes=scopes, days=days).execute()


def tokens_visible(*, user):
    """The tokens a staff user sees in admin: their own, or every one with the manage permission."""
    if user.has_perm(TOKEN_MANAGE_PERMISSION):
        return ApiToken.objects.all()
    return ApiToken.objects.filter(user=user)


def token_revoke(*, token: ApiToken, user=None) -> None:
    """Revoke a token: its holder may, and whoever may manage every token; None is the system."""
    if user is not None and token.user_id != user.pk and not user.has_perm(TOKEN_MANAGE_PERMISSION):
        raise Forbidden(f"only its holder or an Editor may revoke the token {token.prefix}…")
    if token.revoked_at is None:
        ApiToken.objects.filter(pk=token.pk, revoked_at=None).update(revoked_at=timezone.now())


def token_user(*, secret: str, scope: str = "read"):
    """The active staff user behind a bearer secret, if the token may be used for `scope` now.

    Raises TokenInvalid (no such usable token) or TokenOutOfScope (not for this)."""
    token = (
        ApiToken.objects.select_related("user")
        .filter(digest=token_digest(secret), revoked_at=None)
        .first()
    )
    if token is None or not token_holder(token.user):
        raise TokenInvalid("unknown or revoked token")
    now = timezone.now()
    if token.expires_at is not None and token.expires_at <= now:
        raise TokenInvalid(f"token expired at {token.expires_at.isoformat(timespec='seconds')}")
    granted = scopes_normal(token.scopes)
    if scope not in granted:
        raise TokenOutOfScope(
            f"this token lacks the scope {scope} (it has: {', '.join(token.scopes)})", scope=scope
        )
    needed = SCOPES[scope]  # a read asks nothing of the role: no query for its permissions
    if needed is not None and not token.user.has_perm(needed):
        raise TokenOutOfScope(
            f"the token's holder's role no longer allows the scope {scope}", scope=scope
        )
    # whatever the route, what its actions go on to ask (a PUT that withdraws) stays in scope
    permissions_withhold(
        token.user, {p: s for s, p in SCOPES.items() if p is not None and s not in granted}
    )
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user
