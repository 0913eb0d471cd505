"""Verification: what exactly is checked (the fingerprint), when a verdict counts, and deciding it.

A verdict belongs to one fingerprint of a problem and its solution. Any edit changes the
fingerprint, so an old verdict goes stale and never counts; the worker writes a verdict only
while the fingerprint it checked is still the one pending (compare-and-set), so a run that
raced an edit, or ran twice, changes nothing.
"""

import hashlib
import json
import logging
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

import attention
from curriculum.models import Chapter, Problem, Solution, Verdict

from .answers import instances_error, tolerance_of
from .locks import chapter_lock
from .tolerances import tolerance_problems

Status = Verdict.Status
logger = logging.getLogger(__name__)


def chapter_touch(*, chapter_id: int) -> None:
    """What readers see of a working copy changed: move its version (ETag, Last-Modified)."""
    Chapter.objects.filter(pk=chapter_id).update(updated_at=timezone.now())


def fingerprint(problem: Problem, solution: Solution) -> str:
    checked = {
        "operation": problem.operation,
        "inputs": problem.inputs,
        "ask": problem.ask,
        "rtol": problem.rtol,
        "atol": problem.atol,
        "answer": solution.answer,
    }
    if problem.digits is not None:  # rtol/atol then check nothing; problems older than the
        del checked["rtol"], checked["atol"]  # digits mode keep the fingerprints they had
        checked["digits"] = problem.digits
    return hashlib.sha256(json.dumps(checked, sort_keys=True).encode()).hexdigest()


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


def verdict_request(*, solution: Solution, force: bool = False) -> bool:
    """Mark the verdict pending for the current content and enqueue one check after commit.

    Unchanged content that already has a decided verdict keeps it, unless forced (re-verifying
    after an engine upgrade). Returns whether a check was enqueued.
    """
    with transaction.atomic():
        # the chapter row first, as the worker takes it: the two never deadlock
        chapter_lock(chapter_id=solution.problem.chapter_id)
        return _verdict_pending(solution=solution, force=force)


def _verdict_pending(*, solution: Solution, force: bool) -> bool:
    current = fingerprint(solution.problem, solution)
    verdict = Verdict.objects.filter(solution=solution).first()
    unchanged = verdict is not None and verdict.fingerprint == current
    if unchanged and verdict is not None and verdict.status != Status.PENDING and not force:
        return False
    Verdict.objects.update_or_create(
        solution=solution,
        defaults={
            "status": Status.PENDING,
            "fingerprint": current,
            "requested_at": timezone.now(),
            "decided_at": None,
            "max_abs_error": None,
            "max_rel_error": None,
            "engine_value": None,
            "engine_version": "",
            "duration_ms": None,
            "message": "",
        },
    )
    chapter_touch(chapter_id=solution.problem.chapter_id)
    verdict_enqueue(solution_id=solution.pk, checked=current)
    return True


def verdict_enqueue(*, solution_id: int, checked: str) -> None:
    """After commit, so the worker never reads content older than what asked for the check."""
    transaction.on_commit(lambda: verdict_enqueue_now(solution_id=solution_id, checked=checked))


BROKER_PAUSE_SECONDS = 10.0
"""After a failed send, this process leaves further sends to the sweep for this long: a chapter
of many problems saved while Redis hangs waits on the broker once, not once per problem."""

_broker_paused_until = 0.0


def verdict_enqueue_now(*, solution_id: int, checked: str) -> bool:
    """Send the task; if the broker is down the verdict stays pending and the sweep resends it.

    Publishing fails fast (settings: connection and socket timeouts, one retry), so a save made
    while Redis is down neither hangs nor fails. Returns whether the task was sent.
    """
    from curriculum.tasks import verify_solution

    global _broker_paused_until
    if time.monotonic() < _broker_paused_until:
        logger.warning(
            "broker unreachable a moment ago: solution %s left for the sweep", solution_id
        )
        return False
    try:
        verify_solution.delay(solution_id, checked)
    except Exception:  # noqa: BLE001 - any broker failure; the sweep is the retry
        _broker_paused_until = time.monotonic() + BROKER_PAUSE_SECONDS
        logger.warning("could not enqueue verification of solution %s", solution_id, exc_info=True)
        return False
    return True


