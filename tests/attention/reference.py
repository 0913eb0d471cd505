"""Loop reference for multi-head attention, written independently of ``attention/``.

Plain Python loops over batches, heads and query rows, explicit per-head projections with
column slicing and a row-by-row softmax, always in float64. Slow on purpose: it is the
yardstick the engine is tested and benchmarked against. Imports numpy only.
"""

from __future__ import annotations

import math

import numpy as np


def reference_softmax_row(row: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """Softmax of one row over the allowed entries, by explicit loops; others get 0."""
    kept = [float(s) for s, ok in zip(row, allowed, strict=True) if ok]
    if not kept:
        raise ValueError("row has nothing to attend to")
    peak = max(kept)
    exps = [math.exp(float(s) - peak) if ok else 0.0 for s, ok in zip(row, allowed, strict=True)]
    total = sum(exps)
    return np.array([e / total for e in exps])


def _fast_softmax_row(row: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """The same row softmax with numpy inside the row (used for long rows in the benchmark)."""
    if not allowed.any():
        raise ValueError("row has nothing to attend to")
    out = np.zeros(row.shape[0])
    kept = row[allowed]
    e = np.exp(kept - kept.max())
    out[allowed] = e / e.sum()
    return out


def reference_attention(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    allowed: np.ndarray | None,
    causal: bool,
    fast_rows: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Single-head attention of 2-D q, k, v, one query row at a time."""
    rows, keys = q.shape[0], k.shape[0]
    scores = (q @ k.T) / math.sqrt(q.shape[1])
    weights = np.zeros((rows, keys))
    row_softmax = _fast_softmax_row if fast_rows else reference_softmax_row
    for t in range(rows):
        ok = np.ones(keys, dtype=bool) if allowed is None else np.array(allowed[t], dtype=bool)
        if causal:
            ok[t + 1 :] = False
        weights[t] = row_softmax(scores[t], ok)
    return weights @ v, weights


def reference_mha(
    x: object,
    w_q: object,
    w_k: object,
    w_v: object,
    w_o: object,
    heads: int,
    mask: object | None = None,
    causal: bool = False,
    fast_rows: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Multi-head attention by loops over batch and heads; returns float64 (out, weights)."""
    x64 = np.asarray(x, dtype=np.float64)
    batched = x64.ndim == 3
    xs = x64 if batched else x64[None]
    wq, wk, wv, wo = (np.asarray(w, dtype=np.float64) for w in (w_q, w_k, w_v, w_o))
    batch, seq, width = xs.shape
    dk = width // heads
    masks = None
    if mask is not None:
        m = np.asarray(mask, dtype=bool)
        masks = [m if m.ndim == 2 else m[b] for b in range(batch)]
    outs, all_weights = [], []
    for b in range(batch):
        head_outs, head_weights = [], []
        for i in range(heads):
            cols = slice(i * dk, (i + 1) * dk)
            q = xs[b] @ wq[:, cols]
            k = xs[b] @ wk[:, cols]
            v = xs[b] @ wv[:, cols]
            out, weights = reference_attention(
                q, k, v, None if masks is None else masks[b], causal, fast_rows
            )
            head_outs.append(out)
            head_weights.append(weights)
        outs.append(np.concatenate(head_outs, axis=1) @ wo)
        all_weights.append(np.stack(head_weights))
    out_arr, w_arr = np.stack(outs), np.stack(all_weights)
    return (out_arr, w_arr) if batched else (out_arr[0], w_arr[0])
