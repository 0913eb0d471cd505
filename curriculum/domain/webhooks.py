"""Webhooks: tell registered endpoints that a chapter was published or withdrawn, or that a
verdict was decided, as GitHub's and Stripe's do (signed, retried, with a delivery log).

Endpoints are registered by staff only (admin, with the endpoint permissions), so their URLs
are trusted as much as the staff who typed them; still only http and https are accepted, and a
redirect is not followed. An event writes one delivery row per subscribed endpoint inside the
writer's transaction; the worker sends it after commit (`curriculum.tasks.deliver_webhook`), so
a slow or dead endpoint never slows a writer.

Each delivery is a POST of a JSON body, `{"id", "event", "created_at", "data"}`, with headers:

- `X-Webhook-Event`: the event; `X-Webhook-Delivery`: the delivery's id (the same on a retry);
- `X-Webhook-Timestamp`: seconds since the epoch when this attempt was signed;
- `X-Webhook-Signature`: `sha256=` and the hex HMAC-SHA256, keyed with the endpoint's secret,
  of `<timestamp>.<raw body>`.

A receiver verifies by computing the same HMAC over the timestamp header, a dot and the body's
bytes as received (before any JSON parsing), comparing in constant time
(`hmac.compare_digest`), and refusing a timestamp older than a few minutes: the timestamp is
signed, so a captured delivery cannot be replayed later. Any 2xx answer counts as delivered;
anything else, or no answer within WEBHOOK_TIMEOUT_SECONDS, is tried again after
WEBHOOK_BACKOFF_SECONDS × 2^(attempts − 1) (at most WEBHOOK_BACKOFF_MAX_SECONDS), up to
WEBHOOK_MAX_ATTEMPTS attempts; every attempt's status and the start of its answer are kept.
"""

import hashlib
import hmac
import json
import secrets
import time
import urllib.error
import urllib.request
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from curriculum.models import Solution, WebhookDelivery, WebhookEndpoint
from curriculum.models.webhooks import EVENTS

from .verification.dispatch import task_send

PUBLISHED, WITHDRAWN, VERDICT_CHANGED = (name for name, _ in EVENTS)
PING = "ping"  # the test event admin sends, whatever the endpoint subscribed to
DELIVER = "curriculum.tasks.deliver_webhook"


class EndpointRefused(ValueError):
    """An endpoint that cannot be registered; the message names the field."""


def webhook_endpoint_check(*, url: str, events: list[str]) -> None:
    """Refuse what no delivery could go to: another scheme than http(s), an unknown event."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EndpointRefused(f"url: {url!r} is not an http or https URL")
    unknown = sorted(set(events) - {name for name, _ in EVENTS})
    if unknown or not events:
        raise EndpointRefused(f"events: {', '.join(unknown) or 'none chosen'}: not an event")


def webhook_endpoint_create(*, url: str, events: list[str]) -> tuple[WebhookEndpoint, str]:
    """A new endpoint and its signing secret (shown once, by admin)."""
    webhook_endpoint_check(url=url, events=events)
    secret = secrets.token_hex(32)
    endpoint = WebhookEndpoint.objects.create(url=url, events=sorted(set(events)), secret=secret)
    return endpoint, secret


def webhook_emit(event: str, data: dict[str, Any], *, endpoints=None) -> list[int]:
    """Record a delivery of `event` to each active endpoint that subscribed to it (or to each
    of `endpoints`), and send them after commit; the deliveries' ids."""
    if endpoints is None:
        endpoints = [e for e in WebhookEndpoint.objects.filter(active=True) if event in e.events]
    now = timezone.now()
    ids = []
    for endpoint in endpoints:
        delivery = WebhookDelivery.objects.create(
            endpoint=endpoint, event=event, payload={}, next_attempt_at=now
        )
        delivery.payload = {
            "id": delivery.pk,
            "event": event,
            "created_at": now.isoformat(),
            "data": data,
        }
        delivery.save(update_fields=["payload"])
        ids.append(delivery.pk)
    if ids:
        transaction.on_commit(lambda: [webhook_send(delivery_id=i) for i in ids])
    return ids


def webhook_send(*, delivery_id: int) -> bool:
    """Hand a delivery to the worker; whether the broker took it (if not, `webhooks_sweep`
    sends it later)."""
    return task_send(DELIVER, (delivery_id,), level=0, what=f"webhook {delivery_id}")


def chapter_published(*, code: str, release: int) -> None:
    webhook_emit(PUBLISHED, {"code": code, "release": release})


def chapter_withdrawn(*, code: str) -> None:
    webhook_emit(WITHDRAWN, {"code": code})


