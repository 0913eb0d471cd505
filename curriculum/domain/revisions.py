"""A chapter's revision: one number that moves whenever what its page or JSON shows may have.

Every writer calls `chapters_moved` in the transaction of its change: the chapter's own fields
and parts, its verdicts, its release, publish or withdraw, its book's fields. A Book 0 entry's
change moves every chapter that links to it too, while readers see the entry (or it was just
withdrawn): a draft's edits show nowhere, so they move nothing else. The working copy's ETag
and cache key, the lists' tag and the search index all read the revision; `chapters_revised`
is sent once the moved chapters' transaction commits, once for each action however often it
moves them (search rebuilds their index on it, never in a reader's request; the chapter history
records each changed working copy on it).
"""

import functools
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from django.db import connections, transaction
from django.db.models import F, Q, QuerySet
from django.db.models.sql import UpdateQuery
from django.dispatch import Signal
from django.utils import timezone

from curriculum.models import ApparatusLink, Chapter, ChapterReference, SearchChapter

from .writers import Writer, sends_of_this_write, writer_now

# chapter_ids: chapters whose searched text may have changed; writer: who wrote, through what
chapters_revised = Signal()


def chapters_moved(
    chapter_ids: Iterable[int], *, withdrawn: Iterable[int] = (), searched: bool = True
) -> None:
    """Move the revision (and Last-Modified) of these chapters and of those leaning on them;
    `withdrawn` names entries just put back to draft, whose leaners move all the same. A move
    that changes no text a reader searches (a verdict asked for or decided: `searched=False`)
    moves the index's entries with their chapters, which are then as current as they were."""
    moved, gone = set(chapter_ids), set(withdrawn)
    if not moved:
        return
    if searched:  # the signal names them all: read them (one statement)
        moved |= set(Chapter.objects.filter(_leaning(moved, gone)).values_list("pk", flat=True))
        gone = set()
    ids = dict(zip(_PLACES, [*sorted(moved), *sorted(gone)], strict=False))
    db = Chapter.objects.db
    now, placed = _stamp(timezone.now(), db), _stamp(_NOW, db)
    # one transaction (the caller's, else its own): a chapter and its index entry move
    # together, or a rebuild between the two (under the chapter's lock) is moved past its own
    # revision, and a search finds the index stale (the claims worker writes in autocommit)
    with transaction.atomic(using=db, savepoint=False), connections[db].cursor() as cursor:
        for sql, params in _moving(db, len(moved), len(gone), searched):
            cursor.execute(sql, [now if p == placed else ids.get(p, p) for p in params])
    if searched:
        _revised_on_commit(moved, writer_now())  # read now: the entry point has returned by then


def _leaning(moved: set[int], withdrawn: set[int]) -> Q:
    """The chapters leaning on `moved` entries readers see, or on `withdrawn` ones, and those
    whose texts name such a chapter (`references.references_store`)."""
    shown = Q(entry_id__in=moved) & ~Q(entry__state=Chapter.State.DRAFT)
    links = ApparatusLink.objects.filter(shown | Q(entry_id__in=withdrawn)).order_by()
    named = Q(target_id__in=moved) & ~Q(target__state=Chapter.State.DRAFT)
    naming = ChapterReference.objects.filter(named | Q(target_id__in=withdrawn)).order_by()
    return Q(pk__in=links.values("chapter_id")) | Q(pk__in=naming.values("chapter_id"))


_PLACES = range(-1, -(10**9), -1)
"""The ids a statement is built with, put back by the real ones (no row's id is below 0)."""

_NOW = datetime(2000, 1, 1, tzinfo=UTC)
"""The moment a statement is built with, put back by the time of the move."""


def _stamp(moment: datetime, db: str) -> Any:
    """`moment` as the database takes `updated_at` (a string on SQLite)."""
    return Chapter._meta.get_field("updated_at").get_db_prep_save(moment, connections[db])


@functools.lru_cache(maxsize=256)
def _moving(db: str, moved: int, withdrawn: int, searched: bool) -> tuple[tuple[str, tuple], ...]:
    """The statements that move `moved` chapters (and, unless `searched`, those leaning on them
    or on `withdrawn` entries, and their index entries), with _PLACES for ids and _NOW for the
    moment: the ORM builds them once per process and count, since building them cost twice
    running them, on every save and every verdict."""
    ids, gone = _PLACES[:moved], _PLACES[moved : moved + withdrawn]
    leaners = Q() if searched else _leaning(set(ids), set(gone))
    chapters = Chapter.objects.using(db).filter(Q(pk__in=ids) | leaners)
    statements: list[tuple[QuerySet[Any], dict[str, Any]]] = [
        (chapters, {"revision": F("revision") + 1, "updated_at": _NOW})
    ]
    if not searched:
        searched_rows = SearchChapter.objects.using(db).filter(chapter__in=chapters)
        statements.append((searched_rows, {"revision": F("revision") + 1}))
    built = []
    for rows, values in statements:
        update = rows.query.chain(UpdateQuery)
        assert isinstance(update, UpdateQuery)
        update.add_update_values(values)
        built.append(update.get_compiler(db).as_sql())
    return tuple(built)


class _Revised:
    """`chapters_revised` for the chapters one writer moved, sent when the transaction commits.
    An action that moves its chapter three times (its parts, its glossary's readers, its
    problems) has it indexed, recorded and asked for claims once, not three times."""

    def __init__(self, writer: Writer, moved: set[int]) -> None:
        self.writer, self.chapter_ids = writer, set(moved)

    def __call__(self) -> None:
        chapters_revised.send(
            sender=Chapter, chapter_ids=frozenset(self.chapter_ids), writer=self.writer
        )


def _revised_on_commit(moved: set[int], writer: Writer) -> None:
    """Join this action's pending send for the writer, while it is pending (a savepoint rolled
    back since discards it: then a send of its own)."""
    sends = sends_of_this_write()
    pending = None if sends is None else sends.get(writer)
    if pending is not None and any(
        callback is pending for _, callback, _ in transaction.get_connection().run_on_commit
    ):
        pending.chapter_ids |= moved
        return
    revised = _Revised(writer, moved)
    if sends is not None:
        sends[writer] = revised
    transaction.on_commit(revised)
