"""Argument checks shared by the operations added for Book II: each error names its input."""

from __future__ import annotations

import numpy as np

from attention.errors import fail
from attention.scalars import is_bool, is_finite_number, is_integer, is_number
from attention.softmax import as_float_array


def float_input(name: str, value: object, ranks: tuple[int, ...] | None = None) -> np.ndarray:
    """``value`` as a finite float32/float64 array whose rank is one of ``ranks`` (any if None)."""
    path = f"inputs.{name}"
    arr = as_float_array(path, value)
    if ranks is not None and arr.ndim not in ranks:
        want = " or ".join(f"{r} axes" for r in ranks)
        raise fail(path, f"must have {want}, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise fail(path, "must be finite (no NaN or infinity)")
    return arr


def shaped(name: str, value: object, shape: tuple[int, ...]) -> np.ndarray:
    """A finite float array of exactly ``shape``."""
    arr = float_input(name, value)
    if arr.shape != shape:
        want = "x".join(map(str, shape)) if len(shape) != 1 else f"a vector of {shape[0]}"
        got = "x".join(map(str, arr.shape)) if arr.ndim != 1 else f"a vector of {arr.shape[0]}"
        raise fail(f"inputs.{name}", f"expected {want}, got {got or 'a scalar'}")
    return arr


def common_dtype(*arrays: np.ndarray | None) -> np.dtype:
    """float32 only when every operand is float32; anything else computes in float64."""
    return np.result_type(*(a for a in arrays if a is not None))


def positive_number(name: str, value: object) -> float:
    """A finite number above zero (eps, base)."""
    if not is_number(value):
        raise fail(f"inputs.{name}", f"must be a positive number, got {value!r}")
    if not is_finite_number(value) or value <= 0:
        raise fail(f"inputs.{name}", f"must be a positive finite number, got {value!r}")
    return float(value)


def whole(name: str, value: object, low: int) -> int:
    """An integer no smaller than ``low`` (booleans refused)."""
    if not is_integer(value):
        raise fail(f"inputs.{name}", f"must be an integer, got {value!r}")
    if value < low:
        raise fail(f"inputs.{name}", f"must be at least {low}, got {int(value)}")
    return int(value)


def flag(name: str, value: object) -> bool:
    """A boolean; other truthy values are refused so a typo cannot flip behaviour."""
    if not is_bool(value):
        raise fail(f"inputs.{name}", f"must be a boolean, got {value!r}")
    return bool(value)


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` over the axes broadcasting added to an operand of ``shape``."""
    extra = grad.ndim - len(shape)
    if extra:
        grad = grad.sum(axis=tuple(range(extra)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=stretched, keepdims=True) if stretched else grad


def features(name: str, value: object) -> np.ndarray:
    """A finite float array of at least one axis whose last (feature) axis is not empty."""
    arr = float_input(name, value)
    if arr.ndim == 0 or arr.shape[-1] == 0:
        raise fail(f"inputs.{name}", f"must have a non-empty last axis, got shape {arr.shape}")
    return arr
