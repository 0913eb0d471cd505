"""Named operations the verifier calls with data from chapter files: check everything, then compute.

``check`` never computes: it converts and inspects inputs, applies the size limits in
``attention.limits`` and validates the ``ask`` selector, returning every problem at once.
``evaluate`` runs ``check`` and only then computes, so bad or oversized input never reaches numpy.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from attention.backward import (
    multi_head_attention_backward,
    scaled_dot_product_attention_backward,
    softmax_backward,
)
from attention.block import ACTIVATIONS, feed_forward, transformer_block
from attention.core import attention_head, checked_mha, scaled_dot_product_attention
from attention.cost import (
    BACKWARD_TERM_NAMES,
    TERM_NAMES,
    attention_cost,
    cost_problems,
    cost_terms,
)
from attention.decode import attention_decode
from attention.errors import EngineInputError, InputProblem
from attention.generated import expand_checked, is_generator
from attention.grouped import grouped_query_attention
from attention.limits import (
    MAX_BATCH,
    MAX_COST_DIMENSION,
    MAX_ELEMENTS,
    MAX_FLOPS,
    MAX_HEADS,
    MAX_SEQ_LEN,
    MAX_WIDTH,
)
from attention.losses import cross_entropy
from attention.norms import layer_norm, rms_norm
from attention.positions import rope, sinusoidal_positions
from attention.softmax import all_finite, softmax

SELECTORS: tuple[str, ...] = ("batch", "head", "row", "col")
"""Optional integer ``ask`` keys, applied in this order, each indexing the output axis so named."""

Axes = tuple[tuple[str, int], ...]
"""An output's axes as (selector name, length) pairs; ``None`` in place of Axes marks a mapping."""


@dataclass(frozen=True)
class Parameter:
    """One named input of an operation: its kind, whether it is required and its expected shape."""

    name: str
    kind: str  # a key of KINDS
    required: bool
    shape: str
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Example:
    """A worked request for the operations reference; the test suite evaluates every one."""

    inputs: Mapping[str, Any]
    ask: Mapping[str, Any]
    answer: Any
    note: str = ""


@dataclass(frozen=True)
class Operation:
    """A computation the verifier may ask for, with its inputs, outputs and implementation."""

    name: str
    description: str
    parameters: tuple[Parameter, ...]
    outputs: tuple[str, ...]
    plan: Callable[[dict[str, Any], list[InputProblem]], dict[str, Axes | None] | None]
    run: Callable[[dict[str, Any]], dict[str, Any]]
    example: Example | None = None
    hint: str = ""  # why an output may be unavailable, appended to that error

    def parameter(self, name: str) -> Parameter | None:
        """The parameter called ``name``, or None."""
        return next((p for p in self.parameters if p.name == name), None)


# --------------------------------------------------------------------------- conversion


def _dims(shape: tuple[int, ...]) -> str:
    if not shape:
        return "a scalar"
    if len(shape) == 1:
        return f"a vector of {shape[0]}"
    return "x".join(str(n) for n in shape)


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(
        v, (bool, np.bool_)
    )


def _is_bool(v: object) -> bool:
    return isinstance(v, (bool, np.bool_))


def _describe(v: object) -> str:
    if v is None:
        return "null"
    text = repr(v)
    return f"{type(v).__name__} {text[:40]}"


_PLAIN_LEAVES = {
    "numbers": frozenset({int, float}),
    "booleans": frozenset({bool}),
    "integers": frozenset({int}),
}
"""The exact Python types a JSON array of each kind holds (bool is not int here)."""


def _plain_leaves(value: object, leaves: frozenset[type]) -> tuple[tuple[int, ...], list] | None:
    """Shape and flattened leaves of a rectangular nested list of plain leaves, found level by
    level without a Python call per row; None sends the value to ``_scan``, which says why."""
    if type(value) is not list:
        return None
    shape: list[int] = []
    level: list = [value]
    while True:
        n = len(level[0])
        if any(type(item) is not list or len(item) != n for item in level):
            return None
        shape.append(n)
        flat = list(itertools.chain.from_iterable(level))
        if flat and type(flat[0]) is list:
            level = flat
            continue
        return (tuple(shape), flat) if leaves.issuperset(map(type, flat)) else None


def _scan(value: object, leaf_ok: Callable[[object], bool], what: str) -> tuple[int, ...] | str:
    """Shape of a rectangular nested list whose leaves pass ``leaf_ok``, or a message why not."""
    if isinstance(value, np.ndarray):
        kinds = {"booleans": "b", "integers": "iu"}.get(what, "iuf")
        if value.dtype.kind not in kinds:
            return f"must contain only {what}, got an array of dtype {value.dtype}"
        return value.shape
    if isinstance(value, (list, tuple)):
        if not value:
            return (0,)
        if all(leaf_ok(e) for e in value):
            return (len(value),)
        nested = [isinstance(e, (list, tuple, np.ndarray)) for e in value]
        for item, is_list in zip(value, nested, strict=True):
            if not is_list and not leaf_ok(item):
                return f"must contain only {what}, found {_describe(item)}"
        if not all(nested):
            return "is ragged: mixes numbers and lists"
        shapes = []
        for item in value:
            sub = _scan(item, leaf_ok, what)
            if isinstance(sub, str):
                return sub
            shapes.append(sub)
        if any(s != shapes[0] for s in shapes):
            return "is ragged: its rows have different lengths"
        return (len(value), *shapes[0])
    if leaf_ok(value):
        return ()
    return f"must contain only {what}, found {_describe(value)}"


def _convert_array(
    path: str, value: object, booleans: bool, problems: list[InputProblem]
) -> np.ndarray | None:
    plain = _plain_leaves(value, _PLAIN_LEAVES["booleans" if booleans else "numbers"])
    if plain is not None and len(plain[1]) <= MAX_ELEMENTS:
        dims, flat = plain
        dtype = bool if booleans else np.float64
        try:
            arr = np.fromiter(flat, dtype=dtype, count=len(flat)).reshape(dims)
        except OverflowError:  # an integer past float range
            problems.append(InputProblem(path, "must be finite (no NaN or infinity)"))
            return None
        if booleans or all_finite(arr):
            return arr
        problems.append(InputProblem(path, "must be finite (no NaN or infinity)"))
        return None
    shape = _scan(
        value, _is_bool if booleans else _is_number, "booleans" if booleans else "numbers"
    )
    if isinstance(shape, str):
        problems.append(InputProblem(path, shape))
        return None
    size = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if size > MAX_ELEMENTS:
        problems.append(
            InputProblem(path, f"has {size} elements, more than the limit of {MAX_ELEMENTS}")
        )
        return None
    if booleans:
        return np.asarray(value, dtype=bool)
    try:
        arr = np.asarray(value)
        if arr.dtype.char not in "fd":  # integers, float16, longdouble: float64
            arr = arr.astype(np.float64)
    except OverflowError:  # an integer past float range
        problems.append(InputProblem(path, "must be finite (no NaN or infinity)"))
        return None
    if not all_finite(arr):
        problems.append(InputProblem(path, "must be finite (no NaN or infinity)"))
        return None
    return arr


