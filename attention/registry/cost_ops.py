"""The cost operation of the registry: flop and parameter counts of one attention layer."""

from __future__ import annotations

from attention.cost import BACKWARD_TERM_NAMES, TERM_NAMES, attention_cost, cost_problems
from attention.errors import InputProblem
from attention.registry.operation import Example, Operation, Outputs, Parameter, Values


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
)
