"""Named operations the verifier calls with data from chapter files: check everything, then compute.

``check`` never computes: it converts and inspects inputs, applies the size limits in
``attention.limits`` and validates the ``ask`` selector, returning every problem at once.
``evaluate`` runs ``check`` and only then computes, so bad or oversized input never reaches numpy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from attention.core import attention_head, multi_head_attention, scaled_dot_product_attention
from attention.cost import TERM_NAMES, attention_cost, cost_problems
from attention.errors import EngineInputError, InputProblem
from attention.generated import expand_checked, is_generator
from attention.limits import MAX_BATCH, MAX_ELEMENTS, MAX_FLOPS, MAX_HEADS, MAX_SEQ_LEN, MAX_WIDTH
from attention.softmax import softmax

SELECTORS: tuple[str, ...] = ("batch", "head", "row", "col")
"""Optional integer ``ask`` keys, applied in this order, each indexing the output axis so named."""

Axes = tuple[tuple[str, int], ...]
"""An output's axes as (selector name, length) pairs; ``None`` in place of Axes marks a mapping."""


@dataclass(frozen=True)
class Parameter:
    """One named input of an operation: its kind, whether it is required and its expected shape."""

    name: str
    kind: str  # "matrix", "vector_or_matrix", "mask", "int" or "bool"
    required: bool
    shape: str


@dataclass(frozen=True)
class Operation:
    """A computation the verifier may ask for, with its inputs, outputs and implementation."""

    name: str
    description: str
    parameters: tuple[Parameter, ...]
    outputs: tuple[str, ...]
    plan: Callable[[dict[str, Any], list[InputProblem]], dict[str, Axes | None] | None]
    run: Callable[[dict[str, Any]], dict[str, Any]]

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


def _scan(value: object, leaf_ok: Callable[[object], bool], what: str) -> tuple[int, ...] | str:
    """Shape of a rectangular nested list whose leaves pass ``leaf_ok``, or a message why not."""
    if isinstance(value, np.ndarray):
        kinds = "b" if what == "booleans" else "iuf"
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
        if arr.dtype.kind in "iu" or arr.dtype not in (np.float32, np.float64):
            arr = arr.astype(np.float64)
    except OverflowError:  # an integer past float range
        problems.append(InputProblem(path, "must be finite (no NaN or infinity)"))
        return None
    if not np.all(np.isfinite(arr)):
        problems.append(InputProblem(path, "must be finite (no NaN or infinity)"))
        return None
    return arr


def _convert(param: Parameter, value: object, problems: list[InputProblem]) -> Any:
    path = f"inputs.{param.name}"
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
    arr = _convert_array(path, value, param.kind == "mask", problems)
    if arr is None:
        return None
    ranks = {"matrix": (2, 3), "vector_or_matrix": (1, 2), "mask": (1, 2, 3)}[param.kind]
    if arr.ndim not in ranks:
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


def _work_limit(p: _Plan, batch: int | None, seq: int, width: int, heads: int) -> bool:
    b = batch or 1
    ok = True
    if b * heads * seq * seq > MAX_ELEMENTS:
        p.add(
            "",
            f"attention weights would have {b * heads * seq * seq} elements, "
            f"more than the limit of {MAX_ELEMENTS}",
        )
        ok = False
    flops = attention_cost(seq, width, heads, b).flops
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
    dims = _x_dims(p)
    if dims is None:
        _square_weights(p, ("w_q", "w_k", "w_v", "w_o"))
        return None
    batch, seq, width = dims
    ok = all([p.matrix(n, width, width, None) for n in ("w_q", "w_k", "w_v", "w_o")])
    heads = p.heads(width)
    p.mask(seq, seq, batch, p.causal())
    if heads is None or not ok or not _work_limit(p, batch, seq, width, heads):
        return None
    lead = _lead(batch)
    return {
        "out": (*lead, ("row", seq), ("col", width)),
        "weights": (*lead, ("head", heads), ("row", seq), ("col", seq)),
    }


