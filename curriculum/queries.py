"""Hot queries built by the ORM once, then run again with new arguments.

On the hottest reads (a 304 is one query) building the SQL from a queryset costs the server
more than the database spends answering it, and on PostgreSQL planning it costs the database
more than running it. A `Prepared` query is built the first time it runs in a thread (each
thread has its own connection), with a marker for each argument; on PostgreSQL it is then
PREPAREd once per connection (typed from the values it was built with), so each later call is
an EXECUTE of a plan already made. The rows are converted by the ORM's own converters, so the
values are exactly what the queryset would have returned.
"""

import datetime
import decimal
import itertools
import re
import threading
import weakref
from collections.abc import Callable
from typing import Any

from django.db.models import QuerySet
from django.db.models.sql.compiler import SQLCompiler

# what a PREPAREd statement's parameter is declared as, by the Python type it was built with
# (bool before int: a bool is an int)
PARAMETER_TYPES: list[tuple[type, str]] = [
    (bool, "boolean"),
    (int, "bigint"),
    (float, "double precision"),
    (decimal.Decimal, "numeric"),
    (str, "text"),
    (datetime.datetime, "timestamptz"),
    (datetime.date, "date"),
]
PLACEHOLDER = re.compile(r"%s|%%")
# the statements each driver connection (each database session) has PREPAREd
_PREPARED: "weakref.WeakKeyDictionary[Any, set[str]]" = weakref.WeakKeyDictionary()
_PREPARED_LOCK = threading.Lock()


class Prepared:
    """`build(**arguments)` returns a `.values()` queryset; each argument is a string that the
    queryset passes to the database as a parameter (a filter's value, say)."""

    def __init__(self, name: str, build: Callable[..., QuerySet], *arguments: str) -> None:
        self.name, self.build, self.arguments = name, build, arguments  # name: one per query
        self.local = threading.local()

    def rows(self, **arguments: str) -> list[dict[str, Any]]:
        compiler, sql, params, slots, columns = self._compiled()
        sent = [arguments[slots[i]] if i in slots else value for i, value in enumerate(params)]
        with compiler.connection.cursor() as cursor:
            if self._prepared(compiler, sql, params):
                marks = f"({', '.join(['%s'] * len(sent))})" if sent else ""
                cursor.execute(f"EXECUTE {self.name}{marks}", sent)
            else:
                cursor.execute(sql, sent)
            fetched = cursor.fetchall()
        converted = compiler.results_iter(results=[fetched], tuple_expected=True)
        return [dict(zip(columns, row, strict=False)) for row in converted]

    def first(self, **arguments: str) -> dict[str, Any] | None:
        found = self.rows(**arguments)
        return found[0] if found else None

    def _compiled(self) -> tuple[SQLCompiler, str, list, dict[int, str], list[str]]:
        compiled = getattr(self.local, "compiled", None)
        if compiled is None:
            markers = {name: f"\x00{name}\x00" for name in self.arguments}
            queryset = self.build(**markers)
            query = queryset.query
            compiler = query.get_compiler(using=queryset.db)
            sql, params = compiler.as_sql()
            slots = {
                i: name
                for i, value in enumerate(params)
                for name, marker in markers.items()
                if value == marker
            }
            if set(slots.values()) != set(self.arguments):
                raise ValueError(f"not every argument is a parameter of the query: {sql}")
            columns = list(query.selected or {}) or [  # as the ORM's own `.values()` names them
                *query.extra_select,
                *query.values_select,
                *query.annotation_select,
            ]
            compiled = self.local.compiled = (compiler, sql, list(params), slots, columns)
        return compiled

    def _prepared(self, compiler: SQLCompiler, sql: str, params: list) -> bool:
        """PREPAREd on this thread's PostgreSQL connection, once per session (again after a
        reconnect). Connection setup, as the session settings Django sends on connecting, so it
        is sent on the driver's connection and not counted among a request's queries. A
        statement outlives a rolled-back transaction: it lasts as long as the session."""
        connection = compiler.connection
        if connection.vendor != "postgresql":
            return False
        found = [_parameter_type(value) for value in params]
        types = [name for name in found if name is not None]
        if len(types) != len(found):
            return False
        driver = connection.connection
        with _PREPARED_LOCK:
            made = _PREPARED.setdefault(driver, set())
            if self.name not in made:
                numbers = itertools.count(1)
                body = PLACEHOLDER.sub(lambda m: f"${next(numbers)}" if m[0] == "%s" else "%", sql)
                declared = f"({', '.join(types)})" if types else ""
                with connection.wrap_database_errors:
                    driver.execute(f"PREPARE {self.name}{declared} AS {body}")
                made.add(self.name)
        return True


def _parameter_type(value: Any) -> str | None:
    return next((name for kind, name in PARAMETER_TYPES if isinstance(value, kind)), None)
