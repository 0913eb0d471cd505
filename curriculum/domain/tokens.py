"""API tokens: issue a secret once, keep only its digest, and resolve a bearer back to its user.

A revoked token, or one whose user is inactive or no longer staff, resolves to nobody.
"""

import hashlib
import secrets
from datetime import timedelta

from django.db.models import Q
from django.utils import timezone

from curriculum.models import ApiToken

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


def token_secret_assign(*, token: ApiToken) -> str:
    """Give an unsaved token a fresh secret; only its prefix and digest are kept."""
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token.prefix, token.digest = secret[:PREFIX_LENGTH], token_digest(secret)
    return secret


def token_issue(*, user, name: str) -> tuple[ApiToken, str]:
    """A new token for `user`; the secret is returned here and never stored."""
    if not token_holder(user):
        raise TokenRefused(f"{user.get_username()} is not active staff; API tokens are for staff")
    token = ApiToken(user=user, name=name)
    secret = token_secret_assign(token=token)
    token.save()
    return token, secret


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
