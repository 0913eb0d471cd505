"""Answers against a problem: its tolerance, its instances, and how an answer is written.

The verifier checks the author's answer at instance 0, at the problem's tolerance; readers'
answers are checked at the instance they practise on, by the reader's rule (`judging`: the
tolerance, or the figures a page prints), through ``answer_check``.
"""

import enum
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.conf import settings

import attention
from attention.answers import answer_problems
from curriculum.models import Problem

from .hints import shape_words
from .instance_values import engine_salt, instance_judged
from .judging import judged_words, reader_compare, tolerance_of
from .mistakes import mistake_warnings
from .placeholders import SHOWN_DIGITS
from .tolerances import MIN_DIGITS


def answer_compare(
    *, problem: Problem, value: Any, answer: Any, instance: int = 0
) -> tuple["attention.Comparison", Any]:
    """The engine's value against an author's answer, to the problem's tolerance, an entry
    taken as 0 only where the engine finds it float noise: the comparison verdicts make, and
    the value it held the answer against (`attention.settled`: the extended run's, where it is
    made, so float64's own roundings never decide a verdict)."""
    held, zero, unsure = attention.settled(
        problem.operation, problem.inputs, problem.ask, value, instance, salt=engine_salt()
    )
    result = attention.compare(held, answer, **tolerance_of(problem), zero=zero, unsure=unsure)
    return result, held


@dataclass(frozen=True)
class CheckResult:
    """One answer checked against one instance: right or not, and a message that says nothing
    of the engine's value (no error size, no entry of it). Shapes are None for named values."""

    ok: bool
    message: str
    answer_shape: tuple[int, ...] | None
    expected_shape: tuple[int, ...] | None
    read: bool = True  # False: the answer is not numbers at all (the message says why)
    value: Any = None  # the engine's value, for feedback on the mistake; never shown
    decided: bool = True  # False: the engine cannot settle this instance, so nothing is judged


UNSETTLED = (
    "this instance cannot be checked: the engine cannot settle its value to the tolerance the "
    "exercise asks, so no answer is right or wrong here; try another instance"
)
"""What a reader is told where the engine refuses an instance's value (its authors are told
why, in the problem's verdict): never "not right"."""


def _shape(value: Any) -> tuple[int, ...] | None:
    if isinstance(value, dict):
        return None
    try:
        return tuple(np.shape(np.asarray(value, dtype=np.float64)))
    except (TypeError, ValueError):
        return None


NAMED = attention.NAMED_OUTPUT
"""The asked output is a mapping of named values (attention_cost's terms)."""


def expected_shape(*, problem: Problem, instance: int) -> tuple[int, ...] | str | None:
    """The shape the asked output has, from the operation's declared axes (no engine run):
    NAMED for a mapping, None when the inputs do not tell (the engine's error then says why)."""
    return attention.output_shape(problem.operation, problem.inputs, problem.ask, instance)


class Layout(enum.Enum):
    """How typed numbers were laid out, which decides the shape they are read in. The practice
    page's rule: numbers separated by spaces, commas or new lines, one matrix row per line. So
    one number per line is a vector unless a matrix is asked, and then each line is a row: a
    column typed for a 1 × 2 matrix is 2 × 1, the wrong shape, never the row it was not."""

    WRITTEN = "written"  # JSON, or rows of several numbers: the shape as written
    LINE = "line"  # one line: takes the asked shape when its count fits (a matrix typed flat)
    COLUMN = "column"  # one number per line: a vector, or a matrix's rows when one is asked


def _reshaped(values: list, shape: tuple[int, ...]) -> Any:
    if len(shape) <= 1:
        return values if shape else values[0]
    step = len(values) // shape[0]
    return [_reshaped(values[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0])]


@dataclass(frozen=True)
class Reading:
    """An answer as read before anything judges it: the numbers in the asked shape, and why it
    cannot be judged ("" when it can). `said` tells the reader what was read."""

    answer: Any
    shape: tuple[int, ...] | None
    expected: tuple[int, ...] | None
    said: str
    refusal: str = ""
    numbers: bool = True  # False: not numbers at all


def _said(answer: Any, shape: tuple[int, ...] | None) -> str:
    if isinstance(answer, dict):
        return f"named values: {', '.join(map(str, answer))}"
    return _numbers_said(shape)


