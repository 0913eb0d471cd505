"""Tolerance comparison of a computed value with an expected answer from a chapter file."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial

import numpy as np

from attention.errors import EngineInputError, InputProblem, fail
from attention.scalars import is_number
from attention.tiny import EXACT_FLOATS, NOT_NORMAL, below_normal


@dataclass(frozen=True)
class Comparison:
    """Outcome of ``compare``: ``ok`` plus the worst absolute and relative errors seen."""

    ok: bool
    max_abs_error: float
    max_rel_error: float
    message: str = ""


def _numeric(expected: object, path: str) -> np.ndarray:
    """The expected answer as a float array, or as int64 when every number in it is a whole
    number written as one (so a count is compared exactly, past 2**53 too); anything
    non-numeric (or ragged) is refused."""

    def bad(found: object) -> EngineInputError:
        return EngineInputError(
            [InputProblem(path, f"must be a number or a list of numbers, found {found!r}")]
        )

    waiting = [expected]  # every leaf, without a call per number: answers run to thousands
    whole = True
    while waiting:
        node = waiting.pop()
        if type(node) is int:  # not a bool
            continue
        if type(node) is float:
            whole = False
        elif isinstance(node, (list, tuple)):
            waiting.extend(node)
        elif isinstance(node, np.ndarray):
            if node.dtype.kind not in "iuf":
                raise bad(node.dtype)
            whole &= node.dtype.kind in "iu"
        elif not is_number(node):
            raise bad(node)
        else:
            whole = False
    try:
        arr = np.asarray(expected, dtype=np.float64)
    except OverflowError as exc:  # an integer past float range: 1 followed by 400 zeros
        raise EngineInputError([InputProblem(path, "must be finite")]) from exc
    except ValueError as exc:
        raise EngineInputError(
            [InputProblem(path, "is ragged: its rows have different lengths")]
        ) from exc
    if not np.all(np.isfinite(arr)):
        raise EngineInputError([InputProblem(path, "must be finite")])
    if not whole and below_normal(arr):  # 2.28705e-320 is held as 2.287e-320: no figures
        raise EngineInputError([InputProblem(path, NOT_NORMAL)])
    if whole:
        try:
            return np.asarray(expected, dtype=np.int64)
        except OverflowError:  # past int64: no count is; compared as the float it is
            pass
    return arr


def _shape(shape: tuple[int, ...]) -> str:
    if not shape:
        return "a single number"
    if len(shape) == 1:
        return f"a vector of {shape[0]}"
    return "a " + "x".join(map(str, shape)) + " array"


MIN_FIGURES = 3
"""No tolerance is looser than half a unit in an entry's third significant figure."""

MAX_FIGURES = 15
"""A float carries about 16 significant figures; no more than this can be asked for."""

ZERO_SHARE = 2.0**-40
"""How close an answer to an entry that is 0 must be: this share of its output's largest
|entry| (an exact 0 answered 1e-30 beside 1 stands; 1e-6 does not)."""

LARGEST_NOISE = 2.0**-12
"""No band an answer of 0 is taken within passes this, whatever the sizes: beside 1e15, or
with every input large, an answer of 0 within it no longer says the value is 0 (at 2^-8, 0 and
-0.0005 were verified for 4000000000000.0005 - 4e12, which reading moves by 4.4e-4)."""

ROUNDING = 1 + 1e-9
"""Half a unit is computed in floats: an answer exactly half a unit away is not refused."""


def half_unit(value: np.ndarray, figures: int) -> np.ndarray:
    """Half a unit in the ``figures``-th significant figure of each nonzero ``value`` (a 0 counts
    as magnitude 1): what rounding to that many figures may move a number by."""
    magnitude = np.floor(np.log10(np.where(value == 0, 1.0, np.abs(value))))
    return 0.5 * 10.0 ** (magnitude - figures + 1) * ROUNDING


def zero_bound(value: np.ndarray, zero: object = None) -> np.ndarray:
    """Each entry's bound within which it is an exact 0 and must be answered so: ``zero`` as
    the engine's `noise_bounds` made it, or by default only an entry that is exactly 0."""
    if zero is not None:
        bound = np.asarray(zero, dtype=np.float64)
        if bound.shape == value.shape:
            return bound
    return np.where(value == 0, zero_floor(value), 0.0)


def zero_floor(value: np.ndarray) -> float:
    """The band an exact 0 of ``value`` is answered within: ZERO_SHARE of its largest |entry|,
    never past LARGEST_NOISE."""
    return min(ZERO_SHARE * float(np.max(np.abs(value), initial=0.0)), LARGEST_NOISE)


