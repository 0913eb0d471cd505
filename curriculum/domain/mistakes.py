"""Feedback on a wrong answer: the mistake that gives it, when one does.

Two kinds. An author's feedback names a specific wrong answer to instance 0 (the printed
numbers). The engine's misconceptions (`attention.misconception_values`: each operation's
common mistakes, computed the mistaken way) name whatever a reader's numbers come from, on any
instance. Answers are told apart by the rule a reader's answer is judged by (`judging`: the
tolerance, or the figures a page prints). A misconception whose value that rule takes for the
right answer would tell a reader who is right that they are wrong, or one who made it that they
are right: it is never offered at that instance, and the verifier warns the author of it
(`mistake_warnings`).

Misconception values are made once per problem and instance for every reader, kept in the
shared cache beside the engine's own value, and never more work than LIMIT_MISTAKE_WORK.
"""

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache

import attention

from .instance_values import VALUE_SECONDS, value_key
from .judging import reader_right, readers_right, tolerance_of
from .placeholders import SHOWN_DIGITS


@dataclass(frozen=True)
class Mistake:
    name: str  # a misconception's name, or "feedback-N" for the author's Nth
    says: str  # Markdown (an author's) or plain words (the engine's)


def _offered(problem: dict[str, Any], instance: int, right: Any) -> list[tuple[str, str, Any]]:
    """(name, says, value) of each misconception a reader's answer is told from `right` by."""
    operation, inputs, ask = problem["operation"], problem["inputs"], problem["ask"]
    work = attention.misconception_work(operation, inputs, instance)
    if work is None or work > settings.LIMIT_MISTAKE_WORK:
        return []
    try:
        with attention.cpu_budget(settings.VERIFY_ENGINE_SECONDS):
            found = attention.misconception_values(operation, inputs, ask, instance)
    except (attention.EngineInputError, attention.EngineOverTime):
        return []
    return [
        (m.name, m.says, _listed(value))
        for m, value, same in _taken_for_right(found, right, tolerance_of(problem))
        if not same
    ]


def _taken_for_right(
    found: list[tuple[Any, Any]], right: Any, tolerance: dict[str, Any]
) -> list[tuple[Any, Any, bool]]:
    """Each misconception, its value, and whether the reader's rule takes it for ``right``."""
    same = readers_right(right, [value for _, value in found], tolerance)
    return [(m, value, taken) for (m, value), taken in zip(found, same, strict=True)]


def _listed(value: Any) -> Any:
    return value if isinstance(value, dict) else value.tolist()


def offered_mistakes(
    problem: dict[str, Any], instance: int, right: Any
) -> list[tuple[str, str, Any]]:
    """The misconceptions a reader's answer at `instance` is held against (cached)."""
    key = value_key(
        operation=problem["operation"],
        inputs=problem["inputs"],
        ask=problem["ask"],
        instance=instance,
    )
    rule = sorted(tolerance_of(problem).items()) + [("shown", SHOWN_DIGITS)]
    key = f"mistakes:{key}:{':'.join(f'{name}={value!r}' for name, value in rule)}"
    found = cache.get(key)
    if found is None:
        found = _offered(problem, instance, right)
        cache.set(key, found, timeout=VALUE_SECONDS)
    return found


def mistake_named(
    *, problem: dict[str, Any], instance: int, answer: Any, right: Any
) -> Mistake | None:
    """The mistake that gives `answer`, a wrong answer to `instance` whose right value is
    `right`: the author's feedback first (instance 0 only), then the engine's misconceptions.
    None for an answer the reader's rule takes for `right`: no mistake is named for it."""
    tolerance = tolerance_of(problem)
    if reader_right(right, answer, tolerance):
        return None
    if instance == 0:
        for i, given in enumerate(problem.get("feedback") or [], start=1):
            if reader_right(given["answer"], answer, tolerance):
                return Mistake(f"feedback-{i}", given["says"])
    for name, says, value in offered_mistakes(problem, instance, right):
        if reader_right(value, answer, tolerance):
            return Mistake(name, says)
    return None


def mistake_warnings(problem: dict[str, Any], values: dict[int, Any]) -> list[str]:
    """For the author: each misconception the reader's rule cannot tell from the right answer,
    by instance (`values`: the engine's right value at each instance checked)."""
    operation, inputs, ask = problem["operation"], problem["inputs"], problem["ask"]
    tolerance = tolerance_of(problem)
    warnings = []
    for instance, right in values.items():
        work = attention.misconception_work(operation, inputs, instance)
        if work is None or work > settings.LIMIT_MISTAKE_WORK:
            return [
                f"misconception feedback is not offered: computing it needs more than "
                f"LIMIT_MISTAKE_WORK ({settings.LIMIT_MISTAKE_WORK:.2g}) of engine work"
            ]
        found = attention.misconception_values(operation, inputs, ask, instance)
        for m, _, same in _taken_for_right(found, right, tolerance):
            if same:
                warnings.append(
                    f"instance {instance}: the misconception {m.name!r} ({m.says}) gives the "
                    f"right answer at this tolerance, or to the {SHOWN_DIGITS} significant "
                    "figures a page prints; its feedback is not offered there"
                )
    return warnings