KINDS: dict[str, str] = {
    "matrix": "a (T, d) matrix or (B, T, d) array of numbers",
    "vector_or_matrix": "a vector or matrix of numbers",
    "array": "a vector, matrix or (B, T, d) array of numbers",
    "weight": "a matrix of numbers",
    "vector": "a vector of numbers",
    "mask": "booleans",
    "cache": "a matrix of numbers, or [] for none",
    "indices": "an integer or a list of integers",
    "int": "an integer",
    "number": "a positive number",
    "bool": "true or false",
    "choice": "one of the listed names",
}
"""Every parameter kind and what a value of it is, for the operations reference."""

_RANKS = {
    "matrix": (2, 3),
    "vector_or_matrix": (1, 2),
    "array": (1, 2, 3),
    "weight": (2,),
    "vector": (1,),
    "mask": (1, 2, 3),
    "cache": (1, 2, 3),
    "indices": (0, 1),
}


def _is_index(v: object) -> bool:
    return isinstance(v, (int, np.integer)) and not _is_bool(v)


def _positive_float(value: object) -> float | None:
    if not isinstance(value, (int, float, np.integer, np.floating)) or _is_bool(value):
        return None
    try:
        number = float(value)
    except OverflowError:  # an integer past float range
        return None
    return number if math.isfinite(number) and number > 0 else None


def _convert_scalar(
    param: Parameter, value: object, path: str, problems: list[InputProblem]
) -> Any:
    if param.kind == "int":
        if _is_bool(value) or not isinstance(value, (int, np.integer)):
            problems.append(InputProblem(path, f"must be an integer, got {_describe(value)}"))
            return None
        return int(value)
    if param.kind == "bool":
        if not _is_bool(value):
            problems.append(
                InputProblem(path, f"must be a boolean (true or false), got {_describe(value)}")
            )
            return None
        return bool(value)
    if param.kind == "number":
        number = _positive_float(value)
        if number is None:
            problems.append(
                InputProblem(path, f"must be a positive finite number, got {_describe(value)}")
            )
        return number
    if not isinstance(value, str) or value not in param.choices:
        problems.append(
            InputProblem(path, f"must be one of {', '.join(param.choices)}, got {_describe(value)}")
        )
        return None
    return value


def _convert(param: Parameter, value: object, problems: list[InputProblem]) -> Any:
    path = f"inputs.{param.name}"
    if param.kind not in _RANKS:
        return _convert_scalar(param, value, path, problems)
    if param.kind == "indices":
        shape = _scan(value, _is_index, "integers")
        if isinstance(shape, str):
            problems.append(InputProblem(path, shape))
            return None
        try:
            arr: np.ndarray | None = np.asarray(value, dtype=np.int64)
        except OverflowError:
            problems.append(InputProblem(path, "has an integer too large to be an index"))
            return None
    else:
        arr = _convert_array(path, value, param.kind == "mask", problems)
    if arr is None:
        return None
    if arr.ndim not in _RANKS[param.kind]:
        problems.append(InputProblem(path, f"expected {param.shape}, got {_dims(arr.shape)}"))
        return None
    return arr


# --------------------------------------------------------------------------- shared checks


class _Plan:
    """Accumulates problems for one request; helpers return False when a check fails."""

    def __init__(self, values: dict[str, Any], problems: list[InputProblem]) -> None:
        self.values = values
        self.problems = problems

    def add(self, name: str, message: str) -> None:
        self.problems.append(InputProblem(f"inputs.{name}" if name else "inputs", message))

    def limit(self, name: str, what: str, value: int, cap: int) -> bool:
        if value > cap:
            self.add(name, f"{what} {value} exceeds the limit of {cap}")
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
                f"expected {_dims(want)} {'matrix' if batch is None else 'array'}, "
                f"got {_dims(arr.shape)}",
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
            self.add("mask", f"expected {want}, got {_dims(arr.shape)}")
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


def _lead(batch: int | None) -> Axes:
    return () if batch is None else (("batch", batch),)


def _x_dims(p: _Plan) -> tuple[int | None, int, int] | None:
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
        p.add("x", f"must have at least one token and one feature, got {_dims(x.shape)}")
        ok = False
    return (batch, seq, width) if ok else None


def _square_weights(p: _Plan, names: tuple[str, ...]) -> None:
    """Without a usable x the width is unknown, but each weight must still be square."""
    for name in names:
        w = p.values.get(name)
        if w is not None and (w.ndim != 2 or w.shape[0] != w.shape[1]):
            p.add(name, f"expected a square (d, d) matrix, got {_dims(w.shape)}")


