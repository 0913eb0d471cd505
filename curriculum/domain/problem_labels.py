"""How a reader names a problem: "Worked problem 2", "Exercise 3", counted apart in page order.

Problems have no titles of their own, and their keys and variants are slugs for authors: a
page, a reader's progress and the practice page all call a problem by this name.
"""

from collections.abc import Iterable, Mapping
from typing import Any

NAMES = {"worked": "Worked problem", "exercise": "Exercise"}


def problem_labels(problems: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Each problem's name by its key, numbered within its kind in the order given."""
    counted = dict.fromkeys(NAMES, 0)
    labels = {}
    for problem in problems:
        kind = problem["kind"] if problem["kind"] in NAMES else "exercise"
        counted[kind] += 1
        labels[problem["key"]] = f"{NAMES[kind]} {counted[kind]}"
    return labels
