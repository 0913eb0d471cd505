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
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Field
from django.utils import timezone

import attention
from curriculum.models import Chapter, Problem, Solution, Verdict

from .answers import answer_compare, instances_error
from .locks import chapter_lock, chapters_lock
from .rows import ROWS, one_statement, rows_upsert
from .tolerances import tolerance_problems
from .verification_dispatch import (
    LAST_LEVEL,
    Slice,
    backlog_level,
    verdict_enqueue_now,
    verdicts_enqueue_now,
)
from .work_budget import work_refusal

Status = Verdict.Status
logger = logging.getLogger(__name__)


def chapter_touch(*, chapter_id: int) -> None:
    """What readers see of a working copy changed: move its version (ETag, Last-Modified)."""
    Chapter.objects.filter(pk=chapter_id).update(updated_at=timezone.now())


def _chapters_touch(chapter_ids: set[int]) -> None:
    if chapter_ids:
        Chapter.objects.filter(pk__in=chapter_ids).update(updated_at=timezone.now())


def fingerprint(problem: Problem, solution: Solution) -> str:
    return fingerprint_of(
        operation=problem.operation,
        inputs=problem.inputs,
        ask=problem.ask,
        rtol=problem.rtol,
        atol=problem.atol,
        digits=problem.digits,
        answer=solution.answer,
    )


