"""What the commands report: each problem's verdict for its current content, and waiting for
the checks a command asked for."""

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from curriculum.models import Problem, Verdict

from ..drafts import is_draft
from .decide import verdict_decide
from .requests import Reverify
from .state import STALE, Status, with_verdict_state


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

    A problem with no solution, or no answer yet (a draft), has nothing to verify; it gets a row
    saying so, and never counts as verified.
    """
    problems = with_verdict_state(Problem.objects.filter(chapter__code=code)).order_by(
        "position", "id"
    )
    rows = []
    for problem in problems:
        solution = getattr(problem, "solution", None)
        if solution is None:
            rows.append(VerdictRow(problem.key, "unsolved", None, None, "it has no solution"))
            continue
        if is_draft(problem):
            rows.append(VerdictRow(problem.key, "unsolved", None, None, "it has no answer yet"))
            continue
        state = problem.verdict_state  # type: ignore[attr-defined]
        verdict = getattr(solution, "verdict", None) if state != STALE else None
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
    for solution_id in Reverify(code=code).execute():
        verdict_decide(solution_id=solution_id)
    return chapter_verdict_rows(code=code)


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
