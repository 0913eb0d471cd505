"""Scaled dot-product and multi-head attention, vectorised over batch and heads.

Queries are processed in blocks so the score matrix of one block stays small; under ``causal``
a block only scores keys up to its own end, skipping the masked upper triangle entirely.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from attention.checks import flag
from attention.errors import fail
from attention.parallel import product, run_blocks
from attention.scalars import is_integer
from attention.softmax import (
    SMALL,
    all_finite,
    as_bool_mask,
    as_float_array,
    largest_magnitude,
    score_bounds,
    softmax_rows_inplace,
)

QUERY_BLOCK = 256
"""Most queries per block: large enough for efficient matmuls."""

BLOCK_BYTES = 2**21
"""Bytes of scores in one block of queries: about one core's L2 cache."""

TINY_SCORES = SMALL
"""Up to this many scores in all, attention runs as three plain calls: at textbook sizes the
per-call overhead of blocking, broadcasting and contiguous copies is most of the time."""


_FLOAT32, _FLOAT64, _LONG = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.longdouble)


def _result_dtype(*arrays: np.ndarray) -> np.dtype:
    """float32 only when every operand is float32 (in either byte order); longdouble (the
    noise rule's extended run) when any is; anything else computes in float64."""
    kinds = {arr.dtype.char for arr in arrays}
    if kinds == {"f"}:
        return _FLOAT32
    return _LONG if "g" in kinds else _FLOAT64


def _require_finite(name: str, arr: np.ndarray) -> None:
    if not all_finite(arr):
        raise fail(name, "must be finite (no NaN or infinity)")


def _check_rows_nonempty(mask: np.ndarray | None, causal: bool, rows: int, cols: int) -> None:
    """Raise if any query row would have nothing to attend to (softmax would be undefined)."""
    if mask is None:
        if cols == 0:
            raise fail("inputs.k", "there are no keys to attend to")
        return
    allowed = mask
    if causal:
        allowed = allowed & np.tri(rows, cols, dtype=bool)
    empty = ~allowed.any(axis=-1)
    if empty.any():
        where = [int(i) for i in np.argwhere(empty)[0]]
        suffix = (
            ""
            if len(where) == 1
            else f" of batch {tuple(where[:-1]) if len(where) > 2 else where[0]}"
        )
        why = "mask and causal together allow" if causal else "mask allows"
        raise fail(
            "inputs.mask",
            f"query row {where[-1]}{suffix} has nothing to attend to: the {why} no key",
        )


