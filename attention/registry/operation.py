"""What an operation of the registry is: its parameters, outputs, worked example, plan and run.

An operation's ``plan`` reads converted inputs, adds every problem it finds and returns each
output's axes (or None when the inputs do not fit); its ``run`` computes on planned inputs only.
Its ``misconceptions`` run on the same planned inputs, each computing a common mistake, so a
wrong answer can be told what it is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from attention.errors import InputProblem

SELECTORS: tuple[str, ...] = ("batch", "head", "row", "col")
"""Optional integer ``ask`` keys, applied in this order, each indexing the output axis so named."""

Axes = tuple[tuple[str, int], ...]
"""An output's axes as (selector name, length) pairs; ``None`` in place of Axes marks a mapping."""

Outputs = dict[str, Axes | None]
"""Each output's axes, by output name, as a plan returns them."""

Values = dict[str, Any]
"""Values by name: the converted inputs a plan reads and a run takes, or the outputs it returns."""


@dataclass(frozen=True)
class Parameter:
    """One named input of an operation: its kind, whether it is required and its expected shape."""

    name: str
    kind: str  # a key of KINDS
    required: bool
    shape: str
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Example:
    """A worked request for the operations reference; the test suite evaluates every one."""

    inputs: Mapping[str, Any]
    ask: Mapping[str, Any]
    answer: Any
    note: str = ""


@dataclass(frozen=True)
class Misconception:
    """A common mistake with an operation: what a reader who makes it computes, and what to tell
    one whose answer matches it.

    ``run`` takes the planned inputs as ``Operation.run`` does, reads them without changing
    them, and returns the outputs the mistake changes, shaped as the correct ones; an output it
    leaves out (or one whose shape the mistake would change) has no mistaken value.
    """

    name: str  # a slug, unique within its operation
    says: str  # one plain sentence naming the mistake, for the reader
    run: Callable[[Values], Values]


@dataclass(frozen=True)
class Operation:
    """A computation the verifier may ask for, with its inputs, outputs and implementation."""

    name: str
    description: str
    parameters: tuple[Parameter, ...]
    outputs: tuple[str, ...]
    plan: Callable[[Values, list[InputProblem]], Outputs | None]
    run: Callable[[Values], Values]
    example: Example | None = None
    hint: str = ""  # why an output may be unavailable, appended to that error
    misconceptions: tuple[Misconception, ...] = ()
    counts: bool = False  # every output is a count (integers), which ``compare`` takes exactly

    def parameter(self, name: str) -> Parameter | None:
        """The parameter called ``name``, or None."""
        return next((p for p in self.parameters if p.name == name), None)
