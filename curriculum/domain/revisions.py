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

from collections.abc import Iterable

from django.db import transaction
from django.db.models import F, Q
from django.dispatch import Signal
from django.utils import timezone

from curriculum.models import ApparatusLink, Chapter, SearchChapter

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
    moved = set(chapter_ids)
    if not moved:
        return
    shown = Q(entry_id__in=moved) & ~Q(entry__state=Chapter.State.DRAFT)
    leaning = ApparatusLink.objects.filter(shown | Q(entry_id__in=withdrawn)).order_by()
    if searched:  # the signal names them all: read them (one statement, as a join)
        moved |= set(leaning.values_list("chapter_id", flat=True))
    leaners = Q() if searched else Q(pk__in=leaning.values("chapter_id"))  # else a subquery
    # one transaction (the caller's, else its own): a chapter and its index entry move
    # together, or a rebuild between the two (under the chapter's lock) is moved past its own
    # revision, and a search finds the index stale (the claims worker writes in autocommit)
    chapters = Chapter.objects.filter(Q(pk__in=moved) | leaners)
    with transaction.atomic(savepoint=False):
        chapters.update(revision=F("revision") + 1, updated_at=timezone.now())
        if not searched:
            SearchChapter.objects.filter(chapter__in=chapters).update(revision=F("revision") + 1)
    if searched:
        _revised_on_commit(moved, writer_now())  # read now: the entry point has returned by then


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
