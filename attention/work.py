"""How much work one evaluation costs, estimated from shapes before anything is computed.

A caller with a budget (the verifier's per-problem limit) asks before it runs: the estimate
reads only the inputs' shapes and integers (a generator's ``shape``, a list's lengths), so it
costs nothing whatever the inputs hold, and the same content always gets the same estimate.

The unit is the flop of ``attention_cost`` (a multiply-add is 2), with one difference: numpy
runs a matrix product's flops far faster than the passes over whole arrays that the rest of the
work makes (the softmax of every score, a norm, an activation), which are bound by memory.
Each such elementwise operation counts ``ELEMENTWISE`` units, so a long sequence split into
many small heads (per-score work) weighs what it costs, not what its matmuls alone would.
Measured on one core (``tests/attention/test_work.py``), a unit is between about 0.1 and 1 ns.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from attention.cost import HEAD_DEPENDENT_TERMS, cost_terms

ELEMENTWISE = 16
"""Units one elementwise operation on an array element counts, against 1 for a matmul flop."""

PER_INPUT_NUMBER = 32
"""Elementwise operations charged per input number: drawing or reading it, converting, checking
it is finite (some 200 ns a number, as much as a pass over a large array costs per element)."""

PER_CALL = 10**5
"""Units one call of an operation costs whatever its size: its inputs read and checked, its
outputs made and narrowed (some 0.1 ms). An expression's budget counts it, so one that calls
tiny operations many times (a property over 200 instances) is bounded by its calls too."""

Shape = tuple[int, ...]


def _shape(value: object) -> Shape:
    """The shape of an input as written: a generator's ``shape``, a nested list's lengths (read
    down the first elements: ``check`` has already refused a ragged one), () for a number."""
    if isinstance(value, Mapping):
        return tuple(int(n) for n in value.get("shape", ()))
    if hasattr(value, "shape"):
        return tuple(int(n) for n in value.shape)
    dims = []
    while isinstance(value, (list, tuple)):
        dims.append(len(value))
        if not value:
            break
        value = value[0]
    return tuple(dims)


class _Inputs:
    def __init__(self, inputs: Mapping[str, Any]) -> None:
        self.raw = inputs

    def shape(self, name: str) -> Shape:
        return _shape(self.raw.get(name, ()))

    def size(self, name: str) -> int:
        return math.prod(self.shape(name))

    def whole(self, name: str, default: int = 1) -> int:
        value = self.raw.get(name, default)
        return int(value) if value is not None else default

    def masked(self) -> bool:
        return "mask" in self.raw or bool(self.raw.get("causal"))

    def numbers(self) -> int:
        return sum(math.prod(_shape(value)) for value in self.raw.values())


Cost = tuple[int, int]
"""(matmul flops, elementwise operations) of one evaluation."""


def _lead(shape: Shape) -> int:
    return math.prod(shape[:-2]) if len(shape) > 2 else 1


def _self_attention(i: _Inputs, *, kv: int | None = None, backward: bool = False) -> Cost:
    x = i.shape("x")
    batch, seq, width = _lead(x), x[-2], x[-1]
    heads = i.whole("heads")
    terms = cost_terms(batch, seq, width, heads, kv or heads, False, backward)
    per_score = sum(n for term, n in terms.items() if term in HEAD_DEPENDENT_TERMS)
    scores = batch * heads * seq * seq
    # the mask or causal triangle is one more pass over the scores; splitting and joining the
    # heads copy the projections a few times
    copies = 8 * batch * seq * width
    return sum(terms.values()) - per_score, per_score + scores * i.masked() + copies


def _mha(i: _Inputs) -> Cost:
    return _self_attention(i)


def _gqa(i: _Inputs) -> Cost:
    return _self_attention(i, kv=i.whole("kv_heads"))


def _mha_backward(i: _Inputs) -> Cost:
    return _self_attention(i, backward=True)


def _sdpa(i: _Inputs) -> Cost:
    q, k, v = i.shape("q"), i.shape("k"), i.shape("v")
    scores = max(_lead(q), _lead(k)) * q[-2] * k[-2]
    return 2 * scores * (q[-1] + v[-1]), scores * (7 + i.masked())


def _sdpa_backward(i: _Inputs) -> Cost:
    matmul, elementwise = _sdpa(i)
    return 3 * matmul, elementwise + 6 * elementwise // 7


def _decode(i: _Inputs) -> Cost:
    x, cache = i.shape("x"), i.shape("k_cache")
    batch, width = (x[0] if len(x) == 2 else 1), x[-1]
    heads = i.whole("heads")
    d_kv = i.whole("kv_heads", heads) * (width // heads)
    keys = (cache[-2] if len(cache) >= 2 else 0) + 1
    matmul = batch * (4 * width * width + 4 * width * d_kv + 4 * keys * width)
    return matmul, batch * (7 * heads * keys + 2 * keys * d_kv)


ACTIVATION = {"gelu": 80, "gelu_tanh": 12, "relu": 2}
"""Elementwise operations per hidden unit: exact GELU calls the standard library's erf on each."""


