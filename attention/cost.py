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

With ``kv_heads`` (grouped-query attention; 1 is multi-query) the key and value projections are
d x d_kv with d_kv = kv_heads*dk: 2*B*T*d*d_kv each (+ B*T*d_kv with bias), and params are
2*d*d + 2*d*d_kv (+ 2*d + 2*d_kv). Scores, scaling, softmax and the weighted sum are unchanged:
every query head still scores every key.

With ``backward`` the gradient pass is counted too, by term, given the forward activations
(weights, projections, concatenated heads) and accumulating every sum from zero:

* output_projection_backward: dW_o = C^T G and dC = G W_o^T, 4*B*T*d*d (+ B*T*d for db_o)
* weighted_sum_backward: dV = P^T dO and dP = dO V^T, 4*B*T*T*d (a shared key/value head
  accumulates its group's products, so grouping does not change the count)
* softmax_backward per row of T: sum(dP*P) (T multiply-adds), T subtractions, T multiplications,
  i.e. 4*B*h*T*T
* scaling_backward: one multiply per score, B*h*T*T
* scores_backward: dQ = dS K and dK = dS^T Q, 4*B*T*T*d
* each projection backward: dW = x^T dY and its share of dx = dY W^T, accumulated into one dx:
  4*B*T*d*d for q (+ B*T*d for its bias), 4*B*T*d*d_kv for k and for v (+ B*T*d_kv)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from attention.errors import EngineInputError, InputProblem, said
from attention.limits import MAX_COST_DIMENSION
from attention.scalars import is_bool, is_integer

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

BACKWARD_TERM_NAMES: tuple[str, ...] = (
    "output_projection_backward",
    "weighted_sum_backward",
    "softmax_backward",
    "scaling_backward",
    "scores_backward",
    "q_projection_backward",
    "k_projection_backward",
    "v_projection_backward",
)
"""The gradient pass's terms, in the order backpropagation performs them."""

HEAD_DEPENDENT_TERMS: frozenset[str] = frozenset(
    {"scaling", "softmax", "scaling_backward", "softmax_backward"}
)
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
    kv_heads: int = 0
    backward: bool = False

    @property
    def flops(self) -> int:
        """Total flops: the sum of all terms."""
        return sum(self.terms.values())

    def head_dependent_terms(self) -> frozenset[str]:
        """Terms of this cost that would change with a different number of heads."""
        return HEAD_DEPENDENT_TERMS & set(self.terms)


def _positive_int(name: str, value: object, problems: list[InputProblem]) -> int | None:
    if not is_integer(value):
        problems.append(
            InputProblem(f"inputs.{name}", f"must be a positive integer, got {value!r}")
        )
        return None
    if value < 1:
        problems.append(
            InputProblem(f"inputs.{name}", f"must be a positive integer, got {said(int(value))}")
        )
        return None
    if value > MAX_COST_DIMENSION:
        problems.append(
            InputProblem(
                f"inputs.{name}", f"{said(int(value))} exceeds the limit of {MAX_COST_DIMENSION}"
            )
        )
        return None
    return int(value)


def cost_problems(
    seq_len: object,
    width: object,
    heads: object,
    batch: object = 1,
    bias: object = False,
    kv_heads: object = None,
    backward: object = False,
) -> list[InputProblem]:
    """Every reason the arguments cannot be counted (empty when they are fine)."""
    problems: list[InputProblem] = []
    kv = None if kv_heads is None else _positive_int("kv_heads", kv_heads, problems)
    if not is_bool(backward):
        problems.append(InputProblem("inputs.backward", f"must be a boolean, got {backward!r}"))
    values = {
        n: _positive_int(n, v, problems)
        for n, v in (("seq_len", seq_len), ("width", width), ("heads", heads), ("batch", batch))
    }
    if not is_bool(bias):
        problems.append(InputProblem("inputs.bias", f"must be a boolean, got {bias!r}"))
    w, h = values["width"], values["heads"]
    if w is not None and h is not None and w % h:
        problems.append(InputProblem("inputs.heads", f"width {w} is not divisible by {h} heads"))
    if kv is not None and h is not None and h % kv:
        problems.append(InputProblem("inputs.kv_heads", f"must divide heads ({h}), got {kv}"))
    return problems


def attention_cost(
    seq_len: int,
    width: int,
    heads: int,
    batch: int = 1,
    bias: bool = False,
    kv_heads: int | None = None,
    backward: bool = False,
) -> AttentionCost:
    """Count flops (by term) and parameters of multi-head self-attention (see module docstring)."""
    problems = cost_problems(seq_len, width, heads, batch, bias, kv_heads, backward)
    if problems:
        raise EngineInputError(problems)
    b, t, d, h = int(batch), int(seq_len), int(width), int(heads)
    kv = h if kv_heads is None else int(kv_heads)
    d_kv = kv * (d // h)
    add = 1 if bias else 0
    terms = cost_terms(b, t, d, h, kv, bool(bias), bool(backward))
    params = 2 * d * d + 2 * d * d_kv + add * (2 * d + 2 * d_kv)
    return AttentionCost(
        t, d, h, b, bool(bias), MappingProxyType(terms), params, kv, bool(backward)
    )


def cost_terms(
    b: int, t: int, d: int, h: int, kv: int, bias: bool, backward: bool
) -> dict[str, int]:
    """The flop terms for arguments already checked (``attention_cost`` checks them)."""
    d_kv = kv * (d // h)
    add = 1 if bias else 0
    full = 2 * b * t * d * d + add * b * t * d
    shared = 2 * b * t * d * d_kv + add * b * t * d_kv
    terms = {
        "q_projection": full,
        "k_projection": shared,
        "v_projection": shared,
        "output_projection": full,
        "scores": 2 * b * t * t * d,
        "scaling": b * h * t * t,
        "softmax": b * h * t * (5 * t - 2),
        "weighted_sum": 2 * b * t * t * d,
    }
    if backward:
        terms.update(
            {
                "output_projection_backward": 4 * b * t * d * d + add * b * t * d,
                "weighted_sum_backward": 4 * b * t * t * d,
                "softmax_backward": 4 * b * h * t * t,
                "scaling_backward": b * h * t * t,
                "scores_backward": 4 * b * t * t * d,
                "q_projection_backward": 4 * b * t * d * d + add * b * t * d,
                "k_projection_backward": 4 * b * t * d * d_kv + add * b * t * d_kv,
                "v_projection_backward": 4 * b * t * d * d_kv + add * b * t * d_kv,
            }
        )
    return terms
