"""The engine's word on one claim or property, from its stored spec alone (no database): the
worker, the dry run and the tests call it alike. Bad input of any kind is an error verdict."""

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
from django.conf import settings

import attention
from attention.compare import LARGEST_NOISE, widest_zero
from attention.expression_reach import least_written, sides_reach, unsettled, value_reach
from attention.expressions import ExpressionError, evaluate, parse, sides
from attention.generated import is_generator
from attention.relations import holding, holds
from attention.tiny import underflow_refused

from ..instance_values import engine_salt
from ..tolerances import MAX_DIGITS, compared_vacuously
from .pattern import NUMBER, figures_of
from .properties import tolerance_of
from .syntax import outputs_readable, outputs_unreadable

logger = logging.getLogger(__name__)

SHOWN_ENTRIES = 8
"""Of a counterexample's inputs, this many numbers each are shown to the author."""


@dataclass(frozen=True)
class Outcome:
    status: str  # verified, mismatch or error (ClaimVerdict.Status)
    message: str = ""
    value: Any = None  # the engine's value (a claim) or the counterexample (a property)
    extra: dict = field(default_factory=dict)


def _problem_lookup(context: Mapping[str, Any]):
    """The names a claim on a problem reads: its inputs, and its outputs as the engine holds
    them (`attention.settled`: in extended precision, as an answer to the problem is held)."""
    operation, inputs = context.get("operation"), context.get("inputs") or {}
    outputs: dict[str, Any] = {}

    def lookup(name: str) -> Any:
        kind, _, short = name.partition(".")
        if kind == "inputs" and short in inputs:
            return attention.expand_inputs({short: inputs[short]}, 0)[short]
        if kind == "outputs" and short not in outputs:
            if not outputs_readable(context):  # stored before the rule
                raise ExpressionError(outputs_unreadable())
            ask = {"output": short}
            with underflow_refused(name):  # exp(-800) read as 0 would be scaled up as 0
                value = attention.evaluate(operation, inputs, ask)
            outputs[short] = attention.settled(operation, inputs, ask, value, 0, engine_salt())[0]
        if kind == "outputs":
            return outputs[short]
        raise KeyError(name)

    return lookup


def _no_names(name: str) -> Any:
    raise KeyError(name)


def _claim(spec: Mapping[str, Any]) -> Outcome:
    context = spec.get("context")
    lookup = _problem_lookup(context) if context else _no_names
    expression = parse(spec["expression"])
    work, salt = settings.LIMIT_CLAIM_WORK, engine_salt()
    value = np.asarray(evaluate(expression, lookup, max_work=work, salt=salt), dtype=float)
    typed = np.asarray(spec["numbers"], dtype=float)
    if value.size != typed.size:
        return Outcome(
            "mismatch",
            f"{spec['expression']} is {value.size} number{'s' * (value.size != 1)} "
            f"(shape {list(value.shape)}); {typed.size} typed",
            value.tolist(),
        )
    tolerance = spec.get("tolerance") or {}
    reach = value_reach(expression, lookup, value, max_work=work, salt=salt).ravel()
    for entry, (got, number, figures) in enumerate(
        zip(value.ravel(), typed, spec["figures"], strict=True)
    ):
        at = f" (entry {entry})" if typed.size > 1 else ""
        written = re.findall(NUMBER, spec["typed"])[entry]
        if number == 0:
            if zero := _typed_zero(got, reach[entry], expression, lookup):
                return Outcome(zero[0], f"{written} typed{at}, {zero[1]}", value.tolist())
            continue
        typed_holds = partial(_typed_holds, number=number, figures=figures, tolerance=tolerance)
        if unsettled(typed_holds, got, reach[entry], number):
            return Outcome(
                "error",
                f"{written} typed{at}: the engine cannot tell whether {spec['expression']} is "
                f"{written}: float64's rounding may move its value ({got:.10g}) by "
                f"{reach[entry]:.3g}; write it with terms that do not cancel so far",
                value.tolist(),
            )
        result = _typed(got, number, figures, tolerance)
        if not result.ok:
            return Outcome(
                "mismatch",
                f"{written} typed{at}, the engine gives {got:.10g}: {result.message}",
                value.tolist(),
            )
        if not tolerance and (past := _past_last_places(written, got, number, reach[entry])):
            return Outcome(
                "mismatch", f"{written} typed{at}, the engine gives {got!r}: {past}", value.tolist()
            )
    return Outcome("verified", "", value.tolist())


LAST_PLACES = 4
"""A number typed past the 15 figures a comparison reads (16 or 17: float64's own shortest
form, 0.30000000000000004 = 0.1 + 0.2) says float64's value: it must be that, within this many
units in its last place beside how far rounding may move it. Checked at 15 figures alone,
1.414213562373099 = sqrt(2), wrong in its 16th, was verified."""


def _past_last_places(written: str, got: float, number: float, reach: float) -> str:
    """Why a number typed past MAX_DIGITS figures is not float64's value ("" when it is)."""
    figures = figures_of(written)
    unit = float(np.spacing(abs(got)))
    if figures <= MAX_DIGITS or abs(got - number) <= LAST_PLACES * unit + reach:
        return ""
    return (
        f"typed to {figures} significant figures, it says float64's value, which "
        f"it misses by {abs(got - number) / unit:.0f} units in the last place ({unit:.3g} each; "
        f"at most {LAST_PLACES})"
    )


def _typed_holds(got: Any, *, number: float, figures: int, tolerance: Mapping[str, Any]) -> bool:
    return bool(_typed(got, number, figures, tolerance).ok)


