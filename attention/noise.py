"""Which entries of the engine's value are float noise, an exact 0 computed inexactly.

An entry is noise only where the computation itself cannot tell it from 0: run again on inputs
moved by a relative PERTURBATION (a few hundred units in the last place), it moves by as much
as it measures, and run on inputs moved STRETCH times as far, it moves STRETCH times as far (a
rounding residue answers the move in proportion). An entry that is exactly 0 is noise; so is
1e-17 left where a mathematically exact 0 was summed. An entry computed apart from larger ones
(0.3 beside 1e12 in another column, 1e-13 from inputs that small) barely moves and is a number
to answer, whatever its size beside the rest; so is a value the first move already swamps (the
softmax of 1e14 and 1e14 + 1, computed exactly, moves no further however far its inputs go).
The moved runs are made only when the value has an entry small enough beside its largest to be
in doubt.

Float64 cannot always say which: 0.5 * (1e15 + 1) - 0.5 * 1e15 is exactly 0.5, a constant
upstream gradient of 1e15 through softmax is exactly 0, and both move, when their inputs do, as
rounding noise does. Where a noise entry moves by more than half a unit in the third figure of
the inputs' smallest number (the precision the problem's own numbers are written to), or by
more than LARGEST_NOISE whatever the inputs, the engine cannot tell it from 0 or from a number
anyone would write, and says so (EngineInputError at ``value``): a verdict is then an error to
fix, never a guess.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from attention.compare import MIN_FIGURES, ZERO_SHARE, half_unit
from attention.errors import EngineInputError, fail
from attention.generated import expand_inputs
from attention.registry.table import evaluate

PERTURBATION = 2.0**-44
"""How far each float input is moved, relatively, with a random sign: well above rounding
(2^-52), well below any difference an answer is judged by."""

MOVED = 4.0
"""An entry within MOVED x how far the perturbation moved it of 0 is noise."""

STRETCH = 4.0
"""The second moved run moves the inputs this many times as far as the first."""

IN_PROPORTION = (0.75, 1.25)
"""How far the second run must move a noise entry, as a share of STRETCH x the first's move:
a residue's move is linear in the inputs' (a saturated one, an exact value swamped by the
move, is not, and an answer it let through was verified 0.73 off)."""

LARGEST_NOISE = 2.0**-8
"""No move past this is taken for noise, whatever the inputs: with every input large, terms
cancelling to a small exact value (0.5 * (1e15 + 2) - 0.5 * 1e15) move as a residue does, and
the precision of the inputs' smallest number alone let a wrong 0 be verified for an exact 1."""

IN_DOUBT = 2.0**-20
"""Only an entry below this share of its output's largest |entry|, or of its inputs' largest
number (an output that is all noise: x - mean of a constant row), may be noise."""


def noise_bounds(operation: Any, inputs: Any, ask: Any, value: Any, instance: int = 0) -> Any:
    """For each entry of ``value`` (the engine's, an array or a mapping of named arrays): how
    close to 0 it is taken as 0, or 0.0 where it is a number to answer."""
    arrays = value if isinstance(value, Mapping) else {"": value}
    floats = {k: np.asarray(v, dtype=np.float64) for k, v in arrays.items()}
    given = _given(inputs, instance)
    among, least = _sizes(given)
    doubtful = any(_in_doubt(v, among).any() for k, v in floats.items() if not _counts(arrays[k]))
    runs = _moved(operation, given, ask) if doubtful and given is not None else None
    bounds = {}
    for key, got in floats.items():
        scale = float(np.max(np.abs(got), initial=0.0))
        bound = np.where(got == 0, ZERO_SHARE * scale, 0.0)
        doubted = _in_doubt(got, among)
        found = None if runs is None or _counts(arrays[key]) else _response(runs, key, got, doubted)
        if found is not None:
            moved, linear = found
            shift = MOVED * moved
            noise = doubted & (np.abs(got) <= shift) & linear
            _resolved(key, noise, shift, least)
            bound = np.where(noise, np.maximum(shift, ZERO_SHARE * scale), bound)
        bounds[key] = bound
    return bounds if isinstance(value, Mapping) else bounds[""]


