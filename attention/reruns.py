"""The further runs of the engine the float-noise rule (`attention.noise`) decides by: the value
again in extended precision, and again with its inputs moved, each made once, when first asked.

Every move is drawn from a seed the inputs themselves make (a hash of their numbers): the same
problem is always moved alike, so its verdict does not change from run to run, and inputs cannot
be chosen so that a known move cancels in them (a hostile author did so for one fixed seed).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from attention.errors import EngineInputError, fail
from attention.registry.table import OPERATIONS, evaluate
from attention.tiny import EXACT_FLOATS
from attention.work import evaluation_work

PERTURBATION = 2.0**-51
"""How far each input a reading rounds is moved, relatively, by a random factor of either sign
(0.5 to 1.5 in size): a unit or two in the last place, as reading and rounding move numbers."""

READ = 2.0**-53
"""How far reading a number rounds it, relatively: what a move is scaled to."""

SCREEN = 2.0**-40
"""How far the screening run (past EXTENDED_WORK) moves every number of the inputs, exact or
not, relatively: far past the grid float64 rounds to, which a move of a unit or two may fall
back onto (2^60 + 1 is 2^60 however its factors move by so little)."""

LONG = float(np.finfo(np.longdouble).eps) / 2
"""How far longdouble rounds, relatively: 2^-64 on x86-64 (2^-53 where it is float64)."""

SHAKE = LONG * 2.0**8
"""How far the extended run's own check moves every number, relatively: past longdouble's grid,
as SCREEN is past float64's (2^66 + 1 is 2^66 in longdouble too), yet near enough that a move
that swamps a term past 2^64, scaled to one rounding, still says so. So near the grid a move
takes a few hundred values: three runs, under a seed the inputs and the caller's ``salt`` make
(a server's secret), so that no author can find inputs whose moves cancel in all three."""

SMALL = 8
"""Inputs no larger than this make no term past 2^60 in any operation (eight factors of 8 and
sums of 4096^3 of them): longdouble's own check is for larger ones."""

PATTERNS = 3
"""How many moved runs measure how far reading the inputs may move an entry (rows moved alike
stay alike, as identical values do, so the largest move decides)."""

EXTENDED_WORK = 3 * 10**7
"""The most work (attention/work.py's units) the extended run is made for: longdouble has no
BLAS, and runs some ten to fifty times slower than float64 (a causal mask's exact zeros ask
for it on every long sequence: at 10^8 units it took seconds)."""


@dataclass
class Runs:
    """The further runs of one value, each made once, when first asked."""

    operation: Any
    given: dict[str, Any]
    ask: Any
    salt: bytes = b""
    made: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # every list read once, as the array each run moves and the engine converts
        self.given = {name: _once(value) for name, value in self.given.items()}

    def extended(self, key: str, shape: tuple[int, ...]) -> np.ndarray | None:
        """Output ``key`` in extended precision (longdouble), or None where the value is too
        large to compute so, the operation refuses its inputs so, or it is no more precise
        (`precise`)."""
        if "extended" not in self.made:
            self.made["extended"] = extended_value(self.operation, self.given, self.ask)
        found = self.made["extended"]
        precise = found is not None and self.precise()
        return _entry(found, key, shape, np.longdouble) if precise else None

    def widened(self) -> bool:
        """Whether the extended run was made (not too large, nor refused)."""
        return self.made.get("extended") is not None

    def precise(self) -> bool:
        """Whether the extended run, made, computed in extended precision: an operation on
        settings alone (a position table) has nothing to widen, and computes in float64 again."""
        found = self.made.get("extended")
        values = found.values() if isinstance(found, Mapping) else [found]
        arrays = [np.asarray(v) for v in values if v is not None]
        return bool(arrays) and all(a.dtype != np.float64 for a in arrays)

    def shaken(self, key: str, exact: np.ndarray) -> np.ndarray:
        """How far longdouble's own roundings may have moved each entry of output ``key``
        (``exact``, the extended run's): the largest move under moving every number by SHAKE
        one way, exactly the other (a relu dead on one side is alive on the other), and under
        a pattern of its own, in extended precision, scaled to one rounding of longdouble's."""
        if "shaken" not in self.made and self.small():
            self.made["shaken"] = []  # no term reaches 2^64: longdouble cannot lose one
        if "shaken" not in self.made:
            seed = self.seed()  # a pattern and its opposite, and a pattern of its own: inputs
            # made for two moves to cancel in one must make them cancel in the other too
            movers = [mover(seed, SHAKE * sign, np.longdouble) for sign in (1, -1)]
            movers.append(mover(seed + 1, SHAKE, np.longdouble))
            self.made["shaken"] = [
                _evaluated(self.operation, self.given, self.ask, lambda n, a, m=move: m(a))
                for move in movers
            ]
        moves = [self._moves(run, key, exact, LONG / SHAKE) for run in self.made["shaken"]]
        return np.max(np.stack(moves), axis=0) if moves else np.zeros(exact.shape)

    def small(self) -> bool:
        """Whether every number of the inputs, settings and counts too, is at most SMALL in
        size: then no product or sum the engine forms passes 2^60, and longdouble computes
        every term exactly enough that its own check is not made."""
        numbers = [np.abs(a).max(initial=0) for a in self.numbers().values()]
        numbers += [abs(v) for v in self.given.values() if _whole(v)]
        return max(numbers, default=0) <= SMALL

    def screened(self, key: str, got: np.ndarray) -> np.ndarray:
        """How far float64's own roundings may have moved each entry of output ``key``, where
        there is no extended run: the larger move under two screening runs, every number
        moved by SCREEN, scaled to one reading."""
        if "screened" not in self.made:
            runs = []
            for seed in (self.seed(), self.seed() + 1):
                move = mover(seed, SCREEN)
                runs.append(
                    _evaluated(self.operation, self.given, self.ask, lambda n, a, m=move: m(a))
                )
            self.made["screened"] = runs
        moves = [self._moves(run, key, got, READ / SCREEN) for run in self.made["screened"]]
        return np.maximum(*moves)

    def moved(self, key: str, near: np.ndarray, patterns: int = PATTERNS) -> np.ndarray:
        """How far reading its inputs may move each entry of output ``key`` (``near``, of the
        run it is measured from: in extended precision, float64's own rounding of a move
        hides nothing): the largest move under the first ``patterns`` moved runs, scaled to
        one reading (0.0 where no input is rounded by its reading, or the operation refuses
        moved inputs)."""
        made = self.made.setdefault(f"moved {near.dtype.str}", [])
        rounded = self.rounded()
        while rounded and len(made) < patterns:
            seed = self.seed() + 2 + len(made)
            run = _moved(self.operation, self.given, self.ask, seed, rounded, near.dtype.type)
            if run is None:  # the operation refuses moved inputs: nothing is measured
                self.made["rounded"] = rounded = {}
                made.clear()
            else:
                made.append(run)
        moves = [self._moves(run, key, near, READ / PERTURBATION) for run in made[:patterns]]
        return np.max(np.stack(moves), axis=0) if moves else np.zeros(near.shape)

    def rounded(self) -> dict[str, np.ndarray]:
        """Where reading each input rounds it (`_rounded`), by name; {} where none is."""
        if "rounded" not in self.made:
            # binary holds small whole numbers; the rest in one pass, all inputs together
            arrays = {n: a for n, a in self.numbers().items() if not _small_whole(a)}
            self.made["rounded"] = _rounded_by_name(arrays) if arrays else {}
        return self.made["rounded"]

    def arrays(self) -> dict[str, np.ndarray]:
        """The inputs' lists of numbers, by name (`number_arrays`)."""
        if "arrays" not in self.made:
            self.made["arrays"] = number_arrays(self.given)
        return self.made["arrays"]

    def numbers(self) -> dict[str, np.ndarray]:
        """Every number a move moves, by name: the lists, and the float settings as arrays of
        no axes."""
        if "numbers" not in self.made:
            settings = {n: np.asarray(v, np.float64) for n, v in self.given.items() if _setting(v)}
            self.made["numbers"] = self.arrays() | settings
        return self.made["numbers"]

    def seed(self) -> int:
        """The seed these inputs make: a hash of their names and numbers, keyed by ``salt``."""
        if "seed" not in self.made:
            digest = hashlib.blake2b(digest_size=7, key=self.salt[:64])
            for name, array in sorted(self.numbers().items()):
                digest.update(name.encode() + b"\0" + repr(array.shape).encode())
                digest.update(np.ascontiguousarray(array, dtype=np.float64).tobytes())
            self.made["seed"] = int.from_bytes(digest.digest())
        return self.made["seed"]

    @staticmethod
    def _moves(run: Any, key: str, near: np.ndarray, scale: float) -> np.ndarray:
        if run is None:  # the operation refuses moved inputs: nothing is measured
            return np.zeros(near.shape)
        return np.abs(near - _entry(run, key, near.shape, near.dtype)) * scale


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
    of floats alone. None where it refuses even that. A setting the operation takes as a
    number (eps, a position's base, written 2 or 2.0 alike) is changed as a number is."""
    found = OPERATIONS.get(operation)
    numbers = {p.name for p in found.parameters if p.kind == "number"} if found else set()
    given = {n: float(v) if n in numbers and _whole(v) else v for n, v in given.items()}
    for kinds in ("iuf", "f"):
        changed = {name: _changed(name, v, kinds, change) for name, v in given.items()}
        try:
            return evaluate(operation, changed, ask, 0)
        except EngineInputError:
            continue
    return None


def _changed(name: str, node: Any, kinds: str, change: Any) -> Any:
    if _setting(node):  # eps, a position's base: moved as numbers are, passed on as a float
        return float(np.asarray(change(name, np.asarray(node, dtype=np.float64))).item())
    if not isinstance(node, (list, tuple, np.ndarray)):
        return node  # a count (heads, offset), a flag or a word: kept
    array = _array(node)
    if array is None:  # ragged: the engine says so on its own run
        return node
    if array.dtype.kind not in kinds or array.dtype.kind == "b":
        return node
    return change(name, array)


def number_arrays(given: dict[str, Any]) -> dict[str, np.ndarray]:
    """The inputs' lists of numbers, as arrays by name (booleans and ragged lists left out)."""
    found = {}
    for name, value in given.items():
        if isinstance(value, (list, tuple, np.ndarray)):
            array = _array(value)
            if array is not None and array.dtype.kind in "iuf":
                found[name] = array
    return found


def _array(node: Any) -> np.ndarray | None:
    """``node`` as an array, None where it is ragged. Whole numbers past int64 (10**20, which
    numpy holds as objects) are the floats the engine reads them as, which reading rounds."""
    try:
        array = np.asarray(node)
        if array.dtype == object:
            return np.asarray(node, dtype=np.float64)
    except (ValueError, TypeError, OverflowError):
        return None
    return array


def _whole(node: Any) -> bool:
    return isinstance(node, (int, np.integer)) and not isinstance(node, bool)


def _setting(node: Any) -> bool:
    """A number that is no list and no count: a float setting such as eps or base."""
    return isinstance(node, (float, np.floating)) and not isinstance(node, bool)


def _rounded_by_name(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    mask = _rounded(np.concatenate([a.ravel() for a in arrays.values()]))
    if not mask.any():
        return {}
    parts = np.split(mask, np.cumsum([a.size for a in arrays.values()])[:-1])
    return {n: m.reshape(a.shape) for (n, a), m in zip(arrays.items(), parts, strict=True)}


def _small_whole(array: np.ndarray) -> bool:
    """Whole numbers all below 2^53, which binary holds exactly (`_rounded` says so too)."""
    if array.dtype.kind not in "iu" or not array.size:
        return array.dtype.kind in "iu"
    return bool(array.min() > -EXACT_FLOATS and array.max() < EXACT_FLOATS)


def _once(value: Any) -> Any:
    """A list of numbers or booleans as its array (a ragged one, and anything else, as it is)."""
    if not isinstance(value, (list, tuple)):
        return value
    array = _array(value)
    return value if array is None or array.dtype.kind not in "iufb" else array


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


def _moved(
    operation: Any,
    given: dict[str, Any],
    ask: Any,
    seed: int,
    rounded: dict[str, np.ndarray],
    dtype: Any,
) -> Any | None:
    """The value again, every number a reading rounds (``rounded``) moved under ``seed``,
    computed in ``dtype``."""
    move = mover(seed, PERTURBATION, dtype)

    def moved(name: str, array: np.ndarray) -> Any:
        where = rounded.get(name)
        return array if where is None or not where.any() else move(array, where)

    return _evaluated(operation, given, ask, moved)


def mover(
    seed: int, size: float = PERTURBATION, dtype: Any = np.float64
) -> Callable[..., np.ndarray]:
    """Moves an array's entries (``where`` it says) by ``size`` times a random factor of
    either sign from 0.5 to 1.5, by default a unit or two in the last place, drawn afresh from
    ``seed`` at each call: as reading and rounding move numbers. The result is ``dtype``."""
    rng = np.random.default_rng(seed)

    def move(array: np.ndarray, where: Any = True) -> np.ndarray:
        drawn = rng.uniform(-1.0, 1.0, np.shape(array))
        factors = (drawn + 0.5 * np.sign(drawn)) * where
        moved = np.asarray(array, dtype=dtype)
        return moved + moved * (size * factors)  # every figure of the factor kept

    return move
