"""The verdict row as readers see it: when it counts, when it is stale, the fields a decision
writes, and the chapter version that moves whenever a verdict changes."""

from typing import Any

from django.db import connection
from django.db.models import Field
from django.utils import timezone

from curriculum.models import Chapter, Solution, Verdict

from .fingerprints import fingerprint

Status = Verdict.Status


def chapter_touch(*, chapter_id: int) -> None:
    """What readers see of a working copy changed: move its version (ETag, Last-Modified)."""
    Chapter.objects.filter(pk=chapter_id).update(updated_at=timezone.now())


def chapters_touch(chapter_ids: set[int]) -> None:
    if chapter_ids:
        Chapter.objects.filter(pk__in=chapter_ids).update(updated_at=timezone.now())


def verdict_is_counted(solution: Solution | None) -> bool:
    """A solution counts only when published and verified for exactly what it now says."""
    if solution is None or not solution.published:
        return False
    verdict = getattr(solution, "verdict", None)
    return (
        verdict is not None
        and verdict.status == Status.VERIFIED
        and verdict.fingerprint == fingerprint(solution.problem, solution)
    )


def verdict_state(solution: Solution) -> str:
    """The verdict as a reader of the gate sees it: stale when it is for other content."""
    verdict = getattr(solution, "verdict", None)
    if verdict is None:
        return Status.PENDING
    if verdict.fingerprint != fingerprint(solution.problem, solution):
        return "stale"
    return verdict.status


DECIDED = {
    "status": Status.ERROR,
    "decided_at": None,
    "max_abs_error": None,
    "max_rel_error": None,
    "engine_value": None,
    "engine_version": "",
    "duration_ms": None,
    "message": "",
}
"""Every field a decision writes, with its value before one: a request clears them all."""


def _column(name: str) -> Field:
    field = Verdict._meta.get_field(name)
    assert isinstance(field, Field)
    return field


def column_type(name: str) -> str:
    """A verdict column's database type, for a statement that writes many rows at once."""
    return str(_column(name).db_type(connection))


def db_value(name: str, value: Any) -> Any:
    """``value`` as the verdict column ``name`` stores it."""
    return _column(name).get_db_prep_save(value, connection)
