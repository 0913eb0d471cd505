"""Webhooks: registered endpoints hear of publishes, withdrawals and verdict changes, signed; a
hostile endpoint (forged secret, one that hangs, trickles or answers 500) is recorded and
retried with backoff, and never slows the writer nor another endpoint; a URL that reaches
inside (loopback, private, link-local…) is refused at registration and at delivery."""

import json
import socket
import time

import pytest
from django.utils import timezone

from curriculum.domain.editing import ChapterWithdraw
from curriculum.domain.gate import chapter_publish
from curriculum.domain.verification import verdicts_decide
from curriculum.domain.verification.requests import verdicts_force
from curriculum.domain.webhooks import (
    EndpointRefused,
    webhook_deliver,
    webhook_endpoint_create,
    webhook_ping,
    webhook_resend,
)
from curriculum.models import Chapter, Verdict, WebhookDelivery
from tests.conftest import sketch, verify_now
from tests.curriculum.conftest import import_chapter, uniform_problem
from tests.receiver import verified


def subscribed(receiver, *events: str) -> None:
    endpoint, receiver.secret = webhook_endpoint_create(url=receiver.url, events=list(events))


def publish_sketch(erin, captured) -> Chapter:
    from curriculum.domain.chapter_files import chapter_import

    chapter_import(document=sketch("II.7"))
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    with captured(execute=False):  # the worker's turn is the test's own call below
        chapter_publish(chapter=chapter, user=erin)
    return chapter


def test_a_publish_is_delivered_signed_and_logged(
    books, erin, receiver, django_capture_on_commit_callbacks
):
    subscribed(receiver, "chapter.published")
    publish_sketch(erin, django_capture_on_commit_callbacks)
    delivery = WebhookDelivery.objects.get()
    assert webhook_deliver(delivery_id=delivery.pk) is None
    [(headers, body, good)] = receiver.received
    assert good and headers["X-Webhook-Event"] == "chapter.published"
    assert json.loads(body)["data"] == {"code": "II.7", "release": 1}
    delivery.refresh_from_db()
    assert delivery.delivered_at and delivery.status_code == 204 and delivery.attempts == 1
    assert webhook_deliver(delivery_id=delivery.pk) is None and len(receiver.received) == 1


def test_a_forged_signature_is_refused_by_the_receiver_and_retried(
    books, erin, receiver, settings, django_capture_on_commit_callbacks
):
    subscribed(receiver, "chapter.published")
    receiver.secret = "not the endpoint's secret"
    publish_sketch(erin, django_capture_on_commit_callbacks)
    delivery = WebhookDelivery.objects.get()
    assert webhook_deliver(delivery_id=delivery.pk) == settings.WEBHOOK_BACKOFF_SECONDS
    delivery.refresh_from_db()
    assert delivery.status_code == 401 and delivery.response_excerpt == "bad signature"
    assert delivery.delivered_at is None and delivery.next_attempt_at > timezone.now()
    assert webhook_deliver(delivery_id=delivery.pk) is None  # not due yet: not sent twice