def _run_mha(v: dict[str, Any]) -> dict[str, Any]:
    out, weights = multi_head_attention(
        v["x"],
        v["w_q"],
        v["w_k"],
        v["w_v"],
        v["w_o"],
        v["heads"],
        v.get("mask"),
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
    ints = ("seq_len", "width", "heads", "batch")
    missing = {n for n in ints if values.get(n) is None and n != "batch"}
    # an argument that failed its type check stands in as 1; its own problem is already reported
    seq_len, width, heads, batch = (1 if n in missing else values.get(n, 1) for n in ints)
    bias = values.get("bias", False)
    found = cost_problems(seq_len, width, heads, batch, bias)
    if missing & {"width", "heads"}:
        found = [q for q in found if "divisible" not in q.message]
    problems.extend(found)
    if not found and not missing:
        flops = attention_cost(seq_len, width, heads, batch, bias).flops
        if flops >= 2**63:
            problems.append(
                InputProblem(
                    "inputs", f"the flop count {flops} is too large to represent (limit 2**63)"
                )
            )
    return axes


def _run_cost(v: dict[str, Any]) -> dict[str, Any]:
    cost = attention_cost(
        v["seq_len"], v["width"], v["heads"], v.get("batch", 1), v.get("bias", False)
    )
    return {"flops": cost.flops, "params": cost.params, "terms": dict(cost.terms), **cost.terms}


_MATRIX_X = "(T, d) matrix or (B, T, d) array"
_WEIGHT = "(d, d) matrix"
_MASK = "boolean (T, T) matrix or (B, T, T) array, true where a query may attend"
_MASK_INPUTS = (
    Parameter("mask", "mask", False, _MASK),
    Parameter("causal", "bool", False, "boolean"),
)
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
        ),
        Operation(
            "attention_cost",
            "Flop counts by term and parameter count of one attention layer.",
            (
                Parameter("seq_len", "int", True, "positive integer"),
                Parameter("width", "int", True, "positive integer"),
                Parameter("heads", "int", True, "positive integer dividing width"),
                Parameter("batch", "int", False, "positive integer"),
                Parameter("bias", "bool", False, "boolean"),
            ),
            ("flops", "params", "terms", *TERM_NAMES),
            _plan_cost,
            _run_cost,
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


def _analyse(
    operation: object, inputs: object, ask: object, instance: int = 0
) -> tuple[list[InputProblem], Operation | None, dict[str, Any]]:
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
        return problems, None, values
    if not isinstance(inputs, Mapping):
        problems.append(
            InputProblem(
                "inputs", f"must be a mapping of input names to values, got {_describe(inputs)}"
            )
        )
        _check_ask(op, ask, None, problems)
        return problems, op, values
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
    return problems, op, values


def check(operation: object, inputs: object, ask: object, instance: int = 0) -> list[InputProblem]:
    """Every problem with a request, computing nothing; empty when ``evaluate`` will succeed.

    Generated inputs (``attention.generated``) are drawn for ``instance``: 0 is the author's."""
    return _analyse(operation, inputs, ask, instance)[0]


def evaluate(
    operation: object, inputs: object, ask: object, instance: int = 0
) -> np.ndarray | dict[str, int]:
    """Compute the asked output: an array (0-d for scalars) narrowed by the selectors, or for
    ``terms`` a dict of term name to flops. Raises ``EngineInputError`` listing all problems."""
    problems, op, values = _analyse(operation, inputs, ask, instance)
    if problems or op is None:
        raise EngineInputError(problems)
    assert isinstance(ask, Mapping)
    result = op.run(values)[ask["output"]]
    if isinstance(result, dict):
        return {str(k): int(v) for k, v in result.items()}
    arr = np.asarray(result)
    axes = op.plan(values, [])
    assert axes is not None
    labels = [name for name, _ in axes[ask["output"]] or ()]
    index = tuple(int(ask[label]) if label in ask else slice(None) for label in labels)
    return np.asarray(arr[index]) if index else arr


def output_axes(
    operation: object, inputs: object, instance: int = 0
) -> dict[str, Axes | None] | None:
    """Each output's axes (selector name, length) for these inputs, None for a mapping output;
    None when the inputs do not fit the operation. What ``ask`` may select, to show an author."""
    problems, op, values = _analyse(operation, inputs, {"output": ""}, instance)
    if op is None or any(not p.path.startswith("ask") for p in problems):
        return None
    return op.plan(values, [])
