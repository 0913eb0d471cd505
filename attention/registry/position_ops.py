"""Position operations of the registry: the sinusoidal table and rotary embedding."""

from __future__ import annotations

from attention.errors import InputProblem
from attention.limits import MAX_COST_DIMENSION, MAX_SEQ_LEN, MAX_WIDTH
from attention.positions import rope, sinusoidal_positions
from attention.registry.operation import Example, Operation, Outputs, Parameter, Values
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


SINUSOIDAL = Operation(
    "sinusoidal_positions",
    "Sinusoidal position table: column 2i is sin(p / base^(2i/width)), 2i+1 its cos.",
    (
        Parameter("seq_len", "int", True, "positive integer"),
        Parameter("width", "int", True, "positive integer"),
        Parameter("base", "number", False, "positive number (default 10000)"),
    ),
    ("out",),
    _plan_sinusoidal,
    _run_sinusoidal,
    Example(
        {"seq_len": 2, "width": 2},
        {"output": "out", "row": 1},
        [0.8414709848078965, 0.5403023058681398],
        "Position 1, pair 0: angle 1 / 10000^0 = 1, so (sin 1, cos 1).",
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


ROPE = Operation(
    "rope",
    "Rotary embedding: pairs (2i, 2i+1) of each row t rotated by (offset + t) * base^(-2i/d_k).",
    (
        Parameter("x", "matrix", True, "(T, d_k) matrix or (B, T, d_k) array, d_k even"),
        Parameter("base", "number", False, "positive number (default 10000)"),
        Parameter("offset", "int", False, "position of row 0 (default 0)"),
    ),
    ("out",),
    _plan_rope,
    _run_rope,
    Example(
        {"x": [[1, 0], [1, 0]], "offset": 1},
        {"output": "out", "row": 0},
        [0.5403023058681398, 0.8414709848078965],
        "Row 0 sits at position 1: (1, 0) turned by 1 radian is (cos 1, sin 1).",
    ),
)
