"""API tokens: issue a secret once, keep only its digest, and resolve a bearer back to its user.

A revoked token, or one whose user is inactive or no longer staff, resolves to nobody.
"""

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import ClassVar

from django.db.models import Q
from django.utils import timezone

from curriculum.models import ApiToken

from .actions import Action
from .roles import TOKEN_ISSUE_PERMISSION

TOKEN_PREFIX = "cur_"
PREFIX_LENGTH = 12
# Recording every use would turn each read into a write; once a minute is enough to audit.
LAST_USED_RESOLUTION = timedelta(minutes=1)


HOLDERS = Q(is_staff=True, is_active=True)
"""Who may hold an API token: active staff (the one place this is said)."""


class TokenRefused(ValueError):
    """The user may not hold a token."""


def token_holder(user) -> bool:
    return bool(user.is_active and user.is_staff)


def token_digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(kw_only=True)
class TokenIssue(Action):
    """An unsaved token for its holder, saved with a fresh secret: the secret is returned by
    execute() and never stored (only its prefix and digest are)."""

    token: ApiToken

    needs: ClassVar[tuple[str, ...]] = (TOKEN_ISSUE_PERMISSION,)

    def check(self) -> list[str]:
        holder = self.token.user
        refused = [] if token_holder(holder) else [not_a_holder(holder)]
        return super().check() + refused

    def refuse(self, reasons: list[str]) -> Exception:
        if not token_holder(self.token.user):
            return TokenRefused(not_a_holder(self.token.user))
        return super().refuse(reasons)

    def run(self) -> str:
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
        self.token.prefix, self.token.digest = secret[:PREFIX_LENGTH], token_digest(secret)
        self.token.save()
        return secret


def not_a_holder(user) -> str:
    return f"{user.get_username()} is not active staff; API tokens are for staff"


def token_issue(*, user, name: str) -> tuple[ApiToken, str]:
    """A new token for `user`, issued by the system (the command line)."""
    token = ApiToken(user=user, name=name)
    return token, TokenIssue(token=token).execute()


def token_revoke(*, token: ApiToken) -> None:
    if token.revoked_at is None:
        ApiToken.objects.filter(pk=token.pk, revoked_at=None).update(revoked_at=timezone.now())


def token_user(*, secret: str):
    """The active staff user behind a bearer secret, or None."""
    token = (
        ApiToken.objects.select_related("user")
        .filter(digest=token_digest(secret), revoked_at=None)
        .first()
    )
    if token is None or not token_holder(token.user):
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user