def _jsonable(value):
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def verdict_decide(*, solution_id: int, checked: str | None = None) -> str | None:
    """Recompute one pending solution with the engine and record the verdict.

    `checked` is the fingerprint the check was requested for: a task sent before an edit finds
    another fingerprint pending and does nothing (the edit sent its own). Returns the status
    written, or None when there was nothing to decide (already decided, deleted, or edited).
    """
    solution = Solution.objects.select_related("problem", "verdict").filter(pk=solution_id).first()
    if solution is None or not hasattr(solution, "verdict"):
        return None
    current = fingerprint(solution.problem, solution)
    pending = solution.verdict
    if pending.status != Status.PENDING or pending.fingerprint != current:
        return None
    if checked is not None and checked != current:
        return None
    problem = solution.problem
    started = time.perf_counter()
    fields = _engine_verdict(problem, solution.answer)
    fields.update(decided_at=timezone.now(), duration_ms=(time.perf_counter() - started) * 1000)
    with transaction.atomic():  # one commit for the verdict and the chapter's new version
        # the chapter row before the verdict row, in the order every writer takes them, so a
        # decision never deadlocks with a save, an import or a re-verification of the chapter
        chapter_lock(chapter_id=problem.chapter_id)
        written = Verdict.objects.filter(
            solution_id=solution_id, status=Status.PENDING, fingerprint=current
        ).update(**fields)
        if written:
            chapter_touch(chapter_id=problem.chapter_id)
    return fields["status"] if written else None


def _engine_verdict(problem: Problem, answer: Any) -> dict:
    """The engine's word on one answer; bad input of any kind is an error verdict, not a crash."""
    fields: dict = {"engine_version": attention.ENGINE_VERSION}
    loose = tolerance_problems(rtol=problem.rtol, atol=problem.atol, answer=answer)
    if loose:  # stored before the bound existed: never called right
        reasons = "; ".join(f"{key}: {message}" for key, message in loose.items())
        return fields | {"status": Status.ERROR, "message": f"tolerance too wide: {reasons}"}
    try:
        value = attention.evaluate(problem.operation, problem.inputs, problem.ask)
        result = attention.compare(value, answer, **tolerance_of(problem))
        if unsound := instances_error(problem=problem):
            return fields | {"status": Status.ERROR, "message": unsound}
    except attention.EngineInputError as error:
        return fields | {"status": Status.ERROR, "message": str(error)}
    except Exception as error:  # noqa: BLE001 - the time limit, memory, an engine fault
        logger.exception("engine failed on %s", problem)
        return fields | {
            "status": Status.ERROR,
            "message": f"the engine failed: {type(error).__name__}: {error}",
        }
    return fields | {
        "status": Status.VERIFIED if result.ok else Status.MISMATCH,
        "max_abs_error": _finite_or_none(result.max_abs_error),
        "max_rel_error": _finite_or_none(result.max_rel_error),
        "engine_value": _jsonable(value),
        "message": result.message,
    }


def _finite_or_none(number: float) -> float | None:
    """A shape mismatch has no meaningful error size (the engine says inf); store none."""
    return number if math.isfinite(number) else None


def verdicts_overdue(*, older_than: timedelta) -> list[tuple[int, str]]:
    """Pending verdicts that have waited too long (their task was lost): (solution, fingerprint)."""
    cutoff = timezone.now() - older_than
    return list(
        Verdict.objects.filter(status=Status.PENDING, requested_at__lt=cutoff)
        .order_by("requested_at")
        .values_list("solution_id", "fingerprint")
    )


