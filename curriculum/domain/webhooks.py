"""Webhooks: tell registered endpoints that a chapter was published or withdrawn, or that a
verdict changed, as GitHub's and Stripe's do (signed, retried, with a delivery log).

Endpoints are registered by staff only (admin, with the endpoint permissions); still a URL is
refused, at registration and again at each delivery, unless it is http or https and its host
resolves to public addresses only (`webhook_http`: no SSRF to the machine or its network). An
event writes one delivery row per subscribed endpoint inside the writer's transaction; the
worker sends it after commit (`curriculum.tasks.deliver_webhook`), so a slow or dead endpoint
never slows a writer, each endpoint's deliveries on a line of their own
(`webhook_deliver_apart`), so an endpoint that hangs never delays another's.

Each delivery is a POST of a JSON body, `{"id", "event", "created_at", "data"}`, with headers:

- `X-Webhook-Event`: the event; `X-Webhook-Delivery`: the delivery's id (the same on a retry);
- `X-Webhook-Timestamp`: seconds since the epoch when this attempt was signed;
- `X-Webhook-Signature`: `sha256=` and the hex HMAC-SHA256, keyed with the endpoint's secret,
  of `<timestamp>.<raw body>`.

A receiver verifies by computing the same HMAC over the timestamp header, a dot and the body's
bytes as received (before any JSON parsing), comparing in constant time
(`hmac.compare_digest`), and refusing a timestamp more than a few minutes from its clock: the
timestamp is signed, so a captured delivery cannot be replayed later; within the tolerance a
receiver drops an `X-Webhook-Delivery` it already took. Any 2xx answer counts as delivered;
anything else, or no whole answer within the connect and read timeouts, is tried again after
WEBHOOK_BACKOFF_SECONDS × 2^(attempts − 1) (at most WEBHOOK_BACKOFF_MAX_SECONDS), up to
WEBHOOK_MAX_ATTEMPTS attempts; a URL refused at delivery is not tried again. Every attempt's
status and the start of its answer, or its error, are kept.
"""

import hashlib
import hmac
import http.client
import json
import logging
import secrets
import threading
import time
from collections import deque
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connections, transaction
from django.utils import timezone

from curriculum.models import Solution, WebhookDelivery, WebhookEndpoint
from curriculum.models.webhooks import EVENTS

from .verification.dispatch import task_send
from .webhook_http import AddressRefused, post, target_checked

logger = logging.getLogger(__name__)

PUBLISHED, WITHDRAWN, VERDICT_CHANGED = (name for name, _ in EVENTS)
PING = "ping"  # the test event admin sends, whatever the endpoint subscribed to
DELIVER = "curriculum.tasks.deliver_webhook"


class EndpointRefused(ValueError):
    """An endpoint that cannot be registered; the message names the field."""


def webhook_endpoint_check(*, url: str, events: list[str]) -> None:
    """Refuse what no delivery could go to: an unknown event, another scheme than http(s), or a
    host that does not resolve, or resolves to an address that is not public."""
    unknown = sorted(set(events) - {name for name, _ in EVENTS})
    if unknown or not events:
        raise EndpointRefused(f"events: {', '.join(unknown) or 'none chosen'}: not an event")
    try:
        target_checked(url)
    except AddressRefused as refused:
        raise EndpointRefused(f"url: {refused}") from refused
    except OSError as unresolved:
        raise EndpointRefused(f"url: its host could not be resolved: {unresolved}") from unresolved


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


def webhook_send(*, delivery_id: int, countdown: float = 0) -> bool:
    """Hand a delivery to the worker (after `countdown` seconds); whether the broker took it (if
    not, `webhooks_sweep` sends it later)."""
    what = f"webhook {delivery_id}"
    return task_send(DELIVER, (delivery_id,), level=0, what=what, countdown=countdown)


def chapter_published(*, code: str, release: int) -> None:
    webhook_emit(PUBLISHED, {"code": code, "release": release})


def chapter_withdrawn(*, code: str) -> None:
    webhook_emit(WITHDRAWN, {"code": code})


def chapter_visibility_told(*, chapter, shown: bool) -> None:
    """Readers stopped seeing the chapter (`chapter.withdrawn`) or see it again: shown again
    with its latest release, `chapter.published` names that release (a chapter never released
    has none to name: nothing is told). Whatever changed its state (a publish that made no
    release, a PUT, admin's form) tells this, once."""
    if not shown:
        chapter_withdrawn(code=chapter.code)
        return
    latest = chapter.releases.order_by("-number").values_list("number", flat=True).first()
    if latest is not None:
        chapter_published(code=chapter.code, release=latest)


def verdicts_changed(changes: dict[int, tuple[str, str]]) -> None:
    """One `verdict.changed` per solution whose decision changed its stored status (`changes`:
    the status each decision found stored, "" when there was none, and the one it wrote), with
    its chapter, problem and both statuses, when any endpoint wants them."""
    changed = {pk: (before, after) for pk, (before, after) in changes.items() if before != after}
    if not changed:  # a check that confirmed what was stored: no query at all
        return
    endpoints = [
        e for e in WebhookEndpoint.objects.filter(active=True) if VERDICT_CHANGED in e.events
    ]
    if not endpoints:
        return
    rows = Solution.objects.filter(pk__in=changed).values_list(
        "pk", "problem__key", "problem__chapter__code"
    )
    for pk, key, code in rows:
        previous, status = changed[pk]
        data = {"code": code, "problem": key, "previous_status": previous or None, "status": status}
        webhook_emit(VERDICT_CHANGED, data, endpoints=endpoints)


