"""Bounds checked before anything deep is built or stored: NUL characters (PostgreSQL text
and jsonb cannot hold them), wherever they sit in a document."""

from typing import Any

MAX_WHOLE_NUMBER = 10_000  # chapter and proposition numbers, strand targets


def nul_paths(document: Any) -> list[str]:
    """Where a NUL character sits in a document's keys or text, as `problems[0].statement`."""
    if not _holds_nul(document):  # the common case, found without a path for every value
        return []
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


def _holds_nul(document: Any) -> bool:
    stack = [document]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if "\x00" in value:
                return True
        elif isinstance(value, dict):
            if any(isinstance(key, str) and "\x00" in key for key in value):
                return True
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False
