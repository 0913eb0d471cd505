"""How loose a tolerance may be. One that would accept any answer (`rtol: 1e308`) is refused
wherever it is written (files, API, admin, the database's CHECK on rtol), and the verifier
never calls an answer right under one."""

import math
from collections.abc import Mapping
from typing import Any

MAX_RTOL = 0.1
ATOL_SHARE = 0.1  # atol at most this share of the answer's largest |value| ...
ATOL_FLOOR = 1e-6  # ... or this, whichever is larger: an answer of 0 still gets a little


def _scale(answer: Any) -> float:
    """The largest finite |number| anywhere in an answer (nested lists, named numbers)."""
    stack, largest = [answer], 0.0
    while stack:
        value = stack.pop()
        if type(value) is float:  # most leaves: no abstract-class checks for them
            if math.isfinite(value):
                largest = max(largest, abs(value))
        elif isinstance(value, Mapping):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            try:
                number = abs(float(value))
            except OverflowError:  # past float range: the answer's own check refuses it
                continue
            if math.isfinite(number):
                largest = max(largest, number)
    return largest


def atol_bound(answer: Any) -> float:
    return max(ATOL_SHARE * _scale(answer), ATOL_FLOOR)


def tolerance_problems(*, rtol: float, atol: float, answer: Any = None) -> dict[str, str]:
    """What is too loose, by key (rtol, atol); atol is judged against the answer when known."""
    problems = {}
    if rtol > MAX_RTOL:
        problems["rtol"] = (
            f"at most {MAX_RTOL:g}, got {rtol:g}: a wider tolerance accepts wrong answers"
        )
    if answer is not None and atol > (bound := atol_bound(answer)):
        problems["atol"] = (
            f"at most {bound:g} for this answer ({ATOL_SHARE:g} × its largest value, or "
            f"{ATOL_FLOOR:g}), got {atol:g}: a wider tolerance accepts wrong answers"
        )
    return problems
