"""Webhooks: registered endpoints hear of publishes, withdrawals and verdicts, signed; a
hostile endpoint (forged secret, one that hangs, one answering 500) is recorded and retried
with backoff, and never slows the writer."""

import json
import time

import pytest
from django.utils import timezone

from curriculum.domain.editing import ChapterWithdraw
from curriculum.domain.gate import chapter_publish
from curriculum.domain.webhooks import (
    EndpointRefused,
    webhook_deliver,
    webhook_endpoint_create,
    webhook_resend,
)
from curriculum.models import Chapter, WebhookDelivery
from tests.conftest import sketch, verify_now
from tests.processes import wait_for
from tests.receiver import Receiver


@pytest.fixture
def receiver():
    made = Receiver()
    yield made
    made.close()


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
    settings.WEBHOOK_TIMEOUT_SECONDS = 0.5
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


@pytest.mark.parametrize(
    "url, events, refused",
    [
        ("ftp://example.org/hook", ["chapter.published"], "url:"),
        ("file:///etc/passwd", ["chapter.published"], "url:"),
        ("https://example.org/hook", ["chapter.renamed"], "events: chapter.renamed"),
        ("https://example.org/hook", [], "events: none chosen"),
    ],
)
def test_an_endpoint_must_be_http_and_name_known_events(db, url, events, refused):
    with pytest.raises(EndpointRefused, match=refused):
        webhook_endpoint_create(url=url, events=events)


def test_the_worker_delivers_a_publish_after_commit(worker, books, erin, receiver):
    subscribed(receiver, "chapter.published")
    from curriculum.domain.chapter_files import chapter_import

    chapter_import(document=sketch("II.7"))
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    chapter_publish(chapter=chapter, user=erin)
    wait_for(lambda: receiver.received, timeout=30, what="the worker's delivery")
    [(_, body, good)] = receiver.received
    assert good and json.loads(body)["event"] == "chapter.published"
    wait_for(
        lambda: WebhookDelivery.objects.filter(delivered_at__isnull=False).exists(),
        timeout=10,
        what="the delivery logged",
    )
