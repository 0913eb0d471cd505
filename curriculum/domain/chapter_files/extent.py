"""What a chapter document stands for, measured without expanding it: how many numbers it holds
and how many bytes it takes written out, as `dump_yaml` writes it or as JSON, whichever is more.

An alias (`*name`) counts wherever it stands, yet each value is measured once for each place
it is written at, so a file of nested aliases that stands for billions of values is refused
after a few thousand steps, in no more memory than the file, and so is a value that holds
itself. The written size is an upper bound (a few percent over, for ordinary text): kept under
LIMIT_CHAPTER_FILE_BYTES, every chapter stored can be exported, and its export (or its JSON)
imported again.
"""

import functools
import itertools
import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from .errors import ChapterFileError

WIDTH = 100
"""`dump_yaml`'s line width: past it YAML folds a long line, adding a break and indentation."""
STEP = 2  # `dump_yaml`'s indentation
SEARCHED_PARTS = 1000
"""A list or mapping with more parts than this is named itself as the part past a limit, not
searched for one of them that alone is: measuring each of a million small ones again took
seconds of a request."""

# What writing a text may add to its UTF-8 bytes, by character, in YAML's quoted styles or JSON.
_CONTROL = re.compile("[\x00-\x09\x0b-\x1f]")  # five more: JSON's \u0001 (YAML's \x01: three)
_ESCAPED = re.compile("[\x7f-\x84\x86-\x9f\ufeff\ufffe\uffff]")  # three more: YAML's \x7F, \uFEFF
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")  # six more: YAML's \U0001F600 in double quotes
_BREAKS = re.compile("[\n\x85\u2028\u2029]")  # each may begin a new, indented line
_RAW_BREAKS = re.compile("[\x85\u2028\u2029]")  # the others: single quotes write them as breaks
_NOT_LITERAL = re.compile(  # what keeps a text with line breaks out of YAML's `|` block
    " [\n\x85\u2028\u2029]| $|\ufeff"
    "|[^\n\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010fffe]"
)


@dataclass(frozen=True)
class Extent:
    numbers: int
    size: int  # bytes written, at most
    depth: int = 0  # lists and mappings nested in it, itself included


type Place = tuple[str, int, int]
"""Where a value is written: ("root", "value" of a mapping entry, "item" of a list, or "flow"
inside brackets), the indentation of its lines, and the column it starts at."""
ROOT: Place = ("root", 0, 0)
FLOW: Place = ("flow", 0, 0)


class _HoldsItself(Exception):
    pass


def document_extent(document: Any) -> Extent:
    return _Measure().extent(document, ROOT)


def extent_errors(document: Any, *, where: str) -> list[str]:
    """The limits a document breaks (LIMIT_CHAPTER_NUMBERS, LIMIT_CHAPTER_FILE_BYTES), each
    naming the smallest part that alone breaks it (`where`: the document as a whole)."""
    measure = _Measure()
    try:
        whole = measure.extent(document, ROOT)
    except _HoldsItself:
        return [f"{where}: a value holds itself (an alias, *name, inside its own anchor)"]
    errors = []
    numbers, size = settings.LIMIT_CHAPTER_NUMBERS, settings.LIMIT_CHAPTER_FILE_BYTES
    if whole.numbers > numbers:
        path, part = measure.smallest(document, where, whole, lambda e: e.numbers > numbers)
        errors.append(
            f"{path}: holds {part.numbers:,} numbers, each alias (*name) counted where it "
            f"stands; at most {numbers:,} (LIMIT_CHAPTER_NUMBERS)"
        )
    if whole.size > size:
        path, part = measure.smallest(document, where, whole, lambda e: e.size > size)
        errors.append(
            f"{path}: is {part.size:,} bytes written out as a chapter file, each alias (*name) "
            f"counted where it stands; at most {size:,} (LIMIT_CHAPTER_FILE_BYTES)"
        )
    return errors


def extent_check(document: Any, *, where: str) -> None:
    if errors := extent_errors(document, where=where):
        raise ChapterFileError(errors)