def fingerprint_of(
    *, operation: str, inputs: Any, ask: Any, rtol: float, atol: float, digits: int | None,
    answer: Any,
) -> str:
    """The fingerprint of a problem's checked content and its answer, as `fingerprint` gives
    it, from values not (yet) in model objects: a bulk writer's clean rows."""
    checked = {
        "operation": operation,
        "inputs": inputs,
        "ask": ask,
        "rtol": rtol,
        "atol": atol,
        "answer": answer,
    }
    if digits is not None:  # rtol/atol then check nothing; problems older than the
        del checked["rtol"], checked["atol"]  # digits mode keep the fingerprints they had
        checked["digits"] = digits
    text = json.dumps(checked, sort_keys=True)
    if _STORED_OTHERWISE.search(text):  # rare numbers PostgreSQL gives back in another form
        text = json.dumps(_as_stored(checked), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


_STORED_OTHERWISE = re.compile(r"e\+|-0\.0(?![0-9])")
"""An exponent (1e+16) or a negative zero in the JSON text; -0.05 is written as it is stored."""


def _as_stored(value: Any) -> Any:
    """``value`` as it reads back from PostgreSQL's jsonb, so that content fingerprints the same
    before it is saved and after: jsonb keeps no negative zero, and writes 1e+16 (Python's form
    of every float from 10**16) as the integer 10000000000000000."""
    if isinstance(value, dict):
        return {key: _as_stored(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_stored(item) for item in value]
    if isinstance(value, float):
        if value == 0:
            return 0.0
        if "e+" in (written := repr(value)):
            return int(Decimal(written))
    return value


CHECKED = (
    "answer",
    "problem__chapter_id",
    "problem__operation",
    "problem__inputs",
    "problem__ask",
    "problem__rtol",
    "problem__atol",
    "problem__digits",
)
"""The columns a check reads (the fingerprint's, and the chapter it locks): loading a batch
reads no statement, no steps and no earlier engine value."""


def _checkable():
    return Solution.objects.select_related("problem").only(*CHECKED)


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


def _pending_fields(current: str, now) -> dict[str, Any]:
    """A request clears every field a decision writes (DECIDED) and its run count."""
    return DECIDED | {
        "status": Status.PENDING,
        "fingerprint": current,
        "requested_at": now,
        "attempts": 0,
    }


def _verdict_pending(*, solution: Solution, force: bool) -> bool:
    current = fingerprint(solution.problem, solution)
    verdict = Verdict.objects.filter(solution=solution).first()
    unchanged = verdict is not None and verdict.fingerprint == current
    if unchanged and verdict is not None and verdict.status != Status.PENDING and not force:
        return False
    Verdict.objects.update_or_create(
        solution=solution, defaults=_pending_fields(current, timezone.now())
    )
    chapter_touch(chapter_id=solution.problem.chapter_id)
    verdict_enqueue(solution_id=solution.pk, checked=current)
    return True


def verdicts_request(*, asked: list[tuple[int, int, str]]) -> list[int]:
    """Mark many verdicts pending at once; their checks go in batches after commit.

    `asked` holds each solution's id, its chapter's id and the fingerprint of its content now.
    One read and one write for all the verdicts, each chapter locked (in primary-key order)
    and touched once. Same rule as `verdict_request` per solution. Returns the ids of the
    solutions whose check was asked for.
    """
    if not asked:
        return []
    with transaction.atomic():
        chapters_lock(chapter_ids={chapter_id for _, chapter_id, _ in asked})
        decided, waiting = _verdicts_of({chapter_id for _, chapter_id, _ in asked})
        checks = [(sid, current) for sid, _, current in asked if decided.get(sid) != current]
        _pending_upsert(checks, timezone.now())
        todo = {solution_id for solution_id, _ in checks}
        _chapters_touch({chapter_id for sid, chapter_id, _ in asked if sid in todo})
        level = backlog_level(waiting)  # behind what these chapters already wait for
        transaction.on_commit(lambda: verdicts_enqueue_now(checks=checks, level=level))
    return [solution_id for solution_id, _ in checks]


def verdicts_force(*, solution_ids: Iterable[int], level: int = 0) -> list[int]:
    """Ask again for these solutions whatever their verdicts say ("Verify again", an engine
    upgrade); the ids asked for, their checks sent in batches after commit, from `level` on.

    A solution that has a verdict row is not read: the row goes back to pending for the
    fingerprint it holds, and the worker checks the content it then finds (`verdicts_decide`).
    Only solutions never asked for before are read and fingerprinted, before the chapters are
    locked: a pending row's fingerprint only names the request, so one made stale by an edit
    meanwhile is still decided for the content the worker finds.
    """
    found = list(
        Solution.objects.filter(pk__in=list(solution_ids)).values_list(
            "pk", "problem__chapter_id", "verdict"
        )
    )
    if not found:
        return []
    chapter_of = {solution_id: chapter_id for solution_id, chapter_id, _ in found}
    never = [solution_id for solution_id, _, verdict in found if verdict is None]
    new = [(s.pk, fingerprint(s.problem, s)) for s in _checkable().filter(pk__in=never)]
    with transaction.atomic():
        chapters_lock(chapter_ids=set(chapter_of.values()))
        level = max(level, backlog_level(_waiting(set(chapter_of.values()))))
        now = timezone.now()
        checks = _pending_again(list(chapter_of), now)
        again = dict(checks)  # rows made meanwhile are among them
        new = [(solution_id, checked) for solution_id, checked in new if solution_id not in again]
        _pending_upsert(new, now)
        checks += new
        _chapters_touch({chapter_of[solution_id] for solution_id, _ in checks})
        transaction.on_commit(lambda: verdicts_enqueue_now(checks=checks, level=level))
    return [solution_id for solution_id, _ in checks]


def _verdicts_of(chapter_ids: set[int]) -> tuple[dict[int, str], int]:
    """The fingerprint each solution of these chapters has a decided (not pending) verdict for,
    and how many of their checks still wait: read by chapter, not by a list of every id."""
    decided, waiting = {}, 0
    rows = Verdict.objects.filter(solution__problem__chapter_id__in=chapter_ids)
    for solution_id, checked, status in rows.values_list("solution_id", "fingerprint", "status"):
        if status == Status.PENDING:
            waiting += 1
        else:
            decided[solution_id] = checked
    return decided, waiting


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
    return list(same), [_db_value(name, value) for name, value in same.items()]


def _column(name: str) -> Field:
    field = Verdict._meta.get_field(name)
    assert isinstance(field, Field)
    return field


def _column_type(name: str) -> str:
    return str(_column(name).db_type(connection))


def _db_value(name: str, value: Any) -> Any:
    return _column(name).get_db_prep_save(value, connection)


def verdict_enqueue(*, solution_id: int, checked: str) -> None:
    """After commit, so the worker never reads content older than what asked for the check."""
    transaction.on_commit(lambda: verdict_enqueue_now(solution_id=solution_id, checked=checked))


def jsonable(value):
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def verdict_decide(*, solution_id: int, checked: str | None = None) -> str | None:
    """Recompute one pending solution with the engine and record the verdict.

    `checked` is the fingerprint the check was requested for: a task sent before an edit finds
    another fingerprint pending and does nothing (the edit sent its own). Returns the status
    written, or None when there was nothing to decide (already decided, deleted, or edited).
    """
    return verdicts_decide(checks=[(solution_id, checked)]).get(solution_id)


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
        _checkable()
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
                fields[solution.pk] = _engine_verdict(solution.problem, solution.answer)
            except SoftTimeLimitExceeded:
                run.interrupted = True
                left.append((solution.pk, requested))
                continue
            fields[solution.pk]["duration_ms"] = (time.perf_counter() - started) * 1000
    fingerprints = {
        solution.pk: (requested, fingerprint(solution.problem, solution))
        for solution, requested in due
        if solution.pk in fields
    }
    written = _verdicts_write(fingerprints, fields, chapter_of)
    if left:
        _attempts_add({sid: chapter_of[sid] for sid, _ in left}, -1)
        run.leave(left)
    return written


def _attempts_add(chapter_of: dict[int, int], step: int) -> None:
    """Count (1) or take back (-1) a run of these pending checks, their chapters locked first."""
    with transaction.atomic():
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


def _verdicts_write(
    checked: dict[int, tuple[str, str]], fields: dict[int, dict], chapter_of: dict[int, int]
) -> dict[int, str]:
    """Compare-and-set per verdict, all in one transaction; each chapter touched once.
    `checked` holds each solution's fingerprint requested and that of the content checked."""
    if not fields:
        return {}
    now = timezone.now()
    with transaction.atomic():
        # the chapter rows before the verdict rows, in the order every writer takes them, so a
        # decision never deadlocks with a save, an import or a re-verification of the chapter
        chapters_lock(chapter_ids={chapter_of[solution_id] for solution_id in fields})
        written = _compare_and_set(checked, {sid: DECIDED | v for sid, v in fields.items()}, now)
        _chapters_touch({chapter_of[solution_id] for solution_id in written})
    return written


def _compare_and_set(
    checked: dict[int, tuple[str, str]], fields: dict[int, dict], now
) -> dict[int, str]:
    """Write each verdict, with the fingerprint of what was checked, only while the one
    requested is still pending: one UPDATE for the whole batch; returns the statuses written."""
    if not one_statement():
        return {
            sid: values["status"]
            for sid, values in fields.items()
            if Verdict.objects.filter(
                solution_id=sid, status=Status.PENDING, fingerprint=checked[sid][0]
            ).update(**values | {"fingerprint": checked[sid][1], "decided_at": now})
        }
    names = [name for name in DECIDED if name != "decided_at"]
    q = connection.ops.quote_name
    columns = ", ".join(f"{q(name)} = d.{name}" for name in ("fingerprint", *names))
    record = ", ".join(f"{name} {_column_type(name)}" for name in names)
    sql = (
        f"UPDATE {q(Verdict._meta.db_table)} AS v SET {q('decided_at')} = %s, {columns} "
        f"FROM {ROWS} AS d(solution_id integer, requested varchar, fingerprint varchar, {record}) "
        "WHERE v.solution_id = d.solution_id AND v.status = %s AND v.fingerprint = d.requested "
        "RETURNING v.solution_id, v.status"
    )
    rows = [
        {"solution_id": sid, "requested": checked[sid][0], "fingerprint": checked[sid][1]}
        | {name: values[name] for name in names}
        for sid, values in fields.items()
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, [now, json.dumps(rows), Status.PENDING])
        return dict(cursor.fetchall())


def _engine_verdict(problem: Problem, answer: Any) -> dict:
    """The engine's word on one answer; bad input of any kind is an error verdict, not a crash."""
    fields: dict = {"engine_version": attention.ENGINE_VERSION}
    loose = tolerance_problems(
        rtol=problem.rtol, atol=problem.atol, digits=problem.digits, answer=answer
    )
    if loose:  # stored before the bound existed: never called right
        reasons = "; ".join(f"{key}: {message}" for key, message in loose.items())
        return fields | {"status": Status.ERROR, "message": f"tolerance too wide: {reasons}"}
    too_much = work_refusal(operation=problem.operation, inputs=problem.inputs)
    if too_much and not attention.check(problem.operation, problem.inputs, problem.ask):
        return fields | {"status": Status.ERROR, "message": too_much}
    try:
        with attention.cpu_budget(settings.VERIFY_ENGINE_SECONDS):
            value = attention.evaluate(problem.operation, problem.inputs, problem.ask)
            result = answer_compare(problem=problem, value=value, answer=answer)
            unsound = instances_error(problem=problem)
        if unsound:
            return fields | {"status": Status.ERROR, "message": unsound}
    except attention.EngineInputError as error:
        return fields | {"status": Status.ERROR, "message": str(error)}
    except attention.EngineOverTime as over:  # the run's own CPU time, whatever the load
        return fields | {"status": Status.ERROR, "message": f"{over} (VERIFY_ENGINE_SECONDS)"}
    except SoftTimeLimitExceeded:
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
    """Send again every overdue pending check, in batches; returns how many were sent.

    A check whose runs keep dying is sent too: its next run records it as an error. An overdue
    check may only be waiting behind a backlog: the sweep sends at the last level, so what it
    resends never overtakes what others asked for."""
    return verdicts_enqueue_now(checks=verdicts_overdue(older_than=older_than), level=LAST_LEVEL)


def chapter_verify(*, code: str) -> list[int]:
    """Ask again for every solution of a chapter (forced); the ids to wait for.

    Raises Chapter.DoesNotExist for an unknown code.
    """
    chapter = Chapter.objects.get(code=code)
    return verdicts_force(
        solution_ids=Solution.objects.filter(problem__chapter=chapter).values_list("pk", flat=True)
    )


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

    @property
    def verified(self) -> bool:
        """The one test every report applies: its answer verified for its current content (a
        problem with no solution, a pending, stale, mismatched or failed check is not)."""
        return self.state == Status.VERIFIED


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


def solutions_verify(*, solution_ids: list[int]) -> int:
    """Ask again (forced) for these solutions, across chapters; returns how many were sent."""
    return len(verdicts_force(solution_ids=solution_ids))


def chapter_verify_now(*, code: str) -> list[VerdictRow]:
    """Check every problem of a chapter in this process, as the worker would: a dry run's
    rollback then discards the verdicts, and the tasks it would have sent."""
    for solution_id in chapter_verify(code=code):
        verdict_decide(solution_id=solution_id)
    return chapter_verdict_rows(code=code)