def signature(*, secret: str, timestamp: str, body: bytes) -> str:
    """The `X-Webhook-Signature` value of `body` signed at `timestamp`."""
    signed = timestamp.encode() + b"." + body
    return "sha256=" + hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()


def webhook_deliver(*, delivery_id: int) -> float | None:
    """One attempt at a delivery the worker may take now (another worker's attempt in flight,
    a delivered one, or one not yet due is left alone). Returns the seconds until the next
    attempt, or None when there is none (delivered, given up, or not taken)."""
    now = timezone.now()
    # resolving and connecting, each within the connect timeout, then the answer; and a margin
    seconds = 2 * settings.WEBHOOK_CONNECT_TIMEOUT_SECONDS + settings.WEBHOOK_READ_TIMEOUT_SECONDS
    lease = now + timedelta(seconds=seconds + 5)
    taken = WebhookDelivery.objects.filter(
        pk=delivery_id,
        next_attempt_at__lte=now,
        delivered_at__isnull=True,
        attempts__lt=settings.WEBHOOK_MAX_ATTEMPTS,
    ).update(next_attempt_at=lease)
    if not taken:
        return None
    delivery = WebhookDelivery.objects.select_related("endpoint").get(pk=delivery_id)
    status, excerpt, error, refused = _post(delivery)
    delivery.attempts += 1
    delivery.status_code, delivery.response_excerpt, delivery.error = status, excerpt, error
    retry_in = None
    if status is not None and 200 <= status < 300:
        delivery.delivered_at, delivery.next_attempt_at = timezone.now(), None
    elif refused or delivery.attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
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


def _post(delivery: WebhookDelivery) -> tuple[int | None, str, str, bool]:
    """POST the delivery, signed now: its status, the start of its answer, the error, and
    whether the URL was refused (not worth another attempt)."""
    body = json.dumps(delivery.payload, sort_keys=True, separators=(",", ":")).encode()
    timestamp = str(int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "curriculum-webhooks",
        "X-Webhook-Event": delivery.event,
        "X-Webhook-Delivery": str(delivery.pk),
        "X-Webhook-Timestamp": timestamp,
        "X-Webhook-Signature": signature(
            secret=delivery.endpoint.secret, timestamp=timestamp, body=body
        ),
    }
    limit = settings.WEBHOOK_RESPONSE_EXCERPT_CHARS
    try:
        status, answer = post(target_checked(delivery.endpoint.url), body, headers, limit)
    except AddressRefused as refused:
        return None, "", f"refused: {refused}"[:limit], True
    # unresolved, refused, unreachable, timed out, a bad answer
    except (OSError, ValueError, http.client.HTTPException) as failed:
        return None, "", f"{type(failed).__name__}: {failed}"[:limit], False
    error = "" if 200 <= status < 300 else f"HTTP {status}"
    return status, _excerpt(answer), error, False


def _excerpt(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


_lines: dict[int, deque[int]] = {}  # this process's deliveries waiting, by endpoint
_lines_lock = threading.Lock()


def webhook_deliver_apart(*, delivery_id: int) -> bool:
    """Put a delivery on its endpoint's line in this process and return at once; each line is
    a thread of its own, attempting its deliveries one by one (`webhook_deliver`, then the
    retry sent after its backoff), and ends when the line is empty. So an endpoint that hangs
    or fails holds up its own deliveries only, never another endpoint's nor the worker's other
    tasks. Whether it joined a line (not when unknown, or already waiting there)."""
    endpoint_id = (
        WebhookDelivery.objects.filter(pk=delivery_id).values_list("endpoint_id", flat=True).first()
    )
    if endpoint_id is None:
        return False
    with _lines_lock:
        line = _lines.get(endpoint_id)
        if line is not None:
            joined = delivery_id not in line
            if joined:
                line.append(delivery_id)
            return joined
        _lines[endpoint_id] = deque([delivery_id])
    name = f"webhooks to endpoint {endpoint_id}"
    threading.Thread(target=_line_run, args=(endpoint_id,), daemon=True, name=name).start()
    return True


def _line_run(endpoint_id: int) -> None:
    """Attempt an endpoint's deliveries in line order, until none is left."""
    while True:
        with _lines_lock:
            line = _lines[endpoint_id]
            if not line:
                del _lines[endpoint_id]
                break
            delivery_id = line[0]
        close_old_connections()  # as before each task: one left unusable is replaced
        _attempt(delivery_id)
        with _lines_lock:
            line.popleft()
    connections.close_all()  # this thread's own


def _attempt(delivery_id: int) -> None:
    """One attempt, and its retry sent for after its backoff. One cut short (the database) is
    sent again by the sweep once its lease runs out; the line goes on."""
    try:
        retry_in = webhook_deliver(delivery_id=delivery_id)
        if retry_in is not None:
            webhook_send(delivery_id=delivery_id, countdown=retry_in)
    except Exception:  # noqa: BLE001 - logged; the sweep is the retry
        logger.exception("webhook delivery %s failed", delivery_id)


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