class _Measure:
    def __init__(self) -> None:
        self.memo: dict[tuple[int, Place], tuple[int, int, int]] = {}
        self.texts: dict[tuple[Any, Place], int] = {}
        self.flat: dict[int, tuple[int, int, int]] = {}
        self.open: set[int] = set()  # the lists and mappings being measured: an alias to one
        # of them inside itself would stand for an endless value
        self.bracketed: dict[int, bool] = {}  # each list's `_in_brackets`, a pass over it

    def extent(self, value: Any, place: Place) -> Extent:
        numbers, size, depth = self._measured(value, place)
        if place == ROOT:  # the last line's break, and the end marker (...) after a bare value
            size += 5
        return Extent(numbers, size, depth)

    def _measured(self, value: Any, place: Place) -> tuple[int, int, int]:
        """(numbers, bytes, depth), each list, mapping and text once for each place."""
        if isinstance(value, dict | list) and value:
            if place[0] == "flow" or self._in_brackets(value):
                numbers, size, depth = self._flat(value)
                if place[0] != "flow":  # one bracketed line, folded past the width
                    size += _folds(place[2], size, place[1] + STEP * depth)
                return numbers, size, depth
            key = (id(value), place)
            if key not in self.memo:
                self._enter(value)
                self.memo[key] = self._block(value, place)
                self.open.discard(id(value))
            return self.memo[key]
        if isinstance(value, str):  # an alias may repeat a long text; short ones repeat anyway
            text_key = (id(value), place) if len(value) > 64 else (value, place)
            if text_key not in self.texts:
                self.texts[text_key] = _text(value, place)
            return 0, self.texts[text_key], 0
        return _scalar(value)

    def _block(self, value: dict | list, place: Place) -> tuple[int, int, int]:
        numbers, size, depth = 0, 2, 0  # 2: JSON's brackets
        for _, child, child_place, lead in _parts(value, place, bracketed=False):  # else `_flat`
            n, s, d = self._measured(child, child_place)
            numbers, size, depth = numbers + n, size + lead + s, max(depth, d)
        return numbers, size, depth + 1

    def _flat(self, value: dict | list) -> tuple[int, int, int]:
        """Inside brackets, where nothing depends on the place: once for each list or mapping."""
        if id(value) in self.flat:
            return self.flat[id(value)]
        self._enter(value)
        numbers, size, depth = 0, 2, 0  # the brackets; each item then adds ", "
        mapping = isinstance(value, dict)
        pairs: Iterable[tuple[Any, Any]] = (
            value.items() if isinstance(value, dict) else zip(itertools.repeat(None), value)
        )
        for key, item in pairs:
            if mapping:
                size += _key(key, 0) + 2  # "key: "
            kind = type(item)
            if kind is float or kind is int:  # most of a large file: counted here, in line
                numbers, size = numbers + 1, size + 2 + len(_scalar_text(item))
                continue
            n, s, d = self._measured(item, FLOW)
            numbers, size, depth = numbers + n, size + 2 + s, max(depth, d)
        self.open.discard(id(value))
        self.flat[id(value)] = (numbers, size, depth + 1)
        return self.flat[id(value)]

    def _in_brackets(self, value: Any) -> bool:
        if id(value) not in self.bracketed:
            self.bracketed[id(value)] = _in_brackets(value)
        return self.bracketed[id(value)]

    def _enter(self, value: Any) -> None:
        if id(value) in self.open:
            raise _HoldsItself
        self.open.add(id(value))

    def smallest(
        self, document: Any, where: str, whole: Extent, over: Callable[[Extent], bool]
    ) -> tuple[str, Extent]:
        """The deepest part that alone is over the limit: where the author should look."""
        path, value, place, extent = where, document, ROOT, whole
        while isinstance(value, dict | list) and value:
            if len(value) > SEARCHED_PARTS:
                break
            for name, child, child_place, _ in _parts(value, place, self._in_brackets(value)):
                part = self.extent(child, child_place)
                if over(part):
                    step = f"[{name}]" if isinstance(value, list) else f".{name}"
                    path = step.lstrip(".") if path == where else path + step
                    value, place, extent = child, child_place, part
                    break
            else:
                break
        return path, extent


