"""A problem may ask at most LIMIT_PROBLEM_WORK of the verifier, a chapter's problems together
at most LIMIT_CHAPTER_WORK, and a problem make at most LIMIT_PROBLEM_VALUES numbers at a time,
known before anything runs.

The verifier evaluates a problem at instance 0 and, when its inputs are generated, at every
reader instance (1..PRACTICE_INSTANCES): the work is the engine's estimate for one evaluation
(`attention.evaluation_work`, from shapes alone) times that many. What one evaluation makes is
every output of the operation (its declared axes), whatever the problem asks of it; the value
asked for is compared, stored on the verdict and written as an answer, so it holds no more
numbers than a chapter may (LIMIT_CHAPTER_NUMBERS). Files, admin and the API refuse a problem
over a limit, with its path; one stored before gets an error verdict.
"""

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings

import attention


def evaluations(inputs: Any) -> int:
    """How many times the verifier evaluates a problem with these inputs."""
    return 1 + settings.PRACTICE_INSTANCES if attention.is_generated(inputs) else 1


def problem_work(*, operation: Any, inputs: Any) -> int | None:
    """The estimated work of verifying a problem; None when the engine cannot tell (inputs it
    refuses, which it reports itself)."""
    if not isinstance(operation, str):
        return None
    once = attention.evaluation_work(operation, inputs)
    return None if once is None else once * evaluations(inputs)


def chapter_work_refusal(problems: Iterable[tuple[Any, Any, Any]]) -> tuple[Any, str] | None:
    """The first of a chapter's problems, given as (where, operation, inputs), that takes their
    work together past LIMIT_CHAPTER_WORK, and why; None when none does."""
    work = 0
    for where, operation, inputs in problems:
        work += problem_work(operation=operation, inputs=inputs) or 0
        if work > settings.LIMIT_CHAPTER_WORK:
            return where, (
                f"verifying the chapter's problems to here needs about {work:.2g} units of "
                f"engine work, more than a chapter's may together (LIMIT_CHAPTER_WORK, "
                f"{settings.LIMIT_CHAPTER_WORK:.2g}): make their inputs smaller, or move problems "
                "to another chapter"
            )
    return None


@dataclass(frozen=True)
class Refusal:
    field: str  # "inputs" or "ask": what to change
    message: str


def work_refusal(
    *, operation: Any, inputs: Any, ask: Any, axes: attention.Outputs | None = None
) -> Refusal | None:
    """Why a problem asks too much of the verifier, naming the limit; None when it does not.
    For inputs and an ask `attention.check` has accepted; `axes`, the outputs' axes its check
    found (`attention.check_planned`), spares the engine reading them again."""
    work = problem_work(operation=operation, inputs=inputs)
    if work is None:
        return None
    if work > settings.LIMIT_PROBLEM_WORK:
        times = evaluations(inputs)
        each = (
            f" ({times} evaluations: instance 0 and {times - 1} for readers)" if times > 1 else ""
        )
        return Refusal(
            "inputs",
            f"verifying this problem needs about {work:.2g} units of engine work{each}, more "
            f"than LIMIT_PROBLEM_WORK ({settings.LIMIT_PROBLEM_WORK:.2g}): make its inputs "
            "smaller",
        )
    least = min(settings.LIMIT_PROBLEM_VALUES, settings.LIMIT_CHAPTER_NUMBERS)
    if attention.numbers_at_most(work // evaluations(inputs)) <= least:
        return None  # too little work to make that many numbers: no shapes need reading
    axes = axes if axes is not None else attention.output_axes(operation, inputs)
    return None if axes is None else _values_refusal(operation, axes, ask)


def _values_refusal(operation: str, axes: attention.Outputs, ask: Any) -> Refusal | None:
    made = sum(math.prod(n for _, n in shape) for shape in axes.values() if shape is not None)
    if made > settings.LIMIT_PROBLEM_VALUES:
        return Refusal(
            "inputs",
            f"one evaluation of this problem makes {made:,} numbers (every output of "
            f"{operation}), more than LIMIT_PROBLEM_VALUES ({settings.LIMIT_PROBLEM_VALUES:,}): "
            "make its inputs smaller",
        )
    shape = attention.shape_asked(axes, ask)
    if isinstance(shape, tuple) and (asked := math.prod(shape)) > settings.LIMIT_CHAPTER_NUMBERS:
        return Refusal(
            "ask",
            f"the value it asks for holds {asked:,} numbers, more than an answer may "
            f"(LIMIT_CHAPTER_NUMBERS, {settings.LIMIT_CHAPTER_NUMBERS:,}): ask for a part of "
            "it, or make its inputs smaller",
        )
    return None
