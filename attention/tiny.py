"""Numbers float64 holds to fewer figures than were written or computed. Below its normal range
(about 2.2e-308): 7e-324 reads as 4.9e-324, and 1e-200 * 1e-200 is 0, not 1e-400; a problem's
input there is refused, and so is an expression that reads or computes one: nothing is decided
on what float64 kept of it. Past 2**53, where it holds only some whole numbers: one written
with a point or an exponent is read as the whole number written (`float_read`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

import numpy as np

from attention.errors import ExpressionError

SMALLEST = float(np.finfo(np.float64).smallest_normal)
"""The smallest number float64 holds to all its figures."""

TOO_SMALL = f"below {SMALLEST:.3g}, where float64 keeps too few of its figures"
"""What is wrong with such a number, as each refusal says it."""

NOT_NORMAL = f"must be 0 or at least {SMALLEST:.3g} in size"
"""The refusal of a number written there (an input, an answer): 7e-324 reads as 4.9e-324."""


LEAST = float(np.nextafter(0.0, 1.0))
"""The smallest number float64 holds at all (4.9e-324)."""


EXACT_FLOATS = 2**53
"""Every whole number up to this is a float exactly; past it, only some are, and no fraction."""


class NotHeld(ValueError):
    """A number float64 cannot hold as written, nor round without changing what it says."""


def float_read(text: str) -> float | int:
    """A number as written, read as float64 reads it, except:

    - one written nonzero is never read as 0: past float64's smallest (1e-400) it is read as
      that smallest, with its sign, which every check then refuses where it stands
      (NOT_NORMAL), as it refuses 1e-320;
    - a whole number from EXACT_FLOATS on is read as that integer (1.65894217664e18 and
      1658942176640000001.0 as written): as a float, 1658942176640000001.0 is its neighbour,
      so a count would be judged on a number nobody wrote, and the same number written as
      digits alone is read whole (as JSON and YAML read it);
    - one written with a fraction that float64 reads as a whole number is refused (NotHeld):
      the fraction is lost, and a count would be verified as the whole number it became
      (4110396818392708.2 as ...708, and past 2**53, where float64 holds no fraction,
      36943215058793618.5 as ...620)."""
    value = float(text)
    if value == 0 and any(d in "123456789" for d in text.lower().partition("e")[0]):
        return math.copysign(LEAST, value)
    if value.is_integer():  # finite and whole: was it written so?
        written = Decimal(text)
        if written != written.to_integral_value():
            shown = text if len(text) <= 40 else f"{text[:37]}..."
            raise NotHeld(
                f"{shown}: float64 would read it as {value!r}, losing its fraction: write "
                "the whole number meant, or fewer figures"
            )
        if abs(value) >= EXACT_FLOATS:
            return int(written)
    return value


def below_normal(values: Any) -> bool:
    """Whether any nonzero number of ``values`` is smaller than SMALLEST in size."""
    sizes = np.abs(np.asarray(values, dtype=np.float64))
    small = sizes < SMALLEST  # zeros too, and only they, almost always
    return bool(small.any() and sizes[small].any())


@contextmanager
def underflow_refused(what: str) -> Iterator[None]:
    """The block's float arithmetic with numpy's errors ignored (the caller tests what is not
    finite) but underflow, refused as an ExpressionError naming ``what``."""
    try:
        with np.errstate(all="ignore", under="raise"):
            yield
    except FloatingPointError:
        raise ExpressionError(
            f"'{what}' underflows: a value in it falls {TOO_SMALL} (1e-200 * 1e-200 is 0); "
            "scale its numbers up"
        ) from None