def block_rows(cols: int, itemsize: int, block: int = QUERY_BLOCK) -> int:
    """Queries per block: at most ``block``, and few enough that a block's scores stay within
    ``BLOCK_BYTES``, so the softmax passes over it run from cache."""
    return max(16, min(block, BLOCK_BYTES // max(cols * itemsize, 1)))


def attend(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    mask: np.ndarray | None,
    causal: bool,
    block: int = QUERY_BLOCK,
    out: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Core kernel: ``softmax(q @ k^T, masked) @ v`` with ``q`` already scaled.

    Shapes ``(..., T, dk)``, ``(..., S, dk)``, ``(..., S, dv)``; ``mask`` broadcastable to
    ``(..., T, S)`` and already validated so that no row is empty. Each block of queries of one
    head is scored straight into the returned weights, normalised there while it is in cache and
    multiplied by ``v``; blocks run on every core (``run_blocks``). q, k and v may be strided
    views (heads side by side in one projection): BLAS reads them where they lie. ``out``, of
    the output's shape, receives the output (a view of a caller's array spares a copy).
    """
    rows, cols = q.shape[-2], k.shape[-2]
    if (
        q.size // max(q.shape[-1], 1) * cols <= TINY_SCORES
        and q.shape[:-2] == k.shape[:-2] == v.shape[:-2]
        and (mask is None or mask.ndim <= q.ndim)
    ):
        head_out, weights = _attend_tiny(q, k, v, mask, causal)
        if out is None:
            return head_out, weights
        out[...] = head_out
        return out, weights
    lead = np.broadcast_shapes(
        q.shape[:-2], k.shape[:-2], v.shape[:-2], () if mask is None else mask.shape[:-2]
    )
    dtype = _result_dtype(q, k, v)
    alloc = np.zeros if causal else np.empty
    weights = alloc(lead + (rows, cols), dtype=dtype)
    if out is None:
        out = np.empty(lead + (rows, v.shape[-1]), dtype=dtype)
    q = np.broadcast_to(q, lead + q.shape[-2:])
    # a contiguous k^T per key head (not per query head sharing it): BLAS is several times
    # faster on it than on a transposed view
    k_t = np.ascontiguousarray(np.swapaxes(k, -1, -2))
    k_t = np.broadcast_to(k_t, lead + k_t.shape[-2:])
    v = np.broadcast_to(v, lead + v.shape[-2:])
    allowed = None if mask is None else np.broadcast_to(mask, lead + (rows, cols))
    step = block_rows(cols, weights.itemsize, block)
    # without a mask, each row's scores bounded from its head's queries and the keys it may
    # see (a query's output never depends on a key it may not see, nor on another head, to
    # the bit); a mask's keys are not read so
    bounds = None if mask is not None else score_bounds(q, k, lead, causal)

    def one_block(item: tuple[int, tuple[int, ...]]) -> None:
        start, index = item
        stop = min(rows, start + step)
        width = min(cols, stop) if causal else cols
        scores = weights[index][start:stop, :width]
        np.matmul(q[index][start:stop], k_t[index][:, :width], out=scores)
        if causal and start < width:
            # only the diagonal band of this block can contain keys later than the query
            future = np.arange(start, width)[None, :] > np.arange(start, stop)[:, None]
            np.copyto(scores[:, start:width], -np.inf, where=future)
        if allowed is not None:
            np.copyto(scores, -np.inf, where=~allowed[index][start:stop, :width])
        softmax_rows_inplace(scores, None if bounds is None else bounds[index][start:stop])
        np.matmul(scores, v[index][:width], out=out[index][start:stop])

    starts = range(0, rows, step)
    # under causal the last queries' blocks cost most: started first, they do not run alone
    starts = starts[::-1] if causal else starts
    run_blocks(one_block, [(s, i) for s in starts for i in np.ndindex(lead)])
    return out, weights


def _attend_tiny(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None, causal: bool
) -> tuple[np.ndarray, np.ndarray]:
    """``attend`` for a small problem whose q, k and v share their batch dimensions: one matmul
    for every score, one softmax, one matmul.

    With neither mask nor causal the softmax is bounded by the call's largest score, so a
    head's last bits may depend on another head's scores, though only past ``exp_safe``'s range
    (about 700 in float64); a query's never depends on a key it may not see."""
    weights = np.matmul(q, k.swapaxes(-1, -2))
    bound = None
    if causal:
        np.copyto(weights, -np.inf, where=_future(*weights.shape[-2:]))
    elif mask is None:
        bound = largest_magnitude(weights)
    if mask is not None:
        np.copyto(weights, -np.inf, where=~mask)
    softmax_rows_inplace(weights, bound)
    return np.matmul(weights, v), weights


@functools.lru_cache(maxsize=64)
def _future(rows: int, cols: int) -> np.ndarray:
    """Read-only (rows, cols) mask of the keys after each query."""
    future = np.triu(np.ones((rows, cols), dtype=bool), 1)
    future.flags.writeable = False
    return future


def scaled_dot_product_attention(
    q: object,
    k: object,
    v: object,
    mask: object | None = None,
    causal: bool = False,
    *,
    scale: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``softmax(q k^T / sqrt(d_k)) v`` with optional boolean mask (True = may attend).

    ``q`` is ``(..., T, dk)``, ``k`` ``(..., S, dk)``, ``v`` ``(..., S, dv)``; leading batch
    dimensions broadcast. ``causal`` lets query ``t`` see keys ``<= t`` and is ANDed with
    ``mask``. ``scale`` replaces 1/sqrt(d_k) on the scores (the registry's misconceptions use
    it). Returns ``(out (..., T, dv), weights (..., T, S))``.
    """
    q_arr, k_arr, v_arr, mask_arr = sdpa_inputs(q, k, v, mask, causal)
    dtype = _result_dtype(q_arr, k_arr, v_arr)
    if scale is None:
        scale = 1.0 / math.sqrt(q_arr.shape[-1]) if q_arr.shape[-1] else 1.0
    q_scaled = q_arr.astype(dtype) * dtype.type(scale)
    return attend(
        q_scaled,
        k_arr.astype(dtype, copy=False),
        v_arr.astype(dtype, copy=False),
        mask_arr,
        bool(causal),
    )


def sdpa_inputs(
    q: object, k: object, v: object, mask: object | None, causal: object
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """q, k, v and the mask checked as ``scaled_dot_product_attention`` takes them."""
    q_arr = as_float_array("inputs.q", q)
    k_arr = as_float_array("inputs.k", k)
    v_arr = as_float_array("inputs.v", v)
    for name, arr in (("inputs.q", q_arr), ("inputs.k", k_arr), ("inputs.v", v_arr)):
        if arr.ndim < 2:
            raise fail(name, f"must be a matrix (at least 2 axes), got shape {arr.shape}")
        _require_finite(name, arr)
    if q_arr.shape[-1] != k_arr.shape[-1]:
        raise fail(
            "inputs.k", f"key width {k_arr.shape[-1]} differs from query width {q_arr.shape[-1]}"
        )
    if k_arr.shape[-2] != v_arr.shape[-2]:
        raise fail("inputs.v", f"has {v_arr.shape[-2]} rows but k has {k_arr.shape[-2]}")
    flag("causal", causal)
    rows, cols = q_arr.shape[-2], k_arr.shape[-2]
    try:
        lead = np.broadcast_shapes(q_arr.shape[:-2], k_arr.shape[:-2], v_arr.shape[:-2])
    except ValueError as exc:
        raise fail("inputs", f"batch dimensions do not broadcast: {exc}") from exc
    mask_arr = None
    if mask is not None:
        mask_arr = as_bool_mask("inputs.mask", mask)
        try:
            np.broadcast_shapes(mask_arr.shape, lead + (rows, cols))
            if mask_arr.ndim < 2 or mask_arr.shape[-2:] != (rows, cols):
                raise ValueError
        except ValueError as exc:
            raise fail(
                "inputs.mask", f"expected {rows}x{cols} matrix, got shape {mask_arr.shape}"
            ) from exc
    _check_rows_nonempty(mask_arr, bool(causal), rows, cols)
    return q_arr, k_arr, v_arr, mask_arr


def _as(arr: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``arr`` in ``dtype``, converted only when it is not already."""
    return arr if arr.dtype == dtype else arr.astype(dtype)


def _validate_heads(heads: object, width: int) -> int:
    if not is_integer(heads):
        raise fail("inputs.heads", f"must be a positive integer, got {heads!r}")
    if heads < 1:
        raise fail("inputs.heads", f"must be a positive integer, got {heads}")
    if width % heads:
        raise fail("inputs.heads", f"width {width} is not divisible by {heads} heads")
    return int(heads)


def _prepare_x(x: object) -> np.ndarray:
    x_arr = as_float_array("inputs.x", x)
    if x_arr.ndim not in (2, 3):
        raise fail("inputs.x", f"must be (T, d) or (B, T, d), got shape {x_arr.shape}")
    _require_finite("inputs.x", x_arr)
    return x_arr


def _prepare_weight(name: str, w: object, rows: int, cols: int) -> np.ndarray:
    arr = as_float_array(f"inputs.{name}", w)
    if arr.shape != (rows, cols):
        got = "x".join(str(n) for n in arr.shape) if arr.ndim else "a scalar"
        raise fail(f"inputs.{name}", f"expected {rows}x{cols} matrix, got {got}")
    _require_finite(f"inputs.{name}", arr)
    return arr


def _prepare_mask(
    mask: object | None, batched: bool, batch: int, seq: int, causal: object
) -> np.ndarray | None:
    """Return the mask as (B or 1, 1, T, T) so it broadcasts across heads."""
    flag("causal", causal)
    if mask is None:
        return None
    arr = as_bool_mask("inputs.mask", mask)
    ok = arr.shape == (seq, seq) or (batched and arr.shape == (batch, seq, seq))
    if not ok:
        want = f"{seq}x{seq} matrix" + (f" or {batch}x{seq}x{seq} array" if batched else "")
        raise fail(
            "inputs.mask", f"expected {want}, got {'x'.join(map(str, arr.shape)) or 'a scalar'}"
        )
    _check_rows_nonempty(arr, bool(causal), seq, seq)
    return arr.reshape((-1, 1, seq, seq))


def _split_heads(proj: np.ndarray, heads: int) -> np.ndarray:
    """(B, T, d) -> contiguous (B, h, T, d/h): head i is column slice [i*d/h, (i+1)*d/h)."""
    b, t, d = proj.shape
    return np.ascontiguousarray(proj.reshape(b, t, heads, d // heads).transpose(0, 2, 1, 3))


def multi_head_attention(
    x: object,
    w_q: object,
    w_k: object,
    w_v: object,
    w_o: object,
    heads: int,
    mask: object | None = None,
    causal: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Multi-head self-attention of ``x`` (T, d) or (B, T, d); weights (d, d) applied as ``x @ w``.

    Head ``i`` uses columns ``[i*d/h, (i+1)*d/h)`` of each projection; head outputs are
    concatenated in order and mixed by ``w_o``. Returns ``(out, weights)`` with weights of shape
    (h, T, T), or (B, h, T, T) for batched ``x``. All heads run in one batched matmul.
    """
    ws_given = [w_q, w_k, w_v, w_o]
    if _plain_call(x, ws_given, heads, mask, causal):
        plain: np.ndarray = x  # type: ignore[assignment]
        if 3 * plain.size <= TINY_SCORES:
            w_qkv = _joined_qkv(ws_given, heads, None)  # type: ignore[arg-type]
            # w_q enters scaled by 1/sqrt(dk) <= 1: finite exactly when w_q is
            if _all_finite(plain, w_qkv, w_o):  # type: ignore[arg-type]
                return _mha_tiny(plain, w_qkv, w_o, heads, causal)  # type: ignore[arg-type]
        elif _all_finite(plain, *ws_given):  # type: ignore[arg-type]
            return checked_mha(plain, ws_given, heads, None, causal)  # type: ignore[arg-type]
    x_arr = _prepare_x(x)
    batched = x_arr.ndim == 3
    x3 = x_arr if batched else x_arr[None]
    batch, seq, width = x3.shape
    ws = [
        _prepare_weight(n, w, width, width)
        for n, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v), ("w_o", w_o))
    ]
    h = _validate_heads(heads, width)
    mask_arr = _prepare_mask(mask, batched, batch, seq, causal)
    if seq == 0:
        raise fail("inputs.x", "must contain at least one token")
    return checked_mha(x_arr, ws, h, mask_arr, bool(causal))


def _plain_call(x: object, ws: list, heads: object, mask: object, causal: object) -> bool:
    """The textbook call, recognised at the cost of a few attribute reads: float64 arrays of
    matching shapes, an int head count, no mask (the caller checks they are finite). Anything
    else takes the full checks, which name what is wrong; at tiny sizes those cost more than
    the attention itself."""
    if type(x) is not np.ndarray or x.dtype != _FLOAT64 or x.ndim != 2 or mask is not None:
        return False
    seq, width = x.shape
    if type(heads) is not int or heads < 1 or width % heads or not seq or type(causal) is not bool:
        return False
    square = (width, width)
    for w in ws:
        if type(w) is not np.ndarray or w.dtype != _FLOAT64 or w.shape != square:
            return False
    return True


def _all_finite(*arrays: np.ndarray) -> bool:
    """``all_finite`` of every array, from one sum of their sums (a NaN or an infinity anywhere
    makes it non-finite); only when it is not finite is each array scanned."""
    total = 0.0
    for arr in arrays:
        total += float(np.add.reduce(arr, None))  # positional: a keyword costs a tenth more
    return math.isfinite(total) or all(all_finite(arr) for arr in arrays)


def checked_mha(
    x: np.ndarray,
    ws: list[np.ndarray],
    h: int,
    mask_arr: np.ndarray | None,
    causal: bool,
    scale: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``multi_head_attention`` on inputs already checked (the registry checks them itself):
    finite float arrays of the right shapes, and the mask as (B or 1, 1, T, T) or None.
    ``scale`` replaces 1/sqrt(d_k) on the scores, for the registry's misconceptions."""
    batched = x.ndim == 3
    if not batched and mask_arr is None and 3 * x.size <= TINY_SCORES:
        dtype = _result_dtype(x, *ws)
        ws = [_as(w, dtype) for w in ws]
        return _mha_tiny(_as(x, dtype), _joined_qkv(ws, h, scale), ws[3], h, causal)
    x3 = x if batched else x[None]
    batch, seq, width = x3.shape
    dtype = _result_dtype(x3, *ws)
    x3 = _as(x3, dtype)
    ws = [_as(w, dtype) for w in ws]
    dk = width // h
    qv = product(x3, np.concatenate([_scaled_q(ws[0], h, scale), ws[2]], axis=1))
    # views (B, h, T, dk), no copies: each head's rows lie 2d apart, which BLAS reads as they are
    q, v = qv.reshape(batch, seq, 2, h, dk).transpose(2, 0, 3, 1, 4)
    # k^T as its own product writes it, (B, d, T): each head's (dk, T) block contiguous, as the
    # scores' product reads it fastest (gathered from k, it cost a tenth of the whole pass)
    k = product(ws[1].T, x3.transpose(0, 2, 1)).reshape(batch, h, dk, seq).swapaxes(-1, -2)
    head_out = np.empty((batch, seq, h, dk), dtype=dtype)  # heads side by side, as w_o wants
    _, weights = attend(q, k, v, mask_arr, causal, out=head_out.transpose(0, 2, 1, 3))
    out = product(head_out.reshape(batch, seq, width), ws[3])
    if not batched:
        return out[0], weights[0]
    return out, weights


def _scaled_q(w_q: np.ndarray, h: int, scale: float | None) -> np.ndarray:
    """w_q times 1/sqrt(dk) (or ``scale``): the scale folded into the query weights costs d*d
    multiplies instead of h*T*T."""
    # a Python float is cast to w_q's type, as numpy casts any scalar beside an array
    return w_q * (1.0 / math.sqrt(w_q.shape[1] // h) if scale is None else float(scale))


def _joined_qkv(ws: list[np.ndarray], h: int, scale: float | None) -> np.ndarray:
    """w_q (scaled, ``_scaled_q``), w_k and w_v side by side, one dtype."""
    return np.concatenate([_scaled_q(ws[0], h, scale), ws[1], ws[2]], axis=1)


def _mha_tiny(
    x: np.ndarray, w_qkv: np.ndarray, w_o: np.ndarray, h: int, causal: bool
) -> tuple[np.ndarray, np.ndarray]:
    """``checked_mha`` of one small (T, d) sequence with no mask, its arrays all of one float
    dtype (``w_qkv`` from ``_joined_qkv``), in the same operations on 2-D and 3-D arrays: at
    textbook sizes numpy's per-call cost is the whole bill (``np.dot`` of two matrices costs
    about two thirds of ``@``'s, the same BLAS product)."""
    seq, width = x.shape
    qkv = np.dot(x, w_qkv).reshape(seq, 3, h, width // h).transpose(1, 2, 0, 3)
    # three views by index: unpacking the array iterates it, at twice the cost
    head_out, weights = _attend_tiny(qkv[0], qkv[1], qkv[2], None, causal)
    return np.dot(head_out.transpose(1, 0, 2).reshape(seq, width), w_o), weights


def attention_head(
    x: object,
    w_q: object,
    w_k: object,
    w_v: object,
    heads: int,
    head: int,
    mask: object | None = None,
    causal: bool = False,
    *,
    scale: float | None = None,
) -> dict[str, np.ndarray]:
    """One head of multi-head attention, for teaching: its q, k, v slices, weights and output.
    ``scale`` replaces 1/sqrt(d_k) on the scores (for the registry's misconceptions)."""
    x_arr = _prepare_x(x)
    width = x_arr.shape[-1]
    ws = [
        _prepare_weight(n, w, width, width) for n, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v))
    ]
    h = _validate_heads(heads, width)
    if not is_integer(head) or not 0 <= head < h:
        raise fail("inputs.head", f"must be an integer head index in 0..{h - 1}, got {head!r}")
    dk = width // h
    cols = slice(head * dk, (head + 1) * dk)
    dtype = _result_dtype(x_arr, *ws)
    x_arr = x_arr.astype(dtype, copy=False)
    q, k, v = (x_arr @ w.astype(dtype, copy=False)[:, cols] for w in ws)
    out, weights = scaled_dot_product_attention(q, k, v, mask=mask, causal=causal, scale=scale)
    return {"out": out, "weights": weights, "q": q, "k": k, "v": v}
