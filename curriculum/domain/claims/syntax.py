"""Claims as an author writes them: a number typed in a text, marked with what it must equal.

``{{ 0.268941 = outputs.weights[1, 1] }}`` shows readers ``0.268941`` and is checked against
the engine's value of the expression, at the precision the number is written (6 significant
figures here, never fewer than the engine's floor of 3). ``(0.576117, 0.211942)`` types several
numbers, each held to its own figures. ``| digits 4`` or ``| rtol 1e-4 atol 1e-9`` states the
tolerance instead, bounded as an answer's is. The expression language is the engine's
(`attention.expressions`): parsed against an allowlist, never run as Python.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import attention
from attention.expressions import Expression, ExpressionError, parse

from ..placeholders import BRACES
from ..tolerances import MAX_DIGITS, tolerance_problems
from .pattern import CLAIM, CLAIM_OPENING, NUMBER, figures_of, said_of, words_of

TOLERANCE_WORDS = re.compile(r"(digits|rtol|atol)\s+(\S+)")


@dataclass(frozen=True)
class Claim:
    text: str  # as written, braces and all
    typed: str  # what readers see
    numbers: tuple[float, ...]
    figures: tuple[int, ...]  # significant figures each number is written to
    expression: Expression
    tolerance: dict[str, Any]  # {} (as written), {"digits": n}, or {"rtol", "atol"}

    @property
    def spec(self) -> dict[str, Any]:
        """What the worker checks, as stored (`ClaimVerdict.spec`), without its context."""
        return {
            "typed": self.typed,
            "numbers": list(self.numbers),
            "figures": list(self.figures),
            "expression": self.expression.text,
            "tolerance": self.tolerance,
        }

    def words(self) -> str:
        """How it is compared, for the reader's mark and the author's reasons."""
        return words_of(self._match())

    def said(self) -> str:
        return said_of(self._match())

    def _match(self) -> re.Match:
        found = CLAIM.fullmatch(self.text)
        assert found is not None  # made from a match
        return found


def _tolerance(text: str | None, numbers: tuple[float, ...]) -> dict[str, Any]:
    if not text:
        return {}
    words = dict(TOLERANCE_WORDS.findall(text))
    if not words or TOLERANCE_WORDS.sub("", text).strip():
        raise ExpressionError(f"tolerance {text!r}: write digits N, or rtol R atol A")
    try:
        if "digits" in words:
            if len(words) > 1:
                raise ExpressionError("give digits, or rtol and atol, not both")
            tolerance: dict[str, Any] = {"digits": int(words["digits"])}
        else:
            tolerance = {"rtol": float(words.get("rtol", 0)), "atol": float(words.get("atol", 0))}
    except ValueError as error:
        raise ExpressionError(f"tolerance {text!r}: not a number") from error
    answer = list(numbers) if len(numbers) > 1 else numbers[0]
    if found := tolerance_problems(**_as_problem(tolerance), answer=answer):
        raise ExpressionError("; ".join(f"{key}: {message}" for key, message in found.items()))
    return tolerance


def _as_problem(tolerance: dict[str, Any]) -> dict[str, Any]:
    if "digits" in tolerance:
        return {"rtol": 0.0, "atol": 0.0, "digits": tolerance["digits"]}
    return {**tolerance, "digits": None}


def claim_of(found: re.Match) -> Claim:
    """The claim a match writes; ExpressionError saying what is wrong with it."""
    typed = found["typed"]
    written = re.findall(NUMBER, typed)
    numbers = tuple(float(n.replace("\u2212", "-")) for n in written)
    figures = tuple(min(figures_of(n), MAX_DIGITS) for n in written)
    return Claim(
        text=found.group(),
        typed=typed,
        numbers=numbers,
        figures=figures,
        expression=parse(found["expression"]),
        tolerance=_tolerance(found["tolerance"], numbers),
    )


def claims_in(text: str | None) -> list[Claim]:
    """Every well-formed claim in a text, in order (`claim_errors` reports the others)."""
    claims = []
    for found in CLAIM.finditer(text or ""):
        try:
            claims.append(claim_of(found))
        except ExpressionError:
            continue
    return claims


def claim_errors(text: str | None) -> list[str]:
    """What is wrong with each claim in a text: its syntax or its tolerance."""
    if "{{" not in (text or ""):
        return []
    errors = [
        f"{shown(braces.group())} is not a claim: write {{{{ NUMBER = EXPRESSION }}}}, "
        "optionally with | digits N, or | rtol R atol A"
        for braces in BRACES.finditer(text or "")
        if CLAIM_OPENING.match(braces.group()) and not CLAIM.fullmatch(braces.group())
    ]
    for found in CLAIM.finditer(text or ""):
        try:
            claim_of(found)
        except ExpressionError as error:
            errors.append(f"claim {shown(found.group())}: {error}")
    return errors


def claim_name_errors(
    text: str | None, known: frozenset[str], *, every_instance: bool = False
) -> list[str]:
    """Each well-formed claim that reads a name its text does not have (``known``: a problem's
    inputs and outputs; prose has none). A text shown for every instance of a generated problem
    (`every_instance`: its statement) may not type a number its data draws: it is instance 0's."""
    errors = []
    for claim in claims_in(text) if "{{" in (text or "") else ():
        if every_instance and claim.expression.names:
            errors.append(
                f"claim {shown(claim.text)}: a generated problem's statement is shown for every "
                "instance, and this number is instance 0's: write a placeholder, "
                "{{ outputs.NAME }}, instead"
            )
            continue
        if unknown := sorted(claim.expression.names - known):
            have = ", ".join(sorted(known)) or "no named values (only a problem's texts do)"
            errors.append(
                f"claim {shown(claim.text)}: no value named {', '.join(unknown)} here "
                f"(known: {have})"
            )
    return errors


def shown(text: str) -> str:
    return text if len(text) <= 100 else f"{text[:80]}…{text[-15:]}"


def known_names(context: Mapping[str, Any] | None) -> frozenset[str]:
    """The names a claim in a problem's text may read: its inputs and the operation's outputs."""
    if context is None:
        return frozenset()
    inputs = context.get("inputs")
    names = {f"inputs.{name}" for name in inputs} if isinstance(inputs, Mapping) else set()
    operation = attention.OPERATIONS.get(str(context.get("operation")))
    return frozenset(
        names | {f"outputs.{name}" for name in (operation.outputs if operation else ())}
    )
