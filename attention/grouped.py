"""Grouped-query attention: fewer key/value heads than query heads, each shared by a group.

With ``kv_heads == heads`` it is multi-head attention; with ``kv_heads == 1`` multi-query.
Keys and values are never copied per query head: queries are grouped as (kv_heads, group)
and the shared key/value head broadcasts across its group.
"""

from __future__ import annotations

import math

import numpy as np

from attention.core import (
    _prepare_mask,
    _prepare_weight,
    _prepare_x,
    _result_dtype,
    _validate_heads,
    attend,
)
from attention.errors import fail
from attention.parallel import product
from attention.scalars import is_integer


def validate_kv_heads(kv_heads: object, heads: int) -> int:
    """A positive integer dividing ``heads``."""
    if not is_integer(kv_heads):
        raise fail("inputs.kv_heads", f"must be a positive integer, got {kv_heads!r}")
    if kv_heads < 1 or heads % kv_heads:
        raise fail(
            "inputs.kv_heads", f"must be a positive divisor of heads ({heads}), got {kv_heads}"
        )
    return int(kv_heads)


def grouped_query_attention(
    x: object,
    w_q: object,
    w_k: object,
    w_v: object,
    w_o: object,
    heads: int,
    kv_heads: int,
    mask: object | None = None,
    causal: bool = False,
    *,
    scale: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Self-attention of ``x`` (T, d) or (B, T, d) where query head i uses key/value head
    ``i // (heads / kv_heads)``. ``w_q``, ``w_o`` are (d, d); ``w_k``, ``w_v`` are
    (d, kv_heads * d / heads). ``scale`` replaces 1/sqrt(d_k) on the scores (for the
    registry's misconceptions). Returns ``(out, weights)`` shaped as ``multi_head_attention``'s.
    """
    x_arr = _prepare_x(x)
    batched = x_arr.ndim == 3
    x3 = x_arr if batched else x_arr[None]
    batch, seq, width = x3.shape
    h = _validate_heads(heads, width)
    kv = validate_kv_heads(kv_heads, h)
    dk = width // h
    wq = _prepare_weight("w_q", w_q, width, width)
    wk = _prepare_weight("w_k", w_k, width, kv * dk)
    wv = _prepare_weight("w_v", w_v, width, kv * dk)
    wo = _prepare_weight("w_o", w_o, width, width)
    mask_arr = _prepare_mask(mask, batched, batch, seq, causal)
    if seq == 0:
        raise fail("inputs.x", "must contain at least one token")
    dtype = _result_dtype(x3, wq, wk, wv, wo)
    x3 = x3.astype(dtype, copy=False)
    group, d_kv = h // kv, kv * dk
    factor = dtype.type(1.0 / math.sqrt(dk) if scale is None else scale)
    w_all = np.concatenate([wq.astype(dtype) * factor, wk, wv], axis=1, dtype=dtype)
    proj = product(x3, w_all)  # one product for queries, keys and values

    def heads_of(columns: np.ndarray, per_key: int) -> np.ndarray:
        """(B, T, kv*per_key*dk) columns as a (B, kv, per_key, T, dk) view: no copy."""
        return columns.reshape(batch, seq, kv, per_key, dk).transpose(0, 2, 3, 1, 4)

    q = heads_of(proj[..., :width], group)
    k = heads_of(proj[..., width : width + d_kv], 1)  # shared across its group: broadcast
    v = heads_of(proj[..., width + d_kv :], 1)
    grouped_mask = None if mask_arr is None else mask_arr[:, :, None]
    head_out = np.empty((batch, seq, kv, group, dk), dtype=dtype)  # heads side by side
    _, weights = attend(q, k, v, grouped_mask, bool(causal), out=head_out.transpose(0, 2, 3, 1, 4))
    out = product(head_out.reshape(batch, seq, width), wo.astype(dtype, copy=False))
    weights = weights.reshape(batch, h, seq, seq)
    return (out, weights) if batched else (out[0], weights[0])
