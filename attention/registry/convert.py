"""Inputs as written (JSON lists, numbers, names) converted to arrays and scalars by kind.

Each problem names its input and says what was expected, so ``check`` can report them all.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from attention.errors import InputProblem
from attention.limits import MAX_ELEMENTS
from attention.registry.operation import Parameter
from attention.scalars import is_bool, is_finite_number, is_integer, is_number
from attention.softmax import all_finite
from attention.tiny import NOT_NORMAL, SMALLEST, below_normal


def dims(shape: tuple[int, ...]) -> str:
    if not shape:
        return "a scalar"
    if len(shape) == 1:
        return f"a vector of {shape[0]}"
    return "x".join(str(n) for n in shape)


def describe(v: object) -> str:
    if v is None:
        return "null"
    text = repr(v)
    return f"{type(v).__name__} {text[:40]}"


_PLAIN_LEAVES = {
    "numbers": frozenset({int, float}),
    "booleans": frozenset({bool}),
    "integers": frozenset({int}),
}
"""The exact Python types a JSON array of each kind holds (bool is not int here)."""


def _plain_leaves(
    value: object, leaves: frozenset[type]
) -> tuple[tuple[int, ...], list, set[type]] | None:
    """Shape, flattened leaves and their types, of a rectangular nested list of plain leaves,
    found level by level without a Python call per row; None sends the value to ``_scan``,
    which says why."""
    if type(value) is not list:
        return None
    shape: list[int] = []
    level: list = [value]
    while True:
        n = len(level[0])
        if any(type(item) is not list or len(item) != n for item in level):
            return None
        shape.append(n)
        flat = list(itertools.chain.from_iterable(level))
        if flat and type(flat[0]) is list:
            level = flat
            continue
        kinds = set(map(type, flat))
        return (tuple(shape), flat, kinds) if leaves.issuperset(kinds) else None


def _scan(value: object, leaf_ok: Callable[[object], bool], what: str) -> tuple[int, ...] | str:
    """Shape of a rectangular nested list whose leaves pass ``leaf_ok``, or a message why not."""
    if isinstance(value, np.ndarray):
        kinds = {"booleans": "b", "integers": "iu"}.get(what, "iuf")
        if value.dtype.kind not in kinds:
            return f"must contain only {what}, got an array of dtype {value.dtype}"
        return value.shape
    if isinstance(value, (list, tuple)):
        if not value:
            return (0,)
        if all(leaf_ok(e) for e in value):
            return (len(value),)
        nested = [isinstance(e, (list, tuple, np.ndarray)) for e in value]
        for item, is_list in zip(value, nested, strict=True):
            if not is_list and not leaf_ok(item):
                return f"must contain only {what}, found {describe(item)}"
        if not all(nested):
            return "is ragged: mixes numbers and lists"
        shapes = []
        for item in value:
            sub = _scan(item, leaf_ok, what)
            if isinstance(sub, str):
                return sub
            shapes.append(sub)
        if any(s != shapes[0] for s in shapes):
            return "is ragged: its rows have different lengths"
        return (len(value), *shapes[0])
    if leaf_ok(value):
        return ()
    return f"must contain only {what}, found {describe(value)}"


def _convert_array(
    path: str, value: object, booleans: bool, problems: list[InputProblem]
) -> np.ndarray | None:
    plain = _plain_leaves(value, _PLAIN_LEAVES["booleans" if booleans else "numbers"])
    if plain is not None and len(plain[1]) <= MAX_ELEMENTS:
        dims, flat, kinds = plain
        dtype = bool if booleans else np.float64
        try:
            arr = np.fromiter(flat, dtype=dtype, count=len(flat)).reshape(dims)
        except OverflowError:  # an integer past float range
            problems.append(InputProblem(path, "must be finite (no NaN or infinity)"))
            return None
        if booleans or _readable(path, arr, problems, whole=float not in kinds):
            return arr
        return None
    shape = _scan(value, is_bool if booleans else is_number, "booleans" if booleans else "numbers")
    if isinstance(shape, str):
        problems.append(InputProblem(path, shape))
        return None
    size = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if size > MAX_ELEMENTS:
        problems.append(
            InputProblem(path, f"has {size} elements, more than the limit of {MAX_ELEMENTS}")
        )
        return None
    if booleans:
        return np.asarray(value, dtype=bool)
    try:
        arr = np.asarray(value)
        whole = arr.dtype.kind in "iu"
        if arr.dtype.char not in "fdg":  # integers, float16: float64 (longdouble: noise checks)
            arr = arr.astype(np.float64)
    except OverflowError:  # an integer past float range
        problems.append(InputProblem(path, "must be finite (no NaN or infinity)"))
        return None
    return arr if _readable(path, arr, problems, whole=whole) else None


def _readable(path: str, arr: np.ndarray, problems: list[InputProblem], *, whole: bool) -> bool:
    """Whether float64 holds each number to its figures: finite, and 0 or at least SMALLEST
    in size (7e-324 reads as 4.9e-324; a ``whole`` number is 0 or at least 1)."""
    if not all_finite(arr):
        problems.append(InputProblem(path, "must be finite (no NaN or infinity)"))
    elif not whole and below_normal(arr):
        problems.append(InputProblem(path, NOT_NORMAL))
    else:
        return True
    return False


KINDS: dict[str, str] = {
    "matrix": "a (T, d) matrix or (B, T, d) array of numbers",
    "vector_or_matrix": "a vector or matrix of numbers",
    "array": "a vector, matrix or (B, T, d) array of numbers",
    "weight": "a matrix of numbers",
    "vector": "a vector of numbers",
    "mask": "booleans",
    "cache": "a matrix of numbers, or [] for none",
    "indices": "an integer or a list of integers",
    "int": "an integer",
    "number": "a positive number",
    "bool": "true or false",
    "choice": "one of the listed names",
}
"""Every parameter kind and what a value of it is, for the operations reference."""

_RANKS = {
    "matrix": (2, 3),
    "vector_or_matrix": (1, 2),
    "array": (1, 2, 3),
    "weight": (2,),
    "vector": (1,),
    "mask": (1, 2, 3),
    "cache": (1, 2, 3),
    "indices": (0, 1),
}


def _positive_float(value: object) -> float | None:
    return float(value) if is_finite_number(value) and value >= SMALLEST else None


def _convert_scalar(
    param: Parameter, value: object, path: str, problems: list[InputProblem]
) -> Any:
    if param.kind == "int":
        if is_bool(value) or not isinstance(value, (int, np.integer)):
            problems.append(InputProblem(path, f"must be an integer, got {describe(value)}"))
            return None
        return int(value)
    if param.kind == "bool":
        if not is_bool(value):
            problems.append(
                InputProblem(path, f"must be a boolean (true or false), got {describe(value)}")
            )
            return None
        return bool(value)
    if param.kind == "number":
        number = _positive_float(value)
        if number is None:
            problems.append(
                InputProblem(
                    path,
                    f"must be a finite number of at least {SMALLEST:.3g}, got {describe(value)}",
                )
            )
        return number
    if not isinstance(value, str) or value not in param.choices:
        problems.append(
            InputProblem(path, f"must be one of {', '.join(param.choices)}, got {describe(value)}")
        )
        return None
    return value


def convert(param: Parameter, value: object, problems: list[InputProblem]) -> Any:
    path = f"inputs.{param.name}"
    if param.kind not in _RANKS:
        return _convert_scalar(param, value, path, problems)
    if param.kind == "indices":
        shape = _scan(value, is_integer, "integers")
        if isinstance(shape, str):
            problems.append(InputProblem(path, shape))
            return None
        try:
            arr: np.ndarray | None = np.asarray(value, dtype=np.int64)
        except OverflowError:
            problems.append(InputProblem(path, "has an integer too large to be an index"))
            return None
    else:
        arr = _convert_array(path, value, param.kind == "mask", problems)
    if arr is None:
        return None
    if arr.ndim not in _RANKS[param.kind]:
        problems.append(InputProblem(path, f"expected {param.shape}, got {dims(arr.shape)}"))
        return None
    return arr
