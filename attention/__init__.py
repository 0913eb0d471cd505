"""Numpy attention engine: softmax, attention, cost counts, and the registry the verifier calls.

Imports only numpy and the standard library, so it can run and be tested without Django.
"""

from attention.compare import Comparison, compare
from attention.core import attention_head, multi_head_attention, scaled_dot_product_attention
from attention.cost import (
    HEAD_DEPENDENT_TERMS,
    TERM_NAMES,
    AttentionCost,
    attention_cost,
    head_dependent_terms,
)
from attention.errors import EngineInputError, InputProblem
from attention.generated import expand_inputs, instances_problem, is_generated
from attention.limits import MAX_BATCH, MAX_ELEMENTS, MAX_FLOPS, MAX_HEADS, MAX_SEQ_LEN, MAX_WIDTH
from attention.registry import (
    OPERATIONS,
    SELECTORS,
    Operation,
    Parameter,
    check,
    evaluate,
    output_axes,
)
from attention.softmax import softmax

ENGINE_VERSION = "1.0.0"
"""Version of the engine's numerical behaviour; recorded with each verdict."""

__all__ = [
    "ENGINE_VERSION",
    "HEAD_DEPENDENT_TERMS",
    "MAX_BATCH",
    "MAX_ELEMENTS",
    "MAX_FLOPS",
    "MAX_HEADS",
    "MAX_SEQ_LEN",
    "MAX_WIDTH",
    "OPERATIONS",
    "SELECTORS",
    "TERM_NAMES",
    "AttentionCost",
    "Comparison",
    "EngineInputError",
    "InputProblem",
    "Operation",
    "Parameter",
    "attention_cost",
    "attention_head",
    "check",
    "compare",
    "evaluate",
    "expand_inputs",
    "head_dependent_terms",
    "instances_problem",
    "is_generated",
    "multi_head_attention",
    "output_axes",
    "scaled_dot_product_attention",
    "softmax",
]
