"""Webhooks as the worker delivers them, after commit, and a hanging endpoint beside another
(committed rows, apart from test_webhooks.py's module world)."""

import json
import time

from curriculum.domain.gate import chapter_publish
from curriculum.domain.webhooks import (
    webhook_endpoint_create,
    webhook_ping,
)
from curriculum.models import Chapter, WebhookDelivery
from tests.conftest import sketch, verify_now
from tests.curriculum.domain.test_webhooks import subscribed
from tests.processes import wait_for


def test_the_worker_delivers_a_publish_after_commit(worker, books_committed, erin, receiver):
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


def test_an_endpoint_that_hangs_never_delays_another_endpoints_delivery(worker, receivers):
    hanging, answering = receivers(hang=30), receivers()
    slow, hanging.secret = webhook_endpoint_create(url=hanging.url, events=["chapter.published"])
    quick, answering.secret = webhook_endpoint_create(
        url=answering.url, events=["chapter.published"]
    )
    for _ in range(5):  # the worker's read timeout is 1 s: 5 s in one line
        webhook_ping(endpoint=slow)
    wait_for(lambda: hanging.received, timeout=30, what="the first hanging delivery")
    started = time.monotonic()
    webhook_ping(endpoint=quick)
    wait_for(lambda: answering.received, timeout=30, what="the answering endpoint's delivery")
    assert time.monotonic() - started < 2, "the answering endpoint waited for the hanging one"
    wait_for(
        lambda: WebhookDelivery.objects.filter(endpoint=quick, status_code=204).exists(),
        timeout=10,
        what="its delivery logged",
    )
