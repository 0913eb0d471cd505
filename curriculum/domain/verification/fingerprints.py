"""What exactly a verdict is for: the fingerprint of a problem's checked content and its answer.

Any edit of what is checked changes the fingerprint, so an old verdict goes stale and never
counts.
"""

import hashlib
import json
import re
from decimal import Decimal
from typing import Any

from curriculum.models import Problem, Solution


def fingerprint(problem: Problem, solution: Solution) -> str:
    return fingerprint_of(
        operation=problem.operation,
        inputs=problem.inputs,
        ask=problem.ask,
        rtol=problem.rtol,
        atol=problem.atol,
        digits=problem.digits,
        answer=solution.answer,
    )


def fingerprint_of(
    *,
    operation: str,
    inputs: Any,
    ask: Any,
    rtol: float,
    atol: float,
    digits: int | None,
    answer: Any,
) -> str:
    """The fingerprint of a problem's checked content and its answer, as `fingerprint` gives
    it, from values not (yet) in model objects: a bulk writer's clean rows."""
    checked = {
        "operation": operation,
        "inputs": inputs,
        "ask": ask,
        "rtol": rtol,
        "atol": atol,
        "answer": answer,
    }
    if digits is not None:  # rtol/atol then check nothing; problems older than the
        del checked["rtol"], checked["atol"]  # digits mode keep the fingerprints they had
        checked["digits"] = digits
    text = json.dumps(checked, sort_keys=True)
    if _STORED_OTHERWISE.search(text):  # rare numbers PostgreSQL gives back in another form
        text = json.dumps(_as_stored(checked), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


_STORED_OTHERWISE = re.compile(r"e\+|-0\.0(?![0-9])")
"""An exponent (1e+16) or a negative zero in the JSON text; -0.05 is written as it is stored."""


def _as_stored(value: Any) -> Any:
    """``value`` as it reads back from PostgreSQL's jsonb, so that content fingerprints the same
    before it is saved and after: jsonb keeps no negative zero, and writes 1e+16 (Python's form
    of every float from 10**16) as the integer 10000000000000000."""
    if isinstance(value, dict):
        return {key: _as_stored(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_stored(item) for item in value]
    if isinstance(value, float):
        if value == 0:
            return 0.0
        if "e+" in (written := repr(value)):
            return int(Decimal(written))
    return value


CHECKED = (
    "answer",
    "problem__chapter_id",
    "problem__operation",
    "problem__inputs",
    "problem__ask",
    "problem__rtol",
    "problem__atol",
    "problem__digits",
)
"""The columns a check reads (the fingerprint's, and the chapter it locks): loading a batch
reads no statement, no steps and no earlier engine value."""


def checkable():
    """Solutions with only the columns a check reads (CHECKED)."""
    return Solution.objects.select_related("problem").only(*CHECKED)
