"""The operations reference for authors, generated from the engine's registry (never by hand).

One source serves the site page, admin and the API: every operation with its inputs and their
shapes, its outputs with the ``ask`` selectors each accepts, and a worked example whose value
the engine computes here (and the test suite checks against the example's stated answer); and
what a problem's ``ask`` may select for its saved inputs (`ask_help`).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

import attention

SELECTORS = attention.SELECTORS
"""The integer ``ask`` keys, each indexing the output axis of that name."""


@dataclass(frozen=True)
class InputDoc:
    """One input as a problem's ``inputs`` gives it."""

    name: str
    kind: str
    what: str
    required: bool
    shape: str
    choices: tuple[str, ...]


@dataclass(frozen=True)
class OutputDoc:
    """One output a problem may ``ask`` for, and the selectors that narrow it."""

    name: str
    selectors: tuple[str, ...] | None  # None: a mapping of named numbers, not selectable


@dataclass(frozen=True)
class ExampleDoc:
    """The registry's worked example, with the engine's value for it."""

    inputs: dict[str, Any]
    ask: dict[str, Any]
    answer: Any
    value: Any
    note: str
    source: str  # the example as chapter-file YAML an author can paste into a problem


@dataclass(frozen=True)
class OperationDoc:
    """Everything an author needs to name one operation in a problem."""

    name: str
    description: str
    inputs: tuple[InputDoc, ...]
    outputs: tuple[OutputDoc, ...]
    example: ExampleDoc
    mistakes: tuple[tuple[str, str], ...]  # (name, what it says): what practice names


def _plain(value: Any) -> Any:
    """An engine value as JSON: arrays as nested lists, numpy scalars as Python numbers."""
    return value.tolist() if hasattr(value, "tolist") else value


def _flow(value: Any) -> str:
    """``value`` in YAML flow style (JSON is; the importer reads 1e-300 as a number)."""
    return json.dumps(value, separators=(", ", ": "))


def _example(name: str, operation: attention.Operation) -> tuple[ExampleDoc, dict]:
    example = operation.example
    assert example is not None, f"{name} has no worked example"
    inputs, ask = dict(example.inputs), dict(example.ask)
    value = _plain(attention.evaluate(name, inputs, ask))
    source = "\n".join(
        (
            f"operation: {name}",
            f"inputs: {_flow(inputs)}",
            f"ask: {_flow(ask)}",
            "solution:",
            f"  answer: {_flow(_plain(example.answer))}",
        )
    )
    selectors = attention.output_selectors(name, inputs)
    return ExampleDoc(inputs, ask, _plain(example.answer), value, example.note, source), selectors


@functools.cache
def operations_reference() -> tuple[OperationDoc, ...]:
    """Every operation in the registry's order (computed once per process)."""
    docs = []
    for name, operation in attention.OPERATIONS.items():
        example, selectors = _example(name, operation)
        docs.append(
            OperationDoc(
                name=name,
                description=operation.description,
                inputs=tuple(
                    InputDoc(
                        p.name, p.kind, attention.KINDS[p.kind], p.required, p.shape, p.choices
                    )
                    for p in operation.parameters
                ),
                outputs=tuple(OutputDoc(out, selectors.get(out, ())) for out in operation.outputs),
                example=example,
                mistakes=tuple((m.name, m.says) for m in operation.misconceptions),
            )
        )
    return tuple(docs)


def ask_help(operation: str | None = None, inputs: Any = None) -> str:
    """What ask may select: the outputs, and each output's selectors for these inputs (all
    selectors where no operation is known yet)."""
    selectors = ", ".join(f'"{name}"' for name in SELECTORS)
    general = (
        f'JSON: {{"output": ...}} and optionally {selectors}, each a 0-based index along the '
        "output's axis of that name."
    )
    if operation not in attention.OPERATIONS:
        return general
    axes = attention.output_axes(operation, inputs)
    if axes is None:
        outputs = ", ".join(attention.OPERATIONS[operation].outputs)
        return f"{general} {operation} gives: {outputs}."
    shown = "; ".join(
        f"{name} (named values, no selectors)"
        if dims is None
        else f"{name}: " + (", ".join(f"{axis} 0..{n - 1}" for axis, n in dims) or "a number")
        for name, dims in axes.items()
    )
    return f"{general} For these inputs {operation} gives {shown}."
