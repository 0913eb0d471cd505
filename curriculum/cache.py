"""Caches: production's shared database cache with a set in one statement, and each process's
own copies of bytes whose key names their version.

Django's `DatabaseCache.set` counts the whole table (to cull it), then selects the key and
updates or inserts it inside a transaction: six round trips. Here a set is one upsert, and the
table is counted for culling once every `CULL_CHECK_EVERY` sets of this process rather than on
each one (so it may hold that many entries per process past MAX_ENTRIES before it is culled as
Django culls it).

`add` and `incr` are atomic here, as they are on Redis (the throttles count with them,
curriculum/clients.py): Django's `incr` reads, then sets (two requests at once both count 5 as
6, and the set moves the expiry), and its `add` over an expired entry lets two callers both
succeed.
"""

import base64
import itertools
import pickle
import threading
from collections import OrderedDict
from contextlib import nullcontext
from datetime import UTC, datetime

from django.conf import settings
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.db import DatabaseCache
from django.db import DatabaseError, connections, router, transaction
from django.utils.timezone import now as tz_now

CULL_CHECK_EVERY = 64


class UpsertDatabaseCache(DatabaseCache):
    def __init__(self, table, params):
        super().__init__(table, params)
        self._sets = itertools.count(1)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        if not self._upsert({key: value}, timeout, version):
            super().set(key, value, timeout, version)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        """One statement for the lot (Django's sets them one by one: a chapter of 20,000 texts
        was 60,000 round trips); past MAX_ENTRIES only the last are written, since the cull
        would drop the rest at once."""
        items = dict(list(data.items())[-self._max_entries :])
        if not self._upsert(items, timeout, version):
            return super().set_many(data, timeout, version)
        return []

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        """One statement: inserted, or an expired entry replaced; False while one lives."""
        db, connection, (table, cache_key, column, expiry) = self._sql()
        add = (
            f"INSERT INTO {table} ({cache_key}, {column}, {expiry}) VALUES (%s, %s, %s) "
            f"ON CONFLICT ({cache_key}) DO UPDATE "
            f"SET {column} = EXCLUDED.{column}, {expiry} = EXCLUDED.{expiry} "
            f"WHERE {table}.{expiry} < %s"
        )
        arguments = [
            self.make_and_validate_key(key, version=version),
            self._encoded(value),
            connection.ops.adapt_datetimefield_value(self._expiry(timeout)),
            connection.ops.adapt_datetimefield_value(tz_now()),
        ]
        with transaction.atomic(using=db), connection.cursor() as cursor:
            cursor.execute(add, arguments)
            return cursor.rowcount == 1

    def incr(self, key, delta=1, version=None):
        """Under the entry's row lock (PostgreSQL; SQLite's write lock), keeping its expiry."""
        db, connection, (table, cache_key, column, expiry) = self._sql()
        key = self.make_and_validate_key(key, version=version)
        now = connection.ops.adapt_datetimefield_value(tz_now())
        with transaction.atomic(using=db), connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {table} SET {expiry} = {expiry} WHERE {cache_key} = %s AND {expiry} >= %s",
                [key, now],
            )
            if cursor.rowcount != 1:
                raise ValueError(f"Key '{key}' not found")
            cursor.execute(f"SELECT {column} FROM {table} WHERE {cache_key} = %s", [key])
            value = pickle.loads(base64.b64decode(cursor.fetchone()[0].encode())) + delta
            cursor.execute(
                f"UPDATE {table} SET {column} = %s WHERE {cache_key} = %s",
                [self._encoded(value), key],
            )
        return value

    def _sql(self):
        """The database to write to, its connection, and the table's quoted names."""
        db = router.db_for_write(self.cache_model_class)
        connection = connections[db]
        names = (self._table, "cache_key", "value", "expires")  # type: ignore[attr-defined]
        return db, connection, tuple(map(connection.ops.quote_name, names))

    def _encoded(self, value) -> str:
        return base64.b64encode(pickle.dumps(value, self.pickle_protocol)).decode("latin1")

    def _expiry(self, timeout) -> datetime:
        timeout = self.get_backend_timeout(timeout)
        return (
            datetime.max
            if timeout is None
            else datetime.fromtimestamp(timeout, tz=UTC if settings.USE_TZ else None)
        ).replace(microsecond=0)

    def _upsert(self, data: dict, timeout, version) -> bool:
        """Insert or replace every entry in one statement; False where the database cannot."""
        db, connection, (table, cache_key, column, expiry) = self._sql()
        if not connection.features.supports_update_conflicts_with_target:
            return False
        if not data:
            return True
        expires = self._expiry(timeout)
        keys = [self.make_and_validate_key(key, version=version) for key in data]
        encoded = [self._encoded(value) for value in data.values()]
        upsert = (
            f"INSERT INTO {table} ({cache_key}, {column}, {expiry}) "
            f"SELECT k, v, %s FROM unnest(%s::text[], %s::text[]) AS d(k, v) "
            f"ON CONFLICT ({cache_key}) DO UPDATE "
            f"SET {column} = EXCLUDED.{column}, {expiry} = EXCLUDED.{expiry}"
        )
        # inside a caller's transaction, a failed set must not break it (a savepoint, as Django)
        block = transaction.atomic(using=db) if connection.in_atomic_block else nullcontext()
        try:
            with block, connection.cursor() as cursor:
                if next(self._sets) % CULL_CHECK_EVERY == 0 or len(keys) > 1:
                    cursor.execute(f"SELECT COUNT(*) FROM {table}")
                    count = cursor.fetchone()[0]
                    if count + len(keys) > self._max_entries:
                        now = tz_now().replace(microsecond=0)
                        self._cull(db, cursor, now, count + len(keys))  # type: ignore[attr-defined]
                cursor.execute(
                    upsert, [connection.ops.adapt_datetimefield_value(expires), keys, encoded]
                )
        except DatabaseError:
            pass  # as Django's: a set may fail quietly (say, the table is being culled)
        return True


class ProcessBytes:
    """This process's copies of bytes kept under a key that names their version (a chapter body
    made for one version stays those bytes as long as that key is asked for), so another worker
    never serves them stale and a hit costs no round trip. The least recently read go first, at
    most `limit` bytes in all; a body over an eighth of that is never kept, so one huge chapter
    cannot push out the rest. Only for such keys: a count (a throttle's) must be shared."""

    def __init__(self, limit: int) -> None:
        self.limit, self.size = limit, 0
        self.items: OrderedDict[str, bytes] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: str) -> bytes | None:
        with self.lock:
            body = self.items.get(key)
            if body is not None:
                self.items.move_to_end(key)
            return body

    def set(self, key: str, body: bytes) -> None:
        if len(body) > self.limit // 8:
            return
        with self.lock:
            old = self.items.pop(key, None)
            self.size += len(body) - (len(old) if old is not None else 0)
            self.items[key] = body
            while self.size > self.limit:
                _, dropped = self.items.popitem(last=False)
                self.size -= len(dropped)

    def clear(self) -> None:
        with self.lock:
            self.items.clear()
            self.size = 0
