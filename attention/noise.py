"""Which entries of the engine's value are float noise, an exact 0 computed inexactly, and what
value an answer is held against.

Float64 alone cannot say: 0.5 * (1e15 + 1) - 0.5 * 1e15 is exactly 0.5, a constant upstream
gradient of 1e15 through softmax is exactly 0, and both come out, and move when their inputs
do, as rounding noise does; and 2^30 * (2^30 + 1) rounds to 2^60, so a score difference of 1
becomes 0 and attention's value is a quarter off, with nothing small to show it. So the value
is computed again in extended precision (numpy's longdouble, 64 mantissa bits on x86-64), and
that run, rounded to float64, is the value an answer is held against: float64's own roundings
never decide a verdict. The extended run is checked in turn by one more, every number moved
past longdouble's grid (`attention.reruns`): an entry longdouble's own roundings may move past
its third figure (products past 2^64) is refused.

An entry in doubt (exactly 0, small beside its output or its inputs, or one reading its inputs
moves past its third figure) is noise where its extended value lies within MOVED times how far
reading its inputs (0.1, a float printed to 17 figures; not 2e14 - 20 or 0.375, which binary
holds as written) or longdouble's roundings may move it, or within EXTENDED of how far float64
leaves it from the extended value (its own rounding): 0 as written, to be answered 0
(0.1 + 0.2 - 0.3 is 2.8e-17 in binary). Any other entry is a number, held to its figures (0.3
beside 1e12 in another column, 1e-13 from inputs that small, an exact 1e-4 that terms of 1e9
cancel to, e^-20 from the softmax of 2e14 and 2e14 - 20).

Where the engine cannot settle it, it says so (EngineInputError at ``value``), and a verdict is
an error to fix, never a guess: a noise entry reading and rounding may leave further from 0
than half a unit in the third figure of the inputs' smallest number or LARGEST_NOISE, a number
reading its inputs or longdouble's roundings move past its third figure, and, past
EXTENDED_WORK, where float64's value is held, an entry in doubt near its inputs' moves or one
two screening runs find float64's roundings may move past its third figure. And an
entry below float64's normal range, as float64 or the extended run computes it (e^-800 is 0
in float64, e^-720 2.03e-313): no answer may write it. A number float64
computes off, all within 2^-40 of its output's largest entry (the band an exact 0 there is
given) and below SPECK, is noise: an accidental 7e-14 beside entries of 10.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from attention.compare import (
    LARGEST_NOISE,
    MIN_FIGURES,
    ZERO_SHARE,
    half_unit,
    widest_zero,
    zero_bound,
    zero_floor,
)
from attention.errors import EngineInputError, fail
from attention.generated import expand_inputs
from attention.reruns import EXTENDED_WORK, LONG, PATTERNS, READ, SHAKE, Runs
from attention.tiny import SMALLEST, TOO_SMALL

MOVED = 4.0
"""An entry whose extended value is within MOVED times how far reading its inputs may move it
of 0 is noise."""

EXTENDED = 2.0**-7
"""An entry whose extended value is within this share of how far float64 leaves it from that
value is noise too: a residue of inputs binary holds exactly. Longdouble rounds 2^-11 as far,
and a residue it leaves is so much smaller (one float64 happens to leave 0 is measured by
longdouble's own roundings, the shaken runs)."""

ROUNDINGS = 2.0**10
"""How many of float64's own roundings may add up in an entry, as the screening runs past
EXTENDED_WORK count them: one rounding's move, as a moved run measures it, times this is how
far they may have moved it (more than may: an entry they find is refused, not decided)."""

LONG_ROUNDINGS = 2.0**4
"""As ROUNDINGS, for longdouble's roundings in the extended run: a move of every input by one
of its roundings counts every input as a rounding, far more than an exact subtraction is (the
e^-20 that scores of 2e14 and 2e14 - 20 make, computed exactly, is a number to answer)."""

GRIDS = 2.0
"""Longdouble's roundings may leave an entry this many times as far from its exact value as
float64's do, scaled by the ratio of their grids (2^-11 on x86-64)."""

CLEAR = 2.0**10
"""Where the value is too large to compute again, a float64 entry this many times further from
0 than its inputs' moves take it is a number; nearer, the engine cannot tell."""

SPECK = 2.0**-30
"""A number float64 computes off is noise only below this, whatever its output's size: a
speck of 1e-13 beside entries of 10, not 0.0017 beside 1e15 (answers within 900 of it were
verified)."""

IN_DOUBT = 2.0**-20
"""Only an entry below this share of its output's largest |entry|, or of its inputs' largest
number (an output that is all noise: x - mean of a constant row), may be noise."""


def noise_bounds(operation: Any, inputs: Any, ask: Any, value: Any, instance: int = 0) -> Any:
    """For each entry of ``value`` (the engine's, an array or a mapping of named arrays): how
    close to 0 it is taken as 0, or 0.0 where it is a number to answer (`settled`)."""
    return settled(operation, inputs, ask, value, instance)[1]


def settled(
    operation: Any, inputs: Any, ask: Any, value: Any, instance: int = 0, salt: bytes = b""
) -> tuple[Any, Any, Any]:
    """What an answer is held against, each shaped as ``value`` (the engine's): the value (the
    extended run's, rounded to float64, where it is made; ``value`` elsewhere); for each entry
    how close to 0 it is taken as 0, or 0.0 where it is a number to answer; and how far reading
    the inputs and rounding may have moved it, which no verdict may turn on (`compare`'s
    ``unsure``). ``salt`` keys the seed of every move (`attention.reruns.Runs.seed`)."""
    arrays = value if isinstance(value, Mapping) else {"": value}
    floats = {k: np.asarray(v, dtype=np.float64) for k, v in arrays.items()}
    given = _given(inputs, instance)
    bounds = {k: zero_bound(got) for k, got in floats.items()}
    held = dict(arrays)
    unsure = {k: np.zeros(got.shape) for k, got in floats.items()}
    if given is None:  # nothing to compute again: the engine's value, as it is
        return _shaped(value, held, bounds, unsure)
    runs = Runs(operation, given, ask, salt)
    among, least = _sizes(runs.arrays())
    for key, got in floats.items():
        if _counts(arrays[key]):
            continue
        doubt = (got == 0) | _in_doubt(got, among)
        exact = runs.extended(key, got.shape)
        _below_normal_refused(key, got, exact)
        if exact is None:  # float64's value is held: its own roundings, screened
            unsure[key] = ROUNDINGS * runs.screened(key, got)
            doubt |= unsure[key] > half_unit(got, MIN_FIGURES)
            bounds[key] = _unextended(runs, key, got, doubt, least, bounds[key])
            continue
        if runs.rounded():  # one moved run screens every entry for what reading moves
            doubt |= MOVED * runs.moved(key, exact, 1) > half_unit(got, MIN_FIGURES)
        bounds[key], noise, moved = _decided(
            runs, key, got, exact, doubt, (among, least), bounds[key]
        )
        held[key] = np.where(noise, got, exact.astype(np.float64))
        # within two units in float64's last place of the value held, a move says nothing:
        # the value is held as float64, and an exact comparison (atol 0) asks for that
        moved = moved.astype(np.float64)
        unsure[key] = np.where(moved <= 2 * np.spacing(np.abs(held[key])), 0.0, moved)
    return _shaped(value, held, bounds, unsure)


def _shaped(value: Any, *parts: dict[str, Any]) -> tuple[Any, ...]:
    """Each of ``parts`` as ``value`` is shaped: a mapping of named arrays, or one array."""
    return parts if isinstance(value, Mapping) else tuple(part[""] for part in parts)


def _unextended(
    runs: Runs, key: str, got: np.ndarray, doubt: np.ndarray, least: float, bound: np.ndarray
) -> np.ndarray:
    """Past EXTENDED_WORK, or where the extended run computes in float64 again: a float64 entry
    in doubt well clear of its inputs' moves, and of its own roundings as the screens measure
    them, is a number; the engine cannot settle others."""
    unsettled = doubt & (got != 0)
    if unsettled.any():
        near = np.abs(got) <= CLEAR * MOVED * runs.moved(key, got)
        rounding = ROUNDINGS * runs.screened(key, got) > half_unit(got, MIN_FIGURES)
        why = (
            f"the value is too large to compute again in extended precision (more than "
            f"{EXTENDED_WORK:g} units of work)"
            if not runs.widened()
            else "the operation computes in float64 alone (its inputs are settings, which "
            "have nothing to widen)"
        )
        _refuse(key, unsettled & (near | rounding), "cannot settle {}", lambda at: why)
    return bound


def _decided(
    runs: Runs,
    key: str,
    got: np.ndarray,
    exact: np.ndarray,
    doubt: np.ndarray,
    sizes: tuple[float, float],
    bound: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``bound`` with each entry in ``doubt`` decided, noise (its bound, what an answer of 0
    may be off) or a number (0.0); where it is noise; and how far reading and rounding may
    have moved each entry (``sizes``: the inputs' largest and smallest numbers).
    EngineInputError where the engine cannot settle an entry."""
    among, least = sizes
    widest = widest_zero(least)
    off = np.abs(got - exact)  # float64's rounding
    half = half_unit(exact, MIN_FIGURES)
    shaken = runs.shaken(key, exact)
    # longdouble's own roundings, at most: as the shaken runs measure them, and as far as
    # float64's, finer by the ratio of their grids (the same operations round in both: an
    # angle of 1e9 radians, which no move of x reaches, rounds in either)
    rounding = np.maximum(LONG_ROUNDINGS * shaken, GRIDS * off * (LONG / READ))
    # float64's 0 where longdouble leaves a residue within its grid at the scale of the inputs,
    # which no move reaches at first order (identical rows part only at second): noise
    grain = LONG_ROUNDINGS * LONG * among
    still = (got == 0) & (np.abs(exact) <= grain) & (shaken * (SHAKE / LONG) <= grain)
    unsettled = doubt & ((got != 0) | (exact != 0))
    zeros = doubt & ~unsettled  # zeros in extended precision too, unless their terms are too
    reading = MOVED * runs.moved(key, exact, PATTERNS if doubt.any() else 1)  # the screen's
    moved = np.maximum(reading, rounding)
    _refuse(  # large for either to tell: 1e20 + 1 - 1e20, 2^33 * 2^33 + 1 - 2^66
        key,
        zeros & (moved > widest),
        "cannot tell {} from 0 at these magnitudes",
        lambda at: (
            f"reading and rounding its inputs may move it {moved[at]:.3g} from 0, more than "
            f"half a unit in the third figure of their smallest number ({least:.3g}) or "
            f"{LARGEST_NOISE:g}"
        ),
    )
    # float64's own rounding (a neighbour's is no measure of it: an exact -2.5e-4 beside an
    # entry float64 leaves 0.12 off was taken for noise)
    reach = np.maximum(moved, EXTENDED * off)
    noise = unsettled & ((np.abs(exact) <= reach) | still)
    reach = np.where(still, np.maximum(reach, grain), reach)
    # float64 off in its third figure, all within 2^-40 of the output's largest entry (not the
    # inputs': 1e-4 from terms of 1e9 is a number), and a speck in itself: the band an exact 0
    # there is given
    speck = np.maximum(np.abs(got), np.abs(exact))
    wrong = off > half
    beneath = unsettled & ~noise & wrong & (speck <= min(ZERO_SHARE * _scale(got), SPECK))
    noise |= beneath
    shift = np.where(beneath, 2 * speck, np.abs(got) + reach)
    _refuse(
        key,
        noise & (shift > widest),
        "cannot tell {} from 0 at these magnitudes",
        lambda at: (
            f"reading and rounding its inputs may leave it {shift[at]:.3g} from 0, more "
            f"than half a unit in the third figure of their smallest number ({least:.3g}) or "
            f"{LARGEST_NOISE:g}"
        ),
    )
    normal = np.abs(exact) >= np.finfo(np.float64).smallest_normal  # else float64's own
    number = ~noise & ~zeros & (normal | ((exact == 0) & (got != 0)))
    for move, why in (
        (reading, "reading its inputs into binary"),
        (rounding, "its terms cancel past extended precision too: rounding"),
    ):
        _refuse(key, number & (move > half), *_past(why, move, exact))
    floor = np.where(beneath, 0.0, zero_floor(got))
    unsure = np.where(noise | zeros, 0.0, moved)  # a zero decided, and noise, are 0 as bound
    return np.where(noise, np.maximum(shift, floor), bound).astype(np.float64), noise, unsure


def _past(
    why: str, move: np.ndarray, exact: np.ndarray
) -> tuple[str, Callable[[tuple[int, ...]], str]]:
    """The refusal of a number ``move`` takes past its third figure, ``why`` saying what moves
    it."""

    def said(at: tuple[int, ...]) -> str:
        return (
            f"{why} may move it by {move[at]:.3g}, past its third figure (it is about "
            f"{float(exact[at]):.3g})"
        )

    return "cannot compute {} at these magnitudes", said


def _refuse(key: str, where: np.ndarray, what: str, why: Callable[[tuple[int, ...]], str]) -> None:
    """EngineInputError at ``value`` naming the first entry ``where`` holds, if any, in
    ``what`` the engine cannot do with it, and ``why``."""
    if not where.any():
        return
    first = tuple(int(i) for i in np.argwhere(where)[0])
    entry = f"{key or 'the value'}{list(first) if first else ''}"
    raise fail(
        "value",
        f"the engine {what.format(entry)}: {why(first)}; choose smaller inputs, or ones whose "
        "terms do not cancel so far",
    )


def _below_normal_refused(key: str, got: np.ndarray, exact: np.ndarray | None) -> None:
    """A float64 value below the normal range, or a 0 float64 made of one (the softmax weight
    of scores 800 apart, e^-800), is no answer anyone may write: refused."""
    _refuse(key, _below_normal(got), "cannot settle {}", _too_small)
    if exact is not None:
        _refuse(key, _below_normal(exact), "cannot settle {}", _too_small)


def _below_normal(values: np.ndarray) -> np.ndarray:
    return (values != 0) & (np.abs(values) < SMALLEST)


def _too_small(at: tuple[int, ...]) -> str:
    return (
        f"it falls {TOO_SMALL}, so no answer can be held to it (a softmax weight of scores "
        "more than about 708 apart, say)"
    )


def _scale(got: np.ndarray) -> float:
    return float(np.max(np.abs(got), initial=0.0))


def _counts(value: Any) -> bool:
    return np.asarray(value).dtype.kind in "iub"


def _in_doubt(got: np.ndarray, among: float) -> np.ndarray:
    scale = max(_scale(got), among)
    return (got != 0) & (np.abs(got) <= IN_DOUBT * scale)


def _given(inputs: Any, instance: int) -> dict[str, Any] | None:
    """The inputs as the engine reads them at ``instance`` (generators drawn)."""
    if not isinstance(inputs, Mapping):
        return None
    try:
        return expand_inputs(inputs, instance)
    except EngineInputError:
        return None


def _sizes(arrays: dict[str, np.ndarray]) -> tuple[float, float]:
    """The largest and the smallest nonzero |number| in the inputs' lists (``arrays``, 0.0
    where there is none): scalars are counts and settings, and a mask's booleans are no
    numbers."""
    largest, smallest = 0.0, np.inf
    for array in arrays.values():
        numbers = np.abs(array.astype(np.float64))
        numbers = numbers[np.isfinite(numbers) & (numbers > 0)]
        largest = max(largest, float(np.max(numbers, initial=0.0)))
        smallest = min(smallest, float(np.min(numbers, initial=np.inf)))
    return largest, (0.0 if smallest == np.inf else smallest)
