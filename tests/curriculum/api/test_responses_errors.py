"""Every API error in one shape, in development and production alike; HEAD wherever GET is;
a token's secret never in a cookie; hidden drafts move no public validator; logins throttled
per address."""

import json
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from curriculum.domain.chapter_files import chapter_import
from curriculum.models import ApiToken
from tests.conftest import sketch


def shaped(response) -> bool:
    body = json.loads(response.content)
    return (
        response["Content-Type"] == "application/problem+json"
        and body.get("type") == "about:blank"
        and body.get("status") == response.status_code
        and isinstance(body.get("title"), str)
        and isinstance(body.get("detail"), str)
        and isinstance(body.get("errors"), list)
        and all({"code", "detail"} <= set(error) for error in body["errors"])
    )


@pytest.fixture(params=[True, False], ids=["debug", "production"])
def mode(request, settings):
    settings.DEBUG = request.param
    return request.param


def test_every_api_error_has_the_one_shape(mode, chapter, alice_token, settings, monkeypatch):
    client = Client(raise_request_exception=False)
    answers = {
        401: client.get("/api/v1/chapters/II.7", HTTP_AUTHORIZATION="Bearer nope"),
        404: client.get("/api/v1/chapters/II.99"),
        405: client.delete("/api/v1/books"),
        413: client.put(
            "/api/v1/chapters/II.7",
            b"x" * (settings.LIMIT_API_BODY_BYTES + 1),
            content_type="application/json",
            **alice_token,
        ),
        422: client.get("/api/v1/chapters?limit=-1"),
        400: client.get("/api/v1/no-such-path", HTTP_HOST="evil.test"),
    }
    settings.API_ANON_RATE = "1/min"
    client.get("/api/v1/books")
    answers[429] = client.get("/api/v1/books")
    settings.API_ANON_RATE = "100000/min"

    def explode(*args, **kwargs):
        raise RuntimeError("SECRET-TRACEBACK-DETAIL")

    monkeypatch.setattr("curriculum.api.chapters.chapter_for_reader", explode)
    answers[500] = client.get("/api/v1/chapters/II.7")
    assert {status: r.status_code for status, r in answers.items()} == {s: s for s in answers}
    assert {status: shaped(r) for status, r in answers.items()} == dict.fromkeys(answers, True)
    assert b"SECRET-TRACEBACK-DETAIL" not in answers[500].content
    assert "GET" in answers[405]["Allow"]
    assert answers[413].json()["errors"] == [
        {
            "pointer": "",
            "code": "limit",
            "detail": f"at most {settings.LIMIT_API_BODY_BYTES:,} bytes (LIMIT_API_BODY_BYTES)",
        }
    ]
    assert answers[401]["WWW-Authenticate"].startswith(
        'Bearer realm="curriculum", error="invalid_token"'
    )
    assert answers[422].json()["errors"][0]["parameter"] == "limit"
    assert answers[429]["Retry-After"] == answers[429]["RateLimit-Reset"]
    assert answers[429]["RateLimit-Remaining"] == "0"


README = (Path(__file__).resolve().parents[3] / "README.md").read_text()


def test_a_422_is_titled_by_rfc_9110_s_name_as_the_readme_shows_it(client, books, alice_token):
    """Python before 3.13 names 422 "Unprocessable Entity" (RFC 4918's)."""
    parameter = client.get("/api/v1/chapters?limit=-1")
    document = client.put(
        "/api/v1/chapters/II.7",
        json.dumps(sketch(maturity="M9")),
        content_type="application/json",
        **alice_token,
    )
    for response in (parameter, document):
        assert response.status_code == 422
        assert response.json()["title"] == "Unprocessable Content"
    assert '"title": "Unprocessable Content", "status": 422' in README


@pytest.mark.parametrize("method", ["get", "post", "put", "patch", "delete"])
def test_an_unknown_api_path_is_404_whatever_the_method_before_csrf(db, erin, method):
    """A script that mistypes a path learns so, whether signed in or not, not "CSRF failed"."""
    anonymous, signed_in = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    signed_in.force_login(erin)
    body = {} if method == "get" else {"data": b"{}", "content_type": "application/json"}
    for client in (anonymous, signed_in):
        for path in ("/api/v1/no-such-path", "/api/v1/chapters/II.4/nothing/here"):
            response = getattr(client, method)(path, **body)
            assert (response.status_code, shaped(response)) == (404, True), (method, path)


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/books",
        "/api/v1/chapters",
        "/api/v1/chapters/II.7",
        "/api/v1/books/II",
        "/api/v1/ping",
    ],
)
def test_head_answers_wherever_get_does(chapter, path):
    client = Client()
    got, head = client.get(path), client.head(path)
    assert got.status_code == 200 and head.status_code == 200 and head.content == b""
    assert head["Content-Length"] == str(len(got.content))
    assert head.get("ETag") == got.get("ETag")


