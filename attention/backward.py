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
    QUERY_BLOCK,
    _prepare_mask,
    _prepare_weight,
    _prepare_x,
    _result_dtype,
    _split_heads,
    _validate_heads,
    attend,
    sdpa_inputs,
)
from attention.errors import fail
from attention.softmax import softmax_rows_inplace


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
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    mask: np.ndarray | None,
    causal: bool,
    grad_out: np.ndarray,
    block: int = QUERY_BLOCK,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """dq, dk, dv of ``softmax(q k^T) v`` with ``q`` already scaled; q, k, v and ``grad_out``
    share their leading dimensions, and ``mask`` broadcasts to the scores.

    The weights are recomputed a block of queries at a time, so no (T, S) matrix per head is
    ever held whole, and under ``causal`` a block skips the keys after its last query.
    """
    rows, cols = q.shape[-2], k.shape[-2]
    dq = np.empty(q.shape, dtype=q.dtype)
    dk = np.zeros(k.shape, dtype=q.dtype)
    dv = np.zeros(v.shape, dtype=q.dtype)
    for start in range(0, rows, block):
        stop = min(rows, start + block)
        width = min(cols, stop) if causal else cols
        p = q[..., start:stop, :] @ np.swapaxes(k[..., :width, :], -1, -2)
        if causal and start < width:
            future = np.arange(start, width)[None, :] > np.arange(start, stop)[:, None]
            np.copyto(p[..., start:width], -np.inf, where=future)
        if mask is not None:
            np.copyto(p, -np.inf, where=~mask[..., start:stop, :width])
        softmax_rows_inplace(p)
        g = grad_out[..., start:stop, :]
        dv[..., :width, :] += np.swapaxes(p, -1, -2) @ g
        ds = _softmax_vjp(p, g @ np.swapaxes(v[..., :width, :], -1, -2))
        dq[..., start:stop, :] = ds @ k[..., :width, :]
        dk[..., :width, :] += np.swapaxes(ds, -1, -2) @ q[..., start:stop, :]
    return dq, dk, dv


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
    q_arr, k_arr, v_arr, mask_arr = sdpa_inputs(q, k, v, mask, causal)
    g = float_input("grad_out", grad_out)
    rows, dv_width = q_arr.shape[-2], v_arr.shape[-1]
    lead = np.broadcast_shapes(
        q_arr.shape[:-2],
        k_arr.shape[:-2],
        v_arr.shape[:-2],
        () if mask_arr is None else mask_arr.shape[:-2],
    )
    if g.shape != lead + (rows, dv_width):
        raise fail(
            "inputs.grad_out",
            f"expected shape {lead + (rows, dv_width)} like the output, got {g.shape}",
        )
    dtype = common_dtype(q_arr, k_arr, v_arr, g)
    scale = dtype.type(1.0 / math.sqrt(q_arr.shape[-1])) if q_arr.shape[-1] else dtype.type(1)

    def spread(a: np.ndarray) -> np.ndarray:
        return np.broadcast_to(a.astype(dtype, copy=False), lead + a.shape[-2:])

    dq, dk, dv = _attention_vjp(
        spread(q_arr) * scale,
        spread(k_arr),
        spread(v_arr),
        mask_arr,
        bool(causal),
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
    head_out, _ = attend(q, k, v, mask_arr, bool(causal))
    concat = _merge_heads(head_out)
    rows = batch * seq
    dw_o = concat.reshape(rows, width).T @ g3.reshape(rows, width)
    d_concat = _split_heads(g3 @ w_o_a.T, h)
    grads = _attention_vjp(q, k, v, mask_arr, bool(causal), d_concat)
    dq, dk_, dv = (_merge_heads(a) for a in grads)
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
