"""The position-wise feed-forward network and a pre-norm transformer block built from the parts."""

from __future__ import annotations

import math

import numpy as np

from attention.checks import common_dtype, features, shaped
from attention.core import multi_head_attention
from attention.errors import fail
from attention.norms import layer_norm

ACTIVATIONS: tuple[str, ...] = ("gelu", "relu", "gelu_tanh")
"""The feed-forward activations: exact GELU (with erf), ReLU and the tanh approximation of GELU."""

_erfc = np.frompyfunc(math.erfc, 1, 1)

ERF_CHUNK = 65536
"""Entries given to the standard library's erf at a time: it makes a Python float of each, 32
bytes where the array holds 8, so a whole hidden layer at once took a worker past 800 MB."""


def activate(name: str, z: np.ndarray) -> np.ndarray:
    """Apply the activation ``name`` elementwise, keeping ``z``'s dtype."""
    if name == "relu":
        return np.maximum(z, 0)
    if name == "gelu":
        return _gelu(z)
    # 0.5 * (1 + tanh(u)) is the logistic function of 2u, which cancels nothing where u is very
    # negative: 1 + tanh(u) left 0 for -1.2e-37 at z = -10
    twice = 2.0 * math.sqrt(2.0 / math.pi) * (z + 0.044715 * z**3)
    with np.errstate(over="ignore"):
        small = np.exp(-np.abs(twice))
    return z * np.where(twice >= 0, 1.0 / (1.0 + small), small / (1.0 + small))


def _gelu(z: np.ndarray) -> np.ndarray:
    """Exact GELU, ERF_CHUNK entries at a time: numpy has no erf, and the standard library's is
    exact to the last bit in float64. As 0.5 * z * erfc(-z / sqrt 2), which cancels nothing:
    1 + erf(z / sqrt 2) lost every figure below z = -8 (0 for -7.6e-23 at z = -10)."""
    out = np.empty(z.shape, dtype=z.dtype)
    flat, written = z.reshape(-1), out.reshape(-1)
    for start in range(0, flat.size, ERF_CHUNK):
        part = flat[start : start + ERF_CHUNK]
        erfc = np.asarray(_erfc(-part.astype(np.float64) / math.sqrt(2.0)), dtype=np.float64)
        written[start : start + ERF_CHUNK] = 0.5 * part * erfc
    return out


def _activation(value: object) -> str:
    if not isinstance(value, str) or value not in ACTIVATIONS:
        raise fail("inputs.activation", f"must be one of {', '.join(ACTIVATIONS)}, got {value!r}")
    return value


def feed_forward(
    x: object,
    w_1: object,
    b_1: object,
    w_2: object,
    b_2: object,
    activation: str = "gelu",
) -> np.ndarray:
    """``act(x @ w_1 + b_1) @ w_2 + b_2`` applied to every row of ``x`` (..., d)."""
    x_arr = features("x", x)
    w1 = features("w_1", w_1)
    if w1.ndim != 2 or w1.shape[0] != x_arr.shape[-1]:
        raise fail("inputs.w_1", f"expected {x_arr.shape[-1]}xF matrix, got shape {w1.shape}")
    b1 = shaped("b_1", b_1, (w1.shape[1],))
    w2 = features("w_2", w_2)
    if w2.ndim != 2 or w2.shape[0] != w1.shape[1]:
        raise fail("inputs.w_2", f"expected {w1.shape[1]}xD matrix, got shape {w2.shape}")
    b2 = shaped("b_2", b_2, (w2.shape[1],))
    act = _activation(activation)
    dtype = common_dtype(x_arr, w1, b1, w2, b2)
    x_arr, w1, b1, w2, b2 = (a.astype(dtype, copy=False) for a in (x_arr, w1, b1, w2, b2))
    return activate(act, x_arr @ w1 + b1) @ w2 + b2


def transformer_block(
    x: object,
    ln_1_gamma: object,
    ln_1_beta: object,
    w_q: object,
    w_k: object,
    w_v: object,
    w_o: object,
    heads: int,
    ln_2_gamma: object,
    ln_2_beta: object,
    w_1: object,
    b_1: object,
    w_2: object,
    b_2: object,
    activation: str = "gelu",
    mask: object | None = None,
    causal: bool = False,
    eps: float = 1e-5,
) -> dict[str, np.ndarray]:
    """Pre-norm block: ``h = x + MHA(LN_1(x))``, ``out = h + FFN(LN_2(h))``.

    Returns ``out``, the residual stream ``h`` between the halves, and the attention weights.
    """
    x_arr = features("x", x)
    width = x_arr.shape[-1]
    w2 = features("w_2", w_2)
    if w2.ndim == 2 and w2.shape[1] != width:
        raise fail("inputs.w_2", f"must map back to the width {width}, got shape {w2.shape}")
    attn_in = layer_norm(x_arr, ln_1_gamma, ln_1_beta, eps)
    attn_out, weights = multi_head_attention(attn_in, w_q, w_k, w_v, w_o, heads, mask, causal)
    h = x_arr + attn_out
    ffn_in = layer_norm(h, ln_2_gamma, ln_2_beta, eps)
    out = h + feed_forward(ffn_in, w_1, b_1, w2, b_2, activation)
    return {"out": out, "h": h, "weights": weights}
