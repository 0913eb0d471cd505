"""The table of every operation the verifier may name, and the requests made of it.

``check`` never computes: it converts and inspects inputs, applies the size limits in
``attention.limits`` and validates the ``ask`` selector, returning every problem at once.
``evaluate`` runs ``check`` and only then computes, so bad or oversized input never reaches numpy.
``misconception_values`` answers the same request as each of the operation's common mistakes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from attention.budget import EngineOverTime
from attention.errors import EngineInputError, InputProblem
from attention.generated import expand_checked, is_generator
from attention.registry import (
    attention_ops,
    cost_ops,
    gradient_ops,
    kv_ops,
    layer_ops,
    position_ops,
)
from attention.registry.convert import convert, describe
from attention.registry.operation import SELECTORS, Axes, Misconception, Operation, Outputs, Values
from attention.scalars import is_bool
from attention.work import evaluation_work

OPERATIONS: dict[str, Operation] = {
    op.name: op
    for op in (
        attention_ops.SOFTMAX,
        attention_ops.SDPA,
        attention_ops.MHA,
        attention_ops.HEAD,
        cost_ops.COST,
        layer_ops.LAYER_NORM,
        layer_ops.RMS_NORM,
        layer_ops.FFN,
        position_ops.SINUSOIDAL,
        position_ops.ROPE,
        kv_ops.GQA,
        kv_ops.DECODE,
        gradient_ops.SOFTMAX_BACKWARD,
        gradient_ops.SDPA_BACKWARD,
        gradient_ops.MHA_BACKWARD,
        gradient_ops.CROSS_ENTROPY,
        layer_ops.BLOCK,
    )
}
"""Every operation the verifier may name, by name, in the order the reference lists them."""


def _check_ask(
    op: Operation, ask: object, axes: Outputs | None, problems: list[InputProblem]
) -> None:
    if not isinstance(ask, Mapping):
        problems.append(
            InputProblem("ask", f"must be a mapping with an 'output' key, got {describe(ask)}")
        )
        return
    for key in ask:
        if key != "output" and key not in SELECTORS:
            problems.append(
                InputProblem(f"ask.{key}", f"unknown key; expected output, {', '.join(SELECTORS)}")
            )
    output = ask.get("output")
    if output is None:
        problems.append(InputProblem("ask.output", f"is required: one of {', '.join(op.outputs)}"))
    elif not isinstance(output, str) or output not in op.outputs:
        problems.append(
            InputProblem(
                "ask.output", f"unknown output {output!r}; expected one of {', '.join(op.outputs)}"
            )
        )
        output = None
    if axes is not None and output is not None and output not in axes:
        problems.append(
            InputProblem("ask.output", f"{output!r} is not computed for these inputs{op.hint}")
        )
        output = None
    out_axes = None if axes is None or output is None else axes.get(output, ())
    for name in SELECTORS:
        if name not in ask:
            continue
        index = ask[name]
        path = f"ask.{name}"
        if is_bool(index) or not isinstance(index, (int, np.integer)):
            problems.append(InputProblem(path, f"must be an integer index, got {describe(index)}"))
            continue
        if output is None or axes is None:
            continue  # cannot tell which axes the output has
        if out_axes is None:
            problems.append(InputProblem(path, f"does not apply: output {output!r} is a mapping"))
            continue
        lengths = dict(out_axes)
        if name not in lengths:
            have = ", ".join(a for a, _ in out_axes) or "none, it is a scalar"
            problems.append(
                InputProblem(
                    path, f"does not apply: output {output!r} has no {name} axis (its axes: {have})"
                )
            )
        elif not 0 <= index < lengths[name]:
            problems.append(
                InputProblem(
                    path,
                    f"index {int(index)} is out of range: {output!r} has {lengths[name]} "
                    f"along {name} (0..{lengths[name] - 1})",
                )
            )


Analysis = tuple[list[InputProblem], Operation | None, Values, Outputs | None]
"""Problems, the operation, the converted inputs and the outputs' axes of one request."""