def _typed(got: Any, number: float, figures: int, tolerance: Mapping[str, Any]) -> Any:
    """The engine's ``got`` against one typed nonzero ``number``, to the claim's tolerance or
    the figures it is typed to."""
    if "rtol" in tolerance:
        return attention.compare(float(got), float(number), tolerance["rtol"], tolerance["atol"])
    digits = tolerance.get("digits", figures)
    return attention.compare(float(got), float(number), digits=digits)


def _typed_zero(got: float, reach: float, expression: Any, lookup: Any) -> tuple[str, str] | None:
    """A typed 0 holds where the value is within float64's rounding of it (`value_reach`): an
    exact 0 summed inexactly. None where it holds, else the status and why: an error where
    that rounding passes half a unit in the third figure of the smallest number the expression
    writes or reads, or LARGEST_NOISE (no band so wide says the value is 0), a mismatch where
    the value is further from 0 than its rounding."""
    if abs(float(got)) > reach:
        return "mismatch", (
            f"the engine gives {float(got):.10g}: further from 0 than float64's rounding of it "
            f"({float(reach):.3g}), so it is no 0"
        )
    least = least_written(expression, lookup, expression.names)
    band = abs(float(got)) + float(reach)
    if band > widest_zero(least):
        return "error", (
            f"the engine cannot tell whether {expression.text} is 0: float64's rounding may "
            f"leave it {band:.3g} from 0, past the third figure of its smallest number "
            f"({least:.3g}) or {LARGEST_NOISE:g}; write it with terms that do not cancel so far"
        )
    return None


def _doubt(relation: str, left: Any, right: Any, reach: Any, *, rtol: float, atol: float) -> str:
    """Where float64's rounding may decide whether a relation holds, which entry and by how
    much ("" where it decides nothing)."""
    right_wide = np.broadcast_to(right, np.broadcast_shapes(np.shape(left), np.shape(right)))
    apart = np.subtract(left, right)
    doubt = unsettled(
        lambda d: holding(relation, d + right_wide, right_wide, rtol=rtol, atol=atol),
        apart,
        reach,
        0.0,
    )
    if not np.any(doubt):
        return ""
    first = tuple(int(i) for i in np.argwhere(doubt)[0])
    where = f" at [{', '.join(map(str, first))}]" if first else ""
    return (
        f"{where}: float64's rounding may move the difference of its sides "
        f"({float(apart[first]):.3g}) by {float(reach[first]):.3g}"
    )


def _shown_inputs(values: Mapping[str, Any]) -> dict[str, Any]:
    shown = {}
    for name, value in values.items():
        array = np.asarray(value, dtype=float)
        flat = array.ravel()[:SHOWN_ENTRIES].tolist()
        shown[name] = (
            array.item() if array.ndim == 0 else {"shape": list(array.shape), "first": flat}
        )
    return shown


def _generated_as_arrays(inputs: Mapping[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """Each generated input as one array: the holds text and its rounding reruns read each name
    many times, and reading nested lists converts them each time (II.3's 2,000 x 16 draws: a
    quarter of its properties' time). Written inputs stay as written, refused as written."""
    return {
        name: np.asarray(value) if is_generator(inputs.get(name)) else value
        for name, value in values.items()
    }


def _property(spec: Mapping[str, Any]) -> Outcome:
    expression = parse(spec["holds"])
    rtol, atol = tolerance_of(spec)
    inputs, count = spec.get("inputs") or {}, int(spec["instances"])
    share = settings.LIMIT_CLAIM_WORK // count  # the property's work, whatever its instances
    salt = engine_salt()
    for instance in range(count):
        values = _generated_as_arrays(inputs, attention.expand_inputs(inputs, instance))
        left, right = sides(expression, values.__getitem__, max_work=share, salt=salt)
        if not np.size(left) or not np.size(right):
            return Outcome("error", f"compares nothing on instance {instance}: a side is empty")
        if vacuous := compared_vacuously(left, right, atol):
            return Outcome("error", f"compares nothing on instance {instance}: {vacuous}")
        relation = expression.relation or "=="
        reach = sides_reach(expression, values.__getitem__, left, right, max_work=share, salt=salt)
        if doubt := _doubt(relation, left, right, reach, rtol=rtol, atol=atol):
            return Outcome(
                "error",
                f"the engine cannot tell whether it holds on instance {instance}{doubt}",
                {"instance": instance, "inputs": _shown_inputs(values)},
            )
        ok, message = holds(relation, left, right, rtol=rtol, atol=atol)
        if not ok:
            counterexample = {"instance": instance, "inputs": _shown_inputs(values)}
            return Outcome("mismatch", f"fails on instance {instance}: {message}", counterexample)
    return Outcome("verified", "", {"instances": int(spec["instances"])})


def outcome(kind: str, spec: Mapping[str, Any], interrupt: tuple = ()) -> Outcome:
    """Decide one claim or property; an ``interrupt`` (the task's clock) is left to the caller."""
    try:
        with attention.cpu_budget(settings.VERIFY_ENGINE_SECONDS):
            return _claim(spec) if kind == "claim" else _property(spec)
    except (ExpressionError, attention.EngineInputError) as error:
        return Outcome("error", str(error))
    except KeyError as error:  # a name the text does not have
        return Outcome("error", f"no value named {error.args[0] if error.args else '?'}")
    except attention.EngineOverTime as over:
        return Outcome("error", f"{over} (VERIFY_ENGINE_SECONDS)")
    except interrupt:
        raise
    except Exception as error:  # noqa: BLE001 - memory, an engine fault: an error verdict
        logger.exception("engine failed on a %s", kind)
        return Outcome("error", f"the engine failed: {type(error).__name__}: {error}")
