"""Chapter documents as API JSON bodies and admin's JSON boxes: nesting is bounded before the
parser (which recurses) sees them, and what they hold as chapter files are."""

import itertools
import json
import re
from collections.abc import Iterator
from functools import partial
from typing import Any

from django.conf import settings

from attention.tiny import NotHeld, float_read

from ..collection import collection_paused
from .errors import FLOAT_LIMIT, TOO_LARGE, ChapterFileError, value_problem
from .extent import extent_check

# Possessive: a long string is one step, not one backtracking frame per character (~100 bytes).
JSON_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def json_too_deep(body: bytes) -> bool:
    """Whether JSON text nests deeper than LIMIT_JSON_DEPTH, counted without parsing it."""
    limit, depth = settings.LIMIT_JSON_DEPTH, 0
    for bracket in JSON_STRING.sub(b"", body).translate(None, NOT_BRACKETS):
        depth += 1 if bracket in b"[{" else -1
        if depth > limit:
            return True
    return False


class JsonUnreadable(ChapterFileError):
    """A body that cannot be read as JSON at all (not JSON, nested past the parser's guard, a
    repeated key, a lone surrogate): the request is bad, whatever the route (400). A document
    that reads but holds too much is a refused document, as in YAML (422)."""


class NumbersUnheld(JsonUnreadable):
    """JSON that reads, holding a number float64 cannot hold as written (`float_read`): each
    refused at its path (422, as a refused document is)."""


def json_document(body: bytes) -> Any:
    """`json_read`'s value, refused too when it holds more than a chapter file may
    (`extent_check`): a chapter document's, as in YAML."""
    document = json_read(body)
    extent_check(document, where="body")
    return document


def json_read(body: bytes) -> Any:
    """The body's JSON, refused with a reason when it is not JSON or nests too deeply (both
    JsonUnreadable): every JSON body. Not measured as a chapter file: a body read as something
    else is held to its own limits (an answer to LIMIT_ANSWER_CHARS), and measuring 2 MB of
    nested lists took seconds."""
    if json_too_deep(body):
        limit = settings.LIMIT_JSON_DEPTH
        raise JsonUnreadable([f"body: nested more than {limit} deep (LIMIT_JSON_DEPTH)"])
    try:
        # UTF-8 only (RFC 8259), a BOM ignored: json.loads would read UTF-16 and UTF-32 too
        text = (body or b"").decode("utf-8-sig")
    except UnicodeDecodeError as error:
        why = f"not UTF-8 (byte {error.start}: {error.reason})"
        raise JsonUnreadable([f"body: not valid JSON: {why}"]) from error
    unheld: list[_Unheld] = []
    try:
        with collection_paused():
            document = json.loads(
                text,
                object_pairs_hook=_no_repeated_keys,
                parse_int=_float_sized,
                parse_float=partial(_float_kept, unheld),  # 1e-400 is not 0, nor 2.5e-400
            )
    except ValueError as error:
        raise JsonUnreadable([f"body: not valid JSON: {value_problem(error)}"]) from error
    if unheld:
        found = itertools.islice(_unheld_at(document), UNHELD_SHOWN)
        said = [f"{path}: {why}" for path, why in found]
        if len(unheld) > len(said):
            said.append(f"body: {len(unheld) - len(said):,} more numbers like these")
        raise NumbersUnheld(said)
    if SURROGATE_ESCAPE.search(body) and _holds_lone_surrogate(document):
        raise JsonUnreadable(
            ["body: text holds a lone surrogate (such as \\ud800), which is not a character"]
        )
    return document


UNHELD_SHOWN = 10
"""Numbers float64 cannot hold named one by one in a refusal; the rest are counted (a body of
100,000 would have answered with a page for each)."""


class _Unheld(str):
    """Where a number float64 cannot hold as written stood (`float_read`), its refusal: found
    once the body is read, so that the refusal names its place."""


def _float_kept(unheld: list[_Unheld], text: str) -> float | int | _Unheld:
    try:
        return float_read(text)
    except NotHeld as error:
        unheld.append(_Unheld(error))
        return unheld[-1]


def _unheld_at(document: Any, path: str = "body") -> Iterator[tuple[str, str]]:
    """(path, refusal) of each number `_float_kept` could not keep, in `located`'s form."""
    if isinstance(document, _Unheld):
        yield path, str(document)
    elif isinstance(document, dict):
        for key, value in document.items():
            yield from _unheld_at(value, key if path == "body" else f"{path}.{key}")
    elif isinstance(document, list):
        for index, value in enumerate(document):
            yield from _unheld_at(value, f"{path}[{index}]")


def _float_sized(digits: str) -> int:
    value = int(digits)
    if len(digits) > 300 and abs(value) >= FLOAT_LIMIT:
        raise ValueError(TOO_LARGE)
    return value


SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
"""A \\ud800-\\udfff escape: JSON lets one stand alone, and such text cannot be stored,
hashed or printed; a pair (an emoji) is one character and is fine."""
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _holds_lone_surrogate(document: Any) -> bool:
    stack = [document]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if LONE_SURROGATE.search(value):
                return True
        elif isinstance(value, dict):
            stack.extend(value)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A key given twice would silently lose one value (as in YAML files, it is refused)."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"the key {key!r} appears twice in one object")
        seen.add(key)
    return dict(pairs)
