"""Verification: what exactly is checked (the fingerprint), when a verdict counts, and deciding it.

A verdict belongs to one fingerprint of a problem and its solution. Any edit changes the
fingerprint, so an old verdict goes stale and never counts; the worker writes a verdict only
while the fingerprint it checked is still the one pending (compare-and-set), so a run that
raced an edit, or ran twice, changes nothing.
"""

import hashlib
import logging
import json
import time
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

import attention
from curriculum.models import Chapter, Problem, Solution, Verdict

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
    return hashlib.sha256(json.dumps(checked, sort_keys=True).encode()).hexdigest()


def verdict_counts(solution: Solution | None) -> bool:
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
    current = fingerprint(solution.problem, solution)
    verdict = Verdict.objects.filter(solution=solution).first()
    if verdict and verdict.fingerprint == current and verdict.status != Status.PENDING and not force:
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
    verdict_enqueue(solution_id=solution.pk)
    return True


def verdict_enqueue(*, solution_id: int) -> None:
    """After commit, so the worker never reads content older than what asked for the check."""
    transaction.on_commit(lambda: verdict_enqueue_now(solution_id=solution_id))


def verdict_enqueue_now(*, solution_id: int) -> None:
    """Send the task; if the broker is down the verdict stays pending and the sweep resends it."""
    from curriculum.tasks import verify_solution

    try:
        verify_solution.delay(solution_id)
    except Exception:  # noqa: BLE001 - any broker failure; the sweep is the retry
        logger.warning("could not enqueue verification of solution %s", solution_id,
                       exc_info=True)


def _jsonable(value):
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def verdict_decide(*, solution_id: int) -> str | None:
    """Recompute one pending solution with the engine and record the verdict.

    Returns the status written, or None when there was nothing to decide (already decided,
    deleted, or edited since it was requested).
    """
    solution = (
        Solution.objects.select_related("problem", "verdict").filter(pk=solution_id).first()
    )
    if solution is None or not hasattr(solution, "verdict"):
        return None
    checked = fingerprint(solution.problem, solution)
    if solution.verdict.status != Status.PENDING or solution.verdict.fingerprint != checked:
        return None
    problem = solution.problem
    started = time.perf_counter()
    fields: dict = {"engine_version": attention.ENGINE_VERSION}
    try:
        value = attention.evaluate(problem.operation, problem.inputs, problem.ask)
        result = attention.compare(value, solution.answer, rtol=problem.rtol, atol=problem.atol)
    except attention.EngineInputError as error:
        fields.update(status=Status.ERROR, message=str(error))
    else:
        fields.update(
            status=Status.VERIFIED if result.ok else Status.MISMATCH,
            max_abs_error=result.max_abs_error,
            max_rel_error=result.max_rel_error,
            engine_value=_jsonable(value),
            message=result.message,
        )
    fields.update(decided_at=timezone.now(), duration_ms=(time.perf_counter() - started) * 1000)
    written = Verdict.objects.filter(
        solution_id=solution_id, status=Status.PENDING, fingerprint=checked
    ).update(**fields)
    if not written:
        return None
    chapter_touch(chapter_id=problem.chapter_id)
    return fields["status"]


def verdicts_overdue(*, older_than: timedelta) -> list[int]:
    """Solutions whose verdict has waited too long: their task was lost, so ask again."""
    cutoff = timezone.now() - older_than
    return list(
        Verdict.objects.filter(status=Status.PENDING, requested_at__lt=cutoff).values_list(
            "solution_id", flat=True
        )
    )