def widest_zero(least: float) -> float:
    """The widest band an answer of 0 may be taken within where ``least`` is the smallest
    nonzero number written (0.0: none): half a unit in its third figure, and LARGEST_NOISE."""
    written = float(half_unit(np.asarray(least), MIN_FIGURES)) if least else np.inf
    return min(written, LARGEST_NOISE)


def _allowed(
    got: np.ndarray,
    expected: np.ndarray,
    rtol: float,
    atol: float,
    digits: int | None,
    zero: np.ndarray,
    shown: int | None = None,
) -> np.ndarray:
    """Each entry's allowed |difference|: the stated tolerance, never looser than half a unit in
    its MIN_FIGURES-th figure, or with ``shown`` half a unit in that figure if that is looser;
    an exact 0 within the zero bound. ``expected`` may hold several answers along leading axes
    (``compare_each``): each is held to the same bounds of ``got``."""
    if digits is None:
        allowed = np.minimum(atol + rtol * np.abs(expected), half_unit(got, MIN_FIGURES))
    else:
        allowed = half_unit(got, max(digits, MIN_FIGURES))
    if shown is not None and (digits is None or shown < digits):  # else no looser than digits
        allowed = np.maximum(allowed, half_unit(got, max(shown, MIN_FIGURES)))
    return np.where(_is_zero(got, zero), zero, allowed)


def _refused(
    got: np.ndarray,
    counts: np.ndarray,
    expected: np.ndarray,
    rtol: float,
    atol: float,
    digits: int | None,
    zero: np.ndarray,
    shown: int | None,
) -> np.ndarray:
    """The entries of ``expected`` the rule refuses against ``got`` (``counts``: ``got`` as
    given, integers compared exactly): the one rule of ``compare`` and ``compare_each``."""
    if counts.dtype.kind in "iu":
        if expected.dtype.kind in "iu":
            return counts != expected
        # a number written with a point: past 2**53 floats cannot tell neighbouring counts apart
        return (counts != expected) | (np.abs(counts) > EXACT_FLOATS)
    allowed = _allowed(got, expected, rtol, atol, digits, zero, shown)
    return ~(np.abs(got - expected) <= allowed)


def _is_zero(got: np.ndarray, zero: np.ndarray) -> np.ndarray:
    return (got == 0) | ((zero > 0) & (np.abs(got) <= zero))


def _rule_words(
    v: float,
    e: float,
    zero: float,
    *,
    rtol: float,
    atol: float,
    digits: int | None,
    shown: int | None = None,
) -> str:
    """Which rule refused ``e`` for ``v`` (``zero``: the entry's bound), in words (after a
    colon, or after a space): with ``shown``, the looser of it and the tolerance."""
    if v == 0 or (zero > 0 and abs(v) <= zero):
        return ": an entry that is exactly 0 must be answered 0"
    value = np.asarray(v)
    if shown is not None and float(half_unit(value, max(shown, MIN_FIGURES))) > float(
        _allowed(value, np.asarray(e), rtol, atol, digits, np.asarray(0.0))
    ):
        return f" to {max(shown, MIN_FIGURES)} significant figures"
    if digits is not None:
        return f" to {max(digits, MIN_FIGURES)} significant figures"
    if atol + rtol * abs(e) <= float(half_unit(value, MIN_FIGURES)):
        return f" within rtol={rtol:g}, atol={atol:g}"
    return f" to {MIN_FIGURES} significant figures"


def _counted(v: float, e: float, zero: float) -> str:
    return ": a count is compared exactly"


def _entry(index: tuple[int, ...]) -> str:
    return f"[{', '.join(map(str, index))}]: " if index else ""


def _number(x: float, other: float) -> str:
    """``x`` in as few figures as tell it from ``other`` (6 at least); a whole number written
    as one (a count), in full."""
    if isinstance(x, int):
        return str(x)
    for figures in range(6, 18):
        if f"{x:.{figures}g}" != f"{other:.{figures}g}":
            break
    return f"{x:.{figures}g}"


def _refusal(
    prefix: str,
    bad: np.ndarray,
    got: np.ndarray,
    expected: np.ndarray,
    rule: Callable[[float, float, float], str],
    zero: np.ndarray,
) -> str:
    """The first entry refused, which rule refused it, and how many more were."""
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    v, e = got[first].item(), expected[first].item()  # a count stays an int, as it was written
    words = rule(v, e, float(zero[first]))
    text = f"{prefix}{_entry(first)}{_number(e, v)} is not {_number(v, e)}{words}"
    more = int(bad.sum()) - 1
    return text + (f" (and {more} more {'entry' if more == 1 else 'entries'})" if more else "")


