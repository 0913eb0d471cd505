"""Whether a relation between two computed sides holds, entry by entry: the rule a claim's
relation (``==``, ``<=``, ``<``, ``>=``, ``>``) and a property are decided by."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from attention.errors import ExpressionError
from attention.expression_parse import RELATIONS


def _number(value: Any) -> str:
    return f"{float(value):.10g}"


def holding(relation: str, a: np.ndarray, b: np.ndarray, *, rtol: float, atol: float) -> Any:
    """Entry by entry, whether ``a relation b`` holds (the rule ``holds`` states)."""
    with np.errstate(all="ignore"):
        if relation == "==":
            return np.abs(a - b) <= atol + rtol * np.abs(b)
        if relation == "<=":
            return a <= b + atol
        if relation == ">=":
            return a >= b - atol
        return a < b if relation == "<" else a > b


def holds(relation: str, left: Any, right: Any, *, rtol: float, atol: float) -> tuple[bool, str]:
    """Whether ``left relation right`` holds in every entry, and if not a message naming the
    first entry that fails. "==" allows |left - right| <= atol + rtol * |right|; "<=" and ">="
    allow atol of slack; "<" and ">" are strict."""
    if relation not in RELATIONS.values():
        raise ExpressionError(
            f"unknown relation {relation!r}; expected {', '.join(RELATIONS.values())}"
        )
    if not (math.isfinite(rtol) and math.isfinite(atol) and rtol >= 0 and atol >= 0):
        raise ExpressionError(f"tolerances must be finite and >= 0, got rtol={rtol}, atol={atol}")
    try:
        a, b = np.broadcast_arrays(
            np.asarray(left, dtype=np.float64), np.asarray(right, dtype=np.float64)
        )
    except (ValueError, TypeError):
        raise ExpressionError("the two sides do not broadcast to one shape") from None
    ok = holding(relation, a, b, rtol=rtol, atol=atol)
    failing = np.argwhere(~ok)
    if not len(failing):
        return True, ""
    first = tuple(int(i) for i in failing[0])
    where = f"at [{', '.join(str(i) for i in first)}]: " if first else ""
    l_value, r_value = a[first], b[first]
    message = f"{where}{_number(l_value)} {relation} {_number(r_value)} does not hold"
    if relation == "==":
        message += (
            f" (they differ by {abs(float(l_value) - float(r_value)):.3g}; "
            f"allowed {atol + rtol * abs(float(r_value)):.3g})"
        )
    elif relation in ("<=", ">="):
        message += f" (allowing {atol:.3g})"
    if ok.size > 1:
        message += f"; {len(failing)} of {ok.size} entries fail"
    return False, message
