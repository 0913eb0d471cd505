"""Token scopes and expiry at the API: every token reads, `write` imports, `publish` publishes;
an expired or revoked token is 401, a route beyond the token's scopes or its holder's role now
is 403, each in the API's one error shape."""

import json
from datetime import timedelta

from django.contrib.auth.models import Group
from django.test import Client
from django.utils import timezone

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.tokens import token_issue
from curriculum.models import ApiToken, Chapter, Release, WebhookDelivery, WebhookEndpoint
from tests.conftest import sketch, verify_now
from tests.curriculum.api.conftest import bearer, released


def put(client, token: dict, **changes):
    return client.put(
        "/api/v1/chapters/II.7",
        json.dumps(sketch(**changes)),
        content_type="application/json",
        **token,
    )


def test_an_author_issues_a_write_token_in_admin_and_puts_a_chapter_with_it(books, alice):
    browser = Client()
    browser.force_login(alice)
    page = browser.post(
        "/admin/curriculum/apitoken/add/",
        {"user": alice.pk, "name": "laptop", "scopes": ["read", "write"], "days": 7},
    )
    assert page.status_code == 200
    secret = page.content.decode().split('<code class="token-secret">')[1].split("<")[0]
    response = put(Client(), bearer(secret))
    assert response.status_code == 201
    assert Chapter.objects.filter(code="II.7").exists()
    assert ApiToken.objects.get().scopes == ["read", "write"]


def test_a_read_only_token_reads_but_gets_403_naming_the_scope_on_put(client, books, alice):
    token = bearer(token_issue(user=alice, name="reader", scopes=["read"])[1])
    chapter_import(document=sketch())
    assert client.get("/api/v1/chapters/II.7/source", **token).status_code == 200
    response = put(client, token, title="Renamed")
    assert response.status_code == 403
    assert "lacks the scope write" in response.json()["detail"]
    assert isinstance(response.json()["errors"], list)
    assert Chapter.objects.get(code="II.7").title != "Renamed"


def test_an_expired_token_gets_401_token_expired(client, books, alice):
    token, secret = token_issue(user=alice, name="old", days=1)
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    for response in (
        client.get("/api/v1/chapters/II.4", **bearer(secret)),
        put(client, bearer(secret)),
    ):
        assert response.status_code == 401
        assert "token expired" in response.json()["detail"]
    assert not Chapter.objects.filter(code="II.7").exists()


def test_a_token_lives_its_days_and_no_longer(client, books, alice):
    token, secret = token_issue(user=alice, name="week", days=7)
    assert timedelta(days=6, hours=23) < token.expires_at - timezone.now() <= timedelta(days=7)
    assert put(client, bearer(secret)).status_code == 201


def test_a_revoked_token_gets_401(client, books, alice, alice_token):
    ApiToken.objects.update(revoked_at=timezone.now())
    response = put(client, alice_token)
    assert response.status_code == 401 and "revoked" in response.json()["detail"]


def test_a_publish_token_whose_holder_left_the_editors_can_no_longer_publish(client, books, erin):
    token = bearer(token_issue(user=erin, name="CI", scopes=["write", "publish"])[1])
    chapter_import(document=sketch())
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    erin.groups.remove(Group.objects.get(name="Editors"))
    erin.groups.add(Group.objects.get(name="Authors"))
    response = Client().post("/api/v1/chapters/II.7/publish", **token)
    assert response.status_code == 403
    assert "no longer allows the scope publish" in response.json()["detail"]
    assert not Release.objects.exists()
    assert put(Client(), token, title="Still writes").status_code == 200  # an author may


def test_a_write_token_cannot_publish_even_for_an_editor(client, books, erin):
    token = bearer(token_issue(user=erin, name="import only", scopes=["write"])[1])
    chapter_import(document=sketch())
    verify_now(Chapter.objects.get(code="II.7"))
    response = client.post("/api/v1/chapters/II.7/publish", **token)
    assert response.status_code == 403 and "lacks the scope publish" in response.json()["detail"]
    assert not Release.objects.exists()


