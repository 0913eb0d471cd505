"""Which entries of the engine's value are float noise, an exact 0 computed inexactly.

Float64 alone cannot say: 0.5 * (1e15 + 1) - 0.5 * 1e15 is exactly 0.5, a constant upstream
gradient of 1e15 through softmax is exactly 0, and both come out, and move when their inputs
do, as rounding noise does. So an entry in doubt (exactly 0, small beside its output or its
inputs, or one a screening run, made for every value with every number moved by 2^-40, moves
as far as float64's own roundings could matter: a large factor lifts a cancelled softmax clear
of any smallness, and whole numbers whose products pass 2^53 round) is computed again in extended
precision (numpy's longdouble, 64 mantissa bits on x86-64), and again in float64 with each
input a reading rounds (0.1, a float printed to 17 figures; not 2e14 - 20 or 0.375, which
binary holds as written) moved by a unit or two in the last place. An entry whose extended
value lies within MOVED times how far reading its inputs may move it, or within EXTENDED of
how far float64 leaves it from the extended value (its own rounding), is 0 as written: noise,
to be answered 0 (0.1 + 0.2 - 0.3 is 2.8e-17 in binary).
Any other entry in doubt is a number, held to its figures (0.3 beside 1e12 in another column,
1e-13 from inputs that small, an exact 1e-4 that terms of 1e9 cancel to, e^-20 from the
softmax of 2e14 and 2e14 - 20).

Where the engine cannot settle it, it says so (EngineInputError at ``value``), and a verdict is
an error to fix, never a guess: a noise entry reading and rounding may leave further from 0
than half a unit in the third figure of the inputs' smallest number or LARGEST_NOISE (terms
too large for any answer of 0 to mean 0), a number float64 computes off in its third figure,
the floor every answer is held to (terms cancelling past its precision), or that reading its
inputs moves past it, and a value too large to compute again (EXTENDED_WORK). Past the third
figure float64's own value is held against an answer, as it is for any entry. A number
float64 computes off, all within 2^-40 of its output's largest entry (the band an exact 0
there is given), is noise: an accidental 7e-14 beside entries of 10 (a saturated softmax).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
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
from attention.registry.table import evaluate
from attention.work import evaluation_work

PERTURBATION = 2.0**-51
"""How far each float input is moved, relatively, by a random factor of either sign from 0.5
to 1.5: a unit or two in the last place, as reading and rounding move numbers."""

SCREEN = 2.0**-40
"""How far the screening run moves every number of the inputs, exact or not, relatively: far
past the grid float64 rounds to, which a move of a unit or two may fall back onto (2^60 + 1 is
2^60 however its factors move by so little)."""

ROUNDINGS = 2.0**10
"""An entry the screening run moves, scaled to one reading, by more than half a unit in its
third figure over this many is one float64's own roundings (this many add up, at most) may
have moved as far: the extended run decides it (2^30 * (2^30 + 1) - 2^60 is 2^30, not 0)."""

READ = 2.0**-53
"""How far reading a number rounds it, relatively: what a move is scaled to."""

MOVED = 4.0
"""An entry whose extended value is within MOVED times how far reading its inputs may move it
of 0 is noise."""

EXTENDED = 2.0**-7
"""An entry whose extended value is within this share of how far float64 leaves it (or the
furthest it leaves an entry in doubt of the same output) from that value is noise too: a
residue of inputs binary holds exactly, which no move measures. Longdouble rounds 2^-11 as
far, and a residue it leaves is so much smaller."""

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

EXTENDED_WORK = 3 * 10**7
"""The most work (attention/work.py's units) the extended run is made for: longdouble has no
BLAS, and runs some ten to fifty times slower than float64 (a causal mask's exact zeros ask
for it on every long sequence: at 10^8 units it took seconds)."""


def noise_bounds(operation: Any, inputs: Any, ask: Any, value: Any, instance: int = 0) -> Any:
    """For each entry of ``value`` (the engine's, an array or a mapping of named arrays): how
    close to 0 it is taken as 0, or 0.0 where it is a number to answer."""
    arrays = value if isinstance(value, Mapping) else {"": value}
    floats = {k: np.asarray(v, dtype=np.float64) for k, v in arrays.items()}
    given = _given(inputs, instance)
    among, least = _sizes(given)
    bounds = {k: zero_bound(got) for k, got in floats.items()}
    doubted = {
        k: (got == 0) | _in_doubt(got, among) for k, got in floats.items() if not _counts(arrays[k])
    }
    if given is None:
        return bounds if isinstance(value, Mapping) else bounds[""]
    runs = _Runs(operation, given, ask)
    for key in doubted:  # one run, every number moved, screens every entry
        got = floats[key]
        doubted[key] |= ROUNDINGS * runs.screened(key, got) > half_unit(got, MIN_FIGURES)
    if any(d.any() for d in doubted.values()):
        for key, doubt in doubted.items():
            bounds[key] = _decided(runs, key, floats[key], doubt, least, bounds[key])
    return bounds if isinstance(value, Mapping) else bounds[""]


def _decided(
    runs: _Runs, key: str, got: np.ndarray, doubt: np.ndarray, least: float, bound: np.ndarray
) -> np.ndarray:
    """``bound`` with each entry in ``doubt`` decided: noise (its bound, what an answer of 0
    may be off) or a number (0.0); EngineInputError where the engine cannot settle it."""
    exact = runs.extended(key, got.shape)
    if exact is not None:  # below float64's normal range, float64's own value is as near
        tiny = (exact != 0) & (np.abs(exact) < np.finfo(np.float64).smallest_normal)
        exact = np.where(tiny, got, exact)
    widest = widest_zero(least)
    unsettled = doubt & ((got != 0) | (exact != 0 if exact is not None else False))
    if exact is not None and not unsettled.any():  # zeros, in extended precision too
        _refuse(  # unless their terms are too large for either to tell: 1e20 + 1 - 1e20
            key,
            doubt & (MOVED * runs.moved(key, got) > widest),
            "cannot tell {} from 0 at these magnitudes",
            lambda at: (
                "reading its inputs may move it further from 0 than half a unit in the "
                f"third figure of their smallest number ({least:.3g}) or {LARGEST_NOISE:g}"
            ),
        )
        return bound
    if not unsettled.any():
        return bound
    moved = runs.moved(key, got)
    if exact is None:  # a float64 value well clear of its inputs' moves, and of its own
        # roundings as the screen measures them, is a number
        near = np.abs(got) <= CLEAR * MOVED * moved
        rounding = ROUNDINGS * runs.screened(key, got) > half_unit(got, MIN_FIGURES)
        _refuse(
            key,
            unsettled & (near | rounding),
            "cannot settle {}",
            lambda at: (
                "the value is too large to compute again in extended precision (more "
                f"than {EXTENDED_WORK:g} units of work)"
            ),
        )
        return bound
    off = np.abs(got - exact)  # float64's rounding, a lucky 0 measured by its neighbours'
    reach = np.maximum(MOVED * moved, EXTENDED * np.maximum(off, np.max(off[doubt])))
    noise = unsettled & (np.abs(exact) <= reach)
    wrong = off > half_unit(exact, MIN_FIGURES)  # float64 off in its third figure
    # all within 2^-40 of the output's largest entry (not the inputs': 1e-4 from terms of 1e9
    # is a number), and a speck in itself: the band an exact 0 there is given
    speck = np.maximum(np.abs(got), np.abs(exact))
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
    number = unsettled & ~noise
    _refuse(
        key,
        number & (MOVED * moved > half_unit(exact, MIN_FIGURES)),
        "cannot compute {} in float64 at these magnitudes",
        lambda at: (
            f"reading its inputs into binary may move it by {MOVED * moved[at]:.3g}, past its "
            f"third figure (it is {float(exact[at]):.6g})"
        ),
    )
    _refuse(
        key,
        number & wrong,
        "cannot compute {} in float64 at these magnitudes",
        lambda at: (
            f"its terms cancel past its precision (it is {float(exact[at]):.6g}, and "
            f"float64 leaves {got[at]:.6g})"
        ),
    )
    floor = np.where(beneath, 0.0, zero_floor(got))
    return np.where(noise, np.maximum(shift, floor), bound).astype(np.float64)


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


def _sizes(given: dict[str, Any] | None) -> tuple[float, float]:
    """The largest and the smallest nonzero |number| in the inputs' lists (0.0 where there is
    none): scalars are counts and settings, and a mask's booleans are no numbers."""
    largest, smallest = 0.0, np.inf
    for array in _arrays(given or {}).values():
        numbers = np.abs(array.astype(np.float64))
        numbers = numbers[np.isfinite(numbers) & (numbers > 0)]
        largest = max(largest, float(np.max(numbers, initial=0.0)))
        smallest = min(smallest, float(np.min(numbers, initial=np.inf)))
    return largest, (0.0 if smallest == np.inf else smallest)


@dataclass
class _Runs:
    """The further runs an entry in doubt is decided by, each made once, when first asked."""

    operation: Any
    given: dict[str, Any]
    ask: Any
    made: dict[str, Any] = field(default_factory=dict)

    def extended(self, key: str, shape: tuple[int, ...]) -> np.ndarray | None:
        """Output ``key`` in extended precision (longdouble), or None where the value is too
        large to compute so (or the operation refuses its inputs so)."""
        if "extended" not in self.made:
            self.made["extended"] = extended_value(self.operation, self.given, self.ask)
        found = self.made["extended"]
        return None if found is None else _entry(found, key, shape, np.longdouble)

    def screened(self, key: str, got: np.ndarray) -> np.ndarray:
        """How far moving every number of the inputs, exact or not, by SCREEN moves each
        entry of output ``key``, scaled to one reading (0.0 where the operation refuses moved
        inputs)."""
        if "screened" not in self.made:
            move = mover(PATTERNS[0], SCREEN)
            self.made["screened"] = _evaluated(
                self.operation, self.given, self.ask, lambda name, array: move(array)
            )
        found = self.made["screened"]
        if found is None:
            return np.zeros(got.shape)
        return np.abs(got - _entry(found, key, got.shape)) * (READ / SCREEN)

    def moved(self, key: str, got: np.ndarray) -> np.ndarray:
        """How far reading its inputs may move each entry of output ``key``: the largest move
        under PATTERNS, scaled to one reading (0.0 where no input is rounded by its reading,
        or the operation refuses moved inputs)."""
        made = self.made.setdefault("moved", [])
        rounded = self.rounded()
        while rounded and len(made) < len(PATTERNS):
            near = _moved(self.operation, self.given, self.ask, PATTERNS[len(made)], rounded)
            if near is None:  # the operation refuses moved inputs: nothing is measured
                self.made["rounded"] = rounded = {}
                made.clear()
            else:
                made.append(near)
        moves = [np.abs(got - _entry(near, key, got.shape)) for near in made]
        largest = np.max(np.stack(moves), axis=0) if moves else np.zeros(got.shape)
        return largest * (READ / PERTURBATION)

    def rounded(self) -> dict[str, np.ndarray]:
        """Where reading each input rounds it (`_rounded`), by name; {} where none is."""
        if "rounded" not in self.made:
            arrays = _arrays(self.given)  # one pass over every input's numbers together
            flat = [a.ravel() for a in arrays.values()]
            mask = _rounded(np.concatenate(flat) if flat else np.zeros(0))
            ends = np.cumsum([a.size for a in arrays.values()])[:-1]
            parts = np.split(mask, ends) if arrays else []
            masks = {n: m.reshape(a.shape) for (n, a), m in zip(arrays.items(), parts, strict=True)}
            self.made["rounded"] = masks if mask.any() else {}
        return self.made["rounded"]


def extended_value(operation: Any, given: dict[str, Any], ask: Any) -> Any | None:
    """The value on ``given`` (generators drawn) in extended precision (longdouble), or None
    where it is too large to compute so (EXTENDED_WORK) or the operation refuses its inputs
    so."""
    work = evaluation_work(operation, given)
    if work is None or work > EXTENDED_WORK:
        return None
    return _evaluated(operation, given, ask, _widened)


def _entry(run: Any, key: str, shape: tuple[int, ...], dtype: Any = np.float64) -> np.ndarray:
    """Output ``key`` of a further run (the whole run for an unnamed value)."""
    found = np.asarray(run[key] if isinstance(run, Mapping) else run, dtype)
    if found.shape != shape:
        raise fail("value", f"a further run of the engine gave {found.shape}, not {shape}")
    return found


def _evaluated(operation: Any, given: dict[str, Any], ask: Any, change: Any) -> Any | None:
    """The value on the inputs each list of numbers ``change`` makes: lists of whole numbers
    too, as the tensors they are, and where the operation refuses that (class indices), lists
    of floats alone. None where it refuses even that."""
    for kinds in ("iuf", "f"):
        changed = {name: _changed(name, v, kinds, change) for name, v in given.items()}
        try:
            return evaluate(operation, changed, ask, 0)
        except EngineInputError:
            continue
    return None


def _changed(name: str, node: Any, kinds: str, change: Any) -> Any:
    if not isinstance(node, (list, tuple, np.ndarray)):
        return node  # a scalar is a count or a setting (heads, eps): kept
    try:
        array = np.asarray(node)
    except ValueError:  # ragged: the engine says so on its own run
        return node
    if array.dtype.kind not in kinds or array.dtype.kind == "b":
        return node
    return change(name, array)


def _arrays(given: dict[str, Any]) -> dict[str, np.ndarray]:
    """The inputs' lists of numbers, as arrays by name (booleans and ragged lists left out)."""
    found = {}
    for name, value in given.items():
        if isinstance(value, (list, tuple, np.ndarray)):
            try:
                array = np.asarray(value)
            except ValueError:
                continue
            if array.dtype.kind in "iuf":
                found[name] = array
    return found


def _widened(name: str, array: np.ndarray) -> np.ndarray:
    return array.astype(np.longdouble)


def _rounded(array: np.ndarray) -> np.ndarray:
    """Where reading a number rounds it: where it is no decimal of at most 17 significant
    figures exactly (0.1 and a float printed to 17 figures are not; 2e14 - 20, 0.375 are)."""
    x = np.asarray(array, dtype=np.float64)
    mantissa, exponent = np.frexp(np.abs(x))
    whole = (mantissa * 2.0**53).astype(np.int64)
    lowest = np.log2((whole & -whole).clip(1)).astype(np.int64)
    bits = np.clip(53 - exponent - lowest, 0, None)  # binary figures after the point
    figures = np.abs(x) * 10.0 ** np.minimum(bits, 30)  # its decimal figures, a whole number
    exact = (x == 0) | ((bits == 0) & (np.abs(x) < 2.0**53)) | ((bits <= 30) & (figures < 1e17))
    return ~exact


PATTERNS = (20240, 7, 31)
"""The seeds of the moves: each input a reading rounds (0.1, a float printed to 17 figures;
not 2e14, nor 0.5, which binary holds as written) is moved by PERTURBATION times a random
factor of either sign from 0.5 to 1.5; rows moved alike stay alike, as identical values do,
so the largest move decides."""


def _moved(
    operation: Any, given: dict[str, Any], ask: Any, seed: int, rounded: dict[str, np.ndarray]
) -> Any | None:
    """The value again, every number a reading rounds (``rounded``) moved under ``seed``."""
    move = mover(seed)

    def moved(name: str, array: np.ndarray) -> Any:
        where = rounded.get(name)
        return array if where is None or not where.any() else move(array, where)

    return _evaluated(operation, given, ask, moved)


def mover(seed: int, size: float = PERTURBATION) -> Callable[..., np.ndarray]:
    """Moves an array's entries (``where`` it says) by ``size`` times a random factor of
    either sign from 0.5 to 1.5, by default a unit or two in the last place, drawn afresh from
    ``seed`` at each call: as reading and rounding move numbers."""
    rng = np.random.default_rng(seed)

    def move(array: np.ndarray, where: Any = True) -> np.ndarray:
        drawn = rng.uniform(-1.0, 1.0, np.shape(array))
        factors = (drawn + 0.5 * np.sign(drawn)) * where
        return np.asarray(array, dtype=np.float64) * (1.0 + size * factors)

    return move