def verdicts_changed(statuses: dict[int, str]) -> None:
    """One `verdict.changed` per solution whose verdict was written, with its chapter and
    problem, when any endpoint wants them (else no query)."""
    endpoints = [
        e for e in WebhookEndpoint.objects.filter(active=True) if VERDICT_CHANGED in e.events
    ]
    if not endpoints or not statuses:
        return
    rows = Solution.objects.filter(pk__in=statuses).values_list(
        "pk", "problem__key", "problem__chapter__code"
    )
    for pk, key, code in rows:
        data = {"code": code, "problem": key, "status": statuses[pk]}
        webhook_emit(VERDICT_CHANGED, data, endpoints=endpoints)


def signature(*, secret: str, timestamp: str, body: bytes) -> str:
    """The `X-Webhook-Signature` value of `body` signed at `timestamp`."""
    signed = timestamp.encode() + b"." + body
    return "sha256=" + hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # the 3xx is the answer, recorded as a failure


_OPENER = urllib.request.build_opener(_NoRedirects)


def webhook_deliver(*, delivery_id: int) -> float | None:
    """One attempt at a delivery the worker may take now (another worker's attempt in flight,
    a delivered one, or one not yet due is left alone). Returns the seconds until the next
    attempt, or None when there is none (delivered, given up, or not taken)."""
    now = timezone.now()
    lease = now + timedelta(seconds=2 * settings.WEBHOOK_TIMEOUT_SECONDS + 5)
    taken = WebhookDelivery.objects.filter(
        pk=delivery_id,
        next_attempt_at__lte=now,
        delivered_at__isnull=True,
        attempts__lt=settings.WEBHOOK_MAX_ATTEMPTS,
    ).update(next_attempt_at=lease)
    if not taken:
        return None
    delivery = WebhookDelivery.objects.select_related("endpoint").get(pk=delivery_id)
    status, excerpt, error = _post(delivery)
    delivery.attempts += 1
    delivery.status_code, delivery.response_excerpt, delivery.error = status, excerpt, error
    retry_in = None
    if status is not None and 200 <= status < 300:
        delivery.delivered_at, delivery.next_attempt_at = timezone.now(), None
    elif delivery.attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
        delivery.next_attempt_at = None  # given up: admin's resend makes a new delivery
    else:
        retry_in = min(
            settings.WEBHOOK_BACKOFF_SECONDS * 2 ** (delivery.attempts - 1),
            settings.WEBHOOK_BACKOFF_MAX_SECONDS,
        )
        delivery.next_attempt_at = timezone.now() + timedelta(seconds=retry_in)
    delivery.save(
        update_fields=[
            "attempts",
            "status_code",
            "response_excerpt",
            "error",
            "delivered_at",
            "next_attempt_at",
        ]
    )
    return retry_in


def _post(delivery: WebhookDelivery) -> tuple[int | None, str, str]:
    """POST the delivery, signed now: its status, the start of its answer, and the error."""
    body = json.dumps(delivery.payload, sort_keys=True, separators=(",", ":")).encode()
    timestamp = str(int(time.time()))
    request = urllib.request.Request(
        delivery.endpoint.url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "User-Agent": "curriculum-webhooks",
            "X-Webhook-Event": delivery.event,
            "X-Webhook-Delivery": str(delivery.pk),
            "X-Webhook-Timestamp": timestamp,
            "X-Webhook-Signature": signature(
                secret=delivery.endpoint.secret, timestamp=timestamp, body=body
            ),
        },
    )
    limit = settings.WEBHOOK_RESPONSE_EXCERPT_CHARS
    try:
        with _OPENER.open(request, timeout=settings.WEBHOOK_TIMEOUT_SECONDS) as response:
            return response.status, _excerpt(response.read(limit)), ""
    except urllib.error.HTTPError as answered:
        return answered.code, _excerpt(answered.read(limit)), f"HTTP {answered.code}"
    except (OSError, ValueError) as failed:  # refused, unreachable, timed out, bad answer
        return None, "", f"{type(failed).__name__}: {failed}"[:limit]


def _excerpt(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def webhook_resend(*, delivery: WebhookDelivery) -> int:
    """A new delivery of the same event and data to the same endpoint (the old one is kept)."""
    return webhook_emit(delivery.event, delivery.payload["data"], endpoints=[delivery.endpoint])[0]


def webhook_ping(*, endpoint: WebhookEndpoint) -> int:
    """A test delivery to `endpoint`, whatever it subscribed to."""
    return webhook_emit(PING, {"endpoint": endpoint.url}, endpoints=[endpoint])[0]


def webhooks_sweep() -> int:
    """Send again deliveries due whose task was lost (broker down, worker killed)."""
    due = WebhookDelivery.objects.filter(
        delivered_at__isnull=True,
        attempts__lt=settings.WEBHOOK_MAX_ATTEMPTS,
        next_attempt_at__lte=timezone.now(),
    ).values_list("pk", flat=True)[: settings.VERIFY_BATCH_SIZE]
    return sum(webhook_send(delivery_id=pk) for pk in due)
