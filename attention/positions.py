"""Positional information: fixed sinusoidal encodings and rotary embeddings (RoPE)."""

from __future__ import annotations

import numpy as np

from attention.checks import features, positive_number, whole
from attention.errors import fail


def sinusoidal_positions(seq_len: int, width: int, base: float = 10000.0) -> np.ndarray:
    """(seq_len, width) table: column 2i is sin(p / base**(2i/width)), column 2i+1 its cos."""
    t = whole("seq_len", seq_len, 1)
    d = whole("width", width, 1)
    b = _base(base)
    pair = np.arange(d) // 2
    angle = np.arange(t, dtype=np.float64)[:, None] / b ** (2.0 * pair / d)[None, :]
    return np.where(np.arange(d) % 2 == 0, np.sin(angle), np.cos(angle))


def rope(x: object, base: float = 10000.0, offset: int = 0) -> np.ndarray:
    """Rotate pairs (2i, 2i+1) of the last axis of ``x`` (..., T, d_k) by angle
    ``(offset + t) * base**(-2i/d_k)``, t being the row along the second-to-last axis."""
    x_arr = features("x", x)
    if x_arr.ndim < 2:
        raise fail("inputs.x", f"must be (T, d_k) or batched (..., T, d_k), got {x_arr.shape}")
    dk = x_arr.shape[-1]
    if dk % 2:
        raise fail("inputs.x", f"width {dk} must be even: RoPE rotates pairs of features")
    b = _base(base)
    start = whole("offset", offset, 0)
    rows = x_arr.shape[-2]
    dtype = x_arr.dtype  # the angles as precise as x (longdouble: the noise rule's run)
    exact = np.result_type(dtype, np.float64)
    theta = exact.type(b) ** (-2.0 * np.arange(dk // 2, dtype=exact) / dk)
    angle = (start + np.arange(rows, dtype=exact))[:, None] * theta[None, :]
    cos, sin = np.cos(angle).astype(dtype), np.sin(angle).astype(dtype)
    even, odd = x_arr[..., 0::2], x_arr[..., 1::2]
    out = np.empty_like(x_arr)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def _base(base: object) -> float:
    """A base of at least 1: below it the frequencies grow with the pair's index, and the
    angles with them past any precision (a base of 1e-30 turns position 1 into 1e30 radians)."""
    b = positive_number("base", base)
    if b < 1:
        raise fail("inputs.base", f"must be at least 1, got {b!r}")
    return b
