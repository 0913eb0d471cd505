"""Numerically stable, optionally masked softmax; an all-masked row is an error, never NaN."""

from __future__ import annotations

import math

import numpy as np

from attention.errors import fail
from attention.scalars import is_integer

SMALL = 4096
"""Up to this many entries an array is "small": one call beats two cheaper ones."""


def as_float_array(name: str, value: object) -> np.ndarray:
    """Return ``value`` as a float array: float32/float64 (and the noise check's longdouble)
    kept, integers promoted to float64."""
    arr = value if type(value) is np.ndarray else np.asarray(value)
    if arr.dtype.char in "fdg":  # float32 or float64: the common case, kept as it is
        return arr
    if arr.dtype.kind in "iu":
        return arr.astype(np.float64)
    if arr.dtype.kind != "f":
        raise fail(name, f"must be a real numeric array, got dtype {arr.dtype}")
    return arr.astype(np.float64)


def all_finite(arr: np.ndarray) -> bool:
    """True when no entry is NaN or infinite: one sum, and the exact test only when it is not
    finite (a NaN or infinity always makes the sum non-finite; huge finite entries may too)."""
    if math.isfinite(np.add.reduce(arr, axis=None)):
        return True
    return bool(np.isfinite(arr).all())


def as_bool_mask(name: str, value: object) -> np.ndarray:
    """Return ``value`` as a boolean array (True = allowed); other dtypes are refused."""
    arr = np.asarray(value)
    if arr.dtype != np.bool_:
        raise fail(
            name,
            f"must be a boolean array (True where attention is allowed), got dtype {arr.dtype}",
        )
    return arr


_EXP_RANGE = {
    np.dtype(t): (math.log(float(np.finfo(t).max)), -math.log(float(np.finfo(t).tiny)))
    for t in (np.float32, np.float64)
}
"""Per float type: the largest x whose exp is finite, and the largest x whose exp(-x) is a
normal number."""


def exp_safe(bound: float | np.ndarray, cols: int, dtype: np.dtype) -> bool | np.ndarray:
    """Whether rows of ``cols`` scores no larger than ``bound`` in magnitude exponentiate as
    they are, with no row maximum taken off first: exp(bound) summed over a row stays finite,
    and exp(-bound) a normal number (as precise as any other). Row by row for an array."""
    top, bottom = _EXP_RANGE.get(dtype, (0.0, 0.0))
    return (bound + math.log(max(cols, 1)) < top - 1) & (bound < bottom - 1)


def score_bounds(q: np.ndarray, k: np.ndarray, lead: tuple[int, ...], causal: bool) -> np.ndarray:
    """A bound on |q_i . k_j| for each query row, shaped ``lead + (rows, 1)`` (Cauchy-Schwarz:
    the longest query's length times the longest key's), from T*d numbers rather than the T*T
    scores, with room for the rounding of the products. Without ``causal`` one bound serves a
    head; with it, each row's bound takes only the keys that row may see, so whether its
    softmax takes off the row maximum never depends on a later key. A row that sees one key
    is bounded by infinity: its maximum taken off, its weight is exactly 1 (exp(0)), not
    exp(s) times 1/exp(s). An overflowed length is infinite (or NaN beside a zero), which no
    bound passes, and so is no warning."""
    with np.errstate(over="ignore", invalid="ignore"):
        length_q = np.einsum("...i,...i->...", q, q)
        length_k = np.einsum("...i,...i->...", k, k)
        if causal:
            seen = np.maximum.accumulate(length_k, axis=-1)
            rows = np.minimum(np.arange(q.shape[-2]), k.shape[-2] - 1)
            squared = length_q * seen[..., rows]
        else:
            longest = length_q.max(axis=-1, initial=0.0) * length_k.max(axis=-1, initial=0.0)
            squared = np.broadcast_to(longest[..., None], length_q.shape)
        bounds = np.sqrt(squared) * (1 + 1e-3)
    if k.shape[-2] == 1:
        bounds[...] = np.inf
    elif causal:
        bounds[..., 0] = np.inf
    return np.broadcast_to(bounds, lead + q.shape[-2:-1])[..., None]


def largest_magnitude(arr: np.ndarray) -> float:
    """The largest |entry| of a small array, a bound for ``softmax_rows_inplace``: two
    whole-array passes cost less than a row maximum and its broadcast subtraction."""
    return float(np.maximum.reduce(np.abs(arr), None))


def softmax_rows_inplace(scores: np.ndarray, bound: float | np.ndarray | None = None) -> np.ndarray:
    """Softmax over the last axis, overwriting ``scores``; -inf entries become exact zeros.

    The caller guarantees every row has at least one finite entry. ``bound``, a bound the
    caller knows on every finite |score| (one for all rows, or one per row shaped as
    ``score_bounds`` gives them), spares two of the five passes over the scores (the row
    maximum and its subtraction) where ``exp_safe`` holds for it. A row it holds for keeps its
    scores to the bit, whatever the other rows need.
    """
    if isinstance(bound, np.ndarray):
        unsafe = np.logical_not(exp_safe(bound, scores.shape[-1], scores.dtype))
        if unsafe.any():
            largest = np.maximum.reduce(scores, axis=-1, keepdims=True)
            np.subtract(scores, largest, out=scores, where=unsafe)
    elif bound is None or not exp_safe(bound, scores.shape[-1], scores.dtype):
        np.subtract(scores, np.maximum.reduce(scores, axis=-1, keepdims=True), out=scores)
    np.exp(scores, out=scores)
    total = np.add.reduce(scores, axis=-1, keepdims=True)
    if scores.size <= SMALL:
        return np.divide(scores, total, out=scores)
    # one division per row and a multiply per entry: markedly faster than dividing every entry
    np.reciprocal(total, out=total)
    np.multiply(scores, total, out=scores)
    return scores


def softmax(scores: object, mask: object | None = None, axis: int = -1) -> np.ndarray:
    """Softmax of ``scores`` along ``axis``; entries where ``mask`` is False get weight 0.

    The row maximum is subtracted before exponentiating, so inputs of any finite magnitude give
    exact results. A row with nothing allowed has no meaningful answer and raises
    ``EngineInputError`` instead of producing NaN.
    """
    arr = as_float_array("scores", scores)
    if arr.ndim == 0:
        raise fail("scores", "must have at least one axis")
    if not np.all(np.isfinite(arr)):
        raise fail("scores", "must be finite (no NaN or infinity)")
    if not is_integer(axis) or not -arr.ndim <= axis < arr.ndim:
        raise fail("axis", f"must be an integer axis of a {arr.ndim}-d array, got {axis!r}")
    axis = int(axis) % arr.ndim
    work = np.moveaxis(arr, axis, -1).copy()
    if mask is not None:
        allowed = as_bool_mask("mask", mask)
        try:
            allowed = np.broadcast_to(
                np.moveaxis(np.broadcast_to(allowed, arr.shape), axis, -1), work.shape
            )
        except ValueError as exc:
            raise fail(
                "mask", f"shape {allowed.shape} does not match scores shape {arr.shape}"
            ) from exc
        empty = ~allowed.any(axis=-1)
        if empty.any():
            where = [int(i) for i in np.argwhere(empty)[0]]
            what = (
                "the vector"
                if not where
                else f"row {where[0] if len(where) == 1 else tuple(where)}"
            )
            raise fail("mask", f"{what} has nothing allowed; softmax of an empty row is undefined")
        np.copyto(work, -np.inf, where=~allowed)
    softmax_rows_inplace(work)
    return np.moveaxis(work, -1, axis)
