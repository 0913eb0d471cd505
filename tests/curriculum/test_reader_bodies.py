"""A body sent by anyone but staff is refused past LIMIT_READER_BODY_BYTES before anything
parses it (curriculum/reader_bodies.py): the log-in page took Django's 12 MB form bound, and
parsing bodies that large grew a worker's memory for good; the answer check took 2 MB of JSON,
and measuring it held a worker for seconds. Staff post chapters as before
(tests/curriculum/admin/test_saves_capacity.py), and a token is the API's to judge."""

import json

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

FORM = "application/x-www-form-urlencoded"
CHECK = "/api/v1/chapters/II.7/problems/p1/instances/0/check"


def past_the_limit() -> str:
    return "login=someone&password=" + "a" * settings.LIMIT_READER_BODY_BYTES


def numbers_past_the_limit() -> bytes:
    return json.dumps({"answer": [1] * (settings.LIMIT_READER_BODY_BYTES // 3)}).encode()


@pytest.mark.parametrize("path", ["/accounts/login/", "/admin/login/", "/search/", "/"])
def test_an_anonymous_body_past_the_limit_is_refused_with_the_limit_named(db, path):
    refused = Client(enforce_csrf_checks=True).post(path, past_the_limit(), content_type=FORM)
    assert refused.status_code == 413
    text = refused.content.decode()
    assert f"more than {settings.LIMIT_READER_BODY_BYTES:,} bytes" in text
    assert "LIMIT_READER_BODY_BYTES" in text and "Nothing was saved" in text
    assert "split the chapter" not in text  # a reader's advice, not an author's
    # the site's page, headed as every other page is
    assert "Content-Security-Policy" in refused and refused["X-Frame-Options"] == "DENY"


def test_a_reader_signed_in_is_refused_too(db):
    reader = Client()
    reader.force_login(User.objects.create_user("reader", password="a long passphrase 1"))
    refused = reader.post("/accounts/email/", past_the_limit(), content_type=FORM)
    assert refused.status_code == 413


def test_a_log_in_within_the_limit_is_read(db):
    User.objects.create_user("reader", password="a long passphrase 1")
    sent = "login=reader&password=a+long+passphrase+1&padding=" + "a" * (
        settings.LIMIT_READER_BODY_BYTES - 100
    )
    signed_in = Client().post("/accounts/login/", sent, content_type=FORM)
    assert signed_in.status_code == 302


def test_an_anonymous_api_body_past_the_limit_is_refused_in_the_apis_shape(db):
    refused = Client().post(CHECK, numbers_past_the_limit(), "application/json")
    assert refused.status_code == 413
    assert refused["Content-Type"] == "application/problem+json"
    (error,) = refused.json()["errors"]
    assert error["code"] == "limit" and "LIMIT_READER_BODY_BYTES" in error["detail"]


def test_a_token_is_judged_by_the_api_before_any_body(db):
    refused = Client().post(
        CHECK, numbers_past_the_limit(), "application/json", HTTP_AUTHORIZATION="Bearer nothing"
    )
    assert refused.status_code == 401


@pytest.mark.parametrize("scheme", ["Basic eHg6eXk=", "Token abc", "Bearerxyz", "Bearer\txyz"])
def test_an_authorization_that_names_no_bearer_token_lifts_nothing(db, scheme):
    """The API reads any other header as no token at all (ninja's HttpBearer)."""
    refused = Client().post(
        CHECK, numbers_past_the_limit(), "application/json", HTTP_AUTHORIZATION=scheme
    )
    assert refused.status_code == 413


def test_staff_are_held_to_the_apis_own_bound(db):
    staff = Client()
    staff.force_login(User.objects.create_user("erin", password="x", is_staff=True))
    answer = staff.post(CHECK, numbers_past_the_limit(), "application/json")
    assert answer.status_code != 413 and answer["Content-Type"] == "application/problem+json"
