"""Tolerance comparison of a computed value with an expected answer from a chapter file."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from attention.errors import EngineInputError, InputProblem


@dataclass(frozen=True)
class Comparison:
    """Outcome of ``compare``: ``ok`` plus the worst absolute and relative errors seen."""

    ok: bool
    max_abs_error: float
    max_rel_error: float
    message: str = ""


def _numeric(expected: object, path: str) -> np.ndarray:
    """The expected answer as a float array; anything non-numeric (or ragged) is refused."""

    def bad(found: object) -> EngineInputError:
        return EngineInputError(
            [InputProblem(path, f"must be a number or a list of numbers, found {found!r}")]
        )

    def walk(node: object) -> None:
        if isinstance(node, (list, tuple)):
            for item in node:
                walk(item)
        elif isinstance(node, np.ndarray):
            if node.dtype.kind not in "iuf":
                raise bad(node.dtype)
        elif isinstance(node, (bool, np.bool_)) or not isinstance(
            node, (int, float, np.integer, np.floating)
        ):
            raise bad(node)

    walk(expected)
    try:
        arr = np.asarray(expected, dtype=np.float64)
    except OverflowError as exc:  # an integer past float range: 1 followed by 400 zeros
        raise EngineInputError([InputProblem(path, "must be finite")]) from exc
    except ValueError as exc:
        raise EngineInputError(
            [InputProblem(path, "is ragged: its rows have different lengths")]
        ) from exc
    if not np.all(np.isfinite(arr)):
        raise EngineInputError([InputProblem(path, "must be finite")])
    return arr


def _shape(shape: tuple[int, ...]) -> str:
    if not shape:
        return "a single number"
    if len(shape) == 1:
        return f"a vector of {shape[0]}"
    return "a " + "x".join(map(str, shape)) + " array"


def significant_band(value: np.ndarray, digits: int) -> np.ndarray:
    """Half a unit (x 1.02) in the ``digits``-th significant figure of each ``value``: the graders'
    significant-figures rule (PrairieLearn's ``sigfig``); an exact 0 counts as magnitude 1."""
    magnitude = np.floor(np.log10(np.where(value == 0, 1.0, np.abs(value))))
    return 0.51 * 10.0 ** (magnitude - digits + 1)


def _compare_arrays(
    value: object, expected: np.ndarray, rtol: float, atol: float, label: str, digits: int | None
) -> Comparison:
    prefix = f"{label}: " if label else ""
    try:
        got = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return Comparison(False, math.inf, math.inf, f"{prefix}value is not numeric")
    if got.shape != expected.shape:
        return Comparison(
            False,
            math.inf,
            math.inf,
            f"{prefix}the answer is {_shape(expected.shape)} but the engine's value is "
            f"{_shape(got.shape)}",
        )
    if got.size == 0:
        return Comparison(True, 0.0, 0.0, "")
    if not np.all(np.isfinite(got)):
        return Comparison(False, math.inf, math.inf, f"{prefix}value contains NaN or infinity")
    diff = np.abs(got - expected)
    nonzero = expected != 0
    with np.errstate(over="ignore"):  # over a subnormal expected value: inf, said as such
        rel = float(np.max(diff[nonzero] / np.abs(expected[nonzero]))) if nonzero.any() else 0.0
    if digits is None:
        ok = bool(np.all(diff <= atol + rtol * np.abs(expected)))
        rule = f"rtol={rtol}, atol={atol}"
    else:
        ok = bool(np.all(diff < significant_band(got, digits)))
        rule = f"not the engine's value to {digits} significant figures"
    worst = float(diff.max())
    return Comparison(
        ok, worst, rel, "" if ok else f"{prefix}differs by up to {worst:.3g} ({rule})"
    )


def compare(
    value: object,
    expected: object,
    rtol: float = 1e-6,
    atol: float = 1e-9,
    digits: int | None = None,
) -> Comparison:
    """Compare ``value`` with ``expected`` (scalar, nested lists or a mapping of named numbers).

    ``ok`` iff shapes match and every ``|v - e| <= atol + rtol * |e|`` (numpy.isclose semantics),
    or, with ``digits``, every ``|v - e| < 0.51 * 10**(floor(log10 |v|) - digits + 1)``: the
    answer agrees with the engine's value ``v`` to that many significant figures. Mappings are
    compared key by key and a missing or extra key is a mismatch. The relative error
    is the largest ``|v - e| / |e|`` over entries with ``e != 0`` (0.0 when there are none).
    """
    if isinstance(expected, Mapping):
        wanted = {str(k): _numeric(v, f"answer.{k}") for k, v in expected.items()}
        if not isinstance(value, Mapping):
            return Comparison(
                False,
                math.inf,
                math.inf,
                f"the answer names values ({_names(wanted)}) but the engine's value is not a "
                "mapping of named values",
            )
        got = {str(k): v for k, v in value.items()}
        messages = []
        missing = sorted(set(wanted) - set(got))
        extra = sorted(set(got) - set(wanted))
        if missing:
            messages.append(f"the engine gives no value named {_names(missing)}")
        if extra:
            messages.append(f"the answer leaves out values the engine gives: {_names(extra)}")
        ok = not missing and not extra
        worst_abs = math.inf if not ok else 0.0
        worst_rel = math.inf if not ok else 0.0
        for key in sorted(set(wanted) & set(got)):
            part = _compare_arrays(got[key], wanted[key], rtol, atol, key, digits)
            ok &= part.ok
            worst_abs = max(worst_abs, part.max_abs_error)
            worst_rel = max(worst_rel, part.max_rel_error)
            if part.message:
                messages.append(part.message)
        return Comparison(ok, worst_abs, worst_rel, "; ".join(messages))
    if isinstance(value, Mapping):
        return Comparison(
            False,
            math.inf,
            math.inf,
            "the answer is a number or array but the engine's value names values "
            f"({_names(value)})",
        )
    return _compare_arrays(value, _numeric(expected, "answer"), rtol, atol, "", digits)


NAMES_SHOWN = 5


def _names(names: Iterable) -> str:
    """At most NAMES_SHOWN names, sorted, then how many more: a message stays short whatever
    an answer holds."""
    listed = sorted(str(name) for name in names)
    shown = ", ".join(listed[:NAMES_SHOWN])
    return shown if len(listed) <= NAMES_SHOWN else f"{shown} and {len(listed) - NAMES_SHOWN} more"
