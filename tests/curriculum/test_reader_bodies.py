"""A body posted to the site by anyone but staff is refused past LIMIT_READER_FORM_BYTES before
anything parses it (curriculum/reader_forms.py): the log-in page took Django's 12 MB form bound,
and parsing bodies that large grew a worker's memory for good. Staff post chapters as before
(tests/curriculum/admin/test_saves_capacity.py), and the API keeps its own bound."""

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

FORM = "application/x-www-form-urlencoded"


def past_the_limit() -> str:
    return "login=someone&password=" + "a" * settings.LIMIT_READER_FORM_BYTES


@pytest.mark.parametrize("path", ["/accounts/login/", "/admin/login/", "/search/", "/"])
def test_an_anonymous_body_past_the_limit_is_refused_with_the_limit_named(db, path):
    refused = Client(enforce_csrf_checks=True).post(path, past_the_limit(), content_type=FORM)
    assert refused.status_code == 413
    text = refused.content.decode()
    assert f"more than {settings.LIMIT_READER_FORM_BYTES:,} bytes" in text
    assert "LIMIT_READER_FORM_BYTES" in text and "Nothing was saved" in text
    assert "split the chapter" not in text  # a reader's advice, not an author's


def test_a_reader_signed_in_is_refused_too(db):
    reader = Client()
    reader.force_login(User.objects.create_user("reader", password="a long passphrase 1"))
    refused = reader.post("/accounts/email/", past_the_limit(), content_type=FORM)
    assert refused.status_code == 413


def test_a_log_in_within_the_limit_is_read(db):
    User.objects.create_user("reader", password="a long passphrase 1")
    sent = "login=reader&password=a+long+passphrase+1&padding=" + "a" * (
        settings.LIMIT_READER_FORM_BYTES - 100
    )
    signed_in = Client().post("/accounts/login/", sent, content_type=FORM)
    assert signed_in.status_code == 302


def test_the_api_keeps_its_own_bound(db):
    """Past the reader's bound, within LIMIT_API_BODY_BYTES: the API's answer, in its shape."""
    body = b'{"answer": "' + b"1 " * settings.LIMIT_READER_FORM_BYTES + b'"}'
    answer = Client().post(
        "/api/v1/chapters/II.7/problems/p1/instances/0/check", body, "application/json"
    )
    assert answer.status_code != 413 and answer["Content-Type"] == "application/problem+json"
