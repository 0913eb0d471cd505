"""Deciding: the engine's word on each pending check, written only while the fingerprint it
checked is still the one pending (compare-and-set), so a run that raced an edit, or ran twice,
changes nothing.
"""

import json
import logging
import math
import time
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

import attention
from curriculum.models import Problem, Solution, Verdict

from ..answers import answer_compare, instances_checked, mistake_warnings_of
from ..locks import chapters_lock
from ..revisions import chapters_moved
from ..rows import ROWS, one_statement
from ..tolerances import tolerance_problems
from ..webhooks import verdicts_changed
from ..work_budget import work_refusal
from .dispatch import Slice
from .fingerprints import CHECKED, checkable
from .state import DECIDED, Status, column_type

logger = logging.getLogger(__name__)


def jsonable(value):
    """An engine value (numpy arrays and scalars, in dicts) as JSON stores it."""
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def verdict_decide(
    *, solution_id: int, checked: str | None = None, run: Slice | None = None
) -> str | None:
    """Recompute one pending solution with the engine and record the verdict.

    `checked` is the fingerprint the check was requested for: a task sent before an edit finds
    another fingerprint pending and does nothing (the edit sent its own). Returns the status
    written, or None when there was nothing to decide (already decided, deleted, or edited).
    """
    return verdicts_decide(checks=[(solution_id, checked)], run=run).get(solution_id)


def verdicts_decide(
    *, checks: list[tuple[int, str | None]], run: Slice | None = None
) -> dict[int, str]:
    """Decide a batch of checks (solution id, fingerprint or None); the statuses written.

    Each is decided as `verdict_decide` would: only while that fingerprint is still the one
    pending, for the content found now, whose own fingerprint the verdict records (a forced
    request leaves the row's fingerprint as it was, and content may have changed under it).
    Checks already tried once (their run was killed) are tried one at a time, so a problem that
    kills its worker takes no other verdict down with it. A worker's task passes its `run`
    (`Slice`): what the slice does not reach is handed on, never decided here.
    """
    run = run or Slice()
    wanted = dict(checks)
    due = []
    batch = (
        checkable()
        .select_related("verdict")
        .only(*CHECKED, "verdict__status", "verdict__fingerprint", "verdict__attempts")
    )
    for solution in batch.filter(pk__in=wanted):
        verdict = getattr(solution, "verdict", None)
        if verdict is None or verdict.status != Status.PENDING:
            continue
        if wanted[solution.pk] not in (None, verdict.fingerprint):
            continue  # asked for before a later request, which sent its own check
        due.append((solution, verdict.fingerprint))
    decided: dict[int, str] = {}
    first = [d for d in due if d[0].verdict.attempts == 0]
    if first:
        decided |= _decide_together(first, run)
    for again in (d for d in due if d[0].verdict.attempts > 0):
        decided |= _decide_together([again], run)
    run.hand_on()
    return decided


def _decide_together(due: list[tuple[Solution, str]], run: Slice) -> dict[int, str]:
    """Count the attempt, run the engine on each outside any transaction, then write every
    verdict still pending for the fingerprint requested in one transaction (chapters locked
    first). What `run` does not reach, and a check the task's soft time limit interrupts (the
    task's clock, not the check's own run), is left to `run` with its attempt taken back."""
    if not run.open():
        run.leave([(solution.pk, requested) for solution, requested in due])
        return {}
    chapter_of = {solution.pk: solution.problem.chapter_id for solution, _ in due}
    _attempts_add(chapter_of, 1)
    fields: dict[int, dict] = {}
    left: list[tuple[int, str]] = []
    for solution, requested in due:
        if not run.open():
            left.append((solution.pk, requested))
        elif solution.verdict.attempts >= settings.VERIFY_MAX_ATTEMPTS:
            fields[solution.pk] = _gave_up(solution.verdict.attempts)
        else:
            run.started += 1
            started = time.perf_counter()
            try:
                verdict = _engine_verdict(solution.problem, solution.answer, run.interrupt)
                fields[solution.pk] = verdict
            except run.interrupt:
                run.interrupted = True
                left.append((solution.pk, requested))
                continue
            fields[solution.pk]["duration_ms"] = (time.perf_counter() - started) * 1000
    # what was checked is named by the fingerprint its writer stored with it, read in the same
    # statement as the content (every writer stores both in one transaction: fingerprint_store)
    fingerprints = {
        solution.pk: (requested, solution.fingerprint)
        for solution, requested in due
        if solution.pk in fields
    }
    written = _verdicts_write(fingerprints, fields, chapter_of)
    if left:
        _attempts_add({sid: chapter_of[sid] for sid, _ in left}, -1)
        run.leave(left)
    return written