def test_each_refusal_of_a_token_says_why_in_its_bearer_challenge(client, books, alice):
    """RFC 6750: no token, a plain challenge; a token that names nothing usable, invalid_token;
    one that may not do this, 403 insufficient_scope with the scope it needs. Each error item
    names the Authorization header."""
    reader = bearer(token_issue(user=alice, name="reader", scopes=["read"])[1])
    token, secret = token_issue(user=alice, name="old", days=1)
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    answers = {
        "missing": put(client, {}),
        "unknown": put(client, bearer("cur_nope")),
        "expired": client.get("/api/v1/chapters/II.4", **bearer(secret)),
        "scope": put(client, reader),
    }
    said = {name: (r.status_code, r.get("WWW-Authenticate")) for name, r in answers.items()}
    realm = 'Bearer realm="curriculum"'
    assert said["missing"] == (401, realm)
    assert said["unknown"] == (
        401,
        f'{realm}, error="invalid_token", error_description="unknown or revoked token"',
    )
    assert said["expired"][0] == 401
    assert said["expired"][1].startswith(f'{realm}, error="invalid_token", error_description=')
    assert said["scope"] == (403, f'{realm}, error="insufficient_scope", scope="write"')
    items = {name: r.json()["errors"] for name, r in answers.items()}
    assert {name: [(e["header"], e["code"]) for e in got] for name, got in items.items()} == {
        "missing": [("Authorization", "token_required")],
        "unknown": [("Authorization", "invalid_token")],
        "expired": [("Authorization", "invalid_token")],
        "scope": [("Authorization", "insufficient_scope")],
    }


def test_withdrawing_or_reshowing_through_put_needs_the_publish_scope(client, books, erin):
    """An Editor's write token may edit a released chapter but not hide it or show it again:
    that is publishing's scope, refused as a route beyond the token's scopes is, at /state."""
    released("II.7", erin)
    writer = bearer(token_issue(user=erin, name="import only", scopes=["read", "write"])[1])
    publisher = bearer(token_issue(user=erin, name="CI", scopes=["write", "publish"])[1])
    for state, before in (("draft", "published"), ("in_progress", "draft")):
        response = put(client, writer, state=state)
        assert response.status_code == 403
        assert response["WWW-Authenticate"].endswith('error="insufficient_scope", scope="publish"')
        [item] = response.json()["errors"]
        assert (item["pointer"], item["code"]) == ("/state", "insufficient_scope")
        assert Chapter.objects.get(code="II.7").state == before
        assert put(client, publisher, state=state).status_code == 200
    assert put(client, writer, title="Renamed").status_code == 200  # an edit stays a write's


def test_an_authors_withdrawal_is_refused_at_state(client, books, erin, alice_token):
    released("II.7", erin)
    response = put(client, alice_token, state="draft")
    assert response.status_code == 403
    assert response.json()["errors"] == [
        {
            "pointer": "/state",
            "code": "forbidden",
            "detail": "withdrawing or re-showing a released chapter is for Editors, as "
            "publishing is",
        }
    ]


def test_a_chapter_shown_again_by_put_is_told_as_published_once(client, books, erin, erin_token):
    released("II.7", erin)
    WebhookEndpoint.objects.create(
        url="https://93.184.215.14/hook", events=["chapter.published", "chapter.withdrawn"]
    )
    assert put(client, erin_token, state="draft").status_code == 200
    assert put(client, erin_token, state="in_progress").status_code == 200
    told = WebhookDelivery.objects.order_by("pk").values_list("event", "payload__data")
    assert list(told) == [
        ("chapter.withdrawn", {"code": "II.7"}),
        ("chapter.published", {"code": "II.7", "release": 1}),
    ]
    assert Chapter.objects.get(code="II.7").state == "published"