def _response(
    runs: list[_Run], key: str, got: np.ndarray, doubted: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """How far each entry moved, under whichever sign pattern moved it furthest, and whether
    that pattern's run STRETCH times as far moved it in proportion (made only for an entry in
    doubt that moved as much as it measures)."""
    nears = [_entry(run.near, key, got.shape) for run in runs]
    if any(near is None for near in nears):
        return None
    moves = np.stack([np.abs(got - near) for near in nears])
    furthest, moved = np.argmax(moves, axis=0), np.max(moves, axis=0)
    candidates = doubted & (np.abs(got) <= MOVED * moved)
    linear = np.zeros(got.shape, dtype=bool)
    low, high = IN_PROPORTION
    for pattern in sorted(set(furthest[candidates].ravel().tolist())):
        far_run = runs[pattern].far()
        far = None if far_run is None else _entry(far_run, key, got.shape)
        if far is not None:
            further = np.abs(got - far) / STRETCH
            steady = (further >= low * moves[pattern]) & (further <= high * moves[pattern])
            linear |= (furthest == pattern) & steady
    return moved, linear


def _resolved(key: str, noise: np.ndarray, shift: np.ndarray, least: float) -> None:
    """Refuse (EngineInputError) where a noise entry's move passes what the inputs' smallest
    number is written to: there the engine cannot tell the entry from 0."""
    written = float(half_unit(np.asarray(least), MIN_FIGURES)) if least else np.inf
    unresolved = noise & (shift > min(written, LARGEST_NOISE))
    if unresolved.any():
        first = tuple(int(i) for i in np.argwhere(unresolved)[0])
        entry = f"{key or 'the value'}{list(first) if first else ''}"
        raise fail(
            "value",
            f"the engine cannot tell {entry} from 0 at these magnitudes: moving the inputs by "
            f"2^-44 moves it by {float(shift[first]) / MOVED:.3g}, more than half a unit in the "
            f"third figure of their smallest number ({least:.3g}) or {LARGEST_NOISE:g}; choose "
            "smaller inputs, or ones whose terms do not cancel so far",
        )


def _entry(run: Any, key: str, shape: tuple[int, ...]) -> np.ndarray | None:
    """Output ``key`` of a moved run (the whole run for an unnamed value), None where its shape
    is not the value's."""
    found = np.asarray(run[key] if isinstance(run, Mapping) else run, np.float64)
    return found if found.shape == shape else None


def _counts(value: Any) -> bool:
    return np.asarray(value).dtype.kind in "iub"


def _in_doubt(got: np.ndarray, among: float) -> np.ndarray:
    scale = max(float(np.max(np.abs(got), initial=0.0)), among)
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
    for value in (given or {}).values():
        if isinstance(value, (list, tuple, np.ndarray)):
            try:
                array = np.asarray(value)
                numbers = np.abs(array.astype(np.float64))
            except (TypeError, ValueError):
                continue
            if array.dtype.kind != "b":
                numbers = numbers[np.isfinite(numbers) & (numbers > 0)]
                largest = max(largest, float(np.max(numbers, initial=0.0)))
                smallest = min(smallest, float(np.min(numbers, initial=np.inf)))
    return largest, (0.0 if smallest == np.inf else smallest)


@dataclass
class _Run:
    """The value with the inputs moved by one sign pattern; moved STRETCH times as far only
    when asked (an entry that may be noise)."""

    operation: Any
    given: dict[str, Any]
    ask: Any
    kinds: str
    pattern: tuple[int, bool]
    near: Any
    made: tuple[Any, ...] = ()  # the far run, once made (each named output asks for it)

    def far(self) -> Any | None:
        """None where the operation refuses the inputs moved so far: nothing is in proportion."""
        if not self.made:
            moved = _moved_inputs(self.given, self.kinds, STRETCH * PERTURBATION, self.pattern)
            try:
                self.made = (evaluate(self.operation, moved, self.ask, 0),)
            except EngineInputError:
                self.made = (None,)
        return self.made[0]


def _moved(operation: Any, given: dict[str, Any], ask: Any) -> list[_Run] | None:
    """The value again, every list of numbers moved by PERTURBATION under each of PATTERNS.
    Lists of whole numbers are moved too, as the tensors they are; where the operation refuses
    that, as for class indices, only lists of floats. None where even that is refused."""
    for kinds in ("iuf", "f"):
        try:
            runs = []
            for pattern in PATTERNS:
                near = evaluate(
                    operation, _moved_inputs(given, kinds, PERTURBATION, pattern), ask, 0
                )
                runs.append(_Run(operation, given, ask, kinds, pattern, near))
            return runs
        except EngineInputError:
            continue
    return None


PATTERNS = ((20240, False), (20240, True), (7, False))
"""The sign patterns inputs are moved by: a random one, the same with every other sign turned
(inputs all moved one way keep their ratios, and a rounded sum of them looked exact), and
another random one (rows both moved alike stay alike, as identical values do)."""


def _moved_inputs(
    given: dict[str, Any], kinds: str, by: float, pattern: tuple[int, bool]
) -> dict[str, Any]:
    seed, turn = pattern
    rng = np.random.default_rng(seed)  # the same signs for both runs of a pattern
    return {name: _move(v, kinds, rng, by, turn) for name, v in given.items()}


def _move(node: Any, kinds: str, rng: np.random.Generator, by: float, turn: bool) -> Any:
    if not isinstance(node, (list, tuple, np.ndarray)):
        return node  # a scalar is a count or a setting (heads, eps): kept
    try:
        array = np.asarray(node)
    except ValueError:  # ragged: the engine says so on its own run
        return node
    if array.dtype.kind not in kinds or array.dtype.kind == "b":
        return node
    signs = rng.choice((-1.0, 1.0), size=array.shape)
    if turn:
        signs.reshape(-1)[1::2] *= -1
    return (array.astype(np.float64) * (1.0 + by * signs)).tolist()
