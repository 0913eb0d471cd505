"""Gradients (vector-Jacobian products) of softmax and attention, by the chain rule.

With P = softmax(S) row by row and upstream gradient dP, ``dS = P * (dP - sum(dP * P))`` per
row. Attention recomputes its forward pass (P is never supplied by the caller) and then runs
the products of 0.MC.07 backwards: through ``O = P V`` and ``S = Q K^T / sqrt(d_k)``.
"""

from __future__ import annotations

import math

import numpy as np

from attention.checks import common_dtype, float_input, unbroadcast
from attention.core import (
    _prepare_mask,
    _prepare_weight,
    _prepare_x,
    _result_dtype,
    _split_heads,
    _validate_heads,
    attend,
    scaled_dot_product_attention,
)
from attention.errors import fail


def _softmax_vjp(p: np.ndarray, grad_p: np.ndarray) -> np.ndarray:
    return p * (grad_p - np.sum(grad_p * p, axis=-1, keepdims=True))


def softmax_backward(y: object, grad_y: object) -> np.ndarray:
    """Gradient with respect to the scores, given softmax rows ``y`` (last axis) and ``dL/dy``."""
    y_arr = float_input("y", y)
    g_arr = float_input("grad_y", grad_y)
    if y_arr.ndim == 0:
        raise fail("inputs.y", "must have at least one axis (the softmax rows)")
    if g_arr.shape != y_arr.shape:
        raise fail("inputs.grad_y", f"expected shape {y_arr.shape} like y, got {g_arr.shape}")
    dtype = common_dtype(y_arr, g_arr)
    return _softmax_vjp(y_arr.astype(dtype, copy=False), g_arr.astype(dtype, copy=False))


def _attention_vjp(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, p: np.ndarray, grad_out: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """dq, dk, dv of ``softmax(q k^T) v`` with ``q`` already scaled and weights ``p``."""
    dv = np.swapaxes(p, -1, -2) @ grad_out
    ds = _softmax_vjp(p, grad_out @ np.swapaxes(v, -1, -2))
    return ds @ k, np.swapaxes(ds, -1, -2) @ q, dv


def scaled_dot_product_attention_backward(
    q: object,
    k: object,
    v: object,
    grad_out: object,
    mask: object | None = None,
    causal: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(dq, dk, dv)`` of scaled dot-product attention for upstream gradient ``grad_out``.

    Shapes and conventions as ``scaled_dot_product_attention``; each gradient has the shape of
    its input (summed over batch dimensions that input was broadcast along).
    """
    arrays = [float_input(n, a) for n, a in (("q", q), ("k", k), ("v", v))]
    g = float_input("grad_out", grad_out)
    dtype = common_dtype(*arrays, g)
    q_arr, k_arr, v_arr = (a.astype(dtype, copy=False) for a in arrays)
    out, p = scaled_dot_product_attention(q_arr, k_arr, v_arr, mask, causal)
    if g.shape != out.shape:
        raise fail("inputs.grad_out", f"expected shape {out.shape} like the output, got {g.shape}")
    scale = dtype.type(1.0 / math.sqrt(q_arr.shape[-1]))
    lead = out.shape[:-2]
    dq, dk, dv = _attention_vjp(
        np.broadcast_to(q_arr * scale, lead + q_arr.shape[-2:]),
        np.broadcast_to(k_arr, lead + k_arr.shape[-2:]),
        np.broadcast_to(v_arr, lead + v_arr.shape[-2:]),
        p,
        g.astype(dtype, copy=False),
    )
    return (
        unbroadcast(dq * scale, q_arr.shape),
        unbroadcast(dk, k_arr.shape),
        unbroadcast(dv, v_arr.shape),
    )


def _merge_heads(a: np.ndarray) -> np.ndarray:
    """(B, h, T, dk) -> (B, T, h*dk), heads side by side."""
    b, h, t, dk = a.shape
    return a.transpose(0, 2, 1, 3).reshape(b, t, h * dk)


def multi_head_attention_backward(
    x: object,
    w_q: object,
    w_k: object,
    w_v: object,
    w_o: object,
    heads: int,
    grad_out: object,
    mask: object | None = None,
    causal: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Gradients ``(dx, dw_q, dw_k, dw_v, dw_o)`` of ``multi_head_attention`` for ``grad_out``.

    ``grad_out`` has the output's shape (that of ``x``); the weight gradients sum over the batch.
    """
    x_arr = _prepare_x(x)
    batched = x_arr.ndim == 3
    x3 = x_arr if batched else x_arr[None]
    batch, seq, width = x3.shape
    ws = [
        _prepare_weight(n, w, width, width)
        for n, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v), ("w_o", w_o))
    ]
    h = _validate_heads(heads, width)
    g = float_input("grad_out", grad_out)
    if g.shape != x_arr.shape:
        raise fail(
            "inputs.grad_out", f"expected shape {x_arr.shape} like the output, got {g.shape}"
        )
    mask_arr = _prepare_mask(mask, batched, batch, seq, causal)
    if seq == 0:
        raise fail("inputs.x", "must contain at least one token")
    dtype = _result_dtype(x3, g, *ws)
    x3 = x3.astype(dtype, copy=False)
    g3 = (g if batched else g[None]).astype(dtype, copy=False)
    w_q_a, w_k_a, w_v_a, w_o_a = (w.astype(dtype, copy=False) for w in ws)
    dk = width // h
    scale = dtype.type(1.0 / math.sqrt(dk))
    q = _split_heads(x3 @ (w_q_a * scale), h)
    k = _split_heads(x3 @ w_k_a, h)
    v = _split_heads(x3 @ w_v_a, h)
    head_out, p = attend(q, k, v, mask_arr, bool(causal))
    concat = _merge_heads(head_out)
    rows = batch * seq
    dw_o = concat.reshape(rows, width).T @ g3.reshape(rows, width)
    d_concat = _split_heads(g3 @ w_o_a.T, h)
    dq, dk_, dv = (_merge_heads(a) for a in _attention_vjp(q, k, v, p, d_concat))
    dq = dq * scale
    flat_x = x3.reshape(rows, width).T
    dx = dq @ w_q_a.T + dk_ @ w_k_a.T + dv @ w_v_a.T
    return (
        dx if batched else dx[0],
        flat_x @ dq.reshape(rows, width),
        flat_x @ dk_.reshape(rows, width),
        flat_x @ dv.reshape(rows, width),
        dw_o,
    )
