"""The cost operation of the registry: flop and parameter counts of one attention layer."""

from __future__ import annotations

from attention.cost import (
    BACKWARD_TERM_NAMES,
    HEAD_DEPENDENT_TERMS,
    TERM_NAMES,
    attention_cost,
    cost_problems,
)
from attention.errors import InputProblem
from attention.registry.operation import (
    Example,
    Misconception,
    Operation,
    Outputs,
    Parameter,
    Values,
)


def _plan_cost(values: Values, problems: list[InputProblem]) -> Outputs | None:
    # the outputs' shapes never depend on the inputs, so ask is checked even when inputs are bad
    axes: Outputs = {"flops": (), "params": (), "terms": None}
    axes.update({term: () for term in TERM_NAMES})
    backward = values.get("backward", False)
    if backward:
        axes.update({term: () for term in BACKWARD_TERM_NAMES})
    ints = ("seq_len", "width", "heads", "batch")
    missing = {n for n in ints if values.get(n) is None and n != "batch"}
    # an argument that failed its type check stands in as 1; its own problem is already reported
    seq_len, width, heads, batch = (1 if n in missing else values.get(n, 1) for n in ints)
    bias, kv_heads = values.get("bias", False), values.get("kv_heads")
    found = cost_problems(seq_len, width, heads, batch, bias, kv_heads, backward)
    if missing & {"width", "heads"}:
        found = [q for q in found if "divisible" not in q.message and "divide" not in q.message]
    problems.extend(found)
    if not found and not missing:
        flops = attention_cost(seq_len, width, heads, batch, bias, kv_heads, backward).flops
        if flops >= 2**63:
            problems.append(
                InputProblem(
                    "inputs", f"the flop count {flops} is too large to represent (limit 2**63)"
                )
            )
    return axes


def _run_cost(v: Values) -> Values:
    cost = attention_cost(
        v["seq_len"],
        v["width"],
        v["heads"],
        v.get("batch", 1),
        v.get("bias", False),
        v.get("kv_heads"),
        v.get("backward", False),
    )
    return {"flops": cost.flops, "params": cost.params, "terms": dict(cost.terms), **cost.terms}


def _counted(terms: dict[str, int]) -> Values:
    """The flop outputs of mistaken terms (the parameter count is another mistake's)."""
    return {"flops": sum(terms.values()), "terms": terms, **terms}


def _terms(v: Values, **changes: object) -> dict[str, int]:
    return _run_cost({**v, **changes})["terms"]


_PRODUCTS = (
    "q_projection",
    "k_projection",
    "v_projection",
    "output_projection",
    "scores",
    "weighted_sum",
)
_MATMULS = frozenset(_PRODUCTS + tuple(f"{term}_backward" for term in _PRODUCTS))
"""Terms made of matrix products, where every multiply-add counts 2 (a bias add counts 1)."""

_PER_HEAD_WIDTH = frozenset({"scores", "weighted_sum", "scores_backward", "weighted_sum_backward"})
"""Terms of products over one head's d/h columns: heads x (d/h) = d in all."""


def _multiply_add_as_one(v: Values) -> Values:
    products = _terms(v, bias=False)  # bias adds are single flops, never multiply-adds
    terms = _terms(v)
    for term in _MATMULS & set(terms):
        terms[term] -= products[term] // 2
    if "softmax_backward" in terms:  # per row: T multiply-adds of its 4T flops
        terms["softmax_backward"] -= terms["softmax_backward"] // 4
    return _counted(terms)


def _heads_factor_missing(v: Values) -> Values:
    one_head = _terms(v, heads=1, kv_heads=None)
    terms = _terms(v)
    return _counted({**terms, **{t: one_head[t] for t in HEAD_DEPENDENT_TERMS & set(terms)}})


def _heads_full_width(v: Values) -> Values:
    terms = _terms(v)
    return _counted({**terms, **{t: terms[t] * v["heads"] for t in _PER_HEAD_WIDTH & set(terms)}})


def _without_output_projection(v: Values) -> Values:
    width = v["width"]
    return {"params": _run_cost(v)["params"] - width * width - (width if v.get("bias") else 0)}


def _kv_heads_ignored(v: Values) -> Values:
    return _run_cost({**v, "kv_heads": None}) if v.get("kv_heads") else {}


COST = Operation(
    "attention_cost",
    "Flop counts by term and parameter count of one attention layer; kv_heads counts "
    "grouped-query attention, backward adds the gradient pass's terms.",
    (
        Parameter("seq_len", "int", True, "positive integer"),
        Parameter("width", "int", True, "positive integer"),
        Parameter("heads", "int", True, "positive integer dividing width"),
        Parameter("batch", "int", False, "positive integer"),
        Parameter("bias", "bool", False, "boolean"),
        Parameter("kv_heads", "int", False, "positive integer dividing heads"),
        Parameter("backward", "bool", False, "boolean"),
    ),
    ("flops", "params", "terms", *TERM_NAMES, *BACKWARD_TERM_NAMES),
    _plan_cost,
    _run_cost,
    Example(
        {"seq_len": 4, "width": 8, "heads": 2},
        {"output": "flops"},
        2736,
        "Four projections of 2*4*8*8 = 512, scores and weighted sum 256 each, "
        "scaling 32 and softmax 144.",
    ),
    " (the *_backward terms need backward: true)",
    counts=True,
    misconceptions=(
        Misconception(
            "multiply-add-as-one",
            "This is what you get counting a multiply-add in a matrix product as one flop "
            "instead of two.",
            _multiply_add_as_one,
        ),
        Misconception(
            "heads-factor-missing",
            "This is what you get counting the scaling and softmax once per layer instead of "
            "once per head.",
            _heads_factor_missing,
        ),
        Misconception(
            "batch-factor-missing",
            "This is what you get counting one sequence instead of the whole batch.",
            lambda v: _counted(_terms(v, batch=1)),
        ),
        Misconception(
            "heads-full-width",
            "This is what you get giving every head the full width d in the score and "
            "weighted-sum products, instead of d/h.",
            _heads_full_width,
        ),
        Misconception(
            "params-without-output-projection",
            "This is what you get counting the parameters of the query, key and value "
            "projections but not the output projection's.",
            _without_output_projection,
        ),
        Misconception(
            "kv-heads-ignored",
            "This is what you get counting the key and value projections at the full width d, "
            "as if every query head had its own key/value head.",
            _kv_heads_ignored,
        ),
    ),
)
