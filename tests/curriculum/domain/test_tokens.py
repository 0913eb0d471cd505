"""Who may hold a token with which scopes, for how long: decided once, in domain/tokens.py."""

import importlib

import pytest
from django.apps import apps
from django.contrib.auth.models import Group

from curriculum.domain.roles import Forbidden
from curriculum.domain.tokens import (
    TokenInvalid,
    TokenIssue,
    TokenOutOfScope,
    TokenRefused,
    token_issue,
    token_revoke,
    token_user,
)
from curriculum.models import ApiToken


def test_an_author_issues_her_own_write_token_but_never_publish(db, alice):
    token, secret = token_issue(user=alice, name="laptop", scopes=["write"])
    assert token.scopes == ["read", "write"]
    assert token_user(secret=secret, scope="write") == alice
    with pytest.raises(TokenRefused, match="alice's role does not allow the scope publish"):
        TokenIssue(token=ApiToken(user=alice, name="x"), user=alice, scopes=["publish"]).execute()
    assert ApiToken.objects.count() == 1


def test_an_author_may_not_issue_for_someone_else_nor_revoke_theirs(db, alice, erin):
    with pytest.raises(Forbidden, match="issue_any_apitoken"):
        TokenIssue(token=ApiToken(user=erin, name="x"), user=alice, scopes=["read"]).execute()
    theirs, _ = token_issue(user=erin, name="erin CI")
    with pytest.raises(Forbidden, match="only its holder or an Editor"):
        token_revoke(token=theirs, user=alice)
    theirs.refresh_from_db()
    assert theirs.revoked_at is None


def test_a_superuser_issues_for_staff_only_what_their_role_allows(db, root, alice):
    token, _ = token_issue(user=alice, name="x", scopes=["write"])
    assert (
        TokenIssue(token=ApiToken(user=alice, name="y"), user=root, scopes=["write"]).check() == []
    )
    refused = TokenIssue(token=ApiToken(user=alice, name="y"), user=root, scopes=["publish"])
    assert refused.check() == [
        "scopes: alice's role does not allow the scope publish (allowed: read, write)"
    ]


def test_every_refusal_is_given_at_once_with_its_path(db, erin, settings):
    action = TokenIssue(token=ApiToken(user=erin, name="x"), scopes=["admin"], days=400)
    assert action.check() == [
        "scopes: unknown scope 'admin' (known: read, write, publish)",
        f"days: a token lives 1 to {settings.TOKEN_MAX_DAYS} days (TOKEN_MAX_DAYS), not 400",
    ]


def test_a_token_never_does_more_than_its_holder_may_now(db, erin):
    _, secret = token_issue(user=erin, name="CI")
    assert token_user(secret=secret, scope="publish") == erin
    erin.groups.set([Group.objects.get(name="Authors")])
    erin = type(erin).objects.get(pk=erin.pk)  # permissions are cached per user object
    with pytest.raises(TokenOutOfScope, match="no longer allows the scope publish"):
        token_user(secret=secret, scope="publish")
    erin.is_staff = False
    erin.save()
    with pytest.raises(TokenInvalid):
        token_user(secret=secret, scope="read")


def test_tokens_made_before_scopes_keep_what_their_holders_role_allows(db, alice, erin):
    migration = importlib.import_module("curriculum.migrations.0028_token_scopes")
    for holder in (alice, erin):
        ApiToken.objects.create(
            user=holder, name="old", prefix=holder.username, digest=holder.username
        )
    migration.scopes_as_roles_allow(apps, None)
    scopes = dict(ApiToken.objects.values_list("user__username", "scopes"))
    assert scopes == {"alice": ["read", "write"], "erin": ["read", "write", "publish"]}
    assert not ApiToken.objects.filter(expires_at__isnull=False).exists()
