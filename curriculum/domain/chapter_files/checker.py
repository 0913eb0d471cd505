"""The checker every chapter-file check reports to: each error once, with its path. A part's
structure (keys, types, bounds) is the schema's; its errors are told in an author's words."""

import types
from dataclasses import dataclass, field
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from ..claims.syntax import claim_errors, claim_name_errors
from ..markup_checks import markup_errors
from ..placeholders import Room

KINDS = {
    "string_type": "text",
    "int_type": "a whole number",
    "bool_type": "true or false",
    "float_type": "a number",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
}


@dataclass
class Checker:
    errors: list[str] = field(default_factory=list)
    typeset: Room = field(default_factory=Room)  # what the chapter's placeholders expand to

    def error(self, path: str, message: str) -> None:
        self.errors.append(f"{path or 'top level'}: {message}")

    def structure(
        self, model: type[BaseModel], value: Any, path: str = "", *, partial: bool = False
    ) -> Any:
        """The value as the schema reads it, or None once its errors are reported; `partial`
        keeps the keys that are right, the others None, for the checks that read them."""
        try:
            return model.model_validate(value)
        except ValidationError as refusal:
            refused: set[str] = set()
            for error in refusal.errors():
                where = _path(path, error["loc"])
                self.error(where, _message(model, error, top=not where))
                refused.add(str(error["loc"][0]) if error["loc"] else "")
        if not partial or "" in refused:
            return None
        kept = model.model_construct(**dict.fromkeys(refused & set(model.model_fields)))
        for name, given in value.items():
            if name in model.model_fields and name not in refused:
                model.__pydantic_validator__.validate_assignment(kept, name, given)
        return kept

    def filled(self, value: str, path: str) -> None:
        if not value.strip():
            self.error(path, "must not be empty")

    def markdown(
        self,
        value: str | None,
        path: str,
        names: frozenset[str] = frozenset(),
        *,
        every_instance: bool = False,
    ) -> None:
        """Formulas that do not parse, and claims that are malformed or read a name that
        ``names`` (a problem's inputs and outputs) does not hold (`claim_name_errors`)."""
        found = markup_errors(value) + claim_errors(value)
        for problem in found + claim_name_errors(value, names, every_instance=every_instance):
            self.error(path, problem)


def _path(path: str, loc: tuple) -> str:
    for step in loc:
        path = f"{path}[{step}]" if isinstance(step, int) else f"{path}.{step}" if path else step
    return path


def _message(model: type[BaseModel], error: Any, *, top: bool) -> str:
    kind, value = error["type"], error["input"]
    owner, named = _field_at(model, error["loc"])
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return f"unknown key (allowed: {', '.join(owner.model_fields)})"
    if kind == "string_too_long":
        return f"is {len(value)} characters long; at most {error['ctx']['max_length']} fit"
    extra = named.json_schema_extra if named is not None else None
    if isinstance(extra, dict) and "expected" in extra:
        return f"expected {extra['expected']}, got {kind_of(value)}"
    if kind == "greater_than_equal":
        return f"must be at least {error['ctx']['ge']}, got {value}"
    if kind == "less_than_equal":
        return f"must be at most {error['ctx']['le']}, got {value}"
    if kind == "literal_error":
        return f"expected one of {', '.join(get_args(named.annotation))}, got {kind_of(value)}"
    if top and kind == "model_type":
        return f"expected a mapping of keys such as code, book, title, got {kind_of(value)}"
    if kind in KINDS:
        return f"expected {KINDS[kind]}, got {kind_of(value)}"
    return str(error["msg"])


def _field_at(model: type[BaseModel], loc: tuple) -> tuple[type[BaseModel], Any]:
    """The model holding the last named key of `loc`, and that key's field (None inside a
    free mapping such as inputs)."""
    owner, named = model, None
    current: Any = model
    for step in loc:
        current = _inner(current)
        if isinstance(step, str):
            if isinstance(current, type) and issubclass(current, BaseModel):
                owner, named = current, current.model_fields.get(step)
                current = named.annotation if named else Any
            else:
                named, current = None, Any
    return owner, named


def _inner(annotation: Any) -> Any:
    """A list's entry or an optional's value: the annotation one step inside."""
    args = [a for a in get_args(annotation) if a is not type(None)]
    if get_origin(annotation) in (Union, types.UnionType) and len(args) == 1:
        return _inner(args[0])
    return args[-1] if get_origin(annotation) in (list, dict) else annotation


def all_texts(value: Any) -> list[str]:
    """Every string in a document, wherever it sits, in order (a stack, not a generator per
    level: a file's lists of numbers hold a million values)."""
    texts, stack = [], [value]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, dict):
            stack.extend(reversed(value.values()))
        elif isinstance(value, list):
            stack.extend(reversed(value))
    return texts


def kind_of(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"a boolean ({value})"
    if isinstance(value, int | float):
        return f"a number ({value})"
    if isinstance(value, str):
        shown = value if len(value) <= 30 else value[:27] + "..."
        return f"text ({shown!r})"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__