def _settle(
    prefix: str, got: np.ndarray, expected: np.ndarray, allowed: np.ndarray, unsure: object
) -> None:
    """EngineInputError where reading and rounding may have moved an entry of ``got`` far
    enough (``unsure``, `attention.settled`'s) to turn the verdict on ``expected``: the answer
    lies within that of the edge of what its tolerance allows, and no other entry is wrong
    however far they moved it."""
    moved = np.asarray(unsure, dtype=np.float64)
    if moved.shape != got.shape or not moved.any():
        return
    off = np.abs(got - expected)
    turns = (moved > 0) & (np.abs(off - allowed) <= moved)
    if turns.any() and not (off > allowed + moved).any():
        at = tuple(int(i) for i in np.argwhere(turns)[0])
        where = f"{prefix}{list(at) if at else ''}".rstrip(": ") or "the value"
        raise fail(
            "value",
            f"the engine cannot settle {where} to the tolerance asked: reading and "
            f"rounding its terms may move it by {moved[at]:.3g}, and the answer is "
            f"{off[at]:.3g} from it where {allowed[at]:.3g} is allowed; state fewer figures, "
            "or choose inputs whose terms do not cancel so far",
        )


def _compare_arrays(
    value: object,
    expected: np.ndarray,
    rtol: float,
    atol: float,
    label: str,
    digits: int | None,
    zero: object,
    shown: int | None = None,
    explain: bool = True,
    unsure: object = None,
) -> Comparison:
    prefix = f"{label}: " if label else ""
    try:
        counts = np.asarray(value)
        got = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return Comparison(False, math.inf, math.inf, f"{prefix}value is not numeric")
    if got.shape != expected.shape:
        return Comparison(
            False,
            math.inf,
            math.inf,
            f"{prefix}the answer is {_shape(expected.shape)} but the engine's value is "
            f"{_shape(got.shape)}",
        )
    if got.size == 0:
        return Comparison(True, 0.0, 0.0, "")
    if not np.all(np.isfinite(got)):
        return Comparison(False, math.inf, math.inf, f"{prefix}value contains NaN or infinity")
    if counts.dtype.kind in "iu" and expected.dtype.kind in "iu":
        # counts apart by less than float64 tells past 2**53: their difference as Python's exact
        # integers (int64's own could overflow), then as a float
        diff = np.abs(counts.astype(object) - expected.astype(object)).astype(np.float64)
    else:
        diff = np.abs(got - expected)
    nonzero = expected != 0
    with np.errstate(over="ignore"):  # over a subnormal expected value: inf, said as such
        rel = float(np.max(diff[nonzero] / np.abs(expected[nonzero]))) if nonzero.any() else 0.0
    if not nonzero.any() and diff.max() > 0:  # |v - 0| / 0: no finite relative error to show
        rel = math.inf
    bounds = zero_bound(got, zero)
    if unsure is not None and counts.dtype.kind not in "iu":
        _settle(
            prefix,
            got,
            expected,
            _allowed(got, expected, rtol, atol, digits, bounds, shown),
            unsure,
        )
    bad = _refused(got, counts, expected, rtol, atol, digits, bounds, shown)
    rule: Callable[[float, float, float], str] = (
        _counted  # counts and sizes: exact, whatever the tolerance
        if counts.dtype.kind in "iu"
        else partial(_rule_words, rtol=rtol, atol=atol, digits=digits, shown=shown)
    )
    ok = not bad.any()
    shown_as = counts if counts.dtype.kind in "iu" else got
    message = "" if ok or not explain else _refusal(prefix, bad, shown_as, expected, rule, bounds)
    return Comparison(ok, float(diff.max()), rel, message)


