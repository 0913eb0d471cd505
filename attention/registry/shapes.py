"""Shape checks the operations' plans share, and the parameter descriptions they share.

A ``Plan`` holds one request's converted inputs and its problems; each check adds a problem
naming the input and returns False (or None) when it fails, so a plan reports every problem.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from attention.cost import cost_terms
from attention.errors import InputProblem, said
from attention.limits import MAX_BATCH, MAX_ELEMENTS, MAX_FLOPS, MAX_HEADS, MAX_SEQ_LEN, MAX_WIDTH
from attention.registry.convert import dims
from attention.registry.operation import Axes, Parameter


class Plan:
    """Accumulates problems for one request; helpers return False when a check fails."""

    def __init__(self, values: dict[str, Any], problems: list[InputProblem]) -> None:
        self.values = values
        self.problems = problems

    def add(self, name: str, message: str) -> None:
        self.problems.append(InputProblem(f"inputs.{name}" if name else "inputs", message))

    def limit(self, name: str, what: str, value: int, cap: int) -> bool:
        if value > cap:
            self.add(name, f"{what} {said(value)} exceeds the limit of {cap}")
            return False
        return True

    def matrix(self, name: str, rows: int, cols: int, batch: int | None) -> bool:
        """Require ``name`` (if given) to be rows x cols, or batch x rows x cols when batched."""
        arr = self.values.get(name)
        if arr is None:
            return False
        want: tuple[int, ...] = (rows, cols) if batch is None else (batch, rows, cols)
        if arr.shape != want:
            self.add(
                name,
                f"expected {dims(want)} {'matrix' if batch is None else 'array'}, "
                f"got {dims(arr.shape)}",
            )
            return False
        return True

    def mask(self, rows: int, cols: int, batch: int | None, causal: bool) -> None:
        """Mask must be (rows, cols) or (batch, rows, cols) and leave every query some key."""
        arr = self.values.get("mask")
        if arr is None:
            return
        ok = arr.shape == (rows, cols) or (batch is not None and arr.shape == (batch, rows, cols))
        if not ok:
            want = f"{rows}x{cols} matrix" + (
                f" or {batch}x{rows}x{cols} array" if batch is not None else ""
            )
            self.add("mask", f"expected {want}, got {dims(arr.shape)}")
            return
        allowed = arr & np.tri(rows, cols, dtype=bool) if causal else arr
        empty = np.argwhere(~allowed.any(axis=-1))
        if len(empty):
            where = empty[0]
            suffix = f" of batch {int(where[0])}" if len(where) > 1 else ""
            why = "mask and causal together allow" if causal else "mask allows"
            self.add(
                "mask",
                f"query row {int(where[-1])}{suffix} has nothing to attend to: the {why} no key",
            )

    def heads(self, width: int) -> int | None:
        h = self.values.get("heads")
        if h is None:
            return None
        if h < 1:
            self.add("heads", f"must be a positive integer, got {h}")
            return None
        if not self.limit("heads", "heads", h, MAX_HEADS):
            return None
        if width % h:
            self.add("heads", f"width {width} is not divisible by {h} heads")
            return None
        return h

    def causal(self) -> bool:
        return bool(self.values.get("causal") or False)


def lead_axes(batch: int | None) -> Axes:
    return () if batch is None else (("batch", batch),)


def x_dims(p: Plan) -> tuple[int | None, int, int] | None:
    """(batch or None, T, d) of input ``x`` after the size limits, or None if unusable."""
    x = p.values.get("x")
    if x is None:
        return None
    batch = x.shape[0] if x.ndim == 3 else None
    seq, width = x.shape[-2:]
    ok = p.limit("x", "sequence length", seq, MAX_SEQ_LEN) & p.limit("x", "width", width, MAX_WIDTH)
    if batch is not None:
        ok &= p.limit("x", "batch", batch, MAX_BATCH)
    if seq < 1 or width < 1:
        p.add("x", f"must have at least one token and one feature, got {dims(x.shape)}")
        ok = False
    return (batch, seq, width) if ok else None


def square_weights(p: Plan, names: tuple[str, ...]) -> None:
    """Without a usable x the width is unknown, but each weight must still be square."""
    for name in names:
        w = p.values.get(name)
        if w is not None and (w.ndim != 2 or w.shape[0] != w.shape[1]):
            p.add(name, f"expected a square (d, d) matrix, got {dims(w.shape)}")


def work_limit(
    p: Plan,
    batch: int | None,
    seq: int,
    width: int,
    heads: int,
    kv_heads: int | None = None,
    backward: bool = False,
) -> bool:
    b = batch or 1
    ok = True
    if b * heads * seq * seq > MAX_ELEMENTS:
        p.add(
            "",
            f"attention weights would have {b * heads * seq * seq} elements, "
            f"more than the limit of {MAX_ELEMENTS}",
        )
        ok = False
    kv = heads if kv_heads is None else kv_heads
    flops = sum(cost_terms(b, seq, width, heads, kv, False, backward).values())
    if flops > MAX_FLOPS:
        p.add("", f"the computation needs {flops} flops, more than the limit of {MAX_FLOPS}")
        ok = False
    return ok


def lead_shape(batch: int | None) -> tuple[int, ...]:
    return () if batch is None else (batch,)


_AXIS_NAMES = {1: ("col",), 2: ("row", "col"), 3: ("batch", "row", "col")}


def axes_of(shape: tuple[int, ...]) -> Axes:
    """Selector names of an output by its rank: col; row, col; batch, row, col."""
    return tuple(zip(_AXIS_NAMES[len(shape)], shape, strict=True))


def features_of(p: Plan, name: str) -> int | None:
    """The last-axis width of array input ``name`` after the width limit, or None."""
    arr = p.values.get(name)
    if arr is None:
        return None
    width = arr.shape[-1]
    if width < 1:
        p.add(name, f"must have at least one feature, got {dims(arr.shape)}")
        return None
    return width if p.limit(name, "width", width, MAX_WIDTH) else None


def vector(p: Plan, name: str, length: int) -> bool:
    arr = p.values.get(name)
    if arr is not None and arr.shape != (length,):
        p.add(name, f"expected a vector of {length}, got {dims(arr.shape)}")
        return False
    return True


def self_attention(p: Plan) -> tuple[int | None, int, int, int | None, bool] | None:
    """x, the four (d, d) weights, heads and the mask of multi-head self-attention, as every
    operation built on it takes them: (batch, seq, width, heads, weights fit), or None when x
    itself does not fit."""
    dims = x_dims(p)
    if dims is None:
        square_weights(p, ("w_q", "w_k", "w_v", "w_o"))
        return None
    batch, seq, width = dims
    ok = all([p.matrix(n, width, width, None) for n in ("w_q", "w_k", "w_v", "w_o")])
    heads = p.heads(width)
    p.mask(seq, seq, batch, p.causal())
    return batch, seq, width, heads, ok


MATRIX_X = "(T, d) matrix or (B, T, d) array"
WEIGHT = "(d, d) matrix"
_MASK = "boolean (T, T) matrix or (B, T, T) array, true where a query may attend"
MASK_INPUTS = (
    Parameter("mask", "mask", False, _MASK),
    Parameter("causal", "bool", False, "boolean"),
)


MHA_WEIGHTS = ("w_q", "w_k", "w_v", "w_o")
PROJECTION_INPUTS = (
    Parameter("x", "matrix", True, MATRIX_X),
    Parameter("w_q", "matrix", True, WEIGHT),
    Parameter("w_k", "matrix", True, WEIGHT),
    Parameter("w_v", "matrix", True, WEIGHT),
)