def test_an_endpoint_answering_500_is_retried_with_backoff_then_given_up(
    books, erin, receiver, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_BACKOFF_SECONDS, settings.WEBHOOK_MAX_ATTEMPTS = 2.0, 3
    subscribed(receiver, "chapter.published")
    receiver.answer = 500
    publish_sketch(erin, django_capture_on_commit_callbacks)
    delivery = WebhookDelivery.objects.get()
    waits = []
    for _ in range(3):
        WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
        waits.append(webhook_deliver(delivery_id=delivery.pk))
    assert waits == [2.0, 4.0, None]  # doubled, then given up at WEBHOOK_MAX_ATTEMPTS
    delivery.refresh_from_db()
    assert (delivery.attempts, delivery.status_code, delivery.error) == (3, 500, "HTTP 500")
    assert delivery.next_attempt_at is None and len(receiver.received) == 3
    again = WebhookDelivery.objects.get(pk=webhook_resend(delivery=delivery))
    assert again.payload["data"] == delivery.payload["data"] and again.attempts == 0


def test_a_hanging_endpoint_times_out_is_recorded_and_never_slows_the_writer(
    books, erin, receiver, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_READ_TIMEOUT_SECONDS = 0.5
    subscribed(receiver, "chapter.published")
    receiver.hang = 3
    started = time.monotonic()
    publish_sketch(erin, django_capture_on_commit_callbacks)
    assert time.monotonic() - started < receiver.hang  # the publish never waited on it
    delivery = WebhookDelivery.objects.get()
    started = time.monotonic()
    assert webhook_deliver(delivery_id=delivery.pk) == settings.WEBHOOK_BACKOFF_SECONDS
    assert time.monotonic() - started < 2
    delivery.refresh_from_db()
    assert delivery.status_code is None and "timed out" in delivery.error
    assert delivery.attempts == 1 and delivery.next_attempt_at > timezone.now()


def test_withdrawing_and_deciding_verdicts_are_events_only_for_their_subscribers(
    books, erin, receiver, django_capture_on_commit_callbacks
):
    subscribed(receiver, "chapter.withdrawn", "verdict.changed")
    chapter = publish_sketch(erin, django_capture_on_commit_callbacks)
    assert WebhookDelivery.objects.filter(event="chapter.published").count() == 0
    verdicts = {
        d.payload["data"]["problem"]: d.payload["data"]["status"]
        for d in WebhookDelivery.objects.filter(event="verdict.changed")
    }
    assert verdicts and set(verdicts.values()) == {"verified"}
    with django_capture_on_commit_callbacks(execute=False):
        ChapterWithdraw(chapter=chapter, user=erin).execute()
    [withdrawn] = WebhookDelivery.objects.filter(event="chapter.withdrawn")
    assert withdrawn.payload["data"] == {"code": "II.7"}


def test_a_trickling_endpoint_is_cut_off_at_the_read_timeout(
    books, erin, receiver, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_CONNECT_TIMEOUT_SECONDS = settings.WEBHOOK_READ_TIMEOUT_SECONDS = 0.5
    subscribed(receiver, "chapter.published")
    receiver.trickle = 0.1  # a byte each 0.1 s: never silent for a whole read timeout
    publish_sketch(erin, django_capture_on_commit_callbacks)
    delivery = WebhookDelivery.objects.get()
    started = time.monotonic()
    assert webhook_deliver(delivery_id=delivery.pk) == settings.WEBHOOK_BACKOFF_SECONDS
    assert time.monotonic() - started < 3  # not the 10 s its answer takes
    delivery.refresh_from_db()
    assert delivery.status_code is None and "no whole answer within 1 s" in delivery.error


def test_a_200_whose_body_trickles_past_the_read_timeout_is_a_failure_retried(
    books, erin, receiver, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_CONNECT_TIMEOUT_SECONDS = settings.WEBHOOK_READ_TIMEOUT_SECONDS = 0.5
    subscribed(receiver, "chapter.published")
    receiver.trickle_body = 0.1  # "200 OK" at once, then its 100 bytes over 10 s
    publish_sketch(erin, django_capture_on_commit_callbacks)
    delivery = WebhookDelivery.objects.get()
    assert webhook_deliver(delivery_id=delivery.pk) == settings.WEBHOOK_BACKOFF_SECONDS
    delivery.refresh_from_db()
    assert delivery.delivered_at is None and delivery.next_attempt_at is not None
    assert delivery.status_code is None and "no whole answer within 1 s" in delivery.error


def verdict_events() -> list[tuple[str, str | None, str]]:
    return [
        (d["problem"], d["previous_status"], d["status"])
        for d in WebhookDelivery.objects.order_by("pk").values_list("payload__data", flat=True)
    ]


def test_a_verdict_changed_event_is_sent_only_when_the_stored_status_changes(books, receiver):
    subscribed(receiver, "verdict.changed")
    right = [uniform_problem("p1", [[2, 3], [2, 3]]), uniform_problem("p2", [[2, 3], [2, 3]])]
    ids = import_chapter(right)
    verdicts_decide(checks=[(sid, None) for sid in ids])
    # one event each; their order is the batch's writes', which no one is promised
    assert sorted(verdict_events()) == [("p1", None, "verified"), ("p2", None, "verified")]

    verdicts_force(solution_ids=ids)  # "Verify again": the same verdicts
    verdicts_decide(checks=[(sid, None) for sid in ids])
    import_chapter([right[0], uniform_problem("p2", [[2.0, 3.0], [2.0, 3.0]])])
    assert Verdict.objects.filter(solution_id__in=ids, status="pending").count() == 1  # p2
    verdicts_decide(checks=[(sid, None) for sid in ids])  # still verified
    assert len(verdict_events()) == 2

    import_chapter([right[0], uniform_problem("p2", [[2, 3], [9, 9]])])
    verdicts_decide(checks=[(sid, None) for sid in ids])
    assert verdict_events()[2:] == [("p2", "verified", "mismatch")]


PUBLIC = "93.184.215.14"  # an address on the internet: no resolver needed


@pytest.mark.parametrize(
    "url, events, refused",
    [
        ("ftp://example.org/hook", ["chapter.published"], "url: .* not an http or https URL"),
        ("file:///etc/passwd", ["chapter.published"], "url: .* not an http or https URL"),
        (f"https://{PUBLIC}/hook", ["chapter.renamed"], "events: chapter.renamed"),
        (f"https://{PUBLIC}/hook", [], "events: none chosen"),
        ("http://127.0.0.1:8000/admin/", ["ping"], "events: ping"),
        ("http://127.0.0.1:8000/hook", ["chapter.published"], r"127.0.0.1 \(loopback\)"),
        ("http://localhost/hook", ["chapter.published"], r"127.0.0.1 \(loopback\)"),
        ("http://[::1]/hook", ["chapter.published"], r"::1 \(loopback\)"),
        ("http://[::ffff:10.0.0.5]/", ["chapter.published"], r"\(private\)"),
        ("http://10.1.2.3/hook", ["chapter.published"], r"10.1.2.3 \(private\)"),
        ("http://192.168.1.1/hook", ["chapter.published"], r"\(private\)"),
        (
            "http://169.254.169.254/latest/meta-data/",
            ["chapter.published"],
            r"169.254.169.254 \(link-local\)",
        ),
        ("http://0.0.0.0:8000/hook", ["chapter.published"], r"0.0.0.0 \(unspecified\)"),
        ("http://224.0.0.1/hook", ["chapter.published"], r"\(multicast\)"),
        ("http://240.0.0.1/hook", ["chapter.published"], r"\(reserved\)"),
        ("http://100.64.0.1/hook", ["chapter.published"], r"\(non-public\)"),
        ("http://192.0.0.8/hook", ["chapter.published"], r"192.0.0.8 \(non-public\)"),
        ("http://192.88.99.1/hook", ["chapter.published"], r"\(non-public\)"),
        ("http://[3fff::1]/hook", ["chapter.published"], r"3fff::1 \(non-public\)"),
        ("http://2130706433/hook", ["chapter.published"], r"127.0.0.1 \(loopback\)"),
        ("https://user:pass@93.184.215.14/hook", ["chapter.published"], r"user or password"),
        ("https://@93.184.215.14/hook", ["chapter.published"], r"user or password"),
        ("https://93.184.215.14:0/hook", ["chapter.published"], r"port 0"),
    ],
)
def test_an_endpoint_must_be_http_to_a_public_address_and_name_known_events(
    db, url, events, refused
):
    with pytest.raises(EndpointRefused, match=refused):
        webhook_endpoint_create(url=url, events=events)


def test_hosts_allowed_in_settings_may_be_private(db, settings):
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1", "[::1]"]
    for url in ("http://127.0.0.1:9000/hook", "http://[::1]:9000/hook"):
        assert webhook_endpoint_create(url=url, events=["chapter.published"])
    with pytest.raises(EndpointRefused, match="loopback"):  # the host as written, not its address
        webhook_endpoint_create(url="http://localhost:9000/hook", events=["chapter.published"])


def test_a_host_that_resolves_inside_at_delivery_is_refused_logged_and_not_retried(
    db, receiver, monkeypatch
):
    """DNS rebinding: public when registered, the receiver's loopback when delivered."""
    answers = iter([PUBLIC, "127.0.0.1"])
    real = socket.getaddrinfo

    def resolver(host, port, *args, **kwargs):
        if host != "hooks.example.net":
            return real(host, port, *args, **kwargs)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (next(answers), port))]

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    port = receiver.server.server_address[1]
    endpoint, receiver.secret = webhook_endpoint_create(
        url=f"http://hooks.example.net:{port}/hook", events=["chapter.published"]
    )
    delivery = WebhookDelivery.objects.get(pk=webhook_ping(endpoint=endpoint))
    assert webhook_deliver(delivery_id=delivery.pk) is None  # no retry
    delivery.refresh_from_db()
    assert delivery.error.startswith("refused: hooks.example.net resolves to 127.0.0.1 (loopback)")
    assert (delivery.attempts, delivery.next_attempt_at, delivery.delivered_at) == (1, None, None)
    assert receiver.received == []


def test_a_forged_or_replayed_delivery_fails_the_receivers_check(
    books, erin, receiver, django_capture_on_commit_callbacks
):
    """README's check, as tests/receiver.py makes it: a changed body or signature, or the same
    delivery sent again past the tolerance, is refused."""
    subscribed(receiver, "chapter.published")
    publish_sketch(erin, django_capture_on_commit_callbacks)
    webhook_deliver(delivery_id=WebhookDelivery.objects.get().pk)
    [(headers, body, good)] = receiver.received
    assert good
    check = {"secret": receiver.secret, "headers": headers}
    assert not verified(**check, body=body.replace(b"II.7", b"II.8"))
    forged = headers | {"X-Webhook-Timestamp": str(int(headers["X-Webhook-Timestamp"]) + 600)}
    assert not verified(secret=receiver.secret, headers=forged, body=body)
    assert not verified(**check, body=body, now=time.time() + 301)
