"""Gradient and loss operations of the registry: backward passes and cross-entropy."""

from __future__ import annotations

import numpy as np

from attention.backward import (
    multi_head_attention_backward,
    scaled_dot_product_attention_backward,
    softmax_backward,
)
from attention.errors import InputProblem
from attention.losses import cross_entropy
from attention.registry.attention_ops import plan_sdpa
from attention.registry.convert import dims
from attention.registry.operation import Axes, Example, Operation, Outputs, Parameter, Values
from attention.registry.shapes import (
    MASK_INPUTS,
    MHA_WEIGHTS,
    PROJECTION_INPUTS,
    WEIGHT,
    Plan,
    axes_of,
    features_of,
    self_attention,
    work_limit,
)


def _plan_softmax_backward(values: Values, problems: list[InputProblem]) -> Outputs | None:
    p = Plan(values, problems)
    y, g = values.get("y"), values.get("grad_y")
    if y is None or features_of(p, "y") is None or g is None:
        return None
    if g.shape != y.shape:
        p.add("grad_y", f"expected {dims(y.shape)} like y, got {dims(g.shape)}")
        return None
    return {"grad_scores": axes_of(y.shape)}


def _run_softmax_backward(v: Values) -> Values:
    return {"grad_scores": softmax_backward(v["y"], v["grad_y"])}


SOFTMAX_BACKWARD = Operation(
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
)


def _grad_out(p: Plan, shape: tuple[int, ...]) -> bool:
    g = p.values.get("grad_out")
    if g is not None and g.shape != shape:
        p.add("grad_out", f"expected {dims(shape)} like the output, got {dims(g.shape)}")
        return False
    return g is not None


def _plan_sdpa_backward(values: Values, problems: list[InputProblem]) -> Outputs | None:
    axes = plan_sdpa(values, problems)
    if axes is None or problems:
        return None
    out = axes["out"]
    assert out is not None
    if not _grad_out(Plan(values, problems), tuple(n for _, n in out)):
        return None
    lead = out[:-2]
    keys = axes["weights"][-1][1]  # type: ignore[index]
    return {
        "dq": (*lead, out[-2], ("col", values["q"].shape[-1])),
        "dk": (*lead, ("row", keys), ("col", values["k"].shape[-1])),
        "dv": (*lead, ("row", keys), out[-1]),
    }


def _run_sdpa_backward(v: Values) -> Values:
    dq, dk, dv = scaled_dot_product_attention_backward(
        v["q"], v["k"], v["v"], v["grad_out"], v.get("mask"), v.get("causal") or False
    )
    return {"dq": dq, "dk": dk, "dv": dv}


SDPA_BACKWARD = Operation(
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
)


def _plan_mha_backward(values: Values, problems: list[InputProblem]) -> Outputs | None:
    p = Plan(values, problems)
    planned = self_attention(p)
    if planned is None:
        return None
    batch, seq, width, heads, ok = planned
    ok &= _grad_out(p, values["x"].shape)
    if heads is None or not ok or not work_limit(p, batch, seq, width, heads, backward=True):
        return None
    weight: Axes = (("row", width), ("col", width))
    return {
        "dx": axes_of(values["x"].shape),
        **{name: weight for name in ("dw_q", "dw_k", "dw_v", "dw_o")},
    }


def _run_mha_backward(v: Values) -> Values:
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


MHA_BACKWARD = Operation(
    "multi_head_attention_backward",
    "Gradients dx, dw_q, dw_k, dw_v, dw_o of multi-head attention for grad_out.",
    (
        *PROJECTION_INPUTS,
        Parameter("w_o", "matrix", True, WEIGHT),
        Parameter("heads", "int", True, "positive integer dividing d"),
        Parameter("grad_out", "matrix", True, "dL/d out, the shape of x"),
        *MASK_INPUTS,
    ),
    ("dx", "dw_q", "dw_k", "dw_v", "dw_o"),
    _plan_mha_backward,
    _run_mha_backward,
    Example(
        {
            "x": [[1, 0], [0, 1]],
            **{w: [[1, 0], [0, 1]] for w in MHA_WEIGHTS},
            "heads": 1,
            "grad_out": [[1, 0], [0, 0]],
            "causal": True,
        },
        {"output": "dw_o"},
        [[1.0, 0.0], [0.0, 0.0]],
        "dW_o = C^T grad_out: only token 0's head output, which is x_0 = (1, 0), meets "
        "a non-zero gradient.",
    ),
)


def _plan_cross_entropy(values: Values, problems: list[InputProblem]) -> Outputs | None:
    p = Plan(values, problems)
    classes = features_of(p, "logits")
    targets = values.get("targets")
    if classes is None or targets is None:
        return None
    logits = values["logits"]
    rows = logits.shape[:-1]
    if targets.shape != rows:
        want = "a single class index" if not rows else f"a vector of {rows[0]} class indices"
        p.add("targets", f"expected {want} (one per row of logits), got {dims(targets.shape)}")
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
    return {"loss": (), "grad": axes_of(logits.shape)}


def _run_cross_entropy(v: Values) -> Values:
    loss, grad = cross_entropy(v["logits"], v["targets"])
    return {"loss": loss, "grad": grad}


CROSS_ENTROPY = Operation(
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
)
