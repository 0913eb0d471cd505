"""What the commands and the API report of a chapter's claims and properties: each with its
path, what it states, how it is checked and the engine's word on it."""

import time
from dataclasses import dataclass
from typing import Any

from curriculum.models import ClaimVerdict

from ..documents import chapter_document
from ..selectors import chapters_with_parts
from .reasons import checked_in
from .requests import claims_decide_now


@dataclass(frozen=True)
class ClaimRow:
    path: str
    kind: str  # claim or property
    said: str
    checked_as: str
    visible: bool  # readers see it once released (a draft's claims block nothing)
    state: str
    message: str
    engine_value: Any

    @property
    def verified(self) -> bool:
        return self.state == ClaimVerdict.Status.VERIFIED


def claim_rows(*, code: str, decide_now: bool = False) -> list[ClaimRow]:
    """Every claim and property of the chapter's working copy, in document order, with its
    verdict; `decide_now` (a dry run) decides the missing ones here first, as the worker would."""
    chapter = chapters_with_parts().get(code=code)
    if decide_now:
        claims_decide_now([chapter.pk])
    return claim_rows_of(chapter_document(chapter))


def claim_rows_of(document: dict) -> list[ClaimRow]:
    """The rows of a document already at hand (admin's chapter page has it loaded)."""
    return [
        ClaimRow(
            c.found.path,
            c.found.kind,
            c.found.said,
            c.found.words,
            c.found.visible,
            c.status,
            c.message,
            c.value,
        )
        for c in checked_in(document)
    ]


def claim_line(row: ClaimRow) -> str:
    """One printed row: import_chapter --dry-run and verify_chapter print the same."""
    draft = "" if row.visible else " (in a draft part)"
    detail = f": {row.message}" if row.message else ""
    return f"{row.kind} {row.path}{draft}: {row.said} [{row.checked_as}] {row.state}{detail}"


def claims_await(*, code: str, timeout: float, poll: float = 0.2) -> list[ClaimRow]:
    """The chapter's claim rows once none is pending, or as they stand at the timeout."""
    deadline = time.monotonic() + timeout
    while True:
        rows = claim_rows(code=code)
        pending = any(row.state == ClaimVerdict.Status.PENDING for row in rows)
        if not pending or time.monotonic() >= deadline:
            return rows
        time.sleep(poll)
