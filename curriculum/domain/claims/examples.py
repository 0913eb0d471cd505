"""The claims and properties the operations reference shows authors; the suite decides every
one (tests/curriculum/domain/claims), so the reference cannot teach a form that fails."""

from dataclasses import dataclass
from typing import Any

from attention.expression_parse import CONSTANTS, FUNCTIONS


@dataclass(frozen=True)
class Example:
    written: str  # as an author writes it
    meaning: str
    context: dict[str, Any] | None = None  # the problem a claim in its texts reads


SOFTMAX_ROW = {"operation": "softmax", "inputs": {"scores": [[0, 1], [2, 2]]}}

CLAIMS = (
    Example("$e + 2 \\approx {{ 4.718282 = e + 2 }}$", "arithmetic, to the 7 figures typed"),
    Example(
        "{{ 1216 = attention_cost(seq_len=8, width=16, heads=4).softmax }} flops",
        "an engine operation on given inputs, one of its outputs by name",
    ),
    Example(
        "$({{ (0.268941, 0.731059) = softmax(scores=[0, 1]).out }})$",
        "several numbers typed at once, each held to its own figures",
    ),
    Example(
        "{{ 0.269 = softmax(scores=[0, 1]).out[0] | digits 3 }}",
        "a stated number of significant figures (3 at the fewest)",
    ),
    Example(
        "{{ 0.26894 = softmax(scores=[0, 1]).out[0] | rtol 1e-5 atol 1e-9 }}",
        "a stated tolerance, bounded as an answer's is and never looser than the figures typed",
    ),
    Example(
        "$a_{01} \\approx {{ 0.731059 = outputs.out[0, 1] }}$, row 1 is "
        "${{ (0.5, 0.5) = outputs.out[1] }}$ since "
        "${{ 0 = inputs.scores[1, 0] - inputs.scores[1, 1] }}$",
        "in a problem's statement or steps: its inputs and the engine's outputs by name, "
        "indexed as the answer is (here a softmax problem with scores [[0, 1], [2, 2]])",
        SOFTMAX_ROW,
    ),
)

PROPERTIES = (
    Example(
        "inputs:\n"
        "  s: {generate: normal, shape: [6], scale: 3.0, round: 6, seed: 31}\n"
        "  c: {generate: normal, shape: [], scale: 50.0, round: 6, seed: 32}\n"
        "holds: softmax(scores=s + c).out == softmax(scores=s).out\n"
        "instances: 50\n"
        "tolerance: {rtol: 1.0e-12, atol: 1.0e-15}",
        "two expressions of engine operations agree on every instance",
    ),
    Example(
        "inputs:\n"
        "  T: {generate: integers, low: 1, high: 64, seed: 51}\n"
        "holds: attention_cost(seq_len=T, width=8, heads=2).softmax == 2 * T * (5 * T - 2)\n"
        "instances: 20",
        "a count the engine makes equals a formula, for whole numbers drawn from a range",
    ),
    Example(
        "inputs:\n"
        "  x: {generate: normal, shape: [500], seed: 5}\n"
        "holds: abs(mean(x)) + abs(var(x) - 1) <= 0.3\n"
        "instances: 10",
        "a stated relation that allows for sampling error",
    ),
)

LANGUAGE = {
    "functions": sorted(FUNCTIONS),
    "constants": sorted(CONSTANTS),
    "operators": ["+", "-", "*", "/", "**", "@", "x[i, j]", "x[:, 0]"],
    "relations": ["==", "<=", "<", ">=", ">"],
}
"""What an expression may use besides the engine's operations (called with keywords)."""
