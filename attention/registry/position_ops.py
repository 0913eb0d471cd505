"""Position operations of the registry: the sinusoidal table and rotary embedding."""

from __future__ import annotations

import math

import numpy as np

from attention.errors import InputProblem
from attention.limits import MAX_COST_DIMENSION, MAX_SEQ_LEN, MAX_WIDTH
from attention.positions import rope, sinusoidal_positions
from attention.registry.operation import (
    Example,
    Misconception,
    Operation,
    Outputs,
    Parameter,
    Values,
)
from attention.registry.shapes import Plan, axes_of, x_dims


def _plan_sinusoidal(values: Values, problems: list[InputProblem]) -> Outputs | None:
    p = Plan(values, problems)
    seq, width = values.get("seq_len"), values.get("width")
    ok = True
    for name, value, cap in (("seq_len", seq, MAX_SEQ_LEN), ("width", width, MAX_WIDTH)):
        if value is not None and value < 1:
            p.add(name, f"must be a positive integer, got {value}")
            ok = False
        elif value is not None:
            ok &= p.limit(name, name.replace("_", " "), value, cap)
    if seq is None or width is None or not ok:
        return None
    return {"out": (("row", seq), ("col", width))}


def _run_sinusoidal(v: Values) -> Values:
    return {"out": sinusoidal_positions(v["seq_len"], v["width"], v.get("base", 10000.0))}


def _table(v: Values, columns: np.ndarray) -> Values:
    """The engine's table with its columns reordered."""
    return {"out": _run_sinusoidal(v)["out"][:, columns]}


def _sin_cos_swapped(v: Values) -> Values:
    width = v["width"]
    return {} if width % 2 else _table(v, np.arange(width) ^ 1)  # odd: no cosine for the last


def _column_exponents(v: Values) -> Values:
    width = v["width"]
    column = np.arange(width)
    angle = np.arange(v["seq_len"])[:, None] / v.get("base", 10000.0) ** (column / width)
    return {"out": np.where(column % 2 == 0, np.sin(angle), np.cos(angle))}


EXPONENT_HALVED = "This is what you get with i/d in the exponent instead of 2i/d."
FROM_ONE = "This is what you get counting positions from 1 instead of 0."


SINUSOIDAL = Operation(
    "sinusoidal_positions",
    "Sinusoidal position table: column 2i is sin(p / base^(2i/width)), 2i+1 its cos.",
    (
        Parameter("seq_len", "int", True, "positive integer"),
        Parameter("width", "int", True, "positive integer"),
        Parameter("base", "number", False, "number of at least 1 (default 10000)"),
    ),
    ("out",),
    _plan_sinusoidal,
    _run_sinusoidal,
    Example(
        {"seq_len": 2, "width": 2},
        {"output": "out", "row": 1},
        [0.8415, 0.5403],
        "Position 1, pair 0: angle 1 / 10000^0 = 1, so (sin 1, cos 1).",
    ),
    misconceptions=(
        Misconception(
            "sin-cos-swapped",
            "This is what you get with sine and cosine swapped: cos in column 2i, sin in 2i+1.",
            _sin_cos_swapped,
        ),
        Misconception(
            "sines-then-cosines",
            "This is what you get putting all the sines first and all the cosines after them, "
            "instead of interleaving them pair by pair.",
            lambda v: _table(v, np.r_[0 : v["width"] : 2, 1 : v["width"] : 2]),
        ),
        Misconception(
            "exponent-halved",
            EXPONENT_HALVED,
            lambda v: _run_sinusoidal({**v, "base": math.sqrt(v.get("base", 10000.0))}),
        ),
        Misconception(
            "exponent-by-column",
            "This is what you get using each column's own index j in base^(j/d), so a cosine "
            "column gets a different frequency from its sine.",
            _column_exponents,
        ),
        Misconception(
            "positions-from-one",
            FROM_ONE,
            lambda v: {"out": _run_sinusoidal({**v, "seq_len": v["seq_len"] + 1})["out"][1:]},
        ),
    ),
)


def _plan_rope(values: Values, problems: list[InputProblem]) -> Outputs | None:
    p = Plan(values, problems)
    offset = values.get("offset")
    if offset is not None and not 0 <= offset <= MAX_COST_DIMENSION:
        p.add("offset", f"must be an integer in 0..{MAX_COST_DIMENSION}, got {offset}")
    dims = x_dims(p)
    if dims is None:
        return None
    if dims[2] % 2:
        p.add("x", f"width {dims[2]} must be even: RoPE rotates pairs of features")
        return None
    return {"out": axes_of(values["x"].shape)}


def _run_rope(v: Values) -> Values:
    return {"out": rope(v["x"], v.get("base", 10000.0), v.get("offset", 0))}


def _rope_halves(v: Values) -> Values:
    """Pairs (i, i + d/2) rotated, as GPT-NeoX does: the engine's rotation of those features
    moved side by side, moved back."""
    half = v["x"].shape[-1] // 2
    pairs = np.stack([np.arange(half), np.arange(half, 2 * half)], axis=1).reshape(-1)
    out = np.empty_like(v["x"])
    out[..., pairs] = _run_rope({**v, "x": v["x"][..., pairs]})["out"]
    return {"out": out}


def _rope_backwards(v: Values) -> Values:
    """Rotation by −θ: the engine's rotation of (x_2i, −x_2i+1), its odd features negated."""
    flip = np.where(np.arange(v["x"].shape[-1]) % 2, -1.0, 1.0)
    return {"out": _run_rope({**v, "x": v["x"] * flip})["out"] * flip}


ROPE = Operation(
    "rope",
    "Rotary embedding: pairs (2i, 2i+1) of each row t rotated by (offset + t) * base^(-2i/d_k).",
    (
        Parameter("x", "matrix", True, "(T, d_k) matrix or (B, T, d_k) array, d_k even"),
        Parameter("base", "number", False, "number of at least 1 (default 10000)"),
        Parameter("offset", "int", False, "position of row 0 (default 0)"),
    ),
    ("out",),
    _plan_rope,
    _run_rope,
    Example(
        {"x": [[1, 0], [1, 0]], "offset": 1},
        {"output": "out", "row": 0},
        [0.5403, 0.8415],
        "Row 0 sits at position 1: (1, 0) turned by 1 radian is (cos 1, sin 1).",
    ),
    misconceptions=(
        Misconception(
            "halves-rotated",
            "This is what you get rotating the pairs (i, i + d/2) instead of the adjacent "
            "pairs (2i, 2i+1).",
            _rope_halves,
        ),
        Misconception(
            "rotated-backwards",
            "This is what you get rotating by −θ instead of θ (the sine's sign flipped).",
            _rope_backwards,
        ),
        Misconception(
            "exponent-halved",
            EXPONENT_HALVED,
            lambda v: _run_rope({**v, "base": math.sqrt(v.get("base", 10000.0))}),
        ),
        Misconception(
            "offset-ignored",
            "This is what you get ignoring the offset, so row 0 sits at position 0.",
            lambda v: _run_rope({**v, "offset": 0}) if v.get("offset") else {},
        ),
        Misconception(
            "positions-from-one",
            FROM_ONE,
            lambda v: _run_rope({**v, "offset": v.get("offset", 0) + 1}),
        ),
    ),
)
