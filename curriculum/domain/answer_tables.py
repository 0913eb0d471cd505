"""An answer as readers see it printed: a scalar, a vector, a matrix or named values, as rows of
numbers at the shown precision, in the one table (`site/_answer.html`) that chapter pages and
practice share. A chapter's answer tables are rendered with its snapshot, so the rendered cap
counts them as it counts its texts."""

from numbers import Integral, Real
from typing import Any

from django.conf import settings
from django.template.loader import render_to_string

from .placeholders import SHOWN_DIGITS, value_entries

LARGEST_COUNT = 2**63
"""The engine's counts stay below this (`attention_cost`): an integer under it is printed whole."""


def number(value: Any) -> str:
    """A number as pages print it: SHOWN_DIGITS significant figures (what a reader's answer is
    judged against: `judging`), an integer whole, as counts are checked exactly."""
    if isinstance(value, bool) or not isinstance(value, Real):
        return str(value)
    if isinstance(value, Integral) and abs(int(value)) < LARGEST_COUNT:
        return str(int(value))
    return f"{value:.{SHOWN_DIGITS}g}"


def typed_number(value: Any) -> str:
    """A number a reader gave, echoed back: never rounded (the shortest text that reads back as
    the same float), so what was read is never shown as what would have been right."""
    if isinstance(value, bool) or not isinstance(value, Real):
        return str(value)
    if isinstance(value, Integral):
        return str(int(value))
    return repr(float(value)).removesuffix(".0")


def answer_table(answer: Any, *, bounded: bool = False, typed: bool = False) -> dict[str, Any]:
    """A scalar, a vector, a matrix or named values, as rows of printed numbers (`typed`: a
    reader's own, unrounded); `bounded` (a page made on request: practice) prints no more than
    LIMIT_TEXT_TYPESET_ENTRIES entries, and past them says how many there are."""
    shown = typed_number if typed else number
    if bounded and (entries := value_entries(answer)) > settings.LIMIT_TEXT_TYPESET_ENTRIES:
        limit = settings.LIMIT_TEXT_TYPESET_ENTRIES
        return {"shape": "too-large", "entries": entries, "limit": limit, "rows": []}
    if isinstance(answer, dict):
        return {"shape": "named", "rows": [[name, shown(v)] for name, v in answer.items()]}
    if isinstance(answer, list) and answer and all(isinstance(r, list) for r in answer):
        return {"shape": "matrix", "rows": [[shown(v) for v in row] for row in answer]}
    if isinstance(answer, list):
        return {"shape": "vector", "rows": [[shown(v) for v in answer]]}
    return {"shape": "scalar", "rows": [[shown(answer)]]}


def answer_html(answer: Any) -> str:
    return render_to_string("site/_answer.html", {"t": answer_table(answer)})