def _ffn_cost(i: _Inputs, rows: int, width: int, hidden: int, out: int) -> Cost:
    activation = ACTIVATION.get(str(i.raw.get("activation", "gelu")), ACTIVATION["gelu"])
    return 2 * rows * hidden * (width + out), rows * ((activation + 2) * hidden + 2 * out)


def _ffn(i: _Inputs) -> Cost:
    x, w_1, w_2 = i.shape("x"), i.shape("w_1"), i.shape("w_2")
    rows = math.prod(x[:-1]) if len(x) > 1 else 1
    return _ffn_cost(i, rows, x[-1], w_1[-1], w_2[-1])


def _block(i: _Inputs) -> Cost:
    attention_matmul, attention_elementwise = _self_attention(i)
    x = i.shape("x")
    rows, width = math.prod(x[:-1]), x[-1]
    ffn_matmul, ffn_elementwise = _ffn_cost(i, rows, width, i.shape("w_1")[-1], width)
    norms_and_residuals = 24 * rows * width
    return (
        attention_matmul + ffn_matmul,
        attention_elementwise + ffn_elementwise + norms_and_residuals,
    )


def _per_element(name: str, operations: int) -> Callable[[_Inputs], Cost]:
    return lambda i: (0, operations * i.size(name))


def _sinusoidal(i: _Inputs) -> Cost:
    return 0, 8 * i.whole("seq_len") * i.whole("width")


ESTIMATES: dict[str, Callable[[_Inputs], Cost]] = {
    "softmax": _per_element("scores", 7),
    "scaled_dot_product_attention": _sdpa,
    "multi_head_attention": _mha,
    "attention_head": _mha,
    "attention_cost": lambda i: (0, 1),
    "layer_norm": _per_element("x", 10),
    "rms_norm": _per_element("x", 8),
    "feed_forward": _ffn,
    "sinusoidal_positions": _sinusoidal,
    "rope": _per_element("x", 10),
    "grouped_query_attention": _gqa,
    "attention_decode": _decode,
    "softmax_backward": _per_element("y", 5),
    "scaled_dot_product_attention_backward": _sdpa_backward,
    "multi_head_attention_backward": _mha_backward,
    "cross_entropy": _per_element("logits", 10),
    "transformer_block": _block,
}
"""Each registered operation's cost from its inputs' shapes."""


def numbers_at_most(work: int) -> int:
    """The most numbers an evaluation of ``work`` units returns, all its outputs together: each
    is written by at least one elementwise operation, or is an input's size and charged as read
    (``PER_INPUT_NUMBER``), so it costs at least ``ELEMENTWISE`` units. A caller bounding what
    an evaluation holds need not look at its outputs' shapes below this."""
    return work // ELEMENTWISE


def evaluation_work(operation: str, inputs: Mapping[str, Any]) -> int | None:
    """The estimated work (units above) of evaluating ``operation`` once on ``inputs``, which
    ``attention.check`` has accepted; None for an operation it does not know or inputs it cannot
    read (``check`` reports those)."""
    estimate = ESTIMATES.get(operation)
    if estimate is None or not isinstance(inputs, Mapping):
        return None
    given = _Inputs(inputs)
    try:
        matmul, elementwise = estimate(given)
        elementwise += PER_INPUT_NUMBER * given.numbers()
    except (TypeError, ValueError, IndexError, ZeroDivisionError):
        return None
    return matmul + ELEMENTWISE * elementwise