def _parts(
    value: dict | list, place: Place, bracketed: bool
) -> Iterator[tuple[Any, Any, Place, int]]:
    """Each (key or index, child, where it is written, what precedes it: a line break,
    indentation, a key or "-", and a space; never less than JSON's ", " and ": "); `bracketed`:
    the value is a list `dump_yaml` writes in brackets."""
    kind, indent, _ = place
    if kind == "flow" or bracketed:
        if isinstance(value, dict):
            for key, child in value.items():
                yield key, child, FLOW, _key(key, 0) + 4  # "key: " and ", "
        else:
            for i, child in enumerate(value):
                yield i, child, FLOW, 2
    elif isinstance(value, dict):
        entries = 0 if kind == "root" else indent + STEP
        line = max(1 + entries, 2)
        for key, child in value.items():
            written = _key(key, entries)
            under = "item" if _complex(key) else "value"  # "? key" indents a list beneath it
            yield key, child, (under, entries, entries + written + 2), line + written + 2
    else:
        items = {"root": 0, "value": indent}.get(kind, indent + STEP)  # "- " at a key's indent
        line = max(1 + items, 2)
        for i, child in enumerate(value):
            yield i, child, ("item", items, items + STEP), line + 2


def _in_brackets(value: Any) -> bool:
    """As `dump_yaml` writes them: a list of numbers, booleans or lists goes in brackets."""
    return isinstance(value, list) and all(isinstance(item, int | float | list) for item in value)


@functools.lru_cache(maxsize=4096)  # the format's keys, again and again
def _key_written(kind: str, key: Any, indent: int) -> int:
    size = _quoted(key if kind == "str" else _scalar_text(key))
    return size + indent + 4 if _complex(key) else size  # "? key", a break, indentation, ":"


def _key(key: Any, indent: int) -> int:
    return _key_written(type(key).__name__, key, indent)  # True, 1 and 1.0 are equal keys


def _complex(key: Any) -> bool:
    """A key YAML writes after "? ": empty, long, or on several lines."""
    return isinstance(key, str) and (key == "" or len(key) >= 128 or bool(_BREAKS.search(key)))


def _scalar_text(value: Any) -> str:
    """The longer of YAML's and JSON's spelling."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "false" if not value else "true"
    if isinstance(value, float):
        if not math.isfinite(value):
            return "-Infinity"
        text = repr(value)
        return text.replace("e", ".0e") if "e" in text and "." not in text else text  # 1.0e-06
    return str(value)


def _scalar(value: Any) -> tuple[int, int, int]:
    if isinstance(value, dict | list):  # empty: {} or []
        return 0, 2, 0
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return int(number), len(_scalar_text(value)), 0


def _quoted(text: str) -> int:
    """A text in quotes, escaped, on one line: never fewer bytes than YAML's quoted styles or
    JSON take (a character escaped in one is written as it is in the others)."""
    # one more for each of '' in single quotes, \" \\ and \n in double quotes and JSON
    more = text.count("'") + text.count('"') + text.count("\\") + text.count("\n")
    if text.isascii() and text.isprintable():
        return len(text) + 2 + more
    more += 5 * len(_CONTROL.findall(text)) + 3 * len(_ESCAPED.findall(text))
    more += 6 * len(_ASTRAL.findall(text))
    return len(text.encode("utf-8", "surrogatepass")) + 2 + more


def _text(text: str, place: Place) -> int:
    kind, indent, column = place
    quoted = _quoted(text)
    if kind == "flow":  # inside brackets a text keeps to one line, but for these breaks
        return quoted + len(_RAW_BREAKS.findall(text)) * (STEP * settings.LIMIT_YAML_DEPTH + 1)
    inner = indent + STEP  # where a text's further lines start
    if "\n" in text:  # a `|` block, every line but a blank one indented, unless double
        if _NOT_LITERAL.search(text):  # quotes escape them all
            return quoted + _folds(column, quoted, inner)
        lines = sum(1 for line in _BREAKS.split(text) if line)
        return max(6 + len(text.encode("utf-8", "surrogatepass")) + lines * inner, quoted)
    lines = len(_RAW_BREAKS.findall(text))  # single quotes break the line at these
    return quoted + lines * (inner + 1) + _folds(column, quoted, inner)


def _folds(column: int, size: int, inner: int) -> int:
    """What folding a line of `size` bytes starting at `column` may add: once it runs past the
    width, a break and the indentation at most every (WIDTH - inner) bytes."""
    if column + size <= WIDTH:
        return 0
    room = max(WIDTH - inner - 4, 1)
    return (1 + (column + size - WIDTH) // room) * (inner + 3)


__all__ = ["Extent", "document_extent", "extent_check", "extent_errors"]
