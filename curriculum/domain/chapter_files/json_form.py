"""Chapter documents as API JSON bodies: nesting is bounded before the parser (which recurses)
sees them."""

import json
import re
from typing import Any

from django.conf import settings

from ..collection import collection_paused
from .errors import ChapterFileError, value_problem

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


def json_document(body: bytes) -> Any:
    """The body's JSON, refused with a reason when it is not JSON or nests too deeply."""
    if json_too_deep(body):
        limit = settings.LIMIT_JSON_DEPTH
        raise ChapterFileError([f"body: nested more than {limit} deep (LIMIT_JSON_DEPTH)"])
    try:
        with collection_paused():
            return json.loads(body or b"", object_pairs_hook=_no_repeated_keys)
    except UnicodeDecodeError as error:
        raise ChapterFileError([f"body: not valid JSON: {error}"]) from error
    except ValueError as error:
        raise ChapterFileError([f"body: not valid JSON: {value_problem(error)}"]) from error


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A key given twice would silently lose one value (as in YAML files, it is refused)."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"the key {key!r} appears twice in one object")
        seen.add(key)
    return dict(pairs)
