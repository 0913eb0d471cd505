"""Drafts: a problem with no answer yet (no solution, or steps alone) counts for nothing.

Its solution is never sent to the verifier, never counted, never shown to readers and may not
be published; the gate refuses the chapter while it has one. Admin, files and the API save it
alike, and staff see it said (`DRAFT_PROBLEM`). Pure: the models check with it too.
"""

from typing import Any

DRAFT_PROBLEM = "Draft: no answer yet, so it counts for nothing (no quota, no publish)."
"""What admin and the chapter preview say of a problem saved without an answer."""

DRAFT_UNPUBLISHED = "a solution with no answer yet is a draft and cannot be published"


def is_draft(problem: Any) -> bool:
    """A problem with no solution, or a solution with no answer, yet."""
    solution = getattr(problem, "solution", None)
    return solution is None or solution.answer is None


def draft_errors(*, answer: Any, published: bool) -> list[str]:
    """Refused on the solution's `published`: a draft is never shown to readers."""
    return [DRAFT_UNPUBLISHED] if answer is None and published else []