def test_a_new_tokens_secret_is_shown_once_in_the_page_never_in_a_cookie(root, erin):
    client = Client()
    client.force_login(root)
    response = client.post(
        "/admin/curriculum/apitoken/add/",
        {"user": erin.pk, "name": "ci", "days": 30, "scopes": ["read"]},
    )
    token = ApiToken.objects.get()
    assert response.status_code == 200 and token.prefix in response.content.decode()
    assert "no-store" in response["Cache-Control"]
    assert "messages" not in response.cookies
    secret = response.content.decode().split('<code class="token-secret">')[1].split("<")[0]
    assert Client().get("/api/v1/ping", HTTP_AUTHORIZATION=f"Bearer {secret}").status_code == 200
    again = client.get(f"/admin/curriculum/apitoken/{token.pk}/change/").content.decode()
    assert secret not in again


def entry(**changes) -> dict:
    return {
        "code": "0.ZZ.01",
        "book": "0",
        "number": 1,
        "title": "An entry",
        "maturity": "M0",
        "state": "draft",
    } | changes


def test_editing_a_hidden_draft_entry_moves_no_public_etag(books, chapter):
    chapter_import(document=entry())
    chapter_import(document=sketch("II.7") | {"apparatus": ["0.ZZ.01"]})
    client = Client()
    before = client.get("/api/v1/chapters/II.7")["ETag"]
    chapter_import(document=entry(title="SECRET-DRAFT-TITLE"))
    after = client.get("/api/v1/chapters/II.7")
    assert after["ETag"] == before and b"SECRET-DRAFT-TITLE" not in after.content
    chapter_import(document=entry(state="in_progress"))
    assert client.get("/api/v1/chapters/II.7")["ETag"] != before  # shown now: it moves


def test_one_address_trying_many_usernames_is_locked_out(erin):
    client = Client()
    url = reverse("admin:login")
    for name in ("amy", "bob", "cat", "dan", "eve"):
        client.post(url, {"username": name, "password": "wrong"})
    locked = client.post(url, {"username": "erin", "password": "erin-pass-9"})
    assert locked.status_code == 429
    elsewhere = Client(REMOTE_ADDR="10.0.0.9")
    assert elsewhere.post(url, {"username": "erin", "password": "erin-pass-9"}).status_code == 302


WRONG = {"username": "erin", "password": "wrong"}
RIGHT = {"username": "erin", "password": "erin-pass-9"}


def through_the_proxy(*forwarded: str) -> Client:
    """A client as Django sees it behind one proxy: the proxy's address, and the header it
    appended to (what the client sent, then the address the proxy saw)."""
    return Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=", ".join(forwarded))


def test_behind_a_proxy_failures_from_one_client_do_not_lock_out_another(erin, settings):
    settings.NUM_PROXIES = 1
    url = reverse("admin:login")
    for _ in range(5):
        through_the_proxy("198.51.100.1").post(url, WRONG)
    assert through_the_proxy("198.51.100.1").post(url, RIGHT).status_code == 429
    assert through_the_proxy("198.51.100.2").post(url, RIGHT).status_code == 302
    # what the locked-out client writes before the proxy's entry is not believed
    forged = through_the_proxy("198.51.100.3", "198.51.100.1").post(url, RIGHT)
    assert forged.status_code == 429


def test_a_direct_client_forging_x_forwarded_for_is_not_believed(erin, settings):
    settings.NUM_PROXIES = 0
    url = reverse("admin:login")
    for n in range(5):
        Client(HTTP_X_FORWARDED_FOR=f"198.51.100.{n}").post(url, WRONG)
    assert Client(HTTP_X_FORWARDED_FOR="198.51.100.99").post(url, RIGHT).status_code == 429


def test_each_error_item_names_the_header_at_fault(chapter, erin, alice_token):
    """415, a write or a read guarded by a stale version (412), a session's missing CSRF
    token (403): each item names the request header to fix."""
    client = Client()
    typed = client.put("/api/v1/chapters/II.7", b"x", content_type="text/plain", **alice_token)
    stale = client.put(
        "/api/v1/chapters/II.7",
        json.dumps(sketch("II.7")),
        content_type="application/json",
        HTTP_IF_MATCH='"' + "0" * 32 + '"',  # a version of the source, but not this one
        **alice_token,
    )
    read = client.get("/api/v1/chapters/II.7", HTTP_IF_MATCH='"not-this-one"')
    session = Client(enforce_csrf_checks=True)
    session.force_login(erin)
    forged = session.post(
        "/api/v1/chapters/II.7/problems/p1/instances/0/check",
        b'{"answer": 1}',
        content_type="application/json",
    )
    said = {
        r.status_code: [(e.get("header"), e["code"]) for e in r.json()["errors"]]
        for r in (typed, stale, read, forged)
    }
    assert (
        said
        == {
            415: [("Content-Type", "unsupported_media_type")],
            412: [("If-Match", "precondition_failed")],
            403: [("X-CSRFToken", "csrf_failed")],
        }
        and stale.status_code == 412
    )
    assert [(e.get("header"), e["code"]) for e in stale.json()["errors"]] == [
        ("If-Match", "source_changed")
    ]
