"""Layer norm and RMS norm over the last axis (the feature axis of each token)."""

from __future__ import annotations

import numpy as np

from attention.checks import common_dtype, features, positive_number, shaped


def _affine(x: np.ndarray, gamma: object, beta: object) -> tuple[np.ndarray | None, ...]:
    width = (x.shape[-1],)
    g = None if gamma is None else shaped("gamma", gamma, width)
    b = None if beta is None else shaped("beta", beta, width)
    return g, b


def layer_norm(
    x: object, gamma: object = None, beta: object = None, eps: float = 1e-5
) -> np.ndarray:
    """``(x - mean) / sqrt(var + eps) * gamma + beta`` over the last axis, variance biased (/d)."""
    x_arr = features("x", x)
    g, b = _affine(x_arr, gamma, beta)
    return checked_layer_norm(x_arr, g, b, positive_number("eps", eps))


def checked_layer_norm(
    x_arr: np.ndarray, g: np.ndarray | None, b: np.ndarray | None, e: float, ddof: int = 0
) -> np.ndarray:
    """``layer_norm`` of checked arrays. The registry's misconceptions pass what a check
    refuses: ``e`` of 0 (no epsilon) and ``ddof`` 1 (the variance divided by d - 1)."""
    dtype = common_dtype(x_arr, g, b)
    xs = x_arr.astype(dtype, copy=False)
    centred, s = _scaled(_centred(xs))
    if ddof:
        var = np.sum(centred * centred, axis=-1, keepdims=True) / (xs.shape[-1] - ddof)
    else:
        var = np.mean(centred * centred, axis=-1, keepdims=True)
    out = centred / np.sqrt(var + dtype.type(e) / s / s)
    if g is not None:
        out = out * g.astype(dtype, copy=False)
    if b is not None:
        out = out + b.astype(dtype, copy=False)
    return out


def rms_norm(x: object, gamma: object = None, eps: float = 1e-6) -> np.ndarray:
    """``x / sqrt(mean(x**2) + eps) * gamma`` over the last axis."""
    x_arr = features("x", x)
    g, _ = _affine(x_arr, gamma, None)
    return checked_rms_norm(x_arr, g, positive_number("eps", eps))


def checked_rms_norm(x_arr: np.ndarray, g: np.ndarray | None, e: float) -> np.ndarray:
    """``rms_norm`` of checked arrays; ``e`` may be 0 (the registry's no-epsilon mistake)."""
    dtype = common_dtype(x_arr, g)
    xs, s = _scaled(x_arr.astype(dtype, copy=False))
    out = xs / np.sqrt(np.mean(xs * xs, axis=-1, keepdims=True) + dtype.type(e) / s / s)
    return out if g is None else out * g.astype(dtype, copy=False)


def _centred(rows: np.ndarray) -> np.ndarray:
    """Each row less its mean, corrected by a second pass (a near-constant row's deviations are
    then right to their last digits, not lost to the mean's rounding) and exactly 0 in a constant
    row: otherwise the rounding alone, normalised, reads as ±1."""
    centred = rows - rows.mean(axis=-1, keepdims=True)
    centred -= centred.mean(axis=-1, keepdims=True)
    centred[np.ptp(rows, axis=-1) == 0] = 0
    return centred


def _scaled(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows whose largest |entry| passes 1 divided by it (a norm is the same of a row and of a
    multiple of it, eps scaled alike), so no square overflows: 1e200 is normalised to 1, not to
    0 over an infinite variance. Rows within 1 are left exactly as they are."""
    largest = np.max(np.abs(rows), axis=-1, keepdims=True, initial=0.0)
    s = np.where(largest > 1, largest, 1).astype(rows.dtype)
    return rows / s, s
