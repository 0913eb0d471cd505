"""Hot queries built by the ORM once, then run again with new arguments.

On the hottest reads (a 304 is one query) building the SQL from a queryset costs the server
more than the database spends answering it. A `Prepared` query is built the first time it runs
in a thread (each thread has its own connection), with a marker for each argument; every later
call sends the same SQL with the arguments in the markers' places and converts the rows with
the ORM's own converters, so the values are exactly what the queryset would have returned.
"""

import threading
from collections.abc import Callable
from typing import Any

from django.db.models import QuerySet
from django.db.models.sql.compiler import SQLCompiler


class Prepared:
    """`build(**arguments)` returns a `.values()` queryset; each argument is a string that the
    queryset passes to the database as a parameter (a filter's value, say)."""

    def __init__(self, build: Callable[..., QuerySet], *arguments: str) -> None:
        self.build, self.arguments = build, arguments
        self.local = threading.local()

    def rows(self, **arguments: str) -> list[dict[str, Any]]:
        compiler, sql, params, slots, columns = self._compiled()
        sent = [arguments[slots[i]] if i in slots else value for i, value in enumerate(params)]
        with compiler.connection.cursor() as cursor:
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