def _analyse(operation: object, inputs: object, ask: object, instance: int = 0) -> Analysis:
    problems: list[InputProblem] = []
    values: Values = {}
    op = OPERATIONS.get(operation) if isinstance(operation, str) else None
    if op is None:
        problems.append(
            InputProblem(
                "operation",
                f"unknown operation {operation!r}; expected one of {', '.join(OPERATIONS)}",
            )
        )
        return problems, None, values, None
    if not isinstance(inputs, Mapping):
        problems.append(
            InputProblem(
                "inputs", f"must be a mapping of input names to values, got {describe(inputs)}"
            )
        )
        _check_ask(op, ask, None, problems)
        return problems, op, values, None
    expanded, generator_problems = expand_checked(inputs, instance)  # generators become numbers
    problems += generator_problems
    names = [p.name for p in op.parameters]
    for key in inputs:
        if key not in names:
            problems.append(
                InputProblem(
                    f"inputs.{key}", f"unknown input for {op.name}; expected {', '.join(names)}"
                )
            )
    for param in op.parameters:
        if param.name not in inputs:
            if param.required:
                problems.append(
                    InputProblem(f"inputs.{param.name}", f"is required ({param.shape})")
                )
            continue
        if is_generator(inputs[param.name]) and param.kind not in ("matrix", "vector_or_matrix"):
            problems.append(
                InputProblem(f"inputs.{param.name}", f"cannot be generated: {param.shape}")
            )
            continue
        if is_generator(inputs[param.name]) and inputs[param.name]["generate"] == "integers":
            problems.append(  # integers draws a proposition's check (docs/content-format.md)
                InputProblem(
                    f"inputs.{param.name}.generate",
                    "integers draws a proposition's check only; a problem's inputs are drawn "
                    "with normal or uniform",
                )
            )
            continue
        if is_generator(expanded[param.name]):
            continue  # a bad generator mapping: its problems are reported above
        value = convert(param, expanded[param.name], problems)
        if value is not None:
            values[param.name] = value
    axes = op.plan(values, problems)
    _check_ask(op, ask, axes, problems)
    return problems, op, values, axes


def check(operation: object, inputs: object, ask: object, instance: int = 0) -> list[InputProblem]:
    """Every problem with a request, computing nothing; empty when ``evaluate`` will succeed.

    Generated inputs (``attention.generated``) are drawn for ``instance``: 0 is the author's."""
    return _analyse(operation, inputs, ask, instance)[0]


def check_planned(
    operation: object, inputs: object, ask: object, instance: int = 0
) -> tuple[list[InputProblem], Outputs | None]:
    """``check``'s problems and, when there are none, each output's axes (``output_axes``):
    one analysis, and one draw of generated inputs, for a caller that needs both."""
    problems, _, _, axes = _analyse(operation, inputs, ask, instance)
    return problems, None if problems else axes


def evaluate(
    operation: object, inputs: object, ask: object, instance: int = 0
) -> np.ndarray | dict[str, int]:
    """Compute the asked output: an array (0-d for scalars) narrowed by the selectors, or for
    ``terms`` a dict of term name to flops. Raises ``EngineInputError`` listing all problems."""
    problems, op, values, axes = _analyse(operation, inputs, ask, instance)
    if problems or op is None:
        raise EngineInputError(problems)
    assert isinstance(ask, Mapping) and axes is not None
    return _asked(_run(op, values)[ask["output"]], axes[ask["output"]], ask)


def _run(op: Operation, values: Values) -> Values:
    """The operation's outputs. A value past float range comes back as inf or NaN for the
    caller to judge (the verifier and the placeholders refuse it as not finite); numpy's
    warning would only fill a log."""
    with np.errstate(over="ignore", invalid="ignore"):
        return op.run(values)


def _asked(result: Any, axes: Axes | None, ask: Mapping[str, Any]) -> np.ndarray | dict[str, int]:
    """An output narrowed by the ``ask`` selectors along its ``axes``; a mapping as name: int."""
    if isinstance(result, dict):
        return {str(k): int(v) for k, v in result.items()}
    arr = np.asarray(result)
    labels = [name for name, _ in axes or ()]
    index = tuple(int(ask[label]) if label in ask else slice(None) for label in labels)
    return np.asarray(arr[index]) if index else arr


Mistaken = list[tuple[Misconception, np.ndarray | dict[str, int]]]
"""Misconceptions with the asked output as each computes it."""


def misconception_values(
    operation: str, inputs: Mapping[str, Any], ask: Mapping[str, Any], instance: int = 0
) -> Mistaken:
    """The asked output as each of the operation's misconceptions computes it, narrowed as
    ``evaluate`` narrows it, so a wrong answer equal to one can be told which mistake it is.

    Raises ``EngineInputError`` as ``evaluate`` does. Left out: a misconception that does not
    give this output, gives it in another shape or not finite, gives exactly the right value
    (its mistake makes no difference to these inputs), or fails (these inputs lack the shapes
    its mistake needs, such as as many queries as keys). Costs at most ``misconception_work``.
    """
    problems, op, values, axes = _analyse(operation, inputs, ask, instance)
    if problems or op is None:
        raise EngineInputError(problems)
    assert axes is not None
    output = ask["output"]
    full = _run(op, values)[output]
    right = _asked(full, axes[output], ask)
    found: Mistaken = []
    for misconception in op.misconceptions:
        mistaken = _mistaken_output(misconception, values, output, full)
        if mistaken is None:
            continue
        value = _asked(mistaken, axes[output], ask)
        if _differs_finitely(value, right):
            found.append((misconception, value))
    return found


