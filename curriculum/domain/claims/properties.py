"""A proposition's property, as its file or form writes it, checked numerically:

    check:
      inputs:
        s: {generate: normal, shape: [5], seed: 1}
        c: {generate: normal, shape: [], seed: 2}
      holds: softmax(scores=s + c).out == softmax(scores=s).out
      instances: 50
      tolerance: {rtol: 1.0e-12, atol: 1.0e-12}

The relation is evaluated on instances 0 .. N-1 of the generated inputs (`attention.generated`);
readers are told it was checked numerically on N random instances, never that it is proved.
"""

import ast
import math
from collections.abc import Mapping
from typing import Any

from django.conf import settings

from attention.expressions import ExpressionError, checked
from attention.generated import MAX_GENERATED_ELEMENTS, is_generator, spec_problems
from attention.scalars import is_finite_number

from .syntax import looser_than_typed

KEYS = ("inputs", "holds", "instances", "tolerance", "note")
"""Every key a property may hold; ``note`` says what the check leaves out, shown to readers."""


def property_errors(check: Any, path: str = "check") -> list[tuple[str, str]]:
    """Each problem with a property, by path; none for a well-formed one."""
    if not isinstance(check, Mapping):
        return [(path, "must be a mapping with inputs, holds and instances")]
    errors = [
        (f"{path}.{key}", f"unknown key (allowed: {', '.join(KEYS)})")
        for key in check
        if key not in KEYS
    ]
    errors += [
        (f"{path}.{key}", "is required") for key in ("holds", "instances") if key not in check
    ]
    inputs = check.get("inputs", {})
    if not isinstance(inputs, Mapping):
        errors.append((f"{path}.inputs", "must be a mapping of names to generators or numbers"))
        inputs = {}
    errors += _size_errors(inputs, f"{path}.inputs")
    for name, value in inputs.items():
        if not str(name).isidentifier():
            errors.append((f"{path}.inputs.{name}", "a name is letters, digits and _"))
        elif is_generator(value):
            problems = spec_problems(str(name), value)
            errors += [(f"{path}.{p.path}", p.message) for p in problems]
    instances = check.get("instances")
    limit = settings.LIMIT_PROPERTY_INSTANCES
    if "instances" in check and not (
        isinstance(instances, int) and not isinstance(instances, bool) and 1 <= instances <= limit
    ):
        errors.append(
            (f"{path}.instances", f"a whole number from 1 to {limit} (LIMIT_PROPERTY_INSTANCES)")
        )
    tolerance_errors = _tolerance_errors(check.get("tolerance", {}), f"{path}.tolerance")
    errors += tolerance_errors
    if isinstance(check.get("note", ""), str) is False:
        errors.append((f"{path}.note", "must be text"))
    if isinstance(holds := check.get("holds"), str):
        tolerance = None if tolerance_errors else tolerance_of(check)
        errors += _holds_errors(holds, set(map(str, inputs)), tolerance, f"{path}.holds")
    elif "holds" in check:
        errors.append((f"{path}.holds", "must be an expression, as text"))
    return errors


MAX_PROPERTY_RTOL = 1e-9
MAX_ATOL = 1e-9
"""A property's == is equality up to float noise: entry by entry within this rtol and atol (a
million times a float64 rounding, and far finer than an answer's tolerance: at an answer's
5e-4, a false identity off by a twentieth of a percent was verified). A statistical statement
says its bound as a relation instead (``abs(mean(x)) <= 0.1``), which readers see."""


MAX_INPUTS = 16


def _size_errors(inputs: Mapping[str, Any], path: str) -> list[tuple[str, str]]:
    """An instance draws at most MAX_GENERATED_ELEMENTS numbers over all its inputs, which are at
    most MAX_INPUTS: drawing them is work the expression's budget does not see."""
    if len(inputs) > MAX_INPUTS:
        return [(path, f"at most {MAX_INPUTS} inputs, got {len(inputs)}")]
    entries = 0
    for value in inputs.values():
        shape = value.get("shape", []) if is_generator(value) else []
        if isinstance(shape, list) and all(isinstance(n, int) and n > 0 for n in shape):
            entries += math.prod(shape)
    if entries > MAX_GENERATED_ELEMENTS:
        return [(path, f"draw {entries:,} numbers an instance; at most {MAX_GENERATED_ELEMENTS:,}")]
    return []


def _tolerance_errors(tolerance: Any, path: str) -> list[tuple[str, str]]:
    if not isinstance(tolerance, Mapping):
        return [(path, "must be a mapping of rtol and atol")]
    errors = [
        (f"{path}.{key}", "unknown key (allowed: rtol, atol)")
        for key in tolerance
        if key not in ("rtol", "atol")
    ]
    for key, most in (("rtol", MAX_PROPERTY_RTOL), ("atol", MAX_ATOL)):
        value = tolerance.get(key, 0.0)
        if not is_finite_number(value) or not 0 <= value <= most:
            errors.append(
                (
                    f"{path}.{key}",
                    f"a number from 0 to {most:g}: a looser == calls unequal things equal "
                    "(state a bound as a relation, <= or >=, instead)",
                )
            )
    return errors


def _holds_errors(
    holds: str, names: set[str], tolerance: tuple[float, float] | None, path: str
) -> list[tuple[str, str]]:
    """What is wrong with the relation; with a `tolerance` that is itself well formed, a
    constant an == states is held to the figures typed, as a claim's number is."""
    try:
        body, source, expression = checked(holds)
    except ExpressionError as error:
        return [(path, str(error))]
    errors = []
    if expression.relation is None:
        errors.append((path, "must state a relation: ==, <=, <, >= or >"))
    if unknown := sorted(expression.names - names):
        errors.append(
            (
                path,
                f"no input named {', '.join(unknown)} "
                f"(inputs: {', '.join(sorted(names)) or 'none'})",
            )
        )
    if errors or tolerance is None or expression.relation != "==":
        return errors
    assert isinstance(body, ast.Compare)  # a top-level relation
    written = [text for side in (body.left, *body.comparators) if (text := _constant(side, source))]
    rtol, atol = tolerance
    looser = looser_than_typed({"rtol": rtol, "atol": atol}, written)
    return [(path, looser)] if looser else []


def _constant(node: ast.expr, source: str) -> str:
    """A number as written (possibly signed), else ""."""
    number = node.operand if isinstance(node, ast.UnaryOp) else node
    if not isinstance(number, ast.Constant) or type(number.value) not in (int, float):
        return ""
    if isinstance(node, ast.UnaryOp) and not isinstance(node.op, (ast.USub, ast.UAdd)):
        return ""
    return (ast.get_source_segment(source, node) or "").replace("+", "", 1).replace(" ", "")


def tolerance_of(check: Mapping[str, Any]) -> tuple[float, float]:
    tolerance = check.get("tolerance") or {}
    return float(tolerance.get("rtol", 0.0)), float(tolerance.get("atol", 0.0))


def property_how(check: Mapping[str, Any]) -> str:
    """How a property is checked: on how many instances, within what tolerance."""
    count = int(check["instances"])
    rtol, atol = tolerance_of(check)
    within = f", within rtol {rtol:g}, atol {atol:g}" if rtol or atol else ""
    return f"on {count} random instance{'s' * (count != 1)}{within}"


def property_words(check: Mapping[str, Any]) -> str:
    """What readers are told: how it was checked, never that it is proved."""
    return f"Checked numerically {property_how(check)}: {check['holds']}"
