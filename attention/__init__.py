"""Numpy attention engine: softmax, attention, cost counts, and the registry the verifier calls.

Imports only numpy and the standard library, so it can run and be tested without Django.
"""

from attention.backward import (
    multi_head_attention_backward,
    scaled_dot_product_attention_backward,
    softmax_backward,
)
from attention.block import ACTIVATIONS, feed_forward, transformer_block
from attention.budget import EngineOverTime, cpu_budget
from attention.compare import Comparison, compare, compare_each
from attention.core import attention_head, multi_head_attention, scaled_dot_product_attention
from attention.cost import (
    BACKWARD_TERM_NAMES,
    HEAD_DEPENDENT_TERMS,
    TERM_NAMES,
    AttentionCost,
    attention_cost,
    head_dependent_terms,
)
from attention.decode import attention_decode
from attention.errors import EngineInputError, InputProblem
from attention.generated import expand_inputs, generated_numbers, is_generated
from attention.grouped import grouped_query_attention
from attention.limits import MAX_BATCH, MAX_ELEMENTS, MAX_FLOPS, MAX_HEADS, MAX_SEQ_LEN, MAX_WIDTH
from attention.losses import cross_entropy
from attention.noise import noise_bounds, settled
from attention.norms import layer_norm, rms_norm
from attention.positions import rope, sinusoidal_positions
from attention.registry.convert import KINDS
from attention.registry.operation import (
    SELECTORS,
    Example,
    Misconception,
    Operation,
    Outputs,
    Parameter,
)
from attention.registry.table import (
    NAMED_OUTPUT,
    OPERATIONS,
    check,
    check_planned,
    evaluate,
    instances_values,
    misconception_values,
    misconception_work,
    output_axes,
    output_selectors,
    output_shape,
    shape_asked,
)
from attention.softmax import softmax
from attention.work import evaluation_work, numbers_at_most

ENGINE_VERSION = "1.4.4"
"""Version of the engine's numerical behaviour; recorded with each verdict."""

__all__ = [
    "ACTIVATIONS",
    "BACKWARD_TERM_NAMES",
    "ENGINE_VERSION",
    "KINDS",
    "Example",
    "attention_decode",
    "cross_entropy",
    "feed_forward",
    "grouped_query_attention",
    "layer_norm",
    "multi_head_attention_backward",
    "output_selectors",
    "rms_norm",
    "rope",
    "scaled_dot_product_attention_backward",
    "sinusoidal_positions",
    "softmax_backward",
    "transformer_block",
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
    "EngineOverTime",
    "InputProblem",
    "Misconception",
    "Operation",
    "Outputs",
    "Parameter",
    "attention_cost",
    "attention_head",
    "check",
    "check_planned",
    "compare",
    "compare_each",
    "noise_bounds",
    "settled",
    "cpu_budget",
    "evaluate",
    "evaluation_work",
    "numbers_at_most",
    "expand_inputs",
    "generated_numbers",
    "head_dependent_terms",
    "instances_values",
    "is_generated",
    "misconception_values",
    "misconception_work",
    "multi_head_attention",
    "output_axes",
    "output_shape",
    "shape_asked",
    "NAMED_OUTPUT",
    "scaled_dot_product_attention",
    "softmax",
]
