"""Decoding one token at a time against a key/value cache.

The cache holds the projected keys and values of the earlier tokens (``x_prev @ w_k`` and
``x_prev @ w_v``, all heads side by side), so a new token costs one row of attention instead of
recomputing the whole sequence. The new token sees every cached token and itself: its output is
the last row of causal attention over the whole sequence.
"""

from __future__ import annotations

import math

import numpy as np

from attention.checks import float_input
from attention.core import _prepare_weight, _result_dtype, _validate_heads, attend
from attention.errors import fail
from attention.grouped import validate_kv_heads


def attention_decode(
    x: object,
    k_cache: object,
    v_cache: object,
    w_q: object,
    w_k: object,
    w_v: object,
    w_o: object,
    heads: int,
    kv_heads: int | None = None,
    *,
    scale: float | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Attend from the new token ``x`` (d,) or (B, d) over the cache plus itself.

    ``k_cache`` and ``v_cache`` are (S, d_kv) or (B, S, d_kv) with d_kv = kv_heads * d / heads
    (``kv_heads`` defaults to ``heads``); S may be 0 for the first token. Returns
    ``(out, weights, k_cache, v_cache)``: the output (d,) or (B, d), the weights (h, S+1) or
    (B, h, S+1), and both caches grown by the new token's key and value. ``scale`` replaces
    1/sqrt(d_k) on the scores (for the registry's misconceptions).
    """
    x_arr = float_input("x", x, (1, 2))
    batched = x_arr.ndim == 2
    x2 = x_arr if batched else x_arr[None]
    batch, width = x2.shape
    h = _validate_heads(heads, width)
    kv = h if kv_heads is None else validate_kv_heads(kv_heads, h)
    dk = width // h
    caches = []
    for name, cache in (("k_cache", k_cache), ("v_cache", v_cache)):
        arr = float_input(name, cache, (3,) if batched else (2,))
        arr3 = arr if batched else arr[None]
        if arr3.shape[0] != batch or arr3.shape[2] != kv * dk:
            want = f"{batch}xSx{kv * dk}" if batched else f"Sx{kv * dk}"
            raise fail(f"inputs.{name}", f"expected {want} (earlier tokens), got {arr.shape}")
        caches.append(arr3)
    if caches[0].shape[1] != caches[1].shape[1]:
        raise fail(
            "inputs.v_cache",
            f"has {caches[1].shape[1]} tokens but k_cache has {caches[0].shape[1]}",
        )
    wq = _prepare_weight("w_q", w_q, width, width)
    wk = _prepare_weight("w_k", w_k, width, kv * dk)
    wv = _prepare_weight("w_v", w_v, width, kv * dk)
    wo = _prepare_weight("w_o", w_o, width, width)
    dtype = _result_dtype(x2, wq, wk, wv, wo, *caches)
    x2 = x2.astype(dtype, copy=False)
    keys = np.concatenate([caches[0].astype(dtype), (x2 @ wk.astype(dtype))[:, None]], axis=1)
    values = np.concatenate([caches[1].astype(dtype), (x2 @ wv.astype(dtype))[:, None]], axis=1)
    total = keys.shape[1]
    factor = dtype.type(1.0 / math.sqrt(dk) if scale is None else scale)
    q = (x2 @ (wq.astype(dtype) * factor)).reshape(batch, kv, h // kv, 1, dk)
    k = keys.reshape(batch, total, kv, dk).transpose(0, 2, 1, 3)[:, :, None]
    v = values.reshape(batch, total, kv, dk).transpose(0, 2, 1, 3)[:, :, None]
    head_out, weights = attend(q, k, v, None, False)
    out = head_out.reshape(batch, width) @ wo.astype(dtype)
    weights = weights.reshape(batch, h, total)
    if batched:
        return out, weights, keys, values
    return out[0], weights[0], keys[0], values[0]