def _numbers_said(shape: tuple[int, ...] | None) -> str:
    """A shape in words: "a single number", "a matrix of 2 × 3 numbers"."""
    if not shape:
        return "a single number"
    names = {1: "a vector of", 2: "a matrix of"}
    noun = "number" if math.prod(shape) == 1 else "numbers"
    return f"{names.get(len(shape), 'an array of')} {shape_words(shape)} {noun}"


def answer_read(
    *, problem: Problem, instance: int, answer: Any, layout: Layout = Layout.WRITTEN
) -> Reading:
    """Read `answer` as the asked output, as its `layout` says: one line of numbers takes the
    asked shape when its count fits it, and one number per line is a matrix's rows when a
    matrix is asked; numbers of another shape, or no numbers, are refused. No engine run."""
    if unread := answer_problems(answer):
        return Reading(answer, None, None, "", "; ".join(unread), numbers=False)
    expected = expected_shape(problem=problem, instance=instance)
    shown = expected if isinstance(expected, tuple) else None
    if shown and layout is Layout.LINE and not isinstance(answer, list | dict):
        answer = [answer]  # one number on its line, for a vector or matrix of one: its shape
    if shown is not None and isinstance(answer, list):
        if layout is Layout.LINE and len(answer) == math.prod(shown):
            answer = _reshaped(answer, shown)
        elif layout is Layout.COLUMN and len(shown) > 1:
            answer = [[entry] for entry in answer]
    shape = _shape(answer)
    said = _said(answer, shape)
    if expected == NAMED and not isinstance(answer, dict):
        return Reading(answer, shape, None, said, "this problem asks for named values")
    if shown is not None and (isinstance(answer, dict) or shape != shown):
        refusal = f"the answer is {_numbers_said(shown)}"
        return Reading(answer, shape, shown, said, refusal)
    return Reading(answer, shape, shown, said)


def answer_check(*, problem: Problem, instance: int, answer: Any) -> CheckResult:
    """Whether ``answer`` is the engine's value for ``instance`` of ``problem`` by the reader's
    rule (`judging`: within the tolerance, or to the figures a page prints). The answer is read
    first (`answer_read`): one that cannot be judged is refused without an engine run, and
    nothing of the engine's value is said. Bad input of any kind is a failed check with a
    message, never a raise."""
    reading = answer_read(problem=problem, instance=instance, answer=answer)
    if not reading.numbers:
        return CheckResult(False, reading.refusal, None, None, read=False)
    if reading.refusal:
        return CheckResult(False, reading.refusal, reading.shape, reading.expected)
    try:
        # made once for every reader (the check was counted against its reader's rate)
        value, zero, unsure = instance_judged(
            operation=problem.operation, inputs=problem.inputs, ask=problem.ask, instance=instance
        )
        result = reader_compare(value, reading.answer, tolerance_of(problem), zero, unsure)
    except attention.EngineInputError:
        return CheckResult(False, UNSETTLED, reading.shape, reading.expected, decided=False)
    refused = f"not the engine's value {judged_words(problem)}"  # which rule, not how far
    return CheckResult(
        result.ok, "" if result.ok else refused, reading.shape, reading.expected, value=value
    )


def instances_checked(*, problem: Problem) -> tuple[dict[int, Any], str]:
    """The engine's value at each reader instance (1..PRACTICE_INSTANCES) of a generated
    problem, and why one cannot be computed, naming it ("" when all can, or when nothing is
    generated: then no values)."""
    if not attention.is_generated(problem.inputs):
        return {}, ""
    instances = range(1, settings.PRACTICE_INSTANCES + 1)
    values, why = attention.instances_values(
        problem.operation, problem.inputs, problem.ask, instances
    )
    for instance, value in values.items():  # held as instance 0 is, or refused as it would be
        try:
            attention.settled(
                problem.operation, problem.inputs, problem.ask, value, instance, engine_salt()
            )
        except attention.EngineInputError as error:
            return values, f"instance {instance}: {error}"
    return values, why


def mistake_warnings_of(problem: Problem, values: dict[int, Any]) -> list[str]:
    """The verifier's warnings on a problem whose answer is right (`values`: the engine's at
    instance 0 and each reader instance, as the verifier computed them): the misconceptions a
    reader's answer cannot be told from the right answer by."""
    shown = {
        "operation": problem.operation,
        "inputs": problem.inputs,
        "ask": problem.ask,
        "tolerance": tolerance_of(problem),
    }
    return mistake_warnings(shown, values)


