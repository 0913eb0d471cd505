"""Exact operation counts for one multi-head self-attention layer.

Convention: a multiply-add counts as 2 flops; every other elementwise operation (comparison,
subtraction, exp, addition, division, multiplication) counts as 1; reshapes and concatenation
are free. With B = batch, T = seq_len, d = width, h = heads and dk = d/h:

* each of the q/k/v/output projections: 2*B*T*d*d (+ B*T*d with bias: one add per output)
* scores (q k^T for all heads): 2*B*h*T*T*dk = 2*B*T*T*d
* scaling (one multiply per score): B*h*T*T
* softmax per row of T: (T-1) comparisons for the max, T subtractions, T exps, (T-1) additions
  and T divisions, i.e. B*h*T*(5T-2)
* weighted_sum (weights @ v for all heads): 2*B*T*T*d

params = 4*d*d (+ 4*d with bias). Only ``scaling`` and ``softmax`` depend on h: splitting the
width into heads keeps the matmul work fixed and multiplies the per-score work (Prop. 1, exact).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from attention.errors import EngineInputError, InputProblem
from attention.limits import MAX_COST_DIMENSION

TERM_NAMES: tuple[str, ...] = (
    "q_projection",
    "k_projection",
    "v_projection",
    "output_projection",
    "scores",
    "scaling",
    "softmax",
    "weighted_sum",
)
"""Every flop term, in the order the layer performs them."""

HEAD_DEPENDENT_TERMS: frozenset[str] = frozenset({"scaling", "softmax"})
"""Terms that change with the number of heads; all other terms and params are independent of h."""


def head_dependent_terms() -> frozenset[str]:
    """The terms whose count depends on the number of heads (see ``HEAD_DEPENDENT_TERMS``)."""
    return HEAD_DEPENDENT_TERMS


@dataclass(frozen=True)
class AttentionCost:
    """Flop counts by term and the parameter count of one attention layer."""

    seq_len: int
    width: int
    heads: int
    batch: int
    bias: bool
    terms: Mapping[str, int] = field(hash=False)
    params: int

    @property
    def flops(self) -> int:
        """Total flops: the sum of all terms."""
        return sum(self.terms.values())

    def head_dependent_terms(self) -> frozenset[str]:
        """Terms of this cost that would change with a different number of heads."""
        return HEAD_DEPENDENT_TERMS


def _positive_int(name: str, value: object, problems: list[InputProblem]) -> int | None:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        problems.append(
            InputProblem(f"inputs.{name}", f"must be a positive integer, got {value!r}")
        )
        return None
    if value < 1:
        problems.append(
            InputProblem(f"inputs.{name}", f"must be a positive integer, got {int(value)}")
        )
        return None
    if value > MAX_COST_DIMENSION:
        problems.append(
            InputProblem(
                f"inputs.{name}", f"{int(value)} exceeds the limit of {MAX_COST_DIMENSION}"
            )
        )
        return None
    return int(value)


def cost_problems(
    seq_len: object, width: object, heads: object, batch: object = 1, bias: object = False
) -> list[InputProblem]:
    """Every reason the arguments cannot be counted (empty when they are fine)."""
    problems: list[InputProblem] = []
    values = {
        n: _positive_int(n, v, problems)
        for n, v in (("seq_len", seq_len), ("width", width), ("heads", heads), ("batch", batch))
    }
    if not isinstance(bias, (bool, np.bool_)):
        problems.append(InputProblem("inputs.bias", f"must be a boolean, got {bias!r}"))
    w, h = values["width"], values["heads"]
    if w is not None and h is not None and w % h:
        problems.append(InputProblem("inputs.heads", f"width {w} is not divisible by {h} heads"))
    return problems


def attention_cost(
    seq_len: int, width: int, heads: int, batch: int = 1, bias: bool = False
) -> AttentionCost:
    """Count flops (by term) and parameters of multi-head self-attention (see module docstring)."""
    problems = cost_problems(seq_len, width, heads, batch, bias)
    if problems:
        raise EngineInputError(problems)
    b, t, d, h = int(batch), int(seq_len), int(width), int(heads)
    projection = 2 * b * t * d * d + (b * t * d if bias else 0)
    terms = {
        "q_projection": projection,
        "k_projection": projection,
        "v_projection": projection,
        "output_projection": projection,
        "scores": 2 * b * t * t * d,
        "scaling": b * h * t * t,
        "softmax": b * h * t * (5 * t - 2),
        "weighted_sum": 2 * b * t * t * d,
    }
    params = 4 * d * d + (4 * d if bias else 0)
    return AttentionCost(t, d, h, b, bool(bias), MappingProxyType(terms), params)
