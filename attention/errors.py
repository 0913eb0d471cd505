"""Error types: one exception that carries every problem found, so callers can show them all."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class InputProblem:
    """One thing wrong with a request, located by a dotted path such as ``inputs.w_q``."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class EngineInputError(ValueError):
    """Raised when inputs cannot be computed on; ``problems`` lists every reason at once."""

    def __init__(self, problems: list[InputProblem] | InputProblem) -> None:
        if isinstance(problems, InputProblem):
            problems = [problems]
        self.problems: list[InputProblem] = list(problems)
        super().__init__("; ".join(str(p) for p in self.problems))


class ExpressionError(ValueError):
    """An expression that cannot be read or computed; the message is written for its author."""


def fail(path: str, message: str) -> EngineInputError:
    """Build a single-problem error (a shorthand for the many argument checks)."""
    return EngineInputError([InputProblem(path, message)])


def said(value: int) -> str:
    """An integer as a message shows it: past 20 digits, to 6 significant figures (a file's
    1e+300 is read as an integer of 301 digits)."""
    text = str(value)
    if len(text.lstrip("-")) <= 20:
        return text
    try:
        return f"{float(value):.6g}"
    except OverflowError:
        return f"an integer of {len(text.lstrip('-'))} digits"
