"""What changed between two chapter documents, field by field, by document path.

A path names what an author knows: `title`, `strands.basics.items[1].body`,
`problems[p3].solution.answer` (problems by key, other lists by position). A value that is a
list of plain values (an answer, the apparatus) or anything else not a mapping is compared
whole. A problem moved without being changed is one change of `problems (order)`.
"""

import json
from dataclasses import dataclass
from typing import Any

from django.conf import settings

ABSENT = object()


@dataclass(frozen=True)
class Change:
    path: str
    kind: str  # "added", "removed" or "changed"
    before: str  # as shown: text as written, anything else as JSON; cut to the limit
    after: str


@dataclass(frozen=True)
class Changes:
    shown: list[Change]  # at most LIMIT_REVISION_CHANGES_SHOWN
    total: int

    @property
    def left_out(self) -> int:
        return self.total - len(self.shown)


def document_changes(before: dict[str, Any], after: dict[str, Any]) -> Changes:
    found: list[Change] = []
    _walk(before, after, "", found)
    return Changes(shown=found[: settings.LIMIT_REVISION_CHANGES_SHOWN], total=len(found))


def _walk(before: Any, after: Any, path: str, found: list[Change]) -> None:
    if before is ABSENT or after is ABSENT:
        kind = "added" if before is ABSENT else "removed"
        found.append(Change(path, kind, _shown(before), _shown(after)))
    elif isinstance(before, dict) and isinstance(after, dict):
        for key in [*before, *(k for k in after if k not in before)]:
            named = f"{path}.{key}" if path else str(key)
            _walk(before.get(key, ABSENT), after.get(key, ABSENT), named, found)
    elif _records(before) and _records(after) and (before or after):
        _walk_list(before, after, path, found)
    elif before != after:
        found.append(Change(path, "changed", _shown(before), _shown(after)))


def _records(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, dict) for item in value)


def _walk_list(before: list, after: list, path: str, found: list[Change]) -> None:
    keyed = all(isinstance(item.get("key"), str) for item in before + after)
    if not keyed:
        for i in range(max(len(before), len(after))):
            old = before[i] if i < len(before) else ABSENT
            new = after[i] if i < len(after) else ABSENT
            _walk(old, new, f"{path}[{i}]", found)
        return
    old_keys, new_keys = [b["key"] for b in before], [a["key"] for a in after]
    olds, news = dict(zip(old_keys, before, strict=True)), dict(zip(new_keys, after, strict=True))
    for key in [*old_keys, *(k for k in new_keys if k not in olds)]:
        _walk(olds.get(key, ABSENT), news.get(key, ABSENT), f"{path}[{key}]", found)
    kept_before = [k for k in old_keys if k in news]
    kept_after = [k for k in new_keys if k in olds]
    if kept_before != kept_after:
        found.append(Change(f"{path} (order)", "changed", _shown(kept_before), _shown(kept_after)))


def _shown(value: Any) -> str:
    if value is ABSENT:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    limit = settings.LIMIT_REVISION_VALUE_CHARS
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"
