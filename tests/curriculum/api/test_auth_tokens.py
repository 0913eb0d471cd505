"""Tokens: stored hashed, printed once by the command, issued and revoked in admin."""

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from curriculum.domain.tokens import TokenRefused, token_issue
from curriculum.models import ApiToken


def test_the_command_prints_a_token_once_and_stores_only_its_digest(client, seeded, erin):
    out = io.StringIO()
    call_command("create_api_token", "erin", "--name", "CI", stdout=out, stderr=io.StringIO())
    secret = out.getvalue().strip()
    token = ApiToken.objects.get()
    assert secret.startswith(token.prefix) and secret not in token.digest
    response = client.get("/api/v1/chapters/II.4", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert response.status_code == 200
    token.refresh_from_db()
    assert token.last_used_at is not None


def test_the_command_refuses_a_user_who_is_not_staff(db, django_user_model):
    django_user_model.objects.create_user("reader", password="reader-pass-9")
    with pytest.raises(CommandError):
        call_command("create_api_token", "reader")


def test_admin_issues_a_token_showing_its_secret_once(client, db, django_user_model, erin):
    admin = django_user_model.objects.create_superuser("root", password="root-pass-9")
    client.force_login(admin)
    response = client.post(
        "/admin/curriculum/apitoken/add/",
        {"user": erin.pk, "name": "laptop", "days": 30, "scopes": ["read"]},
    )
    token = ApiToken.objects.get()
    page = response.content.decode()  # in the page itself, never in the messages cookie
    assert token.prefix in page and "it is not shown again" in page


def test_admin_revokes_tokens(client, db, django_user_model, erin, erin_token):
    admin = django_user_model.objects.create_superuser("root", password="root-pass-9")
    client.force_login(admin)
    token = ApiToken.objects.get()
    client.post("/admin/curriculum/apitoken/", {"action": "revoke", "_selected_action": [token.pk]})
    token.refresh_from_db()
    assert token.revoked_at is not None
    client.logout()
    assert client.get("/api/v1/ping", **erin_token).status_code == 401


def test_only_active_staff_may_hold_a_token_whoever_issues_it(db):
    reader = User.objects.create_user("reader", password="reader-pass-9")
    with pytest.raises(TokenRefused, match="not active staff"):
        token_issue(user=reader, name="not for readers")
    assert not ApiToken.objects.filter(user=reader).exists()
