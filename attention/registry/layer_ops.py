"""Layer operations of the registry: the two norms, the feed-forward network and the block."""

from __future__ import annotations

from attention.block import ACTIVATIONS, feed_forward, transformer_block
from attention.errors import InputProblem
from attention.limits import MAX_ELEMENTS, MAX_FLOPS, MAX_WIDTH
from attention.norms import layer_norm, rms_norm
from attention.registry.layer_mistakes import (
    FFN_MISTAKES,
    LAYER_NORM_MISTAKES,
    RMS_NORM_MISTAKES,
    block_mistakes,
)
from attention.registry.operation import Axes, Example, Operation, Outputs, Parameter, Values
from attention.registry.shapes import (
    MASK_INPUTS,
    MATRIX_X,
    MHA_WEIGHTS,
    WEIGHT,
    Plan,
    axes_of,
    features_of,
    lead_axes,
    self_attention,
    vector,
    work_limit,
)

_FEATURES = "a vector of d, (T, d) matrix or (B, T, d) array"


def _plan_norm(values: Values, problems: list[InputProblem]) -> Outputs | None:
    p = Plan(values, problems)
    width = features_of(p, "x")
    if width is None:
        return None
    ok = vector(p, "gamma", width) & vector(p, "beta", width)
    return {"out": axes_of(values["x"].shape)} if ok else None


def _run_layer_norm(v: Values) -> Values:
    return {"out": layer_norm(v["x"], v.get("gamma"), v.get("beta"), v.get("eps", 1e-5))}


def _run_rms_norm(v: Values) -> Values:
    return {"out": rms_norm(v["x"], v.get("gamma"), v.get("eps", 1e-6))}


LAYER_NORM = Operation(
    "layer_norm",
    "Layer norm over the last axis: (x - mean) / sqrt(var + eps) * gamma + beta, variance biased.",
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
        [-1.2247, 0.0, 1.2247],
        "Mean 2, variance 2/3: (x - 2) / sqrt(2/3) = (-sqrt(1.5), 0, sqrt(1.5)).",
    ),
    misconceptions=LAYER_NORM_MISTAKES,
)


RMS_NORM = Operation(
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
    misconceptions=RMS_NORM_MISTAKES,
)


def _ffn_shapes(p: Plan, width: int, rows: int, out_width: int | None = None) -> int | None:
    """Check w_1, b_1, w_2, b_2 against width d (and the output width, when it is fixed);
    return the output width, or None."""
    w1, w2 = p.values.get("w_1"), p.values.get("w_2")
    if w1 is None or w2 is None:
        return None
    hidden = w1.shape[1]
    out_width = w2.shape[1] if out_width is None else out_width
    ok = p.matrix("w_1", width, hidden, None) & vector(p, "b_1", hidden)
    ok &= p.matrix("w_2", hidden, out_width, None) & vector(p, "b_2", out_width)
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


def _plan_ffn(values: Values, problems: list[InputProblem]) -> Outputs | None:
    p = Plan(values, problems)
    width = features_of(p, "x")
    if width is None:
        return None
    x = values["x"]
    out_width = _ffn_shapes(p, width, x.size // width)
    return None if out_width is None else {"out": axes_of(x.shape[:-1] + (out_width,))}


def _run_ffn(v: Values) -> Values:
    args = (v["x"], v["w_1"], v["b_1"], v["w_2"], v["b_2"], v.get("activation", "gelu"))
    return {"out": feed_forward(*args)}


FFN = Operation(
    "feed_forward",
    "Position-wise feed-forward: act(x @ w_1 + b_1) @ w_2 + b_2; gelu is exact (erf).",
    (
        Parameter("x", "array", True, _FEATURES),
        Parameter("w_1", "weight", True, "(d, F) matrix"),
        Parameter("b_1", "vector", True, "vector of F"),
        Parameter("w_2", "weight", True, "(F, D) matrix"),
        Parameter("b_2", "vector", True, "vector of D"),
        Parameter("activation", "choice", False, "gelu (default), relu or gelu_tanh", ACTIVATIONS),
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
    misconceptions=FFN_MISTAKES,
)


def _plan_block(values: Values, problems: list[InputProblem]) -> Outputs | None:
    p = Plan(values, problems)
    planned = self_attention(p)
    if planned is None:
        return None
    batch, seq, width, heads, ok = planned
    for name in ("ln_1_gamma", "ln_1_beta", "ln_2_gamma", "ln_2_beta"):
        ok &= vector(p, name, width)
    out_width = _ffn_shapes(p, width, (batch or 1) * seq, width)
    if heads is None or out_width is None or not ok:
        return None
    if not work_limit(p, batch, seq, width, heads):
        return None
    lead = lead_axes(batch)
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


def _run_block(v: Values) -> Values:
    params = {name: v[name] for name in _BLOCK_ARGS}
    return transformer_block(
        **params,
        activation=v.get("activation", "gelu"),
        mask=v.get("mask"),
        causal=v.get("causal") or False,
        eps=v.get("eps", 1e-5),
    )


BLOCK = Operation(
    "transformer_block",
    "Pre-norm block: h = x + MHA(LN_1(x)), out = h + FFN(LN_2(h)).",
    (
        Parameter("x", "matrix", True, MATRIX_X),
        Parameter("ln_1_gamma", "vector", True, "vector of d"),
        Parameter("ln_1_beta", "vector", True, "vector of d"),
        Parameter("w_q", "matrix", True, WEIGHT),
        Parameter("w_k", "matrix", True, WEIGHT),
        Parameter("w_v", "matrix", True, WEIGHT),
        Parameter("w_o", "matrix", True, WEIGHT),
        Parameter("heads", "int", True, "positive integer dividing d"),
        Parameter("ln_2_gamma", "vector", True, "vector of d"),
        Parameter("ln_2_beta", "vector", True, "vector of d"),
        Parameter("w_1", "weight", True, "(d, F) matrix"),
        Parameter("b_1", "vector", True, "vector of F"),
        Parameter("w_2", "weight", True, "(F, d) matrix"),
        Parameter("b_2", "vector", True, "vector of d"),
        Parameter("activation", "choice", False, "gelu (default), relu or gelu_tanh", ACTIVATIONS),
        *MASK_INPUTS,
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
            **{w: [[0, 0], [0, 0]] for w in MHA_WEIGHTS},
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
    misconceptions=block_mistakes(_run_block),
)