def verdicts_sweep(*, older_than: timedelta) -> int:
    """Send again every overdue pending check; returns how many were sent."""
    return sum(
        verdict_enqueue_now(solution_id=solution_id, checked=checked)
        for solution_id, checked in verdicts_overdue(older_than=older_than)
    )


def chapter_verify(*, code: str) -> list[int]:
    """Ask again for every solution of a chapter (forced); the ids to wait for.

    Raises Chapter.DoesNotExist for an unknown code.
    """
    chapter = Chapter.objects.get(code=code)
    with transaction.atomic():
        chapter_lock(chapter_id=chapter.pk)  # an admin save of a solution waits, and vice versa
        solutions = list(
            Solution.objects.filter(problem__chapter=chapter).select_related("problem")
        )
        for solution in solutions:
            verdict_request(solution=solution, force=True)
    return [solution.pk for solution in solutions]


def verdicts_all_request(*, chunk: int = 200) -> Iterator[int]:
    """Ask again for every stored solution (after an engine upgrade), yielding each id as sent.

    One transaction per chunk: a commit per solution would make the requests, not the worker,
    the slow part; each chunk's checks are sent when it commits.
    """
    solutions = Solution.objects.select_related("problem").order_by("pk")
    last = 0
    while batch := list(solutions.filter(pk__gt=last)[:chunk]):
        with transaction.atomic():
            for solution in batch:
                verdict_request(solution=solution, force=True)
        last = batch[-1].pk
        yield from (solution.pk for solution in batch)


def verdicts_pending(*, solution_ids: list[int]) -> int:
    """How many of these solutions still wait for a decision."""
    return Verdict.objects.filter(solution_id__in=solution_ids, status=Status.PENDING).count()


def verdicts_await(
    *,
    solution_ids: list[int],
    timeout: float,
    poll: float = 0.2,
    progress: Callable[[int], None] | None = None,
) -> bool:
    """Wait until none of these is pending (`progress` hears how many are decided); False on
    timeout."""
    deadline = time.monotonic() + timeout
    while pending := verdicts_pending(solution_ids=solution_ids):
        if progress is not None:
            progress(len(solution_ids) - pending)
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll)
    if progress is not None:
        progress(len(solution_ids))
    return True


@dataclass(frozen=True)
class VerdictRow:
    """One problem of a chapter as the verify_chapter report prints it."""

    key: str
    state: str
    max_abs_error: float | None
    engine_value: Any  # only when it differs from the stated answer
    message: str


def chapter_verdict_rows(*, code: str) -> list[VerdictRow]:
    """Each problem, in chapter order, with its verdict for the current content.

    A problem with no solution has nothing to verify; it gets a row saying so, and never counts
    as verified.
    """
    problems = (
        Problem.objects.filter(chapter__code=code)
        .select_related("solution__verdict")
        .order_by("position", "id")
    )
    rows = []
    for problem in problems:
        solution = getattr(problem, "solution", None)
        if solution is None:
            rows.append(VerdictRow(problem.key, "unsolved", None, None, "it has no solution"))
            continue
        state = verdict_state(solution)
        verdict = getattr(solution, "verdict", None) if state != "stale" else None
        if verdict is None:
            rows.append(VerdictRow(problem.key, state, None, None, ""))
            continue
        rows.append(
            VerdictRow(
                key=problem.key,
                state=state,
                max_abs_error=verdict.max_abs_error,
                engine_value=verdict.engine_value if state == Status.MISMATCH else None,
                message=verdict.message,
            )
        )
    return rows


def chapter_verify_now(*, code: str) -> list[VerdictRow]:
    """Check every problem of a chapter in this process, as the worker would: a dry run's
    rollback then discards the verdicts, and the tasks it would have sent."""
    for solution_id in chapter_verify(code=code):
        verdict_decide(solution_id=solution_id)
    return chapter_verdict_rows(code=code)
