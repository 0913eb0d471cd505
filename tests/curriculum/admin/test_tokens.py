"""API tokens in admin: every staff user issues and revokes their own, with the scopes their
role allows and a lifetime; Editors see and revoke everyone's."""

import pytest
from django.test import Client

from curriculum.domain.tokens import token_issue
from curriculum.models import ApiToken

ADD = "/admin/curriculum/apitoken/add/"
LIST = "/admin/curriculum/apitoken/"


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def issue(client, user, **fields):
    return client.post(ADD, {"user": user.pk, "name": "laptop", "days": 30, **fields})


def test_an_author_sees_api_tokens_and_only_her_own(db, alice, erin):
    token_issue(user=erin, name="erin CI")
    mine, _ = token_issue(user=alice, name="alice laptop")
    client = signed_in(alice)
    assert b"API tokens" in client.get("/admin/").content
    page = client.get(LIST).content.decode()
    assert "alice laptop" in page and "erin CI" not in page
    theirs = ApiToken.objects.get(user=erin)
    assert client.get(f"{LIST}{theirs.pk}/change/").status_code in (302, 404)
    assert client.get(f"{LIST}{mine.pk}/change/").status_code == 200


def test_an_author_issues_a_write_token_for_herself(db, alice):
    response = issue(signed_in(alice), alice, scopes=["read", "write"])
    token = ApiToken.objects.get()
    assert response.status_code == 200 and token.prefix in response.content.decode()
    assert token.user == alice and token.scopes == ["read", "write"]
    assert token.expires_at is not None


def test_an_author_is_not_offered_publish_and_a_forced_one_is_refused(db, alice):
    client = signed_in(alice)
    form = client.get(ADD).content.decode()
    assert 'value="write"' in form and 'value="publish"' not in form
    response = issue(client, alice, scopes=["read", "publish"])
    assert response.status_code == 200 and "publish" in response.content.decode()
    assert not ApiToken.objects.exists()


def test_an_author_cannot_issue_a_token_for_someone_else(db, alice, erin):
    response = issue(signed_in(alice), erin, scopes=["read"])
    assert response.status_code == 200 and "errorlist" in response.content.decode()
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize("days", [0, 91, "ten"])
def test_a_lifetime_outside_1_to_the_maximum_is_refused_with_its_field(db, alice, days):
    response = issue(signed_in(alice), alice, scopes=["read"], days=days)
    assert response.status_code == 200 and "errorlist" in response.content.decode()
    assert not ApiToken.objects.exists()


def test_the_maximum_lifetime_is_the_setting(db, alice, settings):
    settings.TOKEN_MAX_DAYS = 5
    response = issue(signed_in(alice), alice, scopes=["read"], days=6)
    assert "1 to 5 days" in response.content.decode() or "less than or equal to 5" in (
        response.content.decode()
    )
    assert not ApiToken.objects.exists()


def test_an_author_revokes_her_own_token(db, alice, erin):
    mine, _ = token_issue(user=alice, name="mine")
    theirs, _ = token_issue(user=erin, name="theirs")
    client = signed_in(alice)
    client.post(LIST, {"action": "revoke", "_selected_action": [mine.pk, theirs.pk]})
    mine.refresh_from_db(), theirs.refresh_from_db()
    assert mine.revoked_at is not None and theirs.revoked_at is None


def test_an_editor_sees_and_revokes_everyones_tokens(db, alice, erin):
    theirs, _ = token_issue(user=alice, name="alice laptop")
    client = signed_in(erin)
    assert "alice laptop" in client.get(LIST).content.decode()
    client.post(LIST, {"action": "revoke", "_selected_action": [theirs.pk]})
    theirs.refresh_from_db()
    assert theirs.revoked_at is not None


def test_a_tokens_scopes_read_as_words_in_the_list_and_on_its_page(db, alice):
    token, _ = token_issue(user=alice, name="alice laptop", scopes=["read", "write"])
    client = signed_in(alice)
    for page in (client.get(LIST), client.get(f"{LIST}{token.pk}/change/")):
        text = page.content.decode()
        assert "read, write" in text and "[&quot;read&quot;" not in text