def _work_limit(
    p: _Plan,
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


# --------------------------------------------------------------------------- operations


def _plan_softmax(
    values: dict[str, Any], problems: list[InputProblem]
) -> dict[str, Axes | None] | None:
    p = _Plan(values, problems)
    scores = values.get("scores")
    if scores is None:
        return None
    shape = scores.shape
    if 0 in shape:
        p.add("scores", f"must not be empty, got {_dims(shape)}")
        return None
    mask = values.get("mask")
    if mask is not None:
        if mask.shape != shape:
            p.add(
                "mask",
                f"expected {_dims(shape)}{' matrix' if len(shape) == 2 else ''}, "
                f"got {_dims(mask.shape)}",
            )
        else:
            empty = np.argwhere(~mask.reshape((-1, shape[-1])).any(axis=-1))
            if len(empty):
                what = f"row {int(empty[0][0])}" if len(shape) == 2 else "the vector"
                p.add("mask", f"{what} has nothing allowed; softmax of an empty row is undefined")
    axes: Axes = (("col", shape[0]),) if len(shape) == 1 else (("row", shape[0]), ("col", shape[1]))
    return {"out": axes}


def _run_softmax(v: dict[str, Any]) -> dict[str, Any]:
    return {"out": softmax(v["scores"], v.get("mask"))}


def _plan_sdpa(
    values: dict[str, Any], problems: list[InputProblem]
) -> dict[str, Axes | None] | None:
    p = _Plan(values, problems)
    q, k, v = (values.get(n) for n in ("q", "k", "v"))
    if q is None:
        return None
    batch = q.shape[0] if q.ndim == 3 else None
    rows, dk = q.shape[-2:]
    ok = p.limit("q", "sequence length", rows, MAX_SEQ_LEN) & p.limit("q", "width", dk, MAX_WIDTH)
    if batch is not None:
        ok &= p.limit("q", "batch", batch, MAX_BATCH)
    if rows < 1 or dk < 1:
        p.add("q", f"must have at least one row and one column, got {_dims(q.shape)}")
        ok = False
    if k is None or v is None or not ok:
        return None
    keys = k.shape[-2]
    dv = v.shape[-1]
    ok = p.limit("k", "number of keys", keys, MAX_SEQ_LEN) & p.limit("v", "width", dv, MAX_WIDTH)
    ok &= p.matrix("k", keys, dk, batch) & p.matrix("v", keys, dv, batch)
    if keys < 1:
        p.add("k", "must have at least one key")
        ok = False
    if not ok:
        return None
    b = batch or 1
    if b * rows * keys > MAX_ELEMENTS:
        p.add(
            "",
            f"attention weights would have {b * rows * keys} elements, "
            f"more than the limit of {MAX_ELEMENTS}",
        )
        return None
    p.mask(rows, keys, batch, p.causal())
    lead = _lead(batch)
    return {
        "out": (*lead, ("row", rows), ("col", dv)),
        "weights": (*lead, ("row", rows), ("col", keys)),
    }


def _run_sdpa(v: dict[str, Any]) -> dict[str, Any]:
    out, weights = scaled_dot_product_attention(
        v["q"], v["k"], v["v"], v.get("mask"), v.get("causal") or False
    )
    return {"out": out, "weights": weights}


def _plan_mha(
    values: dict[str, Any], problems: list[InputProblem]
) -> dict[str, Axes | None] | None:
    p = _Plan(values, problems)
    planned = _self_attention(p)
    if planned is None:
        return None
    batch, seq, width, heads, ok = planned
    if heads is None or not ok or not _work_limit(p, batch, seq, width, heads):
        return None
    lead = _lead(batch)
    return {
        "out": (*lead, ("row", seq), ("col", width)),
        "weights": (*lead, ("head", heads), ("row", seq), ("col", seq)),
    }


def _self_attention(p: _Plan) -> tuple[int | None, int, int, int | None, bool] | None:
    """x, the four (d, d) weights, heads and the mask of multi-head self-attention, as every
    operation built on it takes them: (batch, seq, width, heads, weights fit), or None when x
    itself does not fit."""
    dims = _x_dims(p)
    if dims is None:
        _square_weights(p, ("w_q", "w_k", "w_v", "w_o"))
        return None
    batch, seq, width = dims
    ok = all([p.matrix(n, width, width, None) for n in ("w_q", "w_k", "w_v", "w_o")])
    heads = p.heads(width)
    p.mask(seq, seq, batch, p.causal())
    return batch, seq, width, heads, ok


def _run_mha(v: dict[str, Any]) -> dict[str, Any]:
    x, mask = v["x"], v.get("mask")
    seq = x.shape[-2]
    out, weights = checked_mha(
        x,
        [v["w_q"], v["w_k"], v["w_v"], v["w_o"]],
        v["heads"],
        None if mask is None else mask.reshape((-1, 1, seq, seq)),
        v.get("causal") or False,
    )
    return {"out": out, "weights": weights}


def _plan_head(
    values: dict[str, Any], problems: list[InputProblem]
) -> dict[str, Axes | None] | None:
    p = _Plan(values, problems)
    dims = _x_dims(p)
    if dims is None:
        _square_weights(p, ("w_q", "w_k", "w_v"))
        return None
    batch, seq, width = dims
    ok = all([p.matrix(n, width, width, None) for n in ("w_q", "w_k", "w_v")])
    heads = p.heads(width)
    p.mask(seq, seq, batch, p.causal())
    if heads is None:
        return None
    head = values.get("head")
    if head is not None and not 0 <= head < heads:
        p.add("head", f"head index {head} is out of range for {heads} heads (0..{heads - 1})")
        ok = False
    if not ok or head is None or not _work_limit(p, batch, seq, width, heads):
        return None
    lead = _lead(batch)
    slice_axes: Axes = (*lead, ("row", seq), ("col", width // heads))
    return {
        "out": slice_axes,
        "weights": (*lead, ("row", seq), ("col", seq)),
        "q": slice_axes,
        "k": slice_axes,
        "v": slice_axes,
    }


def _run_head(v: dict[str, Any]) -> dict[str, Any]:
    return attention_head(
        v["x"],
        v["w_q"],
        v["w_k"],
        v["w_v"],
        v["heads"],
        v["head"],
        v.get("mask"),
        v.get("causal") or False,
    )


def _plan_cost(
    values: dict[str, Any], problems: list[InputProblem]
) -> dict[str, Axes | None] | None:
    # the outputs' shapes never depend on the inputs, so ask is checked even when inputs are bad
    axes: dict[str, Axes | None] = {"flops": (), "params": (), "terms": None}
    axes.update({term: () for term in TERM_NAMES})
    backward = values.get("backward", False)
    if backward:
        axes.update({term: () for term in BACKWARD_TERM_NAMES})
    ints = ("seq_len", "width", "heads", "batch")
    missing = {n for n in ints if values.get(n) is None and n != "batch"}
    # an argument that failed its type check stands in as 1; its own problem is already reported
    seq_len, width, heads, batch = (1 if n in missing else values.get(n, 1) for n in ints)
    bias, kv_heads = values.get("bias", False), values.get("kv_heads")
    found = cost_problems(seq_len, width, heads, batch, bias, kv_heads, backward)
    if missing & {"width", "heads"}:
        found = [q for q in found if "divisible" not in q.message and "divide" not in q.message]
    problems.extend(found)
    if not found and not missing:
        flops = attention_cost(seq_len, width, heads, batch, bias, kv_heads, backward).flops
        if flops >= 2**63:
            problems.append(
                InputProblem(
                    "inputs", f"the flop count {flops} is too large to represent (limit 2**63)"
                )
            )
    return axes


def _run_cost(v: dict[str, Any]) -> dict[str, Any]:
    cost = attention_cost(
        v["seq_len"],
        v["width"],
        v["heads"],
        v.get("batch", 1),
        v.get("bias", False),
        v.get("kv_heads"),
        v.get("backward", False),
    )
    return {"flops": cost.flops, "params": cost.params, "terms": dict(cost.terms), **cost.terms}


# --------------------------------------------------------------------------- Book II operations


_AXIS_NAMES = {1: ("col",), 2: ("row", "col"), 3: ("batch", "row", "col")}


def _axes(shape: tuple[int, ...]) -> Axes:
    """Selector names of an output by its rank: col; row, col; batch, row, col."""
    return tuple(zip(_AXIS_NAMES[len(shape)], shape, strict=True))


def _features_of(p: _Plan, name: str) -> int | None:
    """The last-axis width of array input ``name`` after the width limit, or None."""
    arr = p.values.get(name)
    if arr is None:
        return None
    width = arr.shape[-1]
    if width < 1:
        p.add(name, f"must have at least one feature, got {_dims(arr.shape)}")
        return None
    return width if p.limit(name, "width", width, MAX_WIDTH) else None


def _vector(p: _Plan, name: str, length: int) -> bool:
    arr = p.values.get(name)
    if arr is not None and arr.shape != (length,):
        p.add(name, f"expected a vector of {length}, got {_dims(arr.shape)}")
        return False
    return True


def _plan_norm(
    values: dict[str, Any], problems: list[InputProblem]
) -> dict[str, Axes | None] | None:
    p = _Plan(values, problems)
    width = _features_of(p, "x")
    if width is None:
        return None
    ok = _vector(p, "gamma", width) & _vector(p, "beta", width)
    return {"out": _axes(values["x"].shape)} if ok else None


def _run_layer_norm(v: dict[str, Any]) -> dict[str, Any]:
    return {"out": layer_norm(v["x"], v.get("gamma"), v.get("beta"), v.get("eps", 1e-5))}


def _run_rms_norm(v: dict[str, Any]) -> dict[str, Any]:
    return {"out": rms_norm(v["x"], v.get("gamma"), v.get("eps", 1e-6))}


def _ffn_shapes(p: _Plan, width: int, rows: int, out_width: int | None = None) -> int | None:
    """Check w_1, b_1, w_2, b_2 against width d (and the output width, when it is fixed);
    return the output width, or None."""
    w1, w2 = p.values.get("w_1"), p.values.get("w_2")
    if w1 is None or w2 is None:
        return None
    hidden = w1.shape[1]
    out_width = w2.shape[1] if out_width is None else out_width
    ok = p.matrix("w_1", width, hidden, None) & _vector(p, "b_1", hidden)
    ok &= p.matrix("w_2", hidden, out_width, None) & _vector(p, "b_2", out_width)
    ok &= p.limit("w_1", "hidden width", hidden, MAX_WIDTH)
    if rows * hidden > MAX_ELEMENTS:
        p.add(
            "w_1",
            f"the hidden layer would have {rows * hidden} elements, more than the "
            f"limit of {MAX_ELEMENTS}",
        )
        ok = False
    flops = 2 * rows * hidden * (width + out_width)
    if flops > MAX_FLOPS:
        p.add("", f"the computation needs {flops} flops, more than the limit of {MAX_FLOPS}")
        ok = False
    return out_width if ok else None


def _plan_ffn(
    values: dict[str, Any], problems: list[InputProblem]
) -> dict[str, Axes | None] | None:
    p = _Plan(values, problems)
    width = _features_of(p, "x")
    if width is None:
        return None
    x = values["x"]
    out_width = _ffn_shapes(p, width, x.size // width)
    return None if out_width is None else {"out": _axes(x.shape[:-1] + (out_width,))}


def _run_ffn(v: dict[str, Any]) -> dict[str, Any]:
    args = (v["x"], v["w_1"], v["b_1"], v["w_2"], v["b_2"], v.get("activation", "gelu"))
    return {"out": feed_forward(*args)}


def _plan_sinusoidal(
    values: dict[str, Any], problems: list[InputProblem]
) -> dict[str, Axes | None] | None:
    p = _Plan(values, problems)
    seq, width = values.get("seq_len"), values.get("width")
    ok = True
    for name, value, cap in (("seq_len", seq, MAX_SEQ_LEN), ("width", width, MAX_WIDTH)):
        if value is not None and value < 1:
            p.add(name, f"must be a positive integer, got {value}")
            ok = False
        elif value is not None:
            ok &= p.limit(name, name.replace("_", " "), value, cap)
    if seq is None or width is None or not ok:
        return None
    return {"out": (("row", seq), ("col", width))}


def _run_sinusoidal(v: dict[str, Any]) -> dict[str, Any]:
    return {"out": sinusoidal_positions(v["seq_len"], v["width"], v.get("base", 10000.0))}


def _plan_rope(
    values: dict[str, Any], problems: list[InputProblem]
) -> dict[str, Axes | None] | None:
    p = _Plan(values, problems)
    offset = values.get("offset")
    if offset is not None and not 0 <= offset <= MAX_COST_DIMENSION:
        p.add("offset", f"must be an integer in 0..{MAX_COST_DIMENSION}, got {offset}")
    dims = _x_dims(p)
    if dims is None:
        return None
    if dims[2] % 2:
        p.add("x", f"width {dims[2]} must be even: RoPE rotates pairs of features")
        return None
    return {"out": _axes(values["x"].shape)}


def _run_rope(v: dict[str, Any]) -> dict[str, Any]:
    return {"out": rope(v["x"], v.get("base", 10000.0), v.get("offset", 0))}


def _kv_heads(p: _Plan, heads: int | None) -> int | None:
    kv = p.values.get("kv_heads")
    if kv is None or heads is None:
        return None
    if kv < 1 or heads % kv:
        p.add("kv_heads", f"must be a positive divisor of heads ({heads}), got {kv}")
        return None
    return int(kv)


def _plan_gqa(
    values: dict[str, Any], problems: list[InputProblem]
) -> dict[str, Axes | None] | None:
    p = _Plan(values, problems)
    dims = _x_dims(p)
    if dims is None:
        return None
    batch, seq, width = dims
    ok = p.matrix("w_q", width, width, None) & p.matrix("w_o", width, width, None)
    heads = p.heads(width)
    kv = _kv_heads(p, heads)
    p.mask(seq, seq, batch, p.causal())
    if heads is None or kv is None:
        return None
    d_kv = kv * (width // heads)
    ok &= p.matrix("w_k", width, d_kv, None) & p.matrix("w_v", width, d_kv, None)
    if not ok or not _work_limit(p, batch, seq, width, heads, kv):
        return None
    lead = _lead(batch)
    return {
        "out": (*lead, ("row", seq), ("col", width)),
        "weights": (*lead, ("head", heads), ("row", seq), ("col", seq)),
    }


def _run_gqa(v: dict[str, Any]) -> dict[str, Any]:
    out, weights = grouped_query_attention(
        v["x"],
        v["w_q"],
        v["w_k"],
        v["w_v"],
        v["w_o"],
        v["heads"],
        v["kv_heads"],
        v.get("mask"),
        v.get("causal") or False,
    )
    return {"out": out, "weights": weights}


def _plan_decode(
    values: dict[str, Any], problems: list[InputProblem]
) -> dict[str, Axes | None] | None:
    p = _Plan(values, problems)
    x = values.get("x")
    if x is None:
        return None
    batch = x.shape[0] if x.ndim == 2 else None
    width = x.shape[-1]
    ok = p.limit("x", "width", width, MAX_WIDTH)
    if batch is not None:
        ok &= p.limit("x", "batch", batch, MAX_BATCH)
    if width < 1 or batch == 0:
        p.add("x", f"must be a token of at least one feature, got {_dims(x.shape)}")
        return None
    heads = p.heads(width) if ok else None
    if heads is None:
        return None
    kv = heads if "kv_heads" not in values else _kv_heads(p, heads)
    if kv is None:
        return None
    d_kv = kv * (width // heads)
    ok = p.matrix("w_q", width, width, None) & p.matrix("w_o", width, width, None)
    ok &= p.matrix("w_k", width, d_kv, None) & p.matrix("w_v", width, d_kv, None)
    tokens = []
    for name in ("k_cache", "v_cache"):
        cache = values.get(name)
        if cache is None:
            return None
        if cache.size == 0:  # [] (or [[], []] batched): no earlier tokens yet
            cache = values[name] = cache.reshape(_lead_shape(batch) + (0, d_kv))
        want = _lead_shape(batch) + (cache.shape[-2], d_kv)
        if cache.shape != want:
            p.add(name, f"expected {_dims(want)} (S earlier tokens), got {_dims(cache.shape)}")
            ok = False
        tokens.append(cache.shape[-2])
    if ok and tokens[0] != tokens[1]:
        p.add("v_cache", f"has {tokens[1]} tokens but k_cache has {tokens[0]}")
        ok = False
    if not ok or not p.limit("k_cache", "number of cached tokens", tokens[0], MAX_SEQ_LEN - 1):
        return None
    lead = _lead(batch)
    cache_axes: Axes = (*lead, ("row", tokens[0] + 1), ("col", d_kv))
    return {
        "out": (*lead, ("col", width)),
        "weights": (*lead, ("head", heads), ("col", tokens[0] + 1)),
        "k_cache": cache_axes,
        "v_cache": cache_axes,
    }


def _lead_shape(batch: int | None) -> tuple[int, ...]:
    return () if batch is None else (batch,)


def _run_decode(v: dict[str, Any]) -> dict[str, Any]:
    out, weights, keys, values = attention_decode(
        v["x"],
        v["k_cache"],
        v["v_cache"],
        v["w_q"],
        v["w_k"],
        v["w_v"],
        v["w_o"],
        v["heads"],
        v.get("kv_heads"),
    )
    return {"out": out, "weights": weights, "k_cache": keys, "v_cache": values}


def _plan_softmax_backward(
    values: dict[str, Any], problems: list[InputProblem]
) -> dict[str, Axes | None] | None:
    p = _Plan(values, problems)
    y, g = values.get("y"), values.get("grad_y")
    if y is None or _features_of(p, "y") is None or g is None:
        return None
    if g.shape != y.shape:
        p.add("grad_y", f"expected {_dims(y.shape)} like y, got {_dims(g.shape)}")
        return None
    return {"grad_scores": _axes(y.shape)}


def _run_softmax_backward(v: dict[str, Any]) -> dict[str, Any]:
    return {"grad_scores": softmax_backward(v["y"], v["grad_y"])}


def _grad_out(p: _Plan, shape: tuple[int, ...]) -> bool:
    g = p.values.get("grad_out")
    if g is not None and g.shape != shape:
        p.add("grad_out", f"expected {_dims(shape)} like the output, got {_dims(g.shape)}")
        return False
    return g is not None


def _plan_sdpa_backward(
    values: dict[str, Any], problems: list[InputProblem]
) -> dict[str, Axes | None] | None:
    axes = _plan_sdpa(values, problems)
    if axes is None or problems:
        return None
    out = axes["out"]
    assert out is not None
    if not _grad_out(_Plan(values, problems), tuple(n for _, n in out)):
        return None
    lead = out[:-2]
    keys = axes["weights"][-1][1]  # type: ignore[index]
    return {
        "dq": (*lead, out[-2], ("col", values["q"].shape[-1])),
        "dk": (*lead, ("row", keys), ("col", values["k"].shape[-1])),
        "dv": (*lead, ("row", keys), out[-1]),
    }


def _run_sdpa_backward(v: dict[str, Any]) -> dict[str, Any]:
    dq, dk, dv = scaled_dot_product_attention_backward(
        v["q"], v["k"], v["v"], v["grad_out"], v.get("mask"), v.get("causal") or False
    )
    return {"dq": dq, "dk": dk, "dv": dv}


def _plan_mha_backward(
    values: dict[str, Any], problems: list[InputProblem]
) -> dict[str, Axes | None] | None:
    p = _Plan(values, problems)
    planned = _self_attention(p)
    if planned is None:
        return None
    batch, seq, width, heads, ok = planned
    ok &= _grad_out(p, values["x"].shape)
    if heads is None or not ok or not _work_limit(p, batch, seq, width, heads, backward=True):
        return None
    weight: Axes = (("row", width), ("col", width))
    return {
        "dx": _axes(values["x"].shape),
        **{name: weight for name in ("dw_q", "dw_k", "dw_v", "dw_o")},
    }


def _run_mha_backward(v: dict[str, Any]) -> dict[str, Any]:
    grads = multi_head_attention_backward(
        v["x"],
        v["w_q"],
        v["w_k"],
        v["w_v"],
        v["w_o"],
        v["heads"],
        v["grad_out"],
        v.get("mask"),
        v.get("causal") or False,
    )
    return dict(zip(("dx", "dw_q", "dw_k", "dw_v", "dw_o"), grads, strict=True))


def _plan_cross_entropy(
    values: dict[str, Any], problems: list[InputProblem]
) -> dict[str, Axes | None] | None:
    p = _Plan(values, problems)
    classes = _features_of(p, "logits")
    targets = values.get("targets")
    if classes is None or targets is None:
        return None
    logits = values["logits"]
    rows = logits.shape[:-1]
    if targets.shape != rows:
        want = "a single class index" if not rows else f"a vector of {rows[0]} class indices"
        p.add("targets", f"expected {want} (one per row of logits), got {_dims(targets.shape)}")
        return None
    bad = np.argwhere((targets < 0) | (targets >= classes))
    if len(bad):
        where = tuple(int(i) for i in bad[0])
        p.add(
            "targets",
            f"class {int(targets[where])}{f' in row {where[0]}' if where else ''} is outside "
            f"0..{classes - 1} ({classes} classes)",
        )
        return None
    return {"loss": (), "grad": _axes(logits.shape)}


def _run_cross_entropy(v: dict[str, Any]) -> dict[str, Any]:
    loss, grad = cross_entropy(v["logits"], v["targets"])
    return {"loss": loss, "grad": grad}


def _plan_block(
    values: dict[str, Any], problems: list[InputProblem]
) -> dict[str, Axes | None] | None:
    p = _Plan(values, problems)
    planned = _self_attention(p)
    if planned is None:
        return None
    batch, seq, width, heads, ok = planned
    for name in ("ln_1_gamma", "ln_1_beta", "ln_2_gamma", "ln_2_beta"):
        ok &= _vector(p, name, width)
    out_width = _ffn_shapes(p, width, (batch or 1) * seq, width)
    if heads is None or out_width is None or not ok:
        return None
    if not _work_limit(p, batch, seq, width, heads):
        return None
    lead = _lead(batch)
    stream: Axes = (*lead, ("row", seq), ("col", width))
    return {
        "out": stream,
        "h": stream,
        "weights": (*lead, ("head", heads), ("row", seq), ("col", seq)),
    }


_BLOCK_ARGS = (
    "x",
    "ln_1_gamma",
    "ln_1_beta",
    "w_q",
    "w_k",
    "w_v",
    "w_o",
    "heads",
    "ln_2_gamma",
    "ln_2_beta",
    "w_1",
    "b_1",
    "w_2",
    "b_2",
)


def _run_block(v: dict[str, Any]) -> dict[str, Any]:
    params = {name: v[name] for name in _BLOCK_ARGS}
    return transformer_block(
        **params,
        activation=v.get("activation", "gelu"),
        mask=v.get("mask"),
        causal=v.get("causal") or False,
        eps=v.get("eps", 1e-5),
    )


_MATRIX_X = "(T, d) matrix or (B, T, d) array"
_WEIGHT = "(d, d) matrix"
_MASK = "boolean (T, T) matrix or (B, T, T) array, true where a query may attend"
_MASK_INPUTS = (
    Parameter("mask", "mask", False, _MASK),
    Parameter("causal", "bool", False, "boolean"),
)
_FEATURES = "a vector of d, (T, d) matrix or (B, T, d) array"
_KV_WEIGHT = "(d, kv_heads * d / heads) matrix"
_CACHE = "(S, d_kv) or (B, S, d_kv): earlier tokens' projected keys or values ([] for none)"
_MHA_WEIGHTS = ("w_q", "w_k", "w_v", "w_o")
_PROJECTION_INPUTS = (
    Parameter("x", "matrix", True, _MATRIX_X),
    Parameter("w_q", "matrix", True, _WEIGHT),
    Parameter("w_k", "matrix", True, _WEIGHT),
    Parameter("w_v", "matrix", True, _WEIGHT),
)

OPERATIONS: dict[str, Operation] = {
    op.name: op
    for op in (
        Operation(
            "softmax",
            "Stable softmax over the last axis of a vector or matrix.",
            (
                Parameter("scores", "vector_or_matrix", True, "a vector or matrix"),
                Parameter("mask", "mask", False, "boolean array of the same shape as scores"),
            ),
            ("out",),
            _plan_softmax,
            _run_softmax,
            Example(
                {"scores": [0.0, 0.6931471805599453]},
                {"output": "out"},
                [0.3333333333333333, 0.6666666666666666],
                "The second score is ln 2, so its exponential is twice the first: 1/3 and 2/3.",
            ),
        ),
        Operation(
            "scaled_dot_product_attention",
            "softmax(q k^T / sqrt(dk)) v.",
            (
                Parameter("q", "matrix", True, "(T, dk) matrix or (B, T, dk) array"),
                Parameter("k", "matrix", True, "(S, dk) matrix or (B, S, dk) array"),
                Parameter("v", "matrix", True, "(S, dv) matrix or (B, S, dv) array"),
                Parameter("mask", "mask", False, "boolean (T, S) matrix or (B, T, S) array"),
                Parameter("causal", "bool", False, "boolean"),
            ),
            ("out", "weights"),
            _plan_sdpa,
            _run_sdpa,
            Example(
                {
                    "q": [[0, 0, 1, 1], [1, 1, 0, 0]],
                    "k": [[1, 1, 0, 0], [0, 0, 1, 1]],
                    "v": [[1, 0], [0, 1]],
                },
                {"output": "weights", "row": 1, "col": 0},
                0.7310585786300049,
                "Scores of query 1 are (2, 0) / sqrt(4) = (1, 0); the weight on key 0 is e/(1+e).",
            ),
        ),
        Operation(
            "multi_head_attention",
            "Multi-head self-attention with projections applied as x @ w.",
            (
                *_PROJECTION_INPUTS,
                Parameter("w_o", "matrix", True, _WEIGHT),
                Parameter("heads", "int", True, "positive integer dividing d"),
                *_MASK_INPUTS,
            ),
            ("out", "weights"),
            _plan_mha,
            _run_mha,
            Example(
                {
                    "x": [[2, 0], [0, 2]],
                    **{w: [[1, 0], [0, 1]] for w in _MHA_WEIGHTS},
                    "heads": 2,
                    "causal": True,
                },
                {"output": "weights", "head": 0, "row": 1},
                [0.5, 0.5],
                "Head 0 sees column 0 only; token 1's query is 0 there, so its two allowed "
                "scores tie.",
            ),
        ),
        Operation(
            "attention_head",
            "One head of multi-head attention: its q, k, v column slices, weights and output.",
            (
                *_PROJECTION_INPUTS,
                Parameter("heads", "int", True, "positive integer dividing d"),
                Parameter("head", "int", True, "0-based head index below heads"),
                *_MASK_INPUTS,
            ),
            ("out", "weights", "q", "k", "v"),
            _plan_head,
            _run_head,
            Example(
                {
                    "x": [[1, 2], [3, 4]],
                    **{w: [[1, 0], [0, 1]] for w in _MHA_WEIGHTS[:3]},
                    "heads": 2,
                    "head": 1,
                },
                {"output": "q"},
                [[2.0], [4.0]],
                "With identity projections head 1's queries are column 1 of x.",
            ),
        ),
        Operation(
            "attention_cost",
            "Flop counts by term and parameter count of one attention layer; kv_heads counts "
            "grouped-query attention, backward adds the gradient pass's terms.",
            (
                Parameter("seq_len", "int", True, "positive integer"),
                Parameter("width", "int", True, "positive integer"),
                Parameter("heads", "int", True, "positive integer dividing width"),
                Parameter("batch", "int", False, "positive integer"),
                Parameter("bias", "bool", False, "boolean"),
                Parameter("kv_heads", "int", False, "positive integer dividing heads"),
                Parameter("backward", "bool", False, "boolean"),
            ),
            ("flops", "params", "terms", *TERM_NAMES, *BACKWARD_TERM_NAMES),
            _plan_cost,
            _run_cost,
            Example(
                {"seq_len": 4, "width": 8, "heads": 2},
                {"output": "flops"},
                2736,
                "Four projections of 2*4*8*8 = 512, scores and weighted sum 256 each, "
                "scaling 32 and softmax 144.",
            ),
            " (the *_backward terms need backward: true)",
        ),
        Operation(
            "layer_norm",
            "Layer norm over the last axis: (x - mean) / sqrt(var + eps) * gamma + beta, "
            "variance biased.",
            (
                Parameter("x", "array", True, _FEATURES),
                Parameter("gamma", "vector", False, "vector of d (default ones)"),
                Parameter("beta", "vector", False, "vector of d (default zeros)"),
                Parameter("eps", "number", False, "positive number (default 1e-5)"),
            ),
            ("out",),
            _plan_norm,
            _run_layer_norm,
            Example(
                {"x": [1, 2, 3], "eps": 1e-300},
                {"output": "out"},
                [-1.224744871391589, 0.0, 1.224744871391589],
                "Mean 2, variance 2/3: (x - 2) / sqrt(2/3) = (-sqrt(1.5), 0, sqrt(1.5)).",
            ),
        ),
        Operation(
            "rms_norm",
            "RMS norm over the last axis: x / sqrt(mean(x^2) + eps) * gamma.",
            (
                Parameter("x", "array", True, _FEATURES),
                Parameter("gamma", "vector", False, "vector of d (default ones)"),
                Parameter("eps", "number", False, "positive number (default 1e-6)"),
            ),
            ("out",),
            _plan_norm,
            _run_rms_norm,
            Example(
                {"x": [1, 7], "eps": 1e-300},
                {"output": "out"},
                [0.2, 1.4],
                "mean(x^2) = (1 + 49) / 2 = 25, so x is divided by 5.",
            ),
        ),
        Operation(
            "feed_forward",
            "Position-wise feed-forward: act(x @ w_1 + b_1) @ w_2 + b_2; gelu is exact (erf).",
            (
                Parameter("x", "array", True, _FEATURES),
                Parameter("w_1", "weight", True, "(d, F) matrix"),
                Parameter("b_1", "vector", True, "vector of F"),
                Parameter("w_2", "weight", True, "(F, D) matrix"),
                Parameter("b_2", "vector", True, "vector of D"),
                Parameter(
                    "activation", "choice", False, "gelu (default), relu or gelu_tanh", ACTIVATIONS
                ),
            ),
            ("out",),
            _plan_ffn,
            _run_ffn,
            Example(
                {
                    "x": [[1, -1]],
                    "w_1": [[1, 0], [0, 1]],
                    "b_1": [0, 0],
                    "w_2": [[1], [1]],
                    "b_2": [0.5],
                    "activation": "relu",
                },
                {"output": "out"},
                [[1.5]],
                "relu(1, -1) = (1, 0); summed by w_2 and shifted by b_2: 1 + 0.5.",
            ),
        ),
        Operation(
            "sinusoidal_positions",
            "Sinusoidal position table: column 2i is sin(p / base^(2i/width)), 2i+1 its cos.",
            (
                Parameter("seq_len", "int", True, "positive integer"),
                Parameter("width", "int", True, "positive integer"),
                Parameter("base", "number", False, "positive number (default 10000)"),
            ),
            ("out",),
            _plan_sinusoidal,
            _run_sinusoidal,
            Example(
                {"seq_len": 2, "width": 2},
                {"output": "out", "row": 1},
                [0.8414709848078965, 0.5403023058681398],
                "Position 1, pair 0: angle 1 / 10000^0 = 1, so (sin 1, cos 1).",
            ),
        ),
        Operation(
            "rope",
            "Rotary embedding: pairs (2i, 2i+1) of each row t rotated by (offset + t) * "
            "base^(-2i/d_k).",
            (
                Parameter("x", "matrix", True, "(T, d_k) matrix or (B, T, d_k) array, d_k even"),
                Parameter("base", "number", False, "positive number (default 10000)"),
                Parameter("offset", "int", False, "position of row 0 (default 0)"),
            ),
            ("out",),
            _plan_rope,
            _run_rope,
            Example(
                {"x": [[1, 0], [1, 0]], "offset": 1},
                {"output": "out", "row": 0},
                [0.5403023058681398, 0.8414709848078965],
                "Row 0 sits at position 1: (1, 0) turned by 1 radian is (cos 1, sin 1).",
            ),
        ),
        Operation(
            "grouped_query_attention",
            "Self-attention where query head i uses key/value head i // (heads / kv_heads).",
            (
                Parameter("x", "matrix", True, _MATRIX_X),
                Parameter("w_q", "matrix", True, _WEIGHT),
                Parameter("w_k", "matrix", True, _KV_WEIGHT),
                Parameter("w_v", "matrix", True, _KV_WEIGHT),
                Parameter("w_o", "matrix", True, _WEIGHT),
                Parameter("heads", "int", True, "positive integer dividing d"),
                Parameter("kv_heads", "int", True, "positive integer dividing heads"),
                *_MASK_INPUTS,
            ),
            ("out", "weights"),
            _plan_gqa,
            _run_gqa,
            Example(
                {
                    "x": [[2, 0], [0, 2]],
                    "w_q": [[1, 0], [0, 1]],
                    "w_k": [[1], [0]],
                    "w_v": [[1], [1]],
                    "w_o": [[1, 0], [0, 1]],
                    "heads": 2,
                    "kv_heads": 1,
                },
                {"output": "weights", "head": 1},
                [[0.5, 0.5], [0.9820137900379085, 0.017986209962091555]],
                "One shared key head (column 0 of x); head 1's queries are column 1 of x.",
            ),
        ),
        Operation(
            "attention_decode",
            "One new token attending over a key/value cache of earlier tokens and itself; "
            "returns the grown caches.",
            (
                Parameter("x", "vector_or_matrix", True, "the new token: vector of d or (B, d)"),
                Parameter("k_cache", "cache", True, _CACHE),
                Parameter("v_cache", "cache", True, _CACHE),
                Parameter("w_q", "weight", True, _WEIGHT),
                Parameter("w_k", "weight", True, _KV_WEIGHT),
                Parameter("w_v", "weight", True, _KV_WEIGHT),
                Parameter("w_o", "weight", True, _WEIGHT),
                Parameter("heads", "int", True, "positive integer dividing d"),
                Parameter("kv_heads", "int", False, "positive integer dividing heads"),
            ),
            ("out", "weights", "k_cache", "v_cache"),
            _plan_decode,
            _run_decode,
            Example(
                {
                    "x": [0, 0],
                    "k_cache": [[1, 0]],
                    "v_cache": [[4, 0]],
                    **{w: [[1, 0], [0, 1]] for w in _MHA_WEIGHTS},
                    "heads": 1,
                },
                {"output": "out"},
                [2.0, 0.0],
                "The new token's query is 0, so it weighs the cached token and itself equally: "
                "(4 + 0) / 2.",
            ),
        ),
        Operation(
            "softmax_backward",
            "Gradient through softmax rows: y * (grad_y - sum(grad_y * y)) per row.",
            (
                Parameter("y", "array", True, "softmax output, rows on the last axis"),
                Parameter("grad_y", "array", True, "dL/dy, the shape of y"),
            ),
            ("grad_scores",),
            _plan_softmax_backward,
            _run_softmax_backward,
            Example(
                {"y": [0.5, 0.5], "grad_y": [1, 0]},
                {"output": "grad_scores"},
                [0.25, -0.25],
                "sum(grad_y * y) = 0.5, so the gradient is 0.5 * (1 - 0.5, 0 - 0.5).",
            ),
        ),
        Operation(
            "scaled_dot_product_attention_backward",
            "Gradients dq, dk, dv of scaled dot-product attention for an upstream grad_out.",
            (
                Parameter("q", "matrix", True, "(T, dk) matrix or (B, T, dk) array"),
                Parameter("k", "matrix", True, "(S, dk) matrix or (B, S, dk) array"),
                Parameter("v", "matrix", True, "(S, dv) matrix or (B, S, dv) array"),
                Parameter("grad_out", "matrix", True, "(T, dv) or (B, T, dv): dL/d out"),
                Parameter("mask", "mask", False, "boolean (T, S) matrix or (B, T, S) array"),
                Parameter("causal", "bool", False, "boolean"),
            ),
            ("dq", "dk", "dv"),
            _plan_sdpa_backward,
            _run_sdpa_backward,
            Example(
                {"q": [[0, 0]], "k": [[1, 0], [0, 1]], "v": [[1], [3]], "grad_out": [[1]]},
                {"output": "dv"},
                [[0.5], [0.5]],
                "A zero query weighs both keys 1/2, and dV = P^T grad_out.",
            ),
        ),
        Operation(
            "multi_head_attention_backward",
            "Gradients dx, dw_q, dw_k, dw_v, dw_o of multi-head attention for grad_out.",
            (
                *_PROJECTION_INPUTS,
                Parameter("w_o", "matrix", True, _WEIGHT),
                Parameter("heads", "int", True, "positive integer dividing d"),
                Parameter("grad_out", "matrix", True, "dL/d out, the shape of x"),
                *_MASK_INPUTS,
            ),
            ("dx", "dw_q", "dw_k", "dw_v", "dw_o"),
            _plan_mha_backward,
            _run_mha_backward,
            Example(
                {
                    "x": [[1, 0], [0, 1]],
                    **{w: [[1, 0], [0, 1]] for w in _MHA_WEIGHTS},
                    "heads": 1,
                    "grad_out": [[1, 0], [0, 0]],
                    "causal": True,
                },
                {"output": "dw_o"},
                [[1.0, 0.0], [0.0, 0.0]],
                "dW_o = C^T grad_out: only token 0's head output, which is x_0 = (1, 0), meets "
                "a non-zero gradient.",
            ),
        ),
        Operation(
            "cross_entropy",
            "Mean over rows of logsumexp(logits) - logits[target], stable; grad is its gradient.",
            (
                Parameter("logits", "vector_or_matrix", True, "vector of C or (N, C) matrix"),
                Parameter("targets", "indices", True, "class index, or a vector of N indices"),
            ),
            ("loss", "grad"),
            _plan_cross_entropy,
            _run_cross_entropy,
            Example(
                {"logits": [[0, 0, 0, 0]], "targets": [2]},
                {"output": "loss"},
                1.3862943611198906,
                "Equal logits give every class 1/4, and -ln(1/4) = ln 4.",
            ),
        ),
        Operation(
            "transformer_block",
            "Pre-norm block: h = x + MHA(LN_1(x)), out = h + FFN(LN_2(h)).",
            (
                Parameter("x", "matrix", True, _MATRIX_X),
                Parameter("ln_1_gamma", "vector", True, "vector of d"),
                Parameter("ln_1_beta", "vector", True, "vector of d"),
                Parameter("w_q", "matrix", True, _WEIGHT),
                Parameter("w_k", "matrix", True, _WEIGHT),
                Parameter("w_v", "matrix", True, _WEIGHT),
                Parameter("w_o", "matrix", True, _WEIGHT),
                Parameter("heads", "int", True, "positive integer dividing d"),
                Parameter("ln_2_gamma", "vector", True, "vector of d"),
                Parameter("ln_2_beta", "vector", True, "vector of d"),
                Parameter("w_1", "weight", True, "(d, F) matrix"),
                Parameter("b_1", "vector", True, "vector of F"),
                Parameter("w_2", "weight", True, "(F, d) matrix"),
                Parameter("b_2", "vector", True, "vector of d"),
                Parameter(
                    "activation", "choice", False, "gelu (default), relu or gelu_tanh", ACTIVATIONS
                ),
                *_MASK_INPUTS,
                Parameter("eps", "number", False, "positive number (default 1e-5)"),
            ),
            ("out", "h", "weights"),
            _plan_block,
            _run_block,
            Example(
                {
                    "x": [[1, -1], [3, 1]],
                    "ln_1_gamma": [1, 1],
                    "ln_1_beta": [0, 0],
                    **{w: [[0, 0], [0, 0]] for w in _MHA_WEIGHTS},
                    "heads": 1,
                    "ln_2_gamma": [1, 1],
                    "ln_2_beta": [0, 0],
                    "w_1": [[1, 0], [0, 1]],
                    "b_1": [0, 0],
                    "w_2": [[1, 0], [0, 1]],
                    "b_2": [0, 0],
                    "activation": "relu",
                    "eps": 1e-300,
                },
                {"output": "out"},
                [[2.0, -1.0], [4.0, 1.0]],
                "Zero attention weights leave h = x; each row normalises to (1, -1), relu keeps "
                "(1, 0), added to h.",
            ),
        ),
    )
}
"""Every operation the verifier may name, by name."""


# --------------------------------------------------------------------------- check / evaluate


def _check_ask(
    op: Operation, ask: object, axes: dict[str, Axes | None] | None, problems: list[InputProblem]
) -> None:
    if not isinstance(ask, Mapping):
        problems.append(
            InputProblem("ask", f"must be a mapping with an 'output' key, got {_describe(ask)}")
        )
        return
    for key in ask:
        if key != "output" and key not in SELECTORS:
            problems.append(
                InputProblem(f"ask.{key}", f"unknown key; expected output, {', '.join(SELECTORS)}")
            )
    output = ask.get("output")
    if output is None:
        problems.append(InputProblem("ask.output", f"is required: one of {', '.join(op.outputs)}"))
    elif not isinstance(output, str) or output not in op.outputs:
        problems.append(
            InputProblem(
                "ask.output", f"unknown output {output!r}; expected one of {', '.join(op.outputs)}"
            )
        )
        output = None
    if axes is not None and output is not None and output not in axes:
        problems.append(
            InputProblem("ask.output", f"{output!r} is not computed for these inputs{op.hint}")
        )
        output = None
    out_axes = None if axes is None or output is None else axes.get(output, ())
    for name in SELECTORS:
        if name not in ask:
            continue
        index = ask[name]
        path = f"ask.{name}"
        if _is_bool(index) or not isinstance(index, (int, np.integer)):
            problems.append(InputProblem(path, f"must be an integer index, got {_describe(index)}"))
            continue
        if output is None or axes is None:
            continue  # cannot tell which axes the output has
        if out_axes is None:
            problems.append(InputProblem(path, f"does not apply: output {output!r} is a mapping"))
            continue
        lengths = dict(out_axes)
        if name not in lengths:
            have = ", ".join(a for a, _ in out_axes) or "none, it is a scalar"
            problems.append(
                InputProblem(
                    path, f"does not apply: output {output!r} has no {name} axis (its axes: {have})"
                )
            )
        elif not 0 <= index < lengths[name]:
            problems.append(
                InputProblem(
                    path,
                    f"index {int(index)} is out of range: {output!r} has {lengths[name]} "
                    f"along {name} (0..{lengths[name] - 1})",
                )
            )


Analysis = tuple[
    list[InputProblem], Operation | None, dict[str, Any], dict[str, Axes | None] | None
]
"""Problems, the operation, the converted inputs and the outputs' axes of one request."""


def _analyse(
    operation: object, inputs: object, ask: object, instance: int = 0
) -> Analysis:
    problems: list[InputProblem] = []
    values: dict[str, Any] = {}
    op = OPERATIONS.get(operation) if isinstance(operation, str) else None
    if op is None:
        problems.append(
            InputProblem(
                "operation",
                f"unknown operation {operation!r}; expected one of {', '.join(OPERATIONS)}",
            )
        )
        return problems, None, values, None
    if not isinstance(inputs, Mapping):
        problems.append(
            InputProblem(
                "inputs", f"must be a mapping of input names to values, got {_describe(inputs)}"
            )
        )
        _check_ask(op, ask, None, problems)
        return problems, op, values, None
    expanded, generator_problems = expand_checked(inputs, instance)  # generators become numbers
    problems += generator_problems
    names = [p.name for p in op.parameters]
    for key in inputs:
        if key not in names:
            problems.append(
                InputProblem(
                    f"inputs.{key}", f"unknown input for {op.name}; expected {', '.join(names)}"
                )
            )
    for param in op.parameters:
        if param.name not in inputs:
            if param.required:
                problems.append(
                    InputProblem(f"inputs.{param.name}", f"is required ({param.shape})")
                )
            continue
        if is_generator(inputs[param.name]) and param.kind not in ("matrix", "vector_or_matrix"):
            problems.append(
                InputProblem(f"inputs.{param.name}", f"cannot be generated: {param.shape}")
            )
            continue
        if is_generator(expanded[param.name]):
            continue  # a bad generator mapping: its problems are reported above
        value = _convert(param, expanded[param.name], problems)
        if value is not None:
            values[param.name] = value
    axes = op.plan(values, problems)
    _check_ask(op, ask, axes, problems)
    return problems, op, values, axes


def check(operation: object, inputs: object, ask: object, instance: int = 0) -> list[InputProblem]:
    """Every problem with a request, computing nothing; empty when ``evaluate`` will succeed.

    Generated inputs (``attention.generated``) are drawn for ``instance``: 0 is the author's."""
    return _analyse(operation, inputs, ask, instance)[0]


def evaluate(
    operation: object, inputs: object, ask: object, instance: int = 0
) -> np.ndarray | dict[str, int]:
    """Compute the asked output: an array (0-d for scalars) narrowed by the selectors, or for
    ``terms`` a dict of term name to flops. Raises ``EngineInputError`` listing all problems."""
    problems, op, values, axes = _analyse(operation, inputs, ask, instance)
    if problems or op is None:
        raise EngineInputError(problems)
    assert isinstance(ask, Mapping) and axes is not None
    result = op.run(values)[ask["output"]]
    if isinstance(result, dict):
        return {str(k): int(v) for k, v in result.items()}
    arr = np.asarray(result)
    labels = [name for name, _ in axes[ask["output"]] or ()]
    index = tuple(int(ask[label]) if label in ask else slice(None) for label in labels)
    return np.asarray(arr[index]) if index else arr


def output_axes(
    operation: object, inputs: object, instance: int = 0
) -> dict[str, Axes | None] | None:
    """Each output's axes (selector name, length) for these inputs, None for a mapping output;
    None when the inputs do not fit the operation. What ``ask`` may select, to show an author."""
    problems, op, _, axes = _analyse(operation, inputs, {"output": ""}, instance)
    if op is None or any(not p.path.startswith("ask") for p in problems):
        return None
    return axes


def output_selectors(
    operation: str, inputs: Mapping[str, Any]
) -> dict[str, tuple[str, ...] | None]:
    """For valid ``inputs``, each output's selectors in order (None for a mapping output): the
    ``ask`` keys that may narrow it, as the operations reference shows them."""
    problems, _, _, axes = _analyse(operation, inputs, {"output": OPERATIONS[operation].outputs[0]})
    if problems or axes is None:
        raise EngineInputError(problems)
    return {
        name: None if shape is None else tuple(label for label, _ in shape)
        for name, shape in axes.items()
    }
