"""Placeholders: a statement or solution step places an input, or the engine's value of an
output, as TeX built from the problem's data, so a matrix is written once and the page and the
data cannot disagree.

``{{ inputs.x }}`` is input x as stored (a generated input as drawn for the instance shown);
``{{ outputs.out }}`` is the engine's whole output ``out``, to SHOWN_DIGITS significant figures;
``{{ inputs.x | digits 3 }}`` shows 3 significant figures. A placeholder is TeX, so it goes
inside ``$...$`` or ``$$...$$``. This module needs only the engine, so models may call it.
"""

import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.conf import settings

import attention
from attention.compare import MAX_FIGURES

from .claims.pattern import CLAIM_OPENING
from .markup import formulas

SHOWN_DIGITS = 6
"""Significant figures a reader page shows of an answer or an output."""

MAX_DIGITS = MAX_FIGURES

PLACEHOLDER = re.compile(
    r"\{\{\s*(?P<kind>inputs|outputs)\.(?P<name>[A-Za-z_]\w*)\s*"
    r"(?:\|\s*digits\s+(?P<digits>\d+)\s*)?\}\}"
)
BRACES = re.compile(r"\{\{.*?\}\}", re.DOTALL)


def _number(value: Any, digits: int | None) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    if digits is None and isinstance(value, (int, np.integer)):
        return str(int(value))
    text = repr(float(value)) if digits is None else f"{float(value):.{digits}g}"
    mantissa, _, exponent = text.partition("e")
    mantissa = mantissa.removesuffix(".0")
    return f"{mantissa} \\times 10^{{{int(exponent)}}}" if exponent else mantissa


def _rows(array: np.ndarray, digits: int | None) -> str:
    if array.ndim == 1:
        array = array.reshape(1, -1)
    body = r" \\ ".join(" & ".join(_number(v, digits) for v in row) for row in array.tolist())
    return rf"\begin{{pmatrix}} {body} \end{{pmatrix}}"


def to_tex(value: Any, digits: int | None = None) -> str:
    """A number, vector (a row), matrix or stack of matrices as TeX; named values as a list."""
    if isinstance(value, Mapping):
        return r",\ ".join(
            rf"\text{{{str(k).replace('_', r'\_')}}} = {to_tex(v, digits)}"
            for k, v in value.items()
        )
    array = np.asarray(value, dtype=object)
    if array.ndim == 0:
        return _number(array.item(), digits)
    if array.ndim <= 2:
        return _rows(array, digits)
    return r",\ ".join(to_tex(part, digits) for part in array)


class _Values:
    """The inputs at one instance and, computed only when asked for, the engine's outputs."""

    def __init__(self, operation: Any, inputs: Any, instance: int) -> None:
        self.operation, self.raw, self.instance = operation, inputs, instance
        self.outputs: dict[str, Any] = {}

    def get(self, kind: str, name: str) -> Any:
        """The value, or raise KeyError / attention.EngineInputError saying why there is none."""
        if kind == "inputs":
            if not isinstance(self.raw, Mapping) or name not in self.raw:
                raise KeyError(name)
            return attention.expand_inputs({name: self.raw[name]}, self.instance)[name]
        operation = attention.OPERATIONS.get(self.operation)
        if operation is None or name not in operation.outputs:
            raise KeyError(name)
        if name not in self.outputs:
            self._typesettable(name)  # before computing: a page is rendered on request
            ask = {"output": name}
            self.outputs[name] = attention.evaluate(self.operation, self.raw, ask, self.instance)
        _finite_require(self.outputs[name])
        return self.outputs[name]

    def _typesettable(self, name: str) -> None:
        axes = attention.output_axes(self.operation, self.raw, self.instance) or {}
        dims = axes.get(name)
        if dims and (size := math.prod(n for _, n in dims)) > settings.LIMIT_VALUE_TYPESET_ENTRIES:
            raise TooLarge(size)


class TooLarge(ValueError):
    """More entries than one placeholder may typeset (LIMIT_VALUE_TYPESET_ENTRIES)."""

    def __init__(self, size: int) -> None:
        limit = settings.LIMIT_VALUE_TYPESET_ENTRIES
        super().__init__(
            f"has {size} entries, too many to typeset (at most {limit}, "
            "LIMIT_VALUE_TYPESET_ENTRIES)"
        )
        self.size = size


class NotFinite(ValueError):
    """An output the engine computes as inf or nan: no number to show a reader."""


def _finite_require(value: Any) -> None:
    for part in value.values() if isinstance(value, Mapping) else [value]:
        array = np.asarray(part, dtype=float)
        if not np.all(np.isfinite(array)):
            where = [int(i) for i in np.argwhere(~np.isfinite(array))[0]]
            at = f" at {where}" if where else ""
            raise NotFinite(f"the engine computes {array[tuple(where)]}{at}: no number to show")


@dataclass
class Room:
    """Entries a chapter's placeholders may still typeset (LIMIT_CHAPTER_TYPESET_ENTRIES): a
    placeholder is small to write and large to typeset, so what they expand to is counted
    where a chapter is checked, and a chapter stored before the limit is shown within it."""

    used: int = 0
    reported: bool = False

    def take(self, entries: int) -> bool:
        if self.used + entries > settings.LIMIT_CHAPTER_TYPESET_ENTRIES:
            return False
        self.used += entries
        return True


def value_entries(value: Any) -> int:
    """The numbers a value typesets: each of an array's entries, each named value's."""
    if isinstance(value, Mapping):
        return sum(value_entries(v) for v in value.values())
    return int(np.size(np.asarray(value, dtype=object)))


