"""Attention operations of the registry: softmax, scaled dot-product and multi-head attention,
and one head of it."""

from __future__ import annotations

import numpy as np

from attention.core import attention_head, checked_mha, scaled_dot_product_attention
from attention.errors import InputProblem
from attention.limits import MAX_BATCH, MAX_ELEMENTS, MAX_SEQ_LEN, MAX_WIDTH
from attention.registry.attention_mistakes import (
    head_mistakes,
    sdpa_mistakes,
    self_attention_mistakes,
    softmax_mistakes,
    swapped_weights,
)
from attention.registry.convert import dims
from attention.registry.operation import Axes, Example, Operation, Outputs, Parameter, Values
from attention.registry.shapes import (
    MASK_INPUTS,
    MHA_WEIGHTS,
    PROJECTION_INPUTS,
    WEIGHT,
    Plan,
    lead_axes,
    self_attention,
    square_weights,
    work_limit,
    x_dims,
)
from attention.softmax import softmax


def _plan_softmax(values: Values, problems: list[InputProblem]) -> Outputs | None:
    p = Plan(values, problems)
    scores = values.get("scores")
    if scores is None:
        return None
    shape = scores.shape
    if 0 in shape:
        p.add("scores", f"must not be empty, got {dims(shape)}")
        return None
    mask = values.get("mask")
    if mask is not None:
        if mask.shape != shape:
            p.add(
                "mask",
                f"expected {dims(shape)}{' matrix' if len(shape) == 2 else ''}, "
                f"got {dims(mask.shape)}",
            )
        else:
            empty = np.argwhere(~mask.reshape((-1, shape[-1])).any(axis=-1))
            if len(empty):
                what = f"row {int(empty[0][0])}" if len(shape) == 2 else "the vector"
                p.add("mask", f"{what} has nothing allowed; softmax of an empty row is undefined")
    axes: Axes = (("col", shape[0]),) if len(shape) == 1 else (("row", shape[0]), ("col", shape[1]))
    return {"out": axes}


def _run_softmax(v: Values) -> Values:
    return {"out": softmax(v["scores"], v.get("mask"))}


def plan_sdpa(values: Values, problems: list[InputProblem]) -> Outputs | None:
    p = Plan(values, problems)
    q, k, v = (values.get(n) for n in ("q", "k", "v"))
    if q is None:
        return None
    batch = q.shape[0] if q.ndim == 3 else None
    rows, dk = q.shape[-2:]
    ok = p.limit("q", "sequence length", rows, MAX_SEQ_LEN) & p.limit("q", "width", dk, MAX_WIDTH)
    if batch is not None:
        ok &= p.limit("q", "batch", batch, MAX_BATCH)
    if rows < 1 or dk < 1:
        p.add("q", f"must have at least one row and one column, got {dims(q.shape)}")
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
    lead = lead_axes(batch)
    return {
        "out": (*lead, ("row", rows), ("col", dv)),
        "weights": (*lead, ("row", rows), ("col", keys)),
    }


def _run_sdpa(v: Values, scale: float | None = None) -> Values:
    out, weights = scaled_dot_product_attention(
        v["q"], v["k"], v["v"], v.get("mask"), v.get("causal") or False, scale=scale
    )
    return {"out": out, "weights": weights}


SOFTMAX = Operation(
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
        [0.3333, 0.6667],
        "The second score is ln 2, so its exponential is twice the first: 1/3 and 2/3.",
    ),
    misconceptions=softmax_mistakes(_run_softmax),
)


SDPA = Operation(
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
    plan_sdpa,
    _run_sdpa,
    Example(
        {
            "q": [[0, 0, 1, 1], [1, 1, 0, 0]],
            "k": [[1, 1, 0, 0], [0, 0, 1, 1]],
            "v": [[1, 0], [0, 1]],
        },
        {"output": "weights", "row": 1, "col": 0},
        0.7311,
        "Scores of query 1 are (2, 0) / sqrt(4) = (1, 0); the weight on key 0 is e/(1+e).",
    ),
    misconceptions=sdpa_mistakes(_run_sdpa),
)


def _plan_mha(values: Values, problems: list[InputProblem]) -> Outputs | None:
    p = Plan(values, problems)
    planned = self_attention(p)
    if planned is None:
        return None
    batch, seq, width, heads, ok = planned
    if heads is None or not ok or not work_limit(p, batch, seq, width, heads):
        return None
    lead = lead_axes(batch)
    return {
        "out": (*lead, ("row", seq), ("col", width)),
        "weights": (*lead, ("head", heads), ("row", seq), ("col", seq)),
    }


def _run_mha(v: Values, scale: float | None = None) -> Values:
    x, mask = v["x"], v.get("mask")
    seq = x.shape[-2]
    out, weights = checked_mha(
        x,
        [v["w_q"], v["w_k"], v["w_v"], v["w_o"]],
        v["heads"],
        None if mask is None else mask.reshape((-1, 1, seq, seq)),
        v.get("causal") or False,
        scale,
    )
    return {"out": out, "weights": weights}


MHA = Operation(
    "multi_head_attention",
    "Multi-head self-attention with projections applied as x @ w.",
    (
        *PROJECTION_INPUTS,
        Parameter("w_o", "matrix", True, WEIGHT),
        Parameter("heads", "int", True, "positive integer dividing d"),
        *MASK_INPUTS,
    ),
    ("out", "weights"),
    _plan_mha,
    _run_mha,
    Example(
        {
            "x": [[2, 0], [0, 2]],
            **{w: [[1, 0], [0, 1]] for w in MHA_WEIGHTS},
            "heads": 2,
            "causal": True,
        },
        {"output": "weights", "head": 0, "row": 1},
        [0.5, 0.5],
        "Head 0 sees column 0 only; token 1's query is 0 there, so its two allowed scores tie.",
    ),
    misconceptions=(*self_attention_mistakes(_run_mha), swapped_weights(_run_mha)),
)


def _plan_head(values: Values, problems: list[InputProblem]) -> Outputs | None:
    p = Plan(values, problems)
    dims = x_dims(p)
    if dims is None:
        square_weights(p, ("w_q", "w_k", "w_v"))
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
    if not ok or head is None or not work_limit(p, batch, seq, width, heads):
        return None
    lead = lead_axes(batch)
    slice_axes: Axes = (*lead, ("row", seq), ("col", width // heads))
    return {
        "out": slice_axes,
        "weights": (*lead, ("row", seq), ("col", seq)),
        "q": slice_axes,
        "k": slice_axes,
        "v": slice_axes,
    }


def _run_head(v: Values, scale: float | None = None) -> Values:
    return attention_head(
        v["x"],
        v["w_q"],
        v["w_k"],
        v["w_v"],
        v["heads"],
        v["head"],
        v.get("mask"),
        v.get("causal") or False,
        scale=scale,
    )


HEAD = Operation(
    "attention_head",
    "One head of multi-head attention: its q, k, v column slices, weights and output.",
    (
        *PROJECTION_INPUTS,
        Parameter("heads", "int", True, "positive integer dividing d"),
        Parameter("head", "int", True, "0-based head index below heads"),
        *MASK_INPUTS,
    ),
    ("out", "weights", "q", "k", "v"),
    _plan_head,
    _run_head,
    Example(
        {
            "x": [[1, 2], [3, 4]],
            **{w: [[1, 0], [0, 1]] for w in MHA_WEIGHTS[:3]},
            "heads": 2,
            "head": 1,
        },
        {"output": "q"},
        [[2.0], [4.0]],
        "With identity projections head 1's queries are column 1 of x.",
    ),
    misconceptions=head_mistakes(_run_head),
)
