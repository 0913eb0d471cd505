"""What exactly a verdict is for: the fingerprint of a problem's checked content and its answer.

Any edit of what is checked changes the fingerprint, so an old verdict goes stale and never
counts. Every writer stores the current fingerprint on the solution (`fingerprint_store`), so
that whether a verdict counts is a database expression (`state`).
"""

import hashlib
import json
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from curriculum.models import Problem, Solution

FINGERPRINTED = (
    "problem__operation",
    "problem__inputs",
    "problem__ask",
    "problem__rtol",
    "problem__atol",
    "problem__digits",
    "answer",
)
"""The fields a fingerprint covers, as paths from a solution: the problem's checked content
and the solution's answer. Every other list of them is made from this one."""

PROBLEM_FINGERPRINTED = tuple(
    path.removeprefix("problem__") for path in FINGERPRINTED if path.startswith("problem__")
)
"""The problem's own fields among them."""


def fingerprint(problem: Problem, solution: Solution) -> str:
    return fingerprint_of(
        {name: getattr(problem, name) for name in PROBLEM_FINGERPRINTED}
        | {"answer": solution.answer}
    )


def fingerprint_store(solution: Solution) -> None:
    """Store the fingerprint of what the solution and its problem now say on the solution's
    row: every writer of a checked field calls it inside the write's transaction."""
    solution.fingerprint = fingerprint(solution.problem, solution)
    Solution.objects.filter(pk=solution.pk).update(fingerprint=solution.fingerprint)


def fingerprint_of(checked: Mapping[str, Any]) -> str:
    """The fingerprint of a problem's checked content and its answer, as `fingerprint` gives
    it, from values not (yet) in model objects (a bulk writer's clean rows, a migration's):
    each field of FINGERPRINTED by its name (``inputs``) or its path (``problem__inputs``)."""
    values = {
        name: checked[name] if name in checked else checked[path] for name, path in _NAMES.items()
    }
    if values["digits"] is None:  # problems older than the digits mode keep their fingerprints
        del values["digits"]
    else:  # rtol/atol then check nothing
        del values["rtol"], values["atol"]
    return hashlib.sha256(stored_json(values).encode()).hexdigest()


def stored_json(values: Any) -> str:
    """``values`` as JSON text that is the same before they are saved and after."""
    text = json.dumps(values, sort_keys=True)
    if _STORED_OTHERWISE.search(text):  # rare numbers PostgreSQL gives back in another form
        text = json.dumps(_as_stored(values), sort_keys=True)
    return text


_NAMES = {path.rpartition("__")[2]: path for path in FINGERPRINTED}

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


CHECKED = ("problem__chapter_id", *FINGERPRINTED, "fingerprint")
"""The columns a check reads (the fingerprint's, the fingerprint its writer stored beside them,
and the chapter it locks): loading a batch reads no statement, no steps and no earlier engine
value."""


def checkable():
    """Solutions with only the columns a check reads (CHECKED)."""
    return Solution.objects.select_related("problem").only(*CHECKED)
