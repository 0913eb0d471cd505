"""Hot queries built by the ORM once, then run again with new arguments.

On the hottest reads (a 304 is one query) building the SQL from a queryset costs the server
more than the database spends answering it, and on PostgreSQL planning it costs the database
more than running it. A `Prepared` query is built the first time it runs in a thread (each
thread has its own connection), with a marker for each argument; on PostgreSQL it is then
PREPAREd once per connection, exactly as it would have been sent but with its arguments as
parameters, so each later call is an EXECUTE of a plan already made (connections are kept,
CONN_MAX_AGE, and made directly to PostgreSQL: a pooler that shares sessions would not keep
the statements). The rows are converted by the ORM's own converters, so the values are exactly
what the queryset would have returned.
"""

import threading
import uuid
import weakref
from collections.abc import Callable
from typing import Any

from django.db.models import QuerySet
from django.db.models.sql.compiler import SQLCompiler

# the statements each driver connection (each database session) has PREPAREd
_PREPARED: "weakref.WeakKeyDictionary[Any, set[str]]" = weakref.WeakKeyDictionary()
_PREPARED_LOCK = threading.Lock()


class Prepared:
    """`build(**arguments)` returns a `.values()` queryset; each argument is a string that the
    queryset passes to the database as a parameter (a filter's value, say). `name` names the
    statement: one per query."""

    def __init__(self, name: str, build: Callable[..., QuerySet], *arguments: str) -> None:
        self.name, self.build, self.arguments = name, build, arguments
        self.local = threading.local()

    def rows(self, **arguments: str) -> list[dict[str, Any]]:
        compiler, sql, params, slots, columns = self._compiled()
        with compiler.connection.cursor() as cursor:
            if self._prepared(compiler, sql, params, slots):
                given = [arguments[name] for name in self.arguments]
                marks = f"({', '.join(['%s'] * len(given))})" if given else ""
                cursor.execute(f"EXECUTE {self.name}{marks}", given)
            else:
                sent = [arguments[slots[i]] if i in slots else p for i, p in enumerate(params)]
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

    def _prepared(
        self, compiler: SQLCompiler, sql: str, params: list, slots: dict[int, str]
    ) -> bool:
        """PREPAREd on this thread's PostgreSQL connection, once per session (again after a
        reconnect). Connection setup, as the session settings Django sends on connecting, so it
        is sent on the driver's connection and not counted among a request's queries. A
        statement outlives a rolled-back transaction: it lasts as long as the session."""
        connection = compiler.connection
        if connection.vendor != "postgresql" or not connection.settings_dict["CONN_MAX_AGE"]:
            return False  # a session per request would PREPARE for every EXECUTE
        driver = connection.connection
        with _PREPARED_LOCK:
            made = _PREPARED.setdefault(driver, set())
            if self.name not in made:
                # the SQL as the driver would send it (PostgreSQL's compose_sql), each argument's
                # literal then made a parameter
                stand_ins = {name: f"curriculum_{uuid.uuid4().hex}" for name in self.arguments}
                shown = [stand_ins[slots[i]] if i in slots else p for i, p in enumerate(params)]
                body = connection.ops.compose_sql(sql, shown)  # type: ignore[attr-defined]
                for number, name in enumerate(self.arguments, start=1):
                    body = body.replace(f"'{stand_ins[name]}'", f"${number}")
                typed = f"({', '.join(['text'] * len(self.arguments))})" if self.arguments else ""
                with connection.wrap_database_errors:
                    driver.execute(f"PREPARE {self.name}{typed} AS {body}")
                made.add(self.name)
        return True
