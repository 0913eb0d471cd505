"""Cross-entropy of logits against integer class targets, with its gradient."""

from __future__ import annotations

import numpy as np

from attention.checks import features
from attention.errors import fail


def class_targets(targets: object, rows: tuple[int, ...], classes: int) -> np.ndarray:
    """``targets`` as integer class indices of shape ``rows``, each in 0..classes-1."""
    arr = np.asarray(targets)
    if arr.dtype.kind not in "iu" or arr.dtype == np.bool_:
        raise fail("inputs.targets", f"must be integer class indices, got dtype {arr.dtype}")
    if arr.shape != rows:
        want = "a single index" if not rows else "x".join(map(str, rows)) + " indices"
        raise fail("inputs.targets", f"expected {want} (one per row of logits), got {arr.shape}")
    bad = np.argwhere((arr < 0) | (arr >= classes))
    if len(bad):
        where = tuple(int(i) for i in bad[0])
        value = int(arr[where])
        raise fail(
            "inputs.targets",
            f"class {value} at {list(where)} is outside 0..{classes - 1} ({classes} classes)",
        )
    return arr.astype(np.intp)


def cross_entropy(logits: object, targets: object) -> tuple[np.ndarray, np.ndarray]:
    """Mean over rows of ``logsumexp(row) - row[target]``; returns ``(loss, d loss / d logits)``.

    ``logits`` is (C,) with one target or (..., C) with a target per row. The row maximum is
    subtracted before exponentiating, so logits of any finite magnitude are exact; the sums
    that 1 would swallow (the other classes beside the maximum, the others beside the target)
    are summed without it, so a confident row keeps its tiny loss and gradient.
    """
    z = features("logits", logits)
    t = class_targets(targets, z.shape[:-1], z.shape[-1])
    rows = int(np.prod(z.shape[:-1], dtype=np.int64))
    flat, picks = z.reshape(rows, z.shape[-1]), t.reshape(rows)
    every, peaks = np.arange(rows), flat.argmax(axis=-1)
    shifted = flat - flat[every, peaks][:, None]
    exps = np.exp(shifted)
    beside_peak, beside_target = _sum_without(exps, peaks), _sum_without(exps, picks)
    total = 1 + beside_peak
    loss = np.mean(np.log1p(beside_peak) - shifted[every, picks])
    grad = exps / total[:, None]
    grad[every, picks] = -beside_target / total
    grad /= rows
    return np.asarray(loss, dtype=z.dtype), grad.reshape(z.shape)


def _sum_without(exps: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """Each row's sum with one column left out, summed without it (never a difference)."""
    every = np.arange(len(exps))
    kept = exps[every, columns]
    exps[every, columns] = 0
    total = exps.sum(axis=-1)
    exps[every, columns] = kept
    return total
