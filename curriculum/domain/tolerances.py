"""How loose a tolerance may be: never looser than the engine's own floor (`attention.compare`:
half a unit in each entry's third significant figure, an exact 0 answered 0, counts exact).

The engine holds every comparison to that floor whatever is stored; these bounds refuse, where
a tolerance is written (files, API, admin, the database's CHECKs), one that says it is looser,
so what an author reads is what is checked.
"""

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from attention.compare import MIN_FIGURES, half_unit, zero_bound
from attention.tiny import EXACT_FLOATS, SMALLEST

from .placeholders import MAX_DIGITS

MIN_DIGITS = MIN_FIGURES
FLOOR_WORDS = f"never looser than {MIN_DIGITS} significant figures"
"""The floor in words, wherever a tolerance stated as rtol and atol is said (`tolerance_words`,
admin's help): it binds whatever they say."""
MAX_RTOL = 5e-4
"""rtol x |e| stays within half a unit in the third figure of any e (10**m <= |e| < 10**(m+1):
half a unit is 5e-3 x 10**m, more than 5e-4 x |e|)."""


def _nonzero_entries(answer: Any) -> np.ndarray:
    """Every entry of an answer that the engine would not take as an exact 0, flat."""
    values = answer.values() if isinstance(answer, Mapping) else [answer]
    parts = []
    for value in values:
        try:
            entries = np.asarray(value, dtype=np.float64).ravel()
        except (TypeError, ValueError, OverflowError):
            continue  # not numbers: the answer's own check says so
        entries = entries[np.isfinite(entries)]
        # below float64's normal range an answer is refused (`attention.answer_problems`); one
        # stored before that rule has no third figure to bound
        sizes = np.abs(entries)
        parts.append(entries[(sizes > zero_bound(entries)) & (sizes >= SMALLEST)])
    return np.concatenate(parts) if parts else np.empty(0)


def _has_numbers(answer: Any) -> bool:
    values = answer.values() if isinstance(answer, Mapping) else [answer]
    for value in values:
        try:
            if np.asarray(value, dtype=np.float64).size:
                return True
        except (TypeError, ValueError, OverflowError):
            continue
    return False


def atol_bound(answer: Any, rtol: float) -> float | None:
    """The widest atol (to 3 figures, rounded down) that with ``rtol`` keeps every nonzero
    entry of ``answer`` within half a unit in its third significant figure; 0 for an answer of
    zeros alone (they are exact: a wider atol would say otherwise); None for no numbers."""
    entries = _nonzero_entries(answer)
    if not entries.size:
        return 0.0 if _has_numbers(answer) else None
    widest = np.min(half_unit(entries, MIN_FIGURES) - min(rtol, MAX_RTOL) * np.abs(entries))
    unit = 10.0 ** (math.floor(math.log10(widest)) - 2)  # widest > 0: rtol is at most MAX_RTOL
    return float(f"{math.floor(widest / unit) * unit:.3g}")


def tolerance_problems(
    *, rtol: float, atol: float, digits: int | None = None, answer: Any = None
) -> dict[str, str]:
    """What is too loose, by key (digits, or rtol and atol); atol is judged against the answer
    when it is known."""
    if digits is not None:
        span = f"from {MIN_DIGITS} to {MAX_DIGITS}, got {digits}"
        if digits < MIN_DIGITS:
            why = "fewer significant figures accept answers a reader would call wrong (0.5 for 1)"
            return {"digits": f"{span}: {why}"}
        return {"digits": span} if digits > MAX_DIGITS else {}
    problems = {}
    if rtol > MAX_RTOL:
        problems["rtol"] = (
            f"at most {MAX_RTOL:g}, got {rtol:g}: a wider rtol accepts answers wrong in their "
            "third significant figure"
        )
    bound = None if answer is None else atol_bound(answer, rtol)
    if bound is not None and atol > bound:
        problems["atol"] = (
            f"at most {bound:g} for this answer, got {atol:g}: with rtol "
            f"{min(rtol, MAX_RTOL):g}, a wider atol accepts an entry beyond half a unit in its "
            "third significant figure"
        )
    return problems


def tolerance_words(tolerance: Mapping[str, Any]) -> str:
    """How an answer is compared, in words, from a tolerance as a file writes it ({digits} or
    {rtol, atol}), the floor included, since the engine holds every entry to it whatever is
    stated (`attention.compare`): digits stored or released before it read as checked, and
    rtol and atol are said with it, as an atol wide beside a small instance's value does not
    take 460 for 417.5."""
    if tolerance.get("digits") is not None:
        return f"to {max(int(tolerance['digits']), MIN_DIGITS)} significant figures"
    return (
        f"within rtol {float(tolerance['rtol']):g}, atol {float(tolerance['atol']):g} "
        f"but {FLOOR_WORDS}"
    )


def compared_vacuously(left: Any, right: Any, atol: float) -> str | None:
    """Why a property's comparison says nothing, if it does not: ``atol`` wider than half a unit
    in the third figure of the largest value either side holds (every side 0 included), so that
    any relation of such values would hold within it (x == 2 * x on draws of 1e-7, within 1e-6);
    or sides past EXACT_FLOATS, where a unit is lost to rounding (n**4 + 1 == n**4 held on draws
    of a million, and the true n**4 + 1 > n**4 failed)."""
    scale = max(float(np.max(np.abs(np.asarray(side, dtype=np.float64)))) for side in (left, right))
    if scale == 0:
        return "both sides are 0: any relation of them would hold"
    if scale > EXACT_FLOATS:
        return (
            f"its sides reach {scale:.3g}, past 2^53, where float64 cannot tell n + 1 from n: "
            "any relation that differs there by less than rounding would hold, or fail "
            "(compare smaller values, such as a ratio or a logarithm)"
        )
    if atol > float(half_unit(np.asarray(scale), MIN_FIGURES)):
        return (
            f"its sides are at most {scale:.3g}, and the absolute tolerance {atol:g} is wider than "
            f"half a unit in their third figure: within it any relation of them would hold "
            f"(compare larger values, such as x + 1 == y + 1, or narrow atol)"
        )
    return None
