"""Gradient and loss operations of the registry: backward passes and cross-entropy.

Their misconceptions recompute a gradient from the engine's forward weights and its softmax
backward, with one step of the chain rule done the mistaken way; cross-entropy's scale the
engine's loss or gradient, or take the target's raw logit for what the softmax gives.
"""

from __future__ import annotations

import math

import numpy as np

from attention.backward import (
    multi_head_attention_backward,
    scaled_dot_product_attention_backward,
    softmax_backward,
)
from attention.core import _split_heads, scaled_dot_product_attention
from attention.errors import InputProblem
from attention.losses import cross_entropy
from attention.registry.attention_mistakes import allowed, mask_mistakes, only
from attention.registry.attention_ops import plan_sdpa
from attention.registry.convert import dims
from attention.registry.operation import (
    Axes,
    Example,
    Misconception,
    Operation,
    Outputs,
    Parameter,
    Values,
)
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
from attention.softmax import softmax


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


def _t(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


def _columns_sum(v: Values) -> Values:
    """The softmax backward with each sum taken down a column instead of along a row."""
    if v["y"].ndim < 2:
        return {}
    return {"grad_scores": _t(softmax_backward(_t(v["y"]), _t(v["grad_y"])))}


NO_SUBTRACTION = (
    "This is what you get leaving out the softmax Jacobian's subtracted term: P ⊙ dP without "
    "− P ⊙ Σ(dP ⊙ P)."
)


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
    misconceptions=(
        Misconception(
            "no-subtraction",
            "This is what you get leaving out the softmax Jacobian's subtracted term: "
            "y ⊙ grad_y without − y ⊙ Σ(grad_y ⊙ y).",
            lambda v: {"grad_scores": v["y"] * v["grad_y"]},
        ),
        Misconception(
            "y-factor-missing",
            "This is what you get forgetting to multiply by y: grad_y − Σ(grad_y ⊙ y) alone.",
            lambda v: {
                "grad_scores": v["grad_y"] - np.sum(v["grad_y"] * v["y"], axis=-1, keepdims=True)
            },
        ),
        Misconception(
            "wrong-axis-sum",
            "This is what you get summing grad_y ⊙ y down each column instead of along each "
            "softmax row.",
            _columns_sum,
        ),
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


def _attention_grads(
    q: np.ndarray,
    k: np.ndarray,
    values: np.ndarray,
    mask: np.ndarray | None,
    grad_out: np.ndarray,
    *,
    subtract: bool = True,
    scaled: bool = True,
    transposed: bool = True,
) -> Values:
    """dq, dk, dv of softmax(q kᵀ / √d_k) v from the engine's weights P: dP = dO Vᵀ,
    dS = P ⊙ (dP − Σ dP ⊙ P) / √d_k, dQ = dS K, dK = dSᵀ Q, dV = Pᵀ dO; each keyword set
    False makes one step of it a student's mistake."""
    weights = scaled_dot_product_attention(q, k, values, mask)[1]
    dp = grad_out @ _t(values)
    ds = softmax_backward(weights, dp) if subtract else weights * dp
    if scaled:
        ds = ds * (1.0 / math.sqrt(q.shape[-1]))
    flip = _t if transposed else np.asarray
    return {"q": ds @ k, "k": flip(ds) @ q, "v": flip(weights) @ grad_out}


def _sdpa_grads(v: Values, **mistake: bool) -> Values:
    grads = _attention_grads(v["q"], v["k"], v["v"], allowed(v), v["grad_out"], **mistake)
    return {f"d{name}": grad for name, grad in grads.items()}


def _untransposed(v: Values) -> Values:
    if v["q"].shape[-2] != v["k"].shape[-2]:  # dS Q and P dO need as many queries as keys
        return {}
    return only(_sdpa_grads(v, transposed=False), "dk", "dv")


UNSCALED = "This is what you get leaving the 1/√d_k factor out of dQ and dK."


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
    misconceptions=(
        Misconception(
            "no-subtraction",
            NO_SUBTRACTION,
            lambda v: only(_sdpa_grads(v, subtract=False), "dq", "dk"),
        ),
        Misconception(
            "backward-unscaled",
            UNSCALED,
            lambda v: only(_sdpa_grads(v, scaled=False), "dq", "dk"),
        ),
        Misconception(
            "transpose-missed",
            "This is what you get missing a transpose: dV = P dO instead of Pᵀ dO, and "
            "dK = dS Q instead of dSᵀ Q.",
            _untransposed,
        ),
        *mask_mistakes(_run_sdpa_backward),
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


def _mha_grads(v: Values, paths: str = "qkv", transposed: bool = True, **mistake: bool) -> Values:
    """dx, dw_q, dw_k of multi-head attention by ``_attention_grads`` on each head; dx sums
    the paths named in ``paths``, each through Wᵀ (through W unless ``transposed``)."""
    x = v["x"]
    x3, g3 = (a if x.ndim == 3 else a[None] for a in (x, v["grad_out"]))
    batch, seq, width = x3.shape
    heads = v["heads"]
    q, k, values = (_split_heads(x3 @ v[f"w_{name}"], heads) for name in "qkv")
    ok = allowed(v)
    mask = None if ok is None else ok.reshape((-1, 1, seq, seq))
    d_heads = _split_heads(g3 @ v["w_o"].T, heads)
    grads = _attention_grads(q, k, values, mask, d_heads, **mistake)
    merged = {n: g.transpose(0, 2, 1, 3).reshape(batch, seq, width) for n, g in grads.items()}
    dx = sum(merged[n] @ (v[f"w_{n}"].T if transposed else v[f"w_{n}"]) for n in paths)
    rows = x3.reshape(-1, width).T
    return {
        "dx": dx if x.ndim == 3 else dx[0],
        **{f"dw_{n}": rows @ merged[n].reshape(-1, width) for n in "qk"},
    }


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
    misconceptions=(
        Misconception(
            "dw-transposed",
            "This is what you get with each weight's gradient transposed: dYᵀ X instead of Xᵀ dY.",
            lambda v: {n: g.T for n, g in _run_mha_backward(v).items() if n != "dx"},
        ),
        Misconception("no-subtraction", NO_SUBTRACTION, lambda v: _mha_grads(v, subtract=False)),
        Misconception("backward-unscaled", UNSCALED, lambda v: _mha_grads(v, scaled=False)),
        Misconception(
            "dx-query-path-only",
            "This is what you get passing the gradient back to x through the queries only, "
            "forgetting that the keys and values come from x too.",
            lambda v: only(_mha_grads(v, paths="q"), "dx"),
        ),
        Misconception(
            "dx-untransposed",
            "This is what you get multiplying by W instead of Wᵀ when passing each gradient "
            "back to x.",
            lambda v: only(_mha_grads(v, transposed=False), "dx"),
        ),
        *mask_mistakes(_run_mha_backward),
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


def _rows(v: Values) -> int:
    logits = v["logits"]
    return logits.size // logits.shape[-1]


def _target_logits(v: Values) -> np.ndarray:
    logits = v["logits"]
    flat = logits.reshape(_rows(v), logits.shape[-1])
    return flat[np.arange(len(flat)), v["targets"].reshape(-1)]


def _scaled_ce(v: Values, output: str, factor: float) -> Values:
    return {output: _run_cross_entropy(v)[output] * factor}


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
        1.386,
        "Equal logits give every class 1/4, and -ln(1/4) = ln 4.",
    ),
    misconceptions=(
        Misconception(
            "summed",
            "This is what you get summing the rows' losses instead of averaging them.",
            lambda v: _scaled_ce(v, "loss", _rows(v)),
        ),
        Misconception(
            "logit-as-log-probability",
            "This is what you get forgetting the softmax: taking −logit of the target as if the "
            "raw logit were a log-probability.",
            lambda v: {"loss": -np.mean(_target_logits(v))},
        ),
        Misconception(
            "logit-as-probability",
            "This is what you get forgetting the softmax: taking −log of the target's raw logit "
            "as if it were a probability.",
            lambda v: {"loss": -np.mean(np.log(_target_logits(v)))},
        ),
        Misconception(
            "log-base-2",
            "This is what you get using log base 2 instead of the natural log.",
            lambda v: _scaled_ce(v, "loss", 1.0 / math.log(2.0)),
        ),
        Misconception(
            "grad-not-averaged",
            "This is what you get leaving the gradient undivided by N, the number of rows.",
            lambda v: _scaled_ce(v, "grad", _rows(v)),
        ),
        Misconception(
            "grad-sign-flipped",
            "This is what you get with the gradient's sign flipped: one-hot minus softmax "
            "instead of softmax minus one-hot.",
            lambda v: _scaled_ce(v, "grad", -1.0),
        ),
        Misconception(
            "grad-one-hot-missing",
            "This is what you get taking the softmax alone as the gradient, without "
            "subtracting the one-hot target.",
            lambda v: {"grad": softmax(v["logits"]) / _rows(v)},
        ),
    ),
)