MAX_DERIVED_FIGURES = 8
"""More significant figures than this were copied from a machine, not derived by a person."""

EXACT_FIGURES = 2
"""A number of one or two figures (0.5, 0.25, 3) is taken as exact, not as a precision."""


def _numbers(answer: Any) -> list[float]:
    values = answer.values() if isinstance(answer, dict) else [answer]
    flat: list[float] = []
    for value in values:
        try:
            flat += np.asarray(value, dtype=np.float64).ravel().tolist()
        except (TypeError, ValueError, OverflowError):
            return []  # not numbers: the answer's own check reports it
    return [x for x in flat if np.isfinite(x)]


def written_figures(number: float) -> int:
    """Significant figures as written (YAML and JSON keep the shortest form: 0.2689 is 4)."""
    mantissa = repr(float(number)).lower().split("e")[0].lstrip("-")
    whole, _, fraction = mantissa.partition(".")
    fraction = "" if fraction == "0" else fraction
    figures = (whole + fraction).lstrip("0")
    return max(len(figures if fraction else figures.rstrip("0")), 1)


def answer_figures(answer: Any) -> dict[float, int]:
    """Each number of an answer that is not whole, with the figures it is written to: what
    `default_digits` and `answer_lint` judge (a file's import reads them once for both)."""
    return {x: written_figures(x) for x in _numbers(answer) if not float(x).is_integer()}


DEFAULT_TOLERANCE_WORDS = (
    f"the significant figures the answer is written to, from {MIN_DIGITS} to {SHOWN_DIGITS} "
    f"({SHOWN_DIGITS} while there is no answer yet or it is whole numbers)"
)
"""The one default tolerance, for a file, the API and admin alike (`default_digits`)."""


def default_digits(answer: Any, figures: dict[float, int] | None = None) -> int:
    """A problem that names no tolerance checks its answer to the figures it is written to,
    from 3 up to the SHOWN_DIGITS a reader page shows: a hand-derived 0.2689 is checked to 4,
    0.090031 to 5, a copied 16-digit value to 6, and 0.5 to 3 (DEFAULT_TOLERANCE_WORDS)."""
    figures = answer_figures(answer) if figures is None else figures
    if not figures:  # no answer yet, or whole numbers: exact at any precision
        return SHOWN_DIGITS
    return min(max(MIN_DIGITS, *figures.values()), SHOWN_DIGITS)


def answer_lint(
    *,
    answer: Any,
    digits: int | None,
    rtol: float,
    atol: float,
    figures: dict[float, int] | None = None,
) -> list[str]:
    """Warnings, not errors: a tolerance tighter than the answer is written to, and an answer
    with more figures than a person derives (copying the engine's digits proves nothing)."""
    figures = answer_figures(answer) if figures is None else figures
    if not figures:
        return []
    most = max(figures.values())
    warnings = []
    if most > MAX_DERIVED_FIGURES:
        warnings.append(
            f"the answer carries {most} significant figures, more than a person derives: write "
            "it to the figures you worked out (4 to 6) and set tolerance digits to match"
        )
    elif most > EXACT_FIGURES and digits is not None and most < digits:
        warnings.append(
            f"the answer is written to {most} significant figures but the tolerance asks for "
            f"{digits}: set tolerance {{digits: {most}}}, or write the answer to {digits}"
        )
    elif most > EXACT_FIGURES and digits is None:
        for x, shown in figures.items():
            half_unit = 0.5 * 10.0 ** (np.floor(np.log10(abs(x))) - shown + 1)
            if shown > EXACT_FIGURES and atol + rtol * abs(x) < half_unit:
                warnings.append(
                    f"the tolerance (rtol={rtol:g}, atol={atol:g}) is tighter than the answer is "
                    f"written: {x!r} stands for anything within {half_unit:.1g}; use "
                    f"tolerance {{digits: {shown}}}"
                )
                break
    return warnings


def solution_lint(*, solution: Any) -> list[str]:
    """``answer_lint`` for a stored solution, with its problem's tolerance."""
    problem = solution.problem
    return answer_lint(
        answer=solution.answer, digits=problem.digits, rtol=problem.rtol, atol=problem.atol
    )
