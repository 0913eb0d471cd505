"""A chapter's revision: one number that moves whenever what its page or JSON shows may have.

Every writer calls `chapters_moved` in the transaction of its change: the chapter's own fields
and parts, its verdicts, its release, publish or withdraw, its book's fields. A Book 0 entry's
change moves every chapter that links to it too, while readers see the entry (or it was just
withdrawn): a draft's edits show nowhere, so they move nothing else. The working copy's ETag
and cache key, the lists' tag and the search index all read the revision; `chapters_revised`
is sent once the moved chapters' transaction commits (search rebuilds their index on it, never
in a reader's request; the chapter history records each changed working copy on it).
"""

from collections.abc import Iterable

from django.db import transaction
from django.db.models import F, Q
from django.dispatch import Signal
from django.utils import timezone

from curriculum.models import ApparatusLink, Chapter, SearchChapter

from .writers import writer_now

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
        writer = writer_now()  # read now: the entry point has returned by the commit
        transaction.on_commit(
            lambda: chapters_revised.send(
                sender=Chapter, chapter_ids=frozenset(moved), writer=writer
            )
        )
