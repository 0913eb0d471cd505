"""When a reader's answer is right: the one rule of every check of a reader's answer (the
practice page and the API), by which the author's feedback and the engine's misconceptions are
also told from the right answer.

A reader page prints the engine's value to SHOWN_DIGITS significant figures
(`answer_tables.number`). An entry of a reader's answer is right when it is within the problem's
tolerance, or when it agrees with the engine's value to the figures printed: within half a unit
in the SHOWN_DIGITS-th figure, which is what the page prints, and what a careful reader gets
rounding to that many figures. So a printed answer is never called wrong. Neither rule is looser
than the engine's floor (half a unit in the third figure), an entry the engine takes as exactly
0 must still be answered 0, and a count (an operation whose outputs are integers) exactly
(`attention.compare`).

A reader is asked for `figures_wanted` significant figures: as many as the tolerance needs,
never more than the page prints.
"""

import math
from collections.abc import Mapping
from typing import Any

import attention

from .placeholders import SHOWN_DIGITS
from .tolerances import MIN_DIGITS, tolerance_words


def tolerance_of(source: Any) -> dict[str, Any]:
    """A tolerance as `attention.compare` takes it, from a Problem (its digits, rtol and atol),
    a problem as a snapshot holds it (its "tolerance"), or a tolerance as a file writes it."""
    if isinstance(source, Mapping):
        written = source.get("tolerance", source)
        digits = written.get("digits")
        rtol, atol = written.get("rtol", 0.0), written.get("atol", 0.0)
    else:
        digits, rtol, atol = source.digits, source.rtol, source.atol
    return {"digits": digits} if digits is not None else {"rtol": rtol, "atol": atol}


def reader_compare(
    value: Any, answer: Any, tolerance: Mapping[str, Any], zero: Any = None, unsure: Any = None
) -> Any:
    """``answer`` against ``value`` by the reader's rule (`attention.Comparison`); ``zero`` and
    ``unsure``: the engine's noise bounds and how far each entry may be off, as for a verdict
    (`attention.settled`). Raises as `attention.compare` does."""
    return attention.compare(
        value, answer, **tolerance, zero=zero, shown=SHOWN_DIGITS, unsure=unsure
    )


def readers_right(value: Any, answers: list[Any], tolerance: Mapping[str, Any]) -> list[bool]:
    """Whether each of ``answers`` is ``value`` by the reader's rule, in one pass; False for
    anything not numbers."""
    return attention.compare_each(value, answers, **tolerance, shown=SHOWN_DIGITS)


def reader_right(value: Any, answer: Any, tolerance: Mapping[str, Any]) -> bool:
    """`readers_right` of one answer."""
    return readers_right(value, [answer], tolerance)[0]


def is_count(operation: str) -> bool:
    """Whether the operation's outputs are counts, which are checked exactly."""
    found = attention.OPERATIONS.get(operation)
    return bool(found and found.counts)


def _operation(source: Any) -> str:
    return source["operation"] if isinstance(source, Mapping) else source.operation


def figures_wanted(tolerance: Mapping[str, Any]) -> int:
    """The significant figures a reader gives for any answer to be right: those the tolerance
    needs (relative half a unit in the n-th figure is at most 5 x 10**-n), never fewer than
    the floor's nor more than a page prints."""
    if tolerance.get("digits") is not None:
        needed = int(tolerance["digits"])
    elif tolerance["rtol"] > 0:
        needed = math.ceil(math.log10(5 / tolerance["rtol"]) - 1e-9)
    else:  # atol alone: how many figures depends on the size, so as many as are printed
        needed = SHOWN_DIGITS
    return min(max(needed, MIN_DIGITS), SHOWN_DIGITS)


def checked_words(source: Any) -> str:
    """How an author's answer to a problem (a Problem or a snapshot's) is checked, in words."""
    if is_count(_operation(source)):
        return "exactly (a count)"
    return tolerance_words(tolerance_of(source))


def judged_words(source: Any) -> str:
    """How a reader's answer is judged, in words: the tolerance, or the figures printed."""
    if is_count(_operation(source)):
        return "exactly (a count)"
    tolerance = tolerance_of(source)
    if tolerance.get("digits") is not None:  # the looser of the two is the fewer figures
        return f"to {figures_wanted(tolerance)} significant figures"
    return f"{tolerance_words(tolerance)}, or to the {SHOWN_DIGITS} significant figures printed"


def reader_asks(source: Any) -> str:
    """What the reader is asked to give, in a sentence, before any answer."""
    if is_count(_operation(source)):
        return "The answer is a count: give it exactly; it is checked exactly."
    wanted = figures_wanted(tolerance_of(source))
    printed = " (as many as the page prints)" if wanted == SHOWN_DIGITS else ""
    return (
        f"Give {wanted} significant figures{printed}: every entry is checked "
        f"{judged_words(source)}; an entry that is 0 is answered 0."
    )
