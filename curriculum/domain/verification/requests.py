"""Asking for checks: a request marks verdicts pending for the content now and sends their
checks after commit; a forced one asks again whatever the verdicts say (an engine upgrade).

The worker writes a verdict only while the fingerprint it checked is still the one pending
(compare-and-set, `decide`), so a request that raced an edit, or ran twice, changes nothing.
"""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from curriculum.models import Chapter, Solution, Verdict

from ..actions import Action
from ..locks import chapter_lock, chapters_lock
from ..revisions import chapters_moved
from ..roles import REVERIFY_PERMISSION
from ..rows import one_statement, rows_upsert
from .dispatch import backlog_level, verdict_enqueue, verdicts_enqueue_now
from .fingerprints import fingerprint_store
from .state import DECIDED, DRAFT, STALE, Status, db_value, verdict_state


def verdict_request(*, solution: Solution, force: bool = False) -> bool:
    """Store the fingerprint of the solution's content now, mark the verdict pending for it and
    enqueue one check after commit.

    Unchanged content that already has a decided verdict keeps it, unless forced (re-verifying
    after an engine upgrade). Returns whether a check was enqueued.
    """
    with transaction.atomic():
        # the chapter row first, as the worker takes it: the two never deadlock
        chapter_lock(chapter_id=solution.problem.chapter_id)
        return _verdict_pending(solution=solution, force=force)


def _pending_fields(current: str, now) -> dict[str, Any]:
    """A request clears every field a decision writes (DECIDED) and its run count."""
    return DECIDED | {
        "status": Status.PENDING,
        "fingerprint": current,
        "requested_at": now,
        "attempts": 0,
    }


def _verdict_pending(*, solution: Solution, force: bool) -> bool:
    fingerprint_store(solution)
    if solution.answer is None:  # a draft: nothing to check, and no verdict of an old answer
        Verdict.objects.filter(solution=solution).delete()
        return False
    current = solution.fingerprint
    verdict = Verdict.objects.filter(solution=solution).first()
    unchanged = verdict is not None and verdict.fingerprint == current
    if unchanged and verdict is not None and verdict.status != Status.PENDING and not force:
        return False
    _pending_upsert([(solution.pk, current)], timezone.now())
    chapters_moved({solution.problem.chapter_id}, searched=False)
    verdict_enqueue(solution_id=solution.pk, checked=current)
    return True


def verdicts_request(*, chapter_ids: set[int]) -> list[int]:
    """Mark pending every verdict of these chapters not decided for the fingerprint stored on
    its solution; their checks go in batches after commit. A draft's solution (no answer) is
    never checked: a verdict of an answer it no longer has is deleted.

    One read and one write for all the verdicts, each chapter locked (in primary-key order)
    and touched once. Same rule as `verdict_request` per solution. Returns the ids of the
    solutions whose check was asked for.
    """
    if not chapter_ids:
        return []
    with transaction.atomic():
        chapters_lock(chapter_ids=chapter_ids)
        waiting = _waiting(chapter_ids)
        solutions = Solution.objects.filter(problem__chapter_id__in=chapter_ids)
        Verdict.objects.filter(solution__in=solutions.filter(DRAFT)).delete()
        due = (
            solutions.exclude(DRAFT)
            .alias(state=verdict_state())
            .filter(state__in=[Status.PENDING, STALE])
            .order_by("problem__position", "problem_id")  # sent in the chapter's order
        )
        found = list(due.values_list("pk", "problem__chapter_id", "fingerprint"))
        checks = [(solution_id, current) for solution_id, _, current in found]
        _pending_upsert(checks, timezone.now())
        chapters_moved({chapter_id for _, chapter_id, _ in found}, searched=False)
        level = backlog_level(waiting)  # behind what these chapters already wait for
        transaction.on_commit(lambda: verdicts_enqueue_now(checks=checks, level=level))
    return [solution_id for solution_id, _ in checks]


