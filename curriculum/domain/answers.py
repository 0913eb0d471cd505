"""Answers against a problem: its tolerance, its instances, and how an answer is written.

The verifier checks the author's answer at instance 0; readers' answers are checked at the
instance they practise on, with the same tolerance, through ``answer_check``.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np
from django.conf import settings

import attention
from curriculum.models import Problem


def tolerance_of(problem: Problem) -> dict[str, Any]:
    """The problem's comparison mode as ``attention.compare`` keywords."""
    if problem.digits is not None:
        return {"digits": problem.digits}
    return {"rtol": problem.rtol, "atol": problem.atol}


def tolerance_text(problem: Problem) -> str:
    """The tolerance as an author writes it in a file."""
    return ", ".join(f"{key}={value:g}" for key, value in tolerance_of(problem).items())


@dataclass(frozen=True)
class CheckResult:
    """One answer checked against one instance. Shapes are None for named values."""

    ok: bool
    message: str
    max_abs_error: float | None
    answer_shape: tuple[int, ...] | None
    engine_shape: tuple[int, ...] | None


def _shape(value: Any) -> tuple[int, ...] | None:
    if isinstance(value, dict):
        return None
    try:
        return tuple(np.shape(np.asarray(value, dtype=np.float64)))
    except (TypeError, ValueError):
        return None


def answer_check(*, problem: Problem, instance: int, answer: Any) -> CheckResult:
    """Whether ``answer`` is the engine's value for ``instance`` of ``problem``, within the
    problem's tolerance. Bad input of any kind is a failed check with a message, never a raise."""
    try:
        value = attention.evaluate(problem.operation, problem.inputs, problem.ask, instance)
        result = attention.compare(value, answer, **tolerance_of(problem))
    except attention.EngineInputError as error:
        return CheckResult(False, str(error), None, None, None)
    worst = result.max_abs_error if np.isfinite(result.max_abs_error) else None
    return CheckResult(result.ok, result.message, worst, _shape(answer), _shape(value))


def instances_error(*, problem: Problem) -> str:
    """Why a reader instance (1..PRACTICE_INSTANCES) of a generated problem cannot be
    computed, naming it; "" when all can, or when nothing is generated."""
    if not attention.is_generated(problem.inputs):
        return ""
    instances = range(1, settings.PRACTICE_INSTANCES + 1)
    return attention.instances_problem(problem.operation, problem.inputs, problem.ask, instances)
