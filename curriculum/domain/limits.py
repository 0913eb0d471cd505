"""Bounds on what clients send, checked before anything deep is built: a JSON body's nesting
(Python's parser recurses) and NUL characters (PostgreSQL text cannot hold them)."""

import json
import re
from typing import Any

from django.conf import settings

from .chapter_files.errors import ChapterFileError

JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def json_document(body: bytes) -> Any:
    """The body's JSON, refused with a reason when it is not JSON or nests too deeply."""
    limit, depth = settings.LIMIT_JSON_DEPTH, 0
    for bracket in JSON_STRING.sub(b"", body).translate(None, NOT_BRACKETS):
        depth += 1 if bracket in b"[{" else -1
        if depth > limit:
            raise ChapterFileError([f"body: nested more than {limit} deep (LIMIT_JSON_DEPTH)"])
    try:
        return json.loads(body or b"")
    except (ValueError, UnicodeDecodeError) as error:
        raise ChapterFileError([f"body: not valid JSON: {error}"]) from error


def nul_paths(document: Any) -> list[str]:
    """Where a NUL character sits in a document's keys or text, as `problems[0].statement`."""
    found, stack = [], [("", document)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str) and "\x00" in value:
            found.append(path or "top level")
        elif isinstance(value, dict):
            for key, item in value.items():
                where = f"{path}.{key}" if path else str(key)
                if isinstance(key, str) and "\x00" in key:
                    found.append(where)
                stack.append((where, item))
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", item) for i, item in enumerate(value))
    return sorted(found)