def _unflushed() -> None:
    """This transaction's commit does not wait for the disk (PostgreSQL's synchronous_commit,
    for this transaction only): a verdict or an attempt count lost to a database crash in the
    next fraction of a second leaves its check pending, which the sweep sends again. Each
    decision's two commits were most of an idle save-to-verdict (about 5 ms each here)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")


def _attempts_add(chapter_of: dict[int, int], step: int) -> None:
    """Count (1) or take back (-1) a run of these pending checks, their chapters locked first."""
    with transaction.atomic():
        _unflushed()
        chapters_lock(chapter_ids=chapter_of.values())
        Verdict.objects.filter(solution_id__in=chapter_of, status=Status.PENDING).update(
            attempts=F("attempts") + step
        )


def _gave_up(runs: int) -> dict[str, Any]:
    return {
        "status": Status.ERROR,
        "engine_version": attention.ENGINE_VERSION,
        "message": (
            f"the engine never finished in {runs} runs: each ended with its worker (killed, or "
            f"past the task's hard time limit of {settings.CELERY_TASK_TIME_LIMIT} s)"
        ),
    }


def _verdicts_write(
    checked: dict[int, tuple[str, str]], fields: dict[int, dict], chapter_of: dict[int, int]
) -> dict[int, str]:
    """Compare-and-set per verdict, all in one transaction; each chapter moved once.
    `checked` holds each solution's fingerprint requested and that of the content checked."""
    if not fields:
        return {}
    now = timezone.now()
    with transaction.atomic():
        _unflushed()
        # the chapter rows before the verdict rows, in the order every writer takes them, so a
        # decision never deadlocks with a save, an import or a re-verification of the chapter
        chapters_lock(chapter_ids={chapter_of[solution_id] for solution_id in fields})
        changes = _compare_and_set(checked, {sid: DECIDED | v for sid, v in fields.items()}, now)
        chapters_moved({chapter_of[solution_id] for solution_id in changes}, searched=False)
        verdicts_changed(changes)
    return {solution_id: status for solution_id, (_, status) in changes.items()}


def _compare_and_set(
    checked: dict[int, tuple[str, str]], fields: dict[int, dict], now
) -> dict[int, tuple[str, str]]:
    """Write each verdict, with the fingerprint of what was checked, only while the one
    requested is still pending and what was checked is what the solution stores now (a write
    meanwhile leaves it pending for its own check): one UPDATE for the whole batch; returns
    the status the last decision had written ("" for none) and the one written now."""
    if not one_statement():
        return {
            sid: changed
            for sid, values in fields.items()
            if (changed := _set(sid, checked[sid], values, now))
        }
    names = [name for name in DECIDED if name != "decided_at"]
    q = connection.ops.quote_name
    columns = ", ".join(f"{q(name)} = d.{name}" for name in ("fingerprint", *names))
    record = ", ".join(f"{name} {column_type(name)}" for name in names)
    table = q(Verdict._meta.db_table)
    sql = (
        f"UPDATE {table} AS v SET {q('decided_at')} = %s, {q('decided_status')} = d.status, "
        f"{columns} "
        f"FROM {ROWS} AS d(solution_id integer, requested varchar, fingerprint varchar, {record}), "
        f"{q(Solution._meta.db_table)} AS s, {table} AS was "  # `was`: the row before
        "WHERE v.solution_id = d.solution_id AND v.status = %s AND v.fingerprint = d.requested "
        "AND s.id = v.solution_id AND s.fingerprint = d.fingerprint AND was.id = v.id "
        "RETURNING v.solution_id, was.decided_status, v.status"
    )
    rows = [
        {"solution_id": sid, "requested": checked[sid][0], "fingerprint": checked[sid][1]}
        | {name: values[name] for name in names}
        for sid, values in fields.items()
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, [now, json.dumps(rows), Status.PENDING])
        return {sid: (before, status) for sid, before, status in cursor.fetchall()}


def _set(sid: int, checked: tuple[str, str], values: dict, now) -> tuple[str, str] | None:
    """`_compare_and_set` for one verdict, where the batch is not one statement (SQLite)."""
    rows = Verdict.objects.filter(
        solution_id=sid,
        status=Status.PENDING,
        fingerprint=checked[0],
        solution__fingerprint=checked[1],
    )
    before = rows.values_list("decided_status", flat=True).first()
    changed = {"fingerprint": checked[1], "decided_at": now, "decided_status": values["status"]}
    if before is None or not rows.update(**values | changed):
        return None
    return before, values["status"]


def _engine_verdict(
    problem: Problem, answer: Any, interrupt: tuple[type[BaseException], ...]
) -> dict:
    """The engine's word on one answer; bad input of any kind is an error verdict, not a crash,
    but an `interrupt` (the task's soft time limit) is left to the caller's turn."""
    fields: dict = {"engine_version": attention.ENGINE_VERSION}
    loose = tolerance_problems(
        rtol=problem.rtol, atol=problem.atol, digits=problem.digits, answer=answer
    )
    if loose:  # stored before the bound existed: never called right
        reasons = "; ".join(f"{key}: {message}" for key, message in loose.items())
        return fields | {"status": Status.ERROR, "message": f"tolerance too wide: {reasons}"}
    too_much = work_refusal(operation=problem.operation, inputs=problem.inputs, ask=problem.ask)
    if too_much and not attention.check(problem.operation, problem.inputs, problem.ask):
        return fields | {"status": Status.ERROR, "message": too_much.message}
    try:
        with attention.cpu_budget(settings.VERIFY_ENGINE_SECONDS):
            value = attention.evaluate(problem.operation, problem.inputs, problem.ask)
            result, value = answer_compare(problem=problem, value=value, answer=answer)
            drawn, unsound = instances_checked(problem=problem)
            ok = result.ok and not unsound
            warnings = mistake_warnings_of(problem, {0: value} | drawn) if ok else []
        if unsound:
            return fields | {"status": Status.ERROR, "message": unsound}
    except attention.EngineInputError as error:
        return fields | {"status": Status.ERROR, "message": str(error)}
    except attention.EngineOverTime as over:  # the run's own CPU time, whatever the load
        return fields | {"status": Status.ERROR, "message": f"{over} (VERIFY_ENGINE_SECONDS)"}
    except interrupt:
        raise  # the task's clock, not this check's: the caller sends it again
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
        "engine_value": jsonable(value),
        "message": result.message,
        "warnings": warnings,
    }


def _finite_or_none(number: float) -> float | None:
    """A shape mismatch has no meaningful error size (the engine says inf); store none."""
    return number if math.isfinite(number) else None
