"""create_api_token: scopes and a lifetime in days, refused with the reason when the holder's
role does not allow them."""

import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from curriculum.models import ApiToken


def run(*args) -> str:
    out = io.StringIO()
    call_command("create_api_token", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue().strip()


def test_scopes_and_days_are_kept(db, erin):
    run("erin", "--scopes", "write", "--days", "3")
    token = ApiToken.objects.get()
    assert token.scopes == ["read", "write"]
    assert timedelta(days=2) < token.expires_at - timezone.now() <= timedelta(days=3)


def test_by_default_every_scope_the_role_allows_for_the_longest_lifetime(db, alice, settings):
    run("alice")
    token = ApiToken.objects.get()
    assert token.scopes == ["read", "write"]
    assert token.expires_at - timezone.now() > timedelta(days=settings.TOKEN_MAX_DAYS - 1)


def test_an_author_cannot_be_given_publish(db, alice):
    with pytest.raises(CommandError, match="does not allow the scope publish"):
        run("alice", "--scopes", "write,publish")
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize(
    ("args", "reason"),
    [(["--days", "0"], "days: a token lives 1 to"), (["--scopes", "admin"], "unknown scope")],
)
def test_a_bad_lifetime_or_scope_is_refused_with_its_path(db, erin, args, reason):
    with pytest.raises(CommandError, match=reason):
        run("erin", *args)
    assert not ApiToken.objects.exists()
