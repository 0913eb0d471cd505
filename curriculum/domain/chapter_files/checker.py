"""The checker every chapter-file check reports to: each error once, with its path, and nothing
reported again inside a path already refused (missing, or not a mapping)."""

from dataclasses import dataclass, field
from typing import Any

from django.core.validators import slug_re
from django.db.models import Model

from ..markup import math_errors
from ..placeholders import Room

SLUG_RE = slug_re  # what Django's SlugField accepts, so admin and files agree
MAX_WHOLE_NUMBER = 10_000  # chapter and proposition numbers, strand targets


@dataclass
class Checker:
    errors: list[str] = field(default_factory=list)
    # paths already reported missing or not a mapping: what is inside them is not reported again
    settled: set[str] = field(default_factory=set)
    typeset: Room = field(default_factory=Room)  # what the chapter's placeholders expand to

    def error(self, path: str, message: str) -> None:
        if any(path == p or path.startswith((f"{p}.", f"{p}[")) for p in self.settled):
            return
        self.errors.append(f"{path or 'top level'}: {message}")

    def mapping(
        self, value: Any, path: str, allowed: tuple[str, ...], required: tuple[str, ...] = ()
    ) -> dict:
        if not isinstance(value, dict):
            what = "a mapping of keys such as code, book, title" if not path else "a mapping"
            self.error(path, f"expected {what}, got {kind_of(value)}")
            self.settled.add(path)
            return {}
        for key in value:
            if key not in allowed:
                self.error(
                    f"{path}.{key}" if path else str(key),
                    f"unknown key (allowed: {', '.join(allowed)})",
                )
        for key in required:
            if key not in value:
                where = f"{path}.{key}" if path else key
                self.error(where, "is required")
                self.settled.add(where)
        return value

    def text(
        self,
        holder: dict,
        key: str,
        path: str,
        *,
        required: bool = False,
        markdown: bool = False,
        nullable: bool = False,
    ) -> str | None:
        value = holder.get(key)
        where = f"{path}.{key}" if path else key
        if value is None:
            if required:
                if key in holder:
                    self.error(where, "must not be empty")
                return ""
            return None if nullable else ""
        if not isinstance(value, str):
            self.error(where, f"expected text, got {kind_of(value)}")
            return ""
        if required and not value.strip():
            self.error(where, "must not be empty")
        if markdown:
            for problem in math_errors(value):
                self.error(where, problem)
        return value

    def integer(
        self,
        holder: dict,
        key: str,
        path: str,
        *,
        default: int = 0,
        minimum: int = 0,
        maximum: int = MAX_WHOLE_NUMBER,
    ) -> int:
        value = holder.get(key, default)
        where = f"{path}.{key}" if path else key
        if isinstance(value, bool) or not isinstance(value, int):
            self.error(where, f"expected a whole number, got {kind_of(value)}")
            return default
        if value < minimum:
            self.error(where, f"must be at least {minimum}, got {value}")
        elif value > maximum:
            self.error(where, f"must be at most {maximum}, got {value}")
            return default
        return value

    def fits(self, value: Any, path: str, model: type[Model], name: str) -> None:
        limit = getattr(model._meta.get_field(name), "max_length", None)
        if isinstance(value, str) and limit is not None and len(value) > limit:
            self.error(path, f"is {len(value)} characters long; at most {limit} fit")

    def boolean(self, holder: dict, key: str, path: str) -> bool:
        value = holder.get(key, False)
        if not isinstance(value, bool):
            self.error(f"{path}.{key}", f"expected true or false, got {kind_of(value)}")
            return False
        return value

    def sequence(self, holder: dict, key: str, path: str) -> list:
        value = holder.get(key, [])
        if value is None:
            return []
        if not isinstance(value, list):
            self.error(f"{path}.{key}" if path else key, f"expected a list, got {kind_of(value)}")
            return []
        return value


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


def numeral_text(value: Any) -> str:
    """`book: 0` and `label: 4` are read as numbers by YAML; they mean the text."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value
