"""How far an expression's value rests on float64's rounding, so a claim is never decided by it.

(1e20 + 1000) - 1e20 is 0 in float64 and 1000 exactly, and a claim that it is 0 was verified.
The expression is evaluated again with every number it reads and every result it computes
moved by a unit or two in the last place (`attention.reruns.mover`; Monte Carlo
arithmetic: as rounding moves them), under each of RUNS seeds the expression's text makes,
keyed by the caller's salt (a server's secret: no author can find numbers whose moves cancel);
MARGIN times the largest move is its reach (a number read twice is moved alike: 1e20 - 1e20
is 0 however 1e20 is read). Where moving a side by its reach would change whether a claim
holds, the engine cannot tell, and says so. Whole numbers up to 2**53 are held exactly and
never moved.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from attention.errors import EngineInputError
from attention.expression_parse import Expression, ExpressionError, checked
from attention.expressions import evaluate, sides
from attention.reruns import mover

MARGIN = 2.0
"""The reach is this many times the largest move."""

OWN_ULPS = 64
"""A move within this many units in the last place of the value (about 1e-14 of it) is
float64's own precision, which a claim typed to 15 to 17 figures copied from numpy already
asks of it (exp(2.0) moves some ten); past that, rounding that cancelling terms amplified
decides, and the reach counts."""

RUNS = 2
"""Two moved evaluations: a claim costs three evaluations of its budget, not more."""

Lookup = Callable[[str], Any]


def value_reach(
    expr: Expression | str,
    lookup: Lookup,
    value: np.ndarray,
    *,
    known: Iterable[str] = (),
    max_work: int,
    salt: bytes = b"",
) -> np.ndarray:
    """For each entry of ``value`` (``expr``'s, from `evaluate`): how far rounding may have
    moved it (``salt`` keys the moves)."""
    seeds = _seeds(expr, salt)
    moved = [_run(evaluate, expr, lookup, known, max_work, seed) for seed in seeds]
    return _reach([m for m in moved if m is not None and m.shape == value.shape], value)


def sides_reach(
    expr: Expression | str,
    lookup: Lookup,
    left: np.ndarray,
    right: np.ndarray,
    *,
    known: Iterable[str] = (),
    max_work: int,
    salt: bytes = b"",
) -> np.ndarray:
    """For each entry of ``left - right`` (a relation's sides, from `sides`): how far
    rounding may have moved it (``salt`` keys the moves)."""
    apart = np.subtract(left, right)
    moved = []
    for seed in _seeds(expr, salt):
        both = _run(sides, expr, lookup, known, max_work, seed)
        if both is not None:
            moved.append(np.subtract(*np.broadcast_arrays(*both)))
    return _reach([m for m in moved if m.shape == apart.shape], apart)


def least_written(expr: Expression | str, lookup: Lookup, read: Iterable[str] = ()) -> float:
    """The smallest nonzero |number| the expression writes or reads (``read``: the names it
    reads, looked up again), 0.0 where there is none: the precision its numbers are written to,
    which no band taken for 0 may pass."""
    text = expr.text if isinstance(expr, Expression) else expr
    body, _, _ = checked(text)
    settings = {id(k.value) for k in ast.walk(body) if isinstance(k, ast.keyword)}
    numbers = [  # a keyword's own number is a setting (eps=1e-300, heads=2), not a value
        np.asarray(float(n.value))
        for n in ast.walk(body)
        if isinstance(n, ast.Constant)
        and isinstance(n.value, (int, float))
        and id(n) not in settings
    ]
    for name in read:
        try:
            numbers.append(np.asarray(lookup(name), dtype=np.float64))
        except (KeyError, TypeError, ValueError):
            continue
    sizes = [np.abs(n[np.isfinite(n) & (n != 0)]) for n in numbers if n.dtype.kind in "iuf"]
    return float(min((np.min(s) for s in sizes if s.size), default=0.0))


def unsettled(
    decide: Callable[[np.ndarray], Any], value: np.ndarray, reach: np.ndarray, target: Any
) -> Any:
    """Entry by entry, whether ``decide`` (holds or not) changes within ``reach`` of ``value``.
    Each rule holds on an interval, around ``target`` (the number typed, or 0 for the difference
    of two sides) or on one side of it: the two ends of the reach, and its point nearest the
    target, say."""
    held = decide(value)
    low, high = value - reach, value + reach
    nearest = np.clip(target, low, high)
    return (decide(low) != held) | (decide(high) != held) | (decide(nearest) != held)


def _run(
    compute: Callable[..., Any],
    expr: Expression | str,
    lookup: Lookup,
    known: Iterable[str],
    max_work: int,
    seed: int,
) -> Any:
    """``compute`` (evaluate or sides) moved under ``seed``; None where the moved run is refused
    (a move past the edge of a function's domain: that run measures nothing)."""
    try:
        found = compute(expr, lookup, known=known, max_work=max_work, move=mover(seed))
    except (ExpressionError, EngineInputError):
        return None
    return tuple(map(np.asarray, found)) if isinstance(found, tuple) else np.asarray(found)


def _seeds(expr: Expression | str, salt: bytes) -> list[int]:
    """RUNS seeds of the expression's text, keyed by ``salt``: the same claim is always moved
    alike, and only who holds the salt can say how."""
    text = expr.text if isinstance(expr, Expression) else expr
    digest = hashlib.blake2b(text.encode(), digest_size=7, key=salt[:64]).digest()
    return [int.from_bytes(digest) + run for run in range(RUNS)]


def _reach(moved: list[np.ndarray], value: np.ndarray) -> np.ndarray:
    if not moved:
        return np.zeros(np.shape(value))
    moves = np.max(np.stack([np.abs(m - value) for m in moved]), axis=0)
    own = moves <= OWN_ULPS * np.spacing(np.abs(value))  # float64's own precision: no reach
    return np.where(own, 0.0, MARGIN * moves)
