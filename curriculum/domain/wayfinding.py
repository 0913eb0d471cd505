"""How a reader finds their way: the chapters either side of one, and a chapter's releases.

Both read only what the reader may see: drafts are skipped (unless staff), and a released
chapter is known by its latest release's title, never by its working copy.
"""

import functools
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import CharField, F, OuterRef, Q, QuerySet, Subquery
from django.db.models.fields.json import KT
from django.db.models.functions import Coalesce

from curriculum.models import Chapter, Release

from .reading import course_tag, releases_for_reader
from .releases import authored


@dataclass(frozen=True)
class Neighbour:
    code: str
    title: str


@dataclass(frozen=True)
class Neighbours:
    previous: Neighbour | None
    next: Neighbour | None

    @property
    def tag(self) -> str:
        """Moves when either link would change: a page's ETag includes it."""
        named = [(n.code, n.title) if n else None for n in (self.previous, self.next)]
        return hashlib.sha256(repr(named).encode()).hexdigest()[:12]


def _neighbours(code: str, *, staff: bool) -> QuerySet[Any, Any]:
    """The chapter (if the reader may see it) with the nearest visible chapter on each side in
    book order (book, number, code): each found by an ordered look for one row, and only those
    two are named (by their latest release's title, read from its overview, else their own)."""
    visible = Chapter.objects.all() if staff else Chapter.objects.exclude(state=Chapter.State.DRAFT)
    position, number, code_here = OuterRef("book__position"), OuterRef("number"), OuterRef("code")
    before = visible.filter(
        Q(book__position__lt=position)
        | Q(book__position=position, number__lt=number)
        | Q(book__position=position, number=number, code__lt=code_here)
    ).order_by("-book__position", "-number", "-code")
    after = visible.filter(
        Q(book__position__gt=position)
        | Q(book__position=position, number__gt=number)
        | Q(book__position=position, number=number, code__gt=code_here)
    ).order_by("book__position", "number", "code")
    latest = Release.objects.filter(chapter=OuterRef("pk")).order_by("-number")
    shown_title = Coalesce(
        Subquery(latest.values(t=KT("overview__title"))[:1]), F("title"), output_field=CharField()
    )
    return (
        visible.filter(code=code)
        .annotate(
            previous_code=Subquery(before.values("code")[:1]),
            previous_title=Subquery(before.annotate(shown=shown_title).values("shown")[:1]),
            next_code=Subquery(after.values("code")[:1]),
            next_title=Subquery(after.annotate(shown=shown_title).values("shown")[:1]),
        )
        .values("previous_code", "previous_title", "next_code", "next_title")
    )


def chapter_neighbours(*, code: str, staff: bool = False) -> Neighbours:
    """Found once per tag of the course (which moves with every title, state and position a
    link shows) in each process: a page's ETag names them, so a 304 costs no look for them."""
    return _neighbours_at(course_tag(), code, staff)


@functools.lru_cache(maxsize=4096)
def _neighbours_at(tag: str, code: str, staff: bool) -> Neighbours:
    """One query, whatever the course's size costs it only two ordered looks."""
    row: Mapping[str, Any] = _neighbours(code, staff=staff).first() or {}
    return Neighbours(
        previous=_neighbour(row.get("previous_code"), row.get("previous_title")),
        next=_neighbour(row.get("next_code"), row.get("next_title")),
    )


def _neighbour(code: str | None, title: str | None) -> Neighbour | None:
    return Neighbour(code, title or "") if code else None


@dataclass(frozen=True)
class ReleaseEntry:
    number: int
    created_at: datetime
    title: str
    maturity: str
    changes: list[str]
    notes: str  # the Editor's release notes


def release_history(*, code: str, staff: bool = False) -> list[ReleaseEntry]:
    """Every release of a visible chapter, newest first, each with what changed for readers."""
    releases = releases_for_reader(code=code, staff=staff)
    entries = [
        ReleaseEntry(
            number=release.number,
            created_at=release.created_at,
            title=release.snapshot["title"],
            maturity=release.snapshot["maturity"],
            changes=release_changes_for_readers(
                before=previous.snapshot if previous else None, after=release.snapshot
            ),
            notes=release.notes,
        )
        for previous, release in zip([None, *releases], releases, strict=False)
    ]
    return entries[::-1]


PROSE = {
    "thesis": "the thesis",
    "summary": "the summary",
    "before_you_start": "Before you start",
    "problem_statement": "The problem",
}


def release_changes_for_readers(
    *, before: dict[str, Any] | None, after: dict[str, Any]
) -> list[str]:
    """What a reader would notice between two releases, in sentences (the diff is for authors)."""
    if before is None:
        return ["First release."]
    changes = []
    if before["title"] != after["title"]:
        changes.append(f"Retitled from “{before['title']}”.")
    if before["maturity"] != after["maturity"]:
        changes.append(f"Maturity {before['maturity']} → {after['maturity']}.")
    revised = [name for key, name in PROSE.items() if before.get(key) != after.get(key)]
    if revised:
        changes.append(f"Revised: {', '.join(revised)}.")
    changes += _counted("problem", before["problems"], after["problems"], key="key")
    changes += _counted("proposition", before["propositions"], after["propositions"], key="number")
    changes += _counted("figure", before["figures"], after["figures"], key="label")
    changes += _counted("strand item", _items(before), _items(after), key="title")
    if before["notation"] != after["notation"]:
        changes.append("Notation revised.")
    return changes or ["Checked again; nothing a reader sees changed."]


def _items(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for strand in snapshot["strands"].values() for i in strand.get("items", [])]


def _counted(noun: str, before: list[dict], after: list[dict], *, key: str) -> list[str]:
    """Added, removed and revised parts, matched by their key (a problem's, a figure's label)."""
    old = {part[key]: authored(part) for part in before}
    new = {part[key]: authored(part) for part in after}
    sentences = []
    for verb, count in (
        ("added", len(new.keys() - old.keys())),
        ("removed", len(old.keys() - new.keys())),
        ("revised", sum(1 for k in new.keys() & old.keys() if new[k] != old[k])),
    ):
        if count:
            sentences.append(f"{count} {noun}{'s' if count > 1 else ''} {verb}.")
    return sentences