def verdicts_force(*, solution_ids: Iterable[int], level: int = 0) -> list[int]:
    """Ask again for these solutions whatever their verdicts say ("Verify again", an engine
    upgrade); the ids asked for, their checks sent in batches after commit, from `level` on.

    A solution that has a verdict row is not read: the row goes back to pending for the
    fingerprint it holds, and the worker checks the content it then finds (`verdicts_decide`).
    Only solutions never asked for before have their stored fingerprint read, before the
    chapters are locked: a pending row's fingerprint only names the request, so one made stale
    by an edit meanwhile is still decided for the content the worker finds.
    """
    found = list(
        Solution.objects.filter(pk__in=list(solution_ids))
        .exclude(DRAFT)
        .values_list("pk", "problem__chapter_id", "verdict")
    )
    if not found:
        return []
    chapter_of = {solution_id: chapter_id for solution_id, chapter_id, _ in found}
    never = [solution_id for solution_id, _, verdict in found if verdict is None]
    new = list(Solution.objects.filter(pk__in=never).values_list("pk", "fingerprint"))
    with transaction.atomic():
        chapters_lock(chapter_ids=set(chapter_of.values()))
        level = max(level, backlog_level(_waiting(set(chapter_of.values()))))
        now = timezone.now()
        checks = _pending_again(list(chapter_of), now)
        again = dict(checks)  # rows made meanwhile are among them
        new = [(solution_id, checked) for solution_id, checked in new if solution_id not in again]
        _pending_upsert(new, now)
        checks += new
        chapters_moved({chapter_of[solution_id] for solution_id, _ in checks}, searched=False)
        transaction.on_commit(lambda: verdicts_enqueue_now(checks=checks, level=level))
    return [solution_id for solution_id, _ in checks]


def _waiting(chapter_ids: set[int]) -> int:
    """How many checks of these chapters are pending: the backlog a new request joins."""
    rows = Verdict.objects.filter(solution__problem__chapter_id__in=chapter_ids)
    return rows.filter(status=Status.PENDING).count()


def _pending_upsert(checks: list[tuple[int, str]], now) -> None:
    """Each (solution, fingerprint) pending, its verdict row made or reset: one statement."""
    rows = [{"solution_id": sid} | _pending_fields(current, now) for sid, current in checks]
    rows_upsert(Verdict, rows, unique=["solution"], update=list(_pending_fields("", now)))


def _pending_again(solution_ids: list[int], now) -> list[tuple[int, str]]:
    """Every existing verdict row of these solutions pending again for the fingerprint it
    holds: one statement; the (solution, fingerprint) pairs it reset."""
    if not one_statement():
        rows = Verdict.objects.filter(solution_id__in=solution_ids)
        again = list(rows.values_list("solution_id", "fingerprint"))
        rows.update(**{k: v for k, v in _pending_fields("", now).items() if k != "fingerprint"})
        return again
    names, values = _pending_columns(now)
    q = connection.ops.quote_name
    sets = ", ".join(f"{q(name)} = %s" for name in names)
    sql = (
        f"UPDATE {q(Verdict._meta.db_table)} SET {sets} WHERE solution_id = ANY(%s) "
        "RETURNING solution_id, fingerprint"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*values, solution_ids])
        return [(solution_id, checked) for solution_id, checked in cursor.fetchall()]


def _pending_columns(now) -> tuple[list[str], list[Any]]:
    """The columns a request sets whatever the fingerprint, and their database values."""
    same = _pending_fields("", now)
    del same["fingerprint"]
    return list(same), [db_value(name, value) for name, value in same.items()]


@dataclass(kw_only=True)
class Reverify(Action):
    """Ask again (forced) for every solution of the chapter `code` (Chapter.DoesNotExist for
    an unknown one), or for `solution_ids` across chapters; the ids to wait for."""

    code: str | None = None
    solution_ids: Iterable[int] = ()

    needs: ClassVar[tuple[str, ...]] = (REVERIFY_PERMISSION,)

    def run(self) -> list[int]:
        solution_ids = self.solution_ids
        if self.code is not None:
            chapter = Chapter.objects.get(code=self.code)
            solutions = Solution.objects.filter(problem__chapter=chapter)
            solution_ids = solutions.values_list("pk", flat=True)
        return verdicts_force(solution_ids=solution_ids)


def verdicts_all_request() -> Iterator[int]:
    """Ask again for every stored solution (after an engine upgrade), yielding each id as sent.

    One transaction per two batches, sent when it commits: the workers start on the first
    batches while the rest are still being asked for, each two a level further down, so that
    re-verifying a whole course is one request among others, not ahead of them.
    """
    chunk = 2 * max(settings.VERIFY_BATCH_SIZE, 1)
    solution_ids = Solution.objects.order_by("pk").values_list("pk", flat=True)
    last, level = 0, 0
    while batch := list(solution_ids.filter(pk__gt=last)[:chunk]):
        yield from verdicts_force(solution_ids=batch, level=level)
        last, level = batch[-1], level + 2
