"""What counts as a boolean, an integer and a number in an input, the one test every check uses.

Python's and numpy's types both count; a boolean is never an integer or a number, so ``true``
cannot stand in for 1.
"""

from __future__ import annotations

import math
from typing import Any, TypeGuard

import numpy as np


def is_bool(value: object) -> TypeGuard[bool | np.bool_]:
    """A Python or numpy boolean."""
    return isinstance(value, (bool, np.bool_))


def is_integer(value: object) -> TypeGuard[int | np.integer[Any]]:
    """A Python or numpy integer that is not a boolean."""
    return isinstance(value, (int, np.integer)) and not is_bool(value)


Number = int | float | np.integer[Any] | np.floating[Any]


def is_number(value: object) -> TypeGuard[Number]:
    """A Python or numpy integer or float that is not a boolean (it may be NaN or infinite)."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not is_bool(value)


def is_finite_number(value: object) -> TypeGuard[Number]:
    """A number that is neither NaN nor infinite (an integer past float range is not)."""
    if not is_number(value):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False
