"""Release history: what changed from one release to the next, as authors wrote it."""

import difflib
from typing import Any

from curriculum.models import Release

from .chapter_files import dump_yaml

# Derived or rendered parts of a snapshot: they follow from the text, so a diff leaves them out.
DERIVED_KEYS = {"format", "derived", "book_title", "verification"}


def authored(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: authored(v)
            for k, v in value.items()
            if k not in DERIVED_KEYS and not k.endswith("_html")
        }
    if isinstance(value, list):
        return [authored(v) for v in value]
    return value


def release_changes(*, release: Release) -> str:
    """A unified diff of the chapter as written, from the previous release to this one."""
    previous = (
        Release.objects.filter(chapter_id=release.chapter_id, number__lt=release.number)
        .order_by("-number")
        .first()
    )
    # Keys sorted: PostgreSQL's jsonb keeps no key order, so stored snapshots come back shuffled.
    before = dump_yaml(authored(previous.snapshot), sort_keys=True) if previous else ""
    after = dump_yaml(authored(release.snapshot), sort_keys=True)
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            f"release {previous.number}" if previous else "nothing released",
            f"release {release.number}",
        )
    )