def _choices(values: _Values, kind: str) -> str:
    if kind == "inputs":
        names = list(values.raw) if isinstance(values.raw, Mapping) else []
    else:
        operation = attention.OPERATIONS.get(values.operation)
        names = list(operation.outputs) if operation else []
    return ", ".join(map(str, names)) or "none"


def placeholder_errors(
    text: str, *, operation: Any, inputs: Any, room: Room | None = None
) -> list[str]:
    """Each placeholder in the text that cannot be shown, and why; and whether the text, or the
    chapter whose `room` it takes from, would typeset more entries than its limit."""
    if "{{" not in text:
        return []
    values, errors, entries = _Values(operation, inputs, 0), [], 0
    for match in BRACES.finditer(text):
        if CLAIM_OPENING.match(match.group()):
            continue  # a claim: its own checks say what is wrong with it
        found = PLACEHOLDER.fullmatch(match.group())
        if found is None:
            errors.append(
                f"{match.group()} is not a placeholder: write {{{{ inputs.NAME }}}} or "
                f"{{{{ outputs.NAME }}}}, optionally with | digits N; or a claim, "
                f"{{{{ NUMBER = EXPRESSION }}}}"
            )
            continue
        kind, name, digits = found["kind"], found["name"], found["digits"]
        if digits is not None and not 1 <= int(digits) <= MAX_DIGITS:
            errors.append(f"{match.group()}: digits must be from 1 to {MAX_DIGITS}")
        try:
            value = values.get(kind, name)
        except KeyError:
            errors.append(f"{match.group()}: no {kind[:-1]} {name} (has: {_choices(values, kind)})")
            continue
        except attention.EngineInputError as error:
            errors.append(f"{match.group()}: cannot be computed: {error}")
            continue
        except (TooLarge, NotFinite) as error:
            errors.append(f"{match.group()}: {error}")
            continue
        if (size := value_entries(value)) > settings.LIMIT_VALUE_TYPESET_ENTRIES:
            errors.append(f"{match.group()}: {TooLarge(size)}")
        entries += size
    errors += _outside_math(text)
    limit = settings.LIMIT_TEXT_TYPESET_ENTRIES
    if not errors and entries <= limit:
        errors += _formulas_too_long(_expanded(text, values, Room()))
    if entries > limit:
        errors.append(
            f"its placeholders typeset {entries:,} entries; at most {limit:,} in one text "
            "(LIMIT_TEXT_TYPESET_ENTRIES)"
        )
    elif room is not None and not room.take(entries) and not room.reported:
        room.reported = True
        errors.append(
            f"the chapter's placeholders would typeset more than "
            f"{settings.LIMIT_CHAPTER_TYPESET_ENTRIES:,} entries (LIMIT_CHAPTER_TYPESET_ENTRIES)"
        )
    return errors


def _outside_math(text: str) -> list[str]:
    """A placeholder outside every formula: its TeX would be shown raw (`\\begin{pmatrix}`)."""
    inside = Counter(
        found.group() for tex, _ in formulas(text) for found in PLACEHOLDER.finditer(tex)
    )
    errors = []
    for found in PLACEHOLDER.finditer(text):
        if inside[found.group()] > 0:
            inside[found.group()] -= 1
        else:
            errors.append(
                f"{found.group()} is outside mathematics: a placeholder is TeX, so it goes "
                "inside $...$ or $$...$$"
            )
    return errors


def _formulas_too_long(expanded: str) -> list[str]:
    """A formula that only its placeholders make too long for KaTeX (LIMIT_FORMULA_CHARS),
    which readers would see as an error: said where the text is written."""
    limit = settings.LIMIT_FORMULA_CHARS
    longest = max((len(tex) for tex, _ in formulas(expanded)), default=0)
    if longest <= limit:
        return []
    return [
        f"a formula its placeholders fill is {longest:,} characters of TeX; at most {limit:,} "
        "(LIMIT_FORMULA_CHARS)"
    ]


def placeholders_expand(
    text: str, *, operation: Any, inputs: Any, instance: int = 0, room: Room | None = None
) -> str:
    """The text with each placeholder replaced by its TeX at ``instance`` (0: the author's).

    One that cannot be shown (validation reports it), or past the text's or the chapter's
    `room` for typeset entries (a chapter stored before those limits), is left as written.
    """
    if "{{" not in text:
        return text
    return _expanded(text, _Values(operation, inputs, instance), room or Room())


def _expanded(text: str, values: _Values, room: Room) -> str:
    """The expansion itself, from values a caller may already hold (validation has computed
    them: the engine is not asked twice)."""
    left = [settings.LIMIT_TEXT_TYPESET_ENTRIES]

    def replace(match: re.Match[str]) -> str:
        try:
            value = values.get(match["kind"], match["name"])
        except (KeyError, attention.EngineInputError, TooLarge, NotFinite):
            return match.group()
        size = value_entries(value)
        if size > settings.LIMIT_VALUE_TYPESET_ENTRIES or size > left[0] or not room.take(size):
            return match.group()
        left[0] -= size
        digits = match["digits"]
        if digits is None:
            return to_tex(value, SHOWN_DIGITS if match["kind"] == "outputs" else None)
        return to_tex(value, min(max(int(digits), 1), MAX_DIGITS))

    return PLACEHOLDER.sub(replace, text)


def answer_shown_errors(text: str) -> list[str]:
    """An exercise's statement is printed for every reader before they answer: one that reads
    its outputs (a placeholder or a claim) would print the answer."""
    return [
        f"`{' '.join(found.group().split())}` shows the answer: an exercise's statement may read "
        "its inputs, never its outputs (they belong in its solution)"
        for found in BRACES.finditer(text)
        if "outputs" in found.group()
    ]
