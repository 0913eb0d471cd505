"""Claims as an author writes them: a number typed in a text, marked with what it must equal.

``{{ 0.268941 = outputs.weights[1, 1] }}`` shows readers ``0.268941`` and is checked against
the engine's value of the expression, at the precision the number is written (6 significant
figures here, never fewer than the engine's floor of 3). ``(0.576117, 0.211942)`` types several
numbers, each held to its own figures. ``| digits 4`` or ``| rtol 1e-4 atol 1e-9`` states the
tolerance instead, bounded as an answer's is. The expression language is the engine's
(`attention.expressions`): parsed against an allowlist, never run as Python.
"""

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from urllib.parse import unquote

import numpy as np
from django.conf import settings

import attention
from attention.compare import half_unit
from attention.expressions import Expression, ExpressionError, parse

from ..markup import PARSER
from ..placeholders import BRACES
from ..tolerances import MAX_DIGITS, tolerance_problems
from .pattern import CLAIM, CLAIM_OPENING, NUMBER, claims_marked, figures_of, said_of, words_of

TOLERANCE_WORDS = re.compile(r"(digits|rtol|atol)\s+([0-9.eE+-]+)(?!\S)")


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


def _tolerance(text: str | None, written: list[str]) -> dict[str, Any]:
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
    if not all(math.isfinite(v) and v >= 0 for v in tolerance.values()):
        raise ExpressionError(f"tolerance {text!r}: each a finite number of at least 0")
    numbers = _numbers(written)
    answer = list(numbers) if len(numbers) > 1 else numbers[0]
    if found := tolerance_problems(**_as_problem(tolerance), answer=answer):
        raise ExpressionError("; ".join(f"{key}: {message}" for key, message in found.items()))
    if looser := looser_than_typed(tolerance, written):
        raise ExpressionError(looser)
    return tolerance


def past_float(number: str) -> bool:
    """Whether a typed number says more than float64 holds, so that figures past the 15th the
    check compares would go unchecked: 9007199254740993 reads as ...992. A float's own shortest
    form (0.7310585786300049, 17 figures at most) holds exactly what it says."""
    figures = figures_of(number)
    if figures <= MAX_DIGITS:
        return False
    plain = _plain(number)
    return figures > 17 or Decimal(plain) != Decimal(repr(float(plain)))


def _plain(number: str) -> str:
    """A typed number as Python reads it (a typographic minus written as "-")."""
    return number.replace("\u2212", "-")


def _numbers(written: list[str]) -> tuple[float, ...]:
    return tuple(float(_plain(n)) for n in written)


def looser_than_typed(tolerance: dict[str, Any], written: list[str]) -> str:
    """A stated tolerance may tighten the figures typed, never loosen them: a reader reads every
    figure of 0.2691, so a check to 3 would let its last one be wrong. ``written``: each number
    as typed; a property's constant (``sum(x) == 1.0001``) is held to it as a claim's is."""
    for text, number in zip(written, _numbers(written), strict=True):
        typed = min(figures_of(text), MAX_DIGITS)
        if "digits" in tolerance and tolerance["digits"] < typed:
            return (
                f"{text} is written to {typed} significant figures; digits "
                f"{tolerance['digits']} would let its last figures be wrong: type fewer"
            )
        half = float(half_unit(np.asarray(number), typed))
        if (
            "rtol" in tolerance
            and number
            and tolerance["atol"] + tolerance["rtol"] * abs(number) > half
        ):
            return (
                f"{text} is written to {typed} significant figures; this tolerance would let "
                "its last figure be wrong: tighten it, or type fewer figures"
            )
    return ""


def _as_problem(tolerance: dict[str, Any]) -> dict[str, Any]:
    if "digits" in tolerance:
        return {"rtol": 0.0, "atol": 0.0, "digits": tolerance["digits"]}
    return {**tolerance, "digits": None}


