"""Production's database cache (no Redis) keeps Django's cache behaviour with a set in one
statement, and throttles as before; each process's own body copies stay within their bytes."""

import uuid

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from curriculum.cache import CULL_CHECK_EVERY, ProcessBytes


@pytest.fixture
def database_cache(db, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "curriculum.cache.UpsertDatabaseCache",
            "LOCATION": "curriculum_cache_test",
            "OPTIONS": {"MAX_ENTRIES": 200},
        }
    }
    call_command("createcachetable", verbosity=0)
    return cache


def test_a_set_is_one_statement_and_reads_back_as_django_s_cache_would(database_cache):
    with CaptureQueriesContext(connection) as queries:
        database_cache.set("k", {"a": [1, 2]}, timeout=60)
    # a test runs in a transaction, so the set is in a savepoint; served, it is alone
    statements = [q["sql"] for q in queries if "SAVEPOINT" not in q["sql"]]
    assert len(statements) == 1 and statements[0].startswith("INSERT"), statements
    assert database_cache.get("k") == {"a": [1, 2]}
    database_cache.set("k", b"bytes", timeout=60)
    assert database_cache.get("k") == b"bytes"
    database_cache.set("forever", 1, timeout=None)
    assert database_cache.get("forever") == 1
    database_cache.set("gone", 1, timeout=-1)
    assert database_cache.get("gone", "missing") == "missing"
    assert database_cache.add("k", "other") is False and database_cache.get("k") == b"bytes"
    database_cache.delete("k")
    assert database_cache.get("k") is None


def test_a_set_inside_a_transaction_is_undone_with_it(database_cache):
    with transaction.atomic():
        sid = transaction.savepoint_create()
        database_cache.set("inside", 1, timeout=60)
        transaction.savepoint_rollback(sid)
        assert database_cache.get("inside") is None
        database_cache.set("kept", 2, timeout=60)
    assert database_cache.get("kept") == 2


def test_the_table_is_culled_as_it_grows(database_cache):
    counts = []
    for i in range(1, 6 * CULL_CHECK_EVERY + 1):
        database_cache.set(f"key-{i}", i, timeout=60)
        if i % 16 == 0:
            with connection.cursor() as cursor:
                cursor.execute("SELECT COUNT(*) FROM curriculum_cache_test")
                counts.append(cursor.fetchone()[0])
    assert max(counts) <= 200 + CULL_CHECK_EVERY
    assert counts[-1] < 200  # just culled, as Django culls: a third at a time


def test_many_sets_are_one_statement_and_never_more_than_the_table_keeps(database_cache):
    """Rendering a chapter of 20,000 texts sets them together: Django's set_many is a set (three
    statements in a transaction) per entry; here one statement, and only as many as the table
    keeps, since the cull would drop the rest."""
    database_cache.set_many({f"early-{i}": i for i in range(150)}, timeout=60)
    many = {f"text-{i}": f"<p>{i}</p>" for i in range(1000)}
    with CaptureQueriesContext(connection) as queries:
        assert database_cache.set_many(many, timeout=None) == []
    statements = [q["sql"] for q in queries if "SAVEPOINT" not in q["sql"]]
    assert len(statements) <= 5, statements  # count, cull (expired, oldest), one upsert
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM curriculum_cache_test")
        assert cursor.fetchone()[0] <= 200 + 200 // 3
    assert database_cache.get("text-999") == "<p>999</p>"
    assert database_cache.get_many(["text-998", "text-0"]) == {"text-998": "<p>998</p>"}


def test_anonymous_reads_are_throttled_through_the_database_cache(client, database_cache,
                                                                  settings):
    settings.API_ANON_RATE = "3/min"
    address = f"2001:db8::{uuid.uuid4().hex[:4]}"
    statuses = [client.get("/api/v1/ping", REMOTE_ADDR=address).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]


def test_add_writes_only_where_no_entry_lives_and_replaces_an_expired_one(database_cache):
    assert database_cache.add("window", 1, timeout=60) is True
    assert database_cache.add("window", 7, timeout=60) is False
    assert database_cache.get("window") == 1
    database_cache.set("ended", 5, timeout=-1)
    assert database_cache.add("ended", 1, timeout=60) is True
    assert database_cache.get("ended") == 1


def test_incr_counts_on_the_entry_and_keeps_its_expiry(database_cache):
    database_cache.add("count", 1, timeout=60)
    with connection.cursor() as cursor:
        cursor.execute("SELECT expires FROM curriculum_cache_test")
        [(expires,)] = cursor.fetchall()
    assert [database_cache.incr("count") for _ in range(3)] == [2, 3, 4]
    assert database_cache.incr("count", 10) == 14 and database_cache.get("count") == 14
    with connection.cursor() as cursor:
        cursor.execute("SELECT expires FROM curriculum_cache_test")
        assert cursor.fetchall() == [(expires,)]  # Django's incr sets it again: 300 s from now
    database_cache.set("ended", 1, timeout=-1)
    for missing in ("never", "ended"):
        with pytest.raises(ValueError):
            database_cache.incr(missing)


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