def compare(
    value: object,
    expected: object,
    rtol: float = 1e-6,
    atol: float = 1e-9,
    digits: int | None = None,
    zero: object = None,
    shown: int | None = None,
    explain: bool = True,
    unsure: object = None,
) -> Comparison:
    """Compare ``value`` with ``expected`` (scalar, nested lists or a mapping of named numbers).

    Entry by entry, ``e`` against the engine's ``v``: ``|v - e| <= atol + rtol * |e|`` (numpy's
    isclose), or with ``digits`` within half a unit in the ``digits``-th significant figure of
    ``v``; never looser than half a unit in its MIN_FIGURES-th figure, whatever was stated.
    ``shown``, the significant figures a reader was shown ``v`` to, also takes an entry within
    half a unit in that figure of ``v`` (what was printed, or rounded as printed). An
    entry the engine's ``noise_bounds`` (``zero``; by default, an entry exactly 0) finds to
    be 0 must be answered within its bound, and integer values
    (counts) exactly. Mappings are compared key by key and a missing or extra key is a
    mismatch. The message names the first entry refused and the rule that refused it. The
    relative error is the largest ``|v - e| / |e|`` over entries with ``e != 0`` (when there are
    none: 0.0 for an exact answer, else infinity, which a verdict stores as no value).
    ``explain=False`` leaves a refused entry's message unwritten, for callers that only ask
    whether (misconceptions told from the right value, eight to a verdict).
    ``unsure`` (`attention.settled`'s, shaped as ``zero``): how far each entry may be off,
    which no verdict may turn on (EngineInputError where it would).
    """
    if isinstance(expected, Mapping):
        wanted = {str(k): _numeric(v, f"answer.{k}") for k, v in expected.items()}
        if not isinstance(value, Mapping):
            return Comparison(
                False,
                math.inf,
                math.inf,
                f"the answer names values ({_names(wanted)}) but the engine's value is not a "
                "mapping of named values",
            )
        got = {str(k): v for k, v in value.items()}
        messages = []
        missing = sorted(set(wanted) - set(got))
        extra = sorted(set(got) - set(wanted))
        if missing:
            messages.append(f"the engine gives no value named {_names(missing)}")
        if extra:
            messages.append(f"the answer leaves out values the engine gives: {_names(extra)}")
        ok = not missing and not extra
        worst_abs = math.inf if not ok else 0.0
        worst_rel = math.inf if not ok else 0.0
        for key in sorted(set(wanted) & set(got)):
            bound = zero.get(key) if isinstance(zero, Mapping) else None
            moved = unsure.get(key) if isinstance(unsure, Mapping) else None
            part = _compare_arrays(
                got[key], wanted[key], rtol, atol, key, digits, bound, shown, explain, moved
            )
            ok &= part.ok
            worst_abs = max(worst_abs, part.max_abs_error)
            worst_rel = max(worst_rel, part.max_rel_error)
            if part.message:
                messages.append(part.message)
        return Comparison(ok, worst_abs, worst_rel, "; ".join(messages))
    if isinstance(value, Mapping):
        return Comparison(
            False,
            math.inf,
            math.inf,
            "the answer is a number or array but the engine's value names values "
            f"({_names(value)})",
        )
    expected_array = _numeric(expected, "answer")
    return _compare_arrays(
        value, expected_array, rtol, atol, "", digits, zero, shown, explain, unsure
    )


def compare_each(
    value: object,
    answers: list[object],
    rtol: float = 1e-6,
    atol: float = 1e-9,
    digits: int | None = None,
    zero: object = None,
    shown: int | None = None,
) -> list[bool]:
    """``compare(value, answer, ...).ok`` for each of ``answers`` (False for one that is not
    numbers): every answer of the value's shape held to the rule in one pass, since telling a
    right value from each of its misconceptions (eight to a verdict) paid numpy's per-call cost
    once for each. Named values (mappings) are compared one by one."""
    try:
        got = None if isinstance(value, Mapping) else np.asarray(value)
    except (TypeError, ValueError):  # ragged, or not numbers: as compare says, one by one
        got = None
    if got is None or got.dtype.kind != "f" or not np.all(np.isfinite(got)) or not got.size:
        # one by one: as compare says, and a count exactly (stacked, its answers are floats)
        return [_compare_ok(value, answer, rtol, atol, digits, zero, shown) for answer in answers]
    stacked: list[np.ndarray] = []
    same: list[bool] = []
    for answer in answers:
        expected = _numbers(answer)
        same.append(expected is not None and expected.shape == got.shape)
        if expected is not None and same[-1]:
            stacked.append(expected)
    if not stacked:
        return [False] * len(answers)
    floats = got.astype(np.float64, copy=False)
    expected = np.stack(stacked, dtype=np.float64)
    bad = _refused(floats, floats, expected, rtol, atol, digits, zero_bound(floats, zero), shown)
    held = iter(~bad.reshape(len(stacked), -1).any(axis=1))
    return [bool(next(held)) if fits else False for fits in same]


def _numbers(answer: object) -> np.ndarray | None:
    """An answer as numbers, or None where ``compare`` would refuse it as not numbers (an
    array of numbers, a misconception's value, is taken as it is)."""
    if isinstance(answer, np.ndarray) and answer.dtype.kind in "iuf":
        return answer
    if isinstance(answer, Mapping):
        return None
    try:
        return _numeric(answer, "answer")
    except EngineInputError:
        return None


def _compare_ok(
    value: object,
    answer: object,
    rtol: float,
    atol: float,
    digits: int | None,
    zero: object,
    shown: int | None,
) -> bool:
    try:
        return compare(value, answer, rtol, atol, digits, zero, shown, explain=False).ok
    except (TypeError, ValueError):  # EngineInputError is a ValueError
        return False


NAMES_SHOWN = 5


def _names(names: Iterable) -> str:
    """At most NAMES_SHOWN names, sorted, then how many more: a message stays short whatever
    an answer holds."""
    listed = sorted(str(name) for name in names)
    shown = ", ".join(listed[:NAMES_SHOWN])
    return shown if len(listed) <= NAMES_SHOWN else f"{shown} and {len(listed) - NAMES_SHOWN} more"
