"""Each process's own body copies stay within their bytes; Django's database cache, production's
cache where there is no Redis, throttles as the shared cache must."""

import uuid

import pytest
from django.core.cache import cache
from django.core.management import call_command

from curriculum.bodies import ProcessBytes


@pytest.fixture
def database_cache(db, settings):
    settings.CACHES = {
        **settings.CACHES,
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "curriculum_cache_test",
        },
    }
    call_command("createcachetable", verbosity=0)
    return cache


def test_anonymous_reads_are_throttled_through_the_database_cache(client, database_cache, settings):
    settings.API_ANON_RATE = "3/min"
    address = f"2001:db8::{uuid.uuid4().hex[:4]}"
    statuses = [client.get("/api/v1/ping", REMOTE_ADDR=address).status_code for _ in range(6)]
    assert statuses == [200, 200, 200, 429, 429, 429]


def test_process_copies_drop_the_least_recently_read_and_never_keep_a_huge_body():
    copies = ProcessBytes(limit=2400)
    for i in range(8):
        copies.set(f"k{i}", bytes(300))
    assert copies.get("k0") is not None  # now the most recently read
    copies.set("k8", bytes(300))  # past the limit: the least recently read goes
    assert copies.get("k1") is None
    assert all(copies.get(f"k{i}") is not None for i in (0, 2, 3, 4, 5, 6, 7, 8))
    copies.set("huge", bytes(301))  # over an eighth of the limit
    assert copies.get("huge") is None
    assert copies.size == 2400
