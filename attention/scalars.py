"""What counts as a boolean, an integer and a number in an input, the one test every check uses.

Python's and numpy's types both count; a boolean is never an integer or a number, so ``true``
cannot stand in for 1.
"""

from __future__ import annotations

import math

import numpy as np


def is_bool(value: object) -> bool:
    """A Python or numpy boolean."""
    return isinstance(value, (bool, np.bool_))


def is_integer(value: object) -> bool:
    """A Python or numpy integer that is not a boolean."""
    return isinstance(value, (int, np.integer)) and not is_bool(value)


def is_number(value: object) -> bool:
    """A Python or numpy integer or float that is not a boolean (it may be NaN or infinite)."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not is_bool(value)


def is_finite_number(value: object) -> bool:
    """A number that is neither NaN nor infinite (an integer past float range is not)."""
    if not is_number(value):
        return False
    try:
        return math.isfinite(value)  # type: ignore[arg-type]
    except OverflowError:
        return False