def claim_of(found: re.Match) -> Claim:
    """The claim a match writes; ExpressionError saying what is wrong with it."""
    typed = found["typed"]
    written = re.findall(NUMBER, typed)
    for number in written:
        if past_float(number):
            raise ExpressionError(
                f"{number} is written to {figures_of(number)} significant figures, more than "
                f"float64 holds (it reads as {_numbers([number])[0]!r}): type fewer"
            )
    numbers = _numbers(written)
    figures = tuple(min(figures_of(n), MAX_DIGITS) for n in written)
    return Claim(
        text=found.group(),
        typed=typed,
        numbers=numbers,
        figures=figures,
        expression=parse(found["expression"]),
        tolerance=_tolerance(found["tolerance"], written),
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
    return errors + claim_place_errors(text)


def _misplaced(tokens: list, found: list[str]) -> None:
    """Where a claim's mark would stand once its text is rendered: only prose and formulas show
    it; anywhere else (code, a link's address or title, an image) its place leaks."""
    for token in tokens:
        inside = token.content if token.type in ("code_inline", "code_block", "fence") else ""
        if token.type in ("image", "link_open"):
            inside = token.content + "".join(str(value) for value in token.attrs.values())
        if "\ue000" in unquote(inside):
            kind = {"link_open": "a link", "image": "an image"}.get(token.type, "code")
            found.append(kind)
        if token.children:
            _misplaced(token.children, found)


def claim_place_errors(text: str | None) -> list[str]:
    """A claim stands in prose or a formula: in code, a link's address or title, or an image it
    would be checked but not shown as a checked number."""
    if "{{" not in (text or "") or not CLAIM.search(text or ""):
        return []
    found: list[str] = []
    _misplaced(PARSER.parse(claims_marked(text or "")[0]), found)  # as the renderer reads it
    return [
        f"a claim inside {where} is not shown as a checked number: write it in prose or a formula"
        for where in dict.fromkeys(found)
    ]


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
                f"claim {shown(claim.text)}: a generated problem's statement and steps are shown "
                "for every instance, and this number is instance 0's: write a placeholder, "
                "{{ outputs.NAME }}, instead"
            )
            continue
        if unknown := sorted(claim.expression.names - known):
            have = ", ".join(sorted(known)) or "no named values (only a problem's texts do)"
            outputs = [n for n in unknown if n.startswith("outputs.")]
            why = (
                f"; {outputs_unreadable()}"
                if outputs and known and not any(n.startswith("outputs.") for n in known)
                else ""
            )
            errors.append(
                f"claim {shown(claim.text)}: no value named {', '.join(unknown)} here "
                f"(known: {have}){why}"
            )
    return errors


def shown(text: str) -> str:
    return text if len(text) <= 100 else f"{text[:80]}…{text[-15:]}"


def known_names(context: Mapping[str, Any] | None) -> frozenset[str]:
    """The names a claim in a problem's text may read: its inputs and, where `outputs_readable`,
    the operation's outputs."""
    if context is None:
        return frozenset()
    inputs = context.get("inputs")
    names = {f"inputs.{name}" for name in inputs} if isinstance(inputs, Mapping) else set()
    operation = attention.OPERATIONS.get(str(context.get("operation")))
    if operation is None or not outputs_readable(context):
        return frozenset(names)
    return frozenset(names | {f"outputs.{name}" for name in operation.outputs})


def outputs_readable(context: Mapping[str, Any]) -> bool:
    """Whether a claim may read a problem's outputs: computing them is work a claim may do
    (LIMIT_CLAIM_WORK). Else every claim reading them would run the whole problem again (a
    hostile test's 20 claims on one problem took 84 s of a worker)."""
    operation, inputs = context.get("operation"), context.get("inputs")
    if not isinstance(operation, str) or not isinstance(inputs, Mapping):
        return False
    work = attention.evaluation_work(operation, inputs)
    return work is not None and work <= settings.LIMIT_CLAIM_WORK


def outputs_unreadable() -> str:
    return (
        "a claim reads a problem's outputs only where computing them needs at most "
        f"LIMIT_CLAIM_WORK ({settings.LIMIT_CLAIM_WORK:.2g}) of engine work: claim its inputs, "
        "or make the problem smaller"
    )
