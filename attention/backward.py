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
    _validate_heads,
    block_rows,
    sdpa_inputs,
)
from attention.errors import fail
from attention.parallel import product, run_blocks
from attention.softmax import score_bounds, softmax_rows_inplace


def _softmax_vjp(p: np.ndarray, grad_p: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``P * (dP - rowsum(dP * P))``, written into ``out`` (which may be ``grad_p`` itself)."""
    total = np.einsum("...j,...j->...", grad_p, p)[..., None]
    out = np.subtract(grad_p, total, out=out)
    return np.multiply(out, p, out=out)


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
    grads: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    block: int = QUERY_BLOCK,
    out: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """dq, dk, dv of ``softmax(q k^T) v`` with ``q`` already scaled; q, k, v and ``grad_out``
    share their leading dimensions, and ``mask`` broadcasts to the scores. ``grads``, arrays
    of q's, k's and v's shapes (views of a caller's array spare copies), receive the result;
    ``out``, of the output's shape, receives the forward output from the same weights (a
    layer's backward pass needs it, and so need neither hold the weights nor score twice).

    The weights are recomputed a block of queries at a time, so no (T, S) matrix per head is
    ever held whole, and under ``causal`` a block skips the keys after its last query. Heads
    run on every core (``run_blocks``): each accumulates its own dk and dv.
    """
    rows, cols = q.shape[-2], k.shape[-2]
    lead = q.shape[:-2]
    dq, dk, dv = grads or tuple(np.empty(a.shape, q.dtype) for a in (q, k, v))
    # contiguous k^T and v^T: BLAS is several times faster on them than on transposed views
    k_t = np.ascontiguousarray(np.swapaxes(k, -1, -2))
    v_t = np.ascontiguousarray(np.swapaxes(v, -1, -2))
    allowed = None if mask is None else np.broadcast_to(mask, lead + (rows, cols))
    step = block_rows(cols, q.itemsize, block)
    bounds = None if mask is not None else score_bounds(q, k, lead, causal)  # as attend's

    def one_head(index: tuple[int, ...]) -> None:
        q_i, k_i, g_i, dq_i, dk_i, dv_i = (a[index] for a in (q, k, grad_out, dq, dk, dv))
        dk_i[...] = 0
        dv_i[...] = 0
        for start in range(0, rows, step):
            stop = min(rows, start + step)
            width = min(cols, stop) if causal else cols
            p = q_i[start:stop] @ k_t[index][:, :width]
            if causal and start < width:
                future = np.arange(start, width)[None, :] > np.arange(start, stop)[:, None]
                np.copyto(p[:, start:width], -np.inf, where=future)
            if allowed is not None:
                np.copyto(p, -np.inf, where=~allowed[index][start:stop, :width])
            softmax_rows_inplace(p, None if bounds is None else bounds[index][start:stop])
            if out is not None:
                np.matmul(p, v[index][:width], out=out[index][start:stop])
            g = g_i[start:stop]
            dv_i[:width] += p.T @ g
            dp = g @ v_t[index][:, :width]
            ds = _softmax_vjp(p, dp, out=dp)
            np.matmul(ds, k_i[:width], out=dq_i[start:stop])
            dk_i[:width] += ds.T @ q_i[start:stop]

    run_blocks(one_head, list(np.ndindex(lead)))
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
    w_qkv = np.concatenate([w_q_a * scale, w_k_a, w_v_a], axis=1)
    qkv = product(x3, w_qkv).reshape(batch, seq, 3, h, dk)
    q, k, v = _heads(qkv)
    d_concat = product(g3, w_o_a.T).reshape(batch, seq, h, dk).transpose(0, 2, 1, 3)
    # the gradients of the scaled q and of k and v, side by side as qkv is: one product each
    # gives dx (through the scaled w_q) and every projection's weight gradient
    d_qkv = np.empty_like(qkv)
    head_out = np.empty((batch, seq, h, dk), dtype=dtype)  # the heads' outputs, for dw_o
    heads_out = head_out.transpose(0, 2, 1, 3)
    _attention_vjp(q, k, v, mask_arr, bool(causal), d_concat, _heads(d_qkv), out=heads_out)
    rows = batch * seq
    dw_o = product(head_out.reshape(rows, width).T, g3.reshape(rows, width))
    d_flat = d_qkv.reshape(rows, 3 * width)
    dx = product(d_flat, w_qkv.T).reshape(x3.shape)
    dw_qkv = product(x3.reshape(rows, width).T, d_flat)
    dw_qkv[:, :width] *= scale
    dw_q, dw_k, dw_v = (dw_qkv[:, i * width : (i + 1) * width] for i in range(3))
    return dx if batched else dx[0], dw_q, dw_k, dw_v, dw_o


def _heads(qkv: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(B, T, 3, h, dk) as three (B, h, T, dk) views: q, k and v of every head, no copy."""
    q, k, v = qkv.transpose(2, 0, 3, 1, 4)
    return q, k, v
