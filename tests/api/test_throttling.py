"""Anonymous reads are rate limited per address; token reads are not."""

import threading
import uuid

from django.core.cache import cache
from django.test import RequestFactory

from curriculum.api.auth import Caller
from curriculum.api.throttling import AnonymousReadThrottle


def _address() -> str:
    """A fresh client address, so counts left in a shared cache never matter."""
    return f"198.51.100.{uuid.uuid4().int % 250 + 1}-{uuid.uuid4().hex[:6]}"


def test_anonymous_reads_past_the_rate_get_429(client, db, settings):
    settings.API_ANON_RATE = "3/min"
    address = _address()
    statuses = [client.get("/api/v1/ping", REMOTE_ADDR=address).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    assert client.get("/api/v1/ping", REMOTE_ADDR=_address()).status_code == 200


def test_a_forwarded_for_header_does_not_dodge_the_limit(client, db, settings):
    settings.API_ANON_RATE = "1/min"
    address = _address()
    client.get("/api/v1/ping", REMOTE_ADDR=address)
    assert client.get("/api/v1/ping", REMOTE_ADDR=address,
                      HTTP_X_FORWARDED_FOR="203.0.113.9").status_code == 429


def test_token_reads_are_not_throttled(client, db, settings, erin_token):
    settings.API_ANON_RATE = "1/min"
    address = _address()
    statuses = {client.get("/api/v1/ping", REMOTE_ADDR=address, **erin_token).status_code
                for _ in range(3)}
    assert statuses == {200}


def test_two_clients_asking_at_once_are_each_counted_under_their_own_address(db, settings):
    """One throttle serves every thread of a worker; each request keeps its own history."""
    settings.API_ANON_RATE = "5/min"
    throttle = AnonymousReadThrottle()
    both_read = threading.Barrier(2)

    class ReadTogether:
        def get(self, key, default=None):
            value = cache.get(key, default)
            both_read.wait(timeout=5)  # each thread has read its history before either writes
            return value

        def set(self, key, value, timeout):
            cache.set(key, value, timeout)

    throttle.cache = ReadTogether()
    requests = [RequestFactory().get("/api/v1/ping", REMOTE_ADDR=_address()) for _ in range(2)]
    for request in requests:
        request.auth = Caller()
    threads = [threading.Thread(target=throttle.allow_request, args=(r,)) for r in requests]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [len(cache.get(throttle.get_cache_key(r), [])) for r in requests] == [1, 1]
