"""Behind a proxy, a body an answer leaves unread is read before the answer goes
(curriculum/unread_bodies.py), up to LIMIT_UNREAD_BODY_BYTES; what a view read is not read
again; with no proxy in front, nothing is waited for."""

import pytest
from django.http import HttpResponse
from django.test import RequestFactory, override_settings

from curriculum.unread_bodies import UnreadBodyMiddleware

pytestmark = pytest.mark.usefixtures("behind_a_proxy")


@pytest.fixture
def behind_a_proxy(settings):
    settings.NUM_PROXIES = 1


def answered(view, body: bytes):
    request = RequestFactory().post("/api/v1/chapters/II.7", body, "application/json")
    UnreadBodyMiddleware(view)(request)
    return len(request.environ["wsgi.input"])  # what is left unread in the socket's place


def test_a_refusal_that_read_nothing_leaves_nothing_unread():
    assert answered(lambda request: HttpResponse(status=413), b" " * 300_000) == 0


def test_a_body_the_view_read_is_read_once():
    def view(request):
        assert len(request.body) == 1000
        return HttpResponse()

    assert answered(view, b"x" * 1000) == 0


@override_settings(LIMIT_UNREAD_BODY_BYTES=1000)
def test_a_body_past_the_bound_is_left_as_it_is():
    assert answered(lambda request: HttpResponse(status=413), b" " * 1001) == 1001
    assert answered(lambda request: HttpResponse(status=413), b" " * 1000) == 0


@override_settings(NUM_PROXIES=0)
def test_with_no_proxy_in_front_an_unread_body_is_left():
    """A client talking to gunicorn itself could declare a body it never sends."""
    assert answered(lambda request: HttpResponse(status=413), b" " * 1000) == 1000
