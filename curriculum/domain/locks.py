"""The chapter row lock: every writer that can break the publication rule takes it first.

Publishing re-checks the gate under it; deleting or editing problems and solutions, importing,
and re-verifying wait for it; so two staff at once cannot make a release that breaks the rule.

A book's row is locked by whatever changes the book (`book_lock`) and by publishing, after
the chapter's row: a rename and a publish of one of its chapters then run one after the
other, so a book's numeral is fixed once any of its chapters has a release, whatever the timing.

Order: the chapter row is always locked before any verdict row of it (requests and the
worker's decisions alike) and before its book's row; an operation over several chapters locks
them all first, in primary-key order (`chapters_lock`), so no two writers can wait on each
other in a cycle.
"""

from collections.abc import Iterable

from curriculum.models import Book, Chapter


def chapter_lock(*, chapter_id: int) -> Chapter:
    """Lock the chapter row for the rest of the transaction; callers must be inside atomic()."""
    return Chapter.objects.select_for_update().get(pk=chapter_id)


def chapters_lock(*, chapter_ids: Iterable[int]) -> list[int]:
    """Lock several chapter rows in primary-key order, whatever order the caller has them in:
    two multi-chapter operations then queue on their first shared chapter instead of
    deadlocking. Callers must be inside atomic(); returns the ids locked, in that order."""
    ordered = sorted(set(chapter_ids))
    return list(
        Chapter.objects.filter(pk__in=ordered)
        .order_by("pk")
        .select_for_update()
        .values_list("pk", flat=True)
    )


def book_lock(*, book_id: int) -> Book:
    """Lock the book row for the rest of the transaction; callers must be inside atomic().
    No KEY UPDATE: a chapter written meanwhile still references the book (its foreign-key check
    takes KEY SHARE), and only renames and publishes wait for each other."""
    return Book.objects.select_for_update(no_key=True).get(pk=book_id)