def _mistaken_output(misconception: Misconception, values: Values, output: str, full: Any) -> Any:
    """The misconception's whole ``output`` in the form of the right one, ``full``; None when
    it gives none, gives another shape, or fails (these inputs lack what its mistake needs)."""
    try:
        with np.errstate(all="ignore"):  # a mistake may divide by zero: refused as not finite
            mistaken = misconception.run(dict(values)).get(output)
    except EngineOverTime:
        raise
    except Exception:  # numpy's or the engine's refusal of the mistaken shapes
        return None
    if mistaken is None or isinstance(mistaken, dict) != isinstance(full, dict):
        return None
    return mistaken if isinstance(full, dict) or np.shape(mistaken) == np.shape(full) else None


def _differs_finitely(
    value: np.ndarray | dict[str, int], right: np.ndarray | dict[str, int]
) -> bool:
    if isinstance(value, dict) or isinstance(right, dict):
        return value != right
    if value.dtype.kind not in "iuf" or not np.all(np.isfinite(value)):
        return False
    return not np.array_equal(value, right)


def misconception_work(operation: str, inputs: Mapping[str, Any], instance: int = 0) -> int | None:
    """The work of ``misconception_values`` for this request, in the units of
    ``evaluation_work``, to check against a budget before calling it: one evaluation for the
    right value and one for each misconception, which computes the operation the mistaken way
    at about the same cost. None where ``evaluation_work`` is. ``instance`` is taken so that
    the call mirrors ``misconception_values``; the work depends on the shapes only.
    """
    once = evaluation_work(operation, inputs)
    op = OPERATIONS.get(operation)
    if once is None or op is None:
        return None
    return (1 + len(op.misconceptions)) * once


def output_axes(operation: object, inputs: object, instance: int = 0) -> Outputs | None:
    """Each output's axes (selector name, length) for these inputs, None for a mapping output;
    None when the inputs do not fit the operation. What ``ask`` may select, to show an author."""
    problems, op, _, axes = _analyse(operation, inputs, {"output": ""}, instance)
    if op is None or any(not p.path.startswith("ask") for p in problems):
        return None
    return axes


NAMED_OUTPUT = "named"
"""What ``output_shape`` says of an output that is a mapping of named values."""


def output_shape(
    operation: object, inputs: object, ask: object, instance: int = 0
) -> tuple[int, ...] | str | None:
    """The shape of the value ``ask`` asks for, from the output's declared axes less those it
    selects (nothing is evaluated): NAMED_OUTPUT for a mapping, None when the inputs or ``ask``
    do not say (``check`` says why)."""
    axes = output_axes(operation, inputs, instance)
    return None if axes is None else shape_asked(axes, ask)


def shape_asked(axes: Outputs, ask: object) -> tuple[int, ...] | str | None:
    """``output_shape`` from the outputs' axes (``output_axes``, ``check_planned``)."""
    if not isinstance(ask, Mapping) or ask.get("output") not in axes:
        return None
    shape = axes[ask["output"]]
    if shape is None:
        return NAMED_OUTPUT
    return tuple(length for label, length in shape if label not in ask)


def output_selectors(
    operation: str, inputs: Mapping[str, Any]
) -> dict[str, tuple[str, ...] | None]:
    """For valid ``inputs``, each output's selectors in order (None for a mapping output): the
    ``ask`` keys that may narrow it, as the operations reference shows them."""
    problems, _, _, axes = _analyse(operation, inputs, {"output": OPERATIONS[operation].outputs[0]})
    if problems or axes is None:
        raise EngineInputError(problems)
    return {
        name: None if shape is None else tuple(label for label, _ in shape)
        for name, shape in axes.items()
    }


def instances_values(
    operation: str, inputs: Mapping[str, Any], ask: Mapping[str, Any], instances: Iterable[int]
) -> tuple[dict[int, np.ndarray | dict[str, int]], str]:
    """Each instance's asked value, and why one cannot be computed, naming the first that
    fails ("" if none; the values are then those before it).

    A generated problem is sound only when every reader instance is: a draw can make a value
    overflow, or, with other inputs, fail a check that instance 0 passed.
    """
    values: dict[int, np.ndarray | dict[str, int]] = {}
    for instance in instances:
        try:
            value = evaluate(operation, inputs, ask, instance=instance)
        except EngineInputError as error:
            return values, f"instance {instance}: {error}"
        numbers = value.values() if isinstance(value, dict) else [value]
        if not all(np.all(np.isfinite(np.asarray(n, dtype=np.float64))) for n in numbers):
            not_finite = "the engine's value is not finite (NaN or infinity)"
            return values, f"instance {instance}: {not_finite}"
        values[instance] = value
    return values, ""
