"""Anonymous reads are rate limited per address; token reads are not."""

import uuid


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
