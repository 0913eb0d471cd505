"""Shaping snapshot values for templates: progress fractions, dates, the contents.

Nothing here decides what a chapter owes or shows; that is the domain's. These only turn
numbers the snapshot already holds into what a template can print without logic.
"""

from datetime import datetime
from typing import Any

import attention
from curriculum.domain.practice import practisable

APPARATUS_SENTENCE = (
    "The mathematics this chapter leans on, held in Book 0 so it can be assumed here without "
    "being taught here. Not a gate — follow a link when a step stops making sense."
)


NOTHING_REQUIRED = "nothing required at this level"


def progress(done: int, target: int) -> dict[str, int] | None:
    """A bar for a strand with a target; None when nothing is required (a full bar would say
    "done" of what was never asked)."""
    if target <= 0:
        return None
    return {"value": min(done, target), "max": target}


def when(iso: str | None) -> datetime | None:
    return datetime.fromisoformat(iso) if iso else None


def chapter_page(snapshot: dict[str, Any]) -> dict[str, Any]:
    """What the chapter template needs beyond the snapshot itself."""
    derived = snapshot["derived"]
    strands = [{**s, "bar": progress(s["done"], s["target"])} for s in derived["strands"]]
    problems = [
        {
            **problem,
            "verified_at": when((problem.get("verification") or {}).get("decided_at")),
            "practisable": practisable(problem),
            "generated": attention.is_generated(problem["inputs"]),
        }
        for problem in snapshot["problems"]
    ]
    return {
        "strands": strands,
        "worked": [p for p in problems if p["kind"] == "worked"],
        "exercises": [p for p in problems if p["kind"] == "exercise"],
        "strand_items": [
            (s, snapshot["strands"][s["kind"]].get("items", []))
            for s in derived["strands"]
            if snapshot["strands"][s["kind"]].get("items")
        ],
        "apparatus_sentence": APPARATUS_SENTENCE,
        "nothing_required": NOTHING_REQUIRED,
        "contents": contents(snapshot),
    }


def contents(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    """The chapter's own table of contents, in page order, linking the ids the template sets."""
    problems = snapshot["problems"]
    entries: list[dict[str, Any]] = [
        {"id": "built", "title": "How this chapter is built"},
        {"id": "before", "title": "Before you start"},
        {"id": "problem", "title": "The problem"},
    ]
    if snapshot["apparatus"]:
        entries.append({"id": "apparatus", "title": "Apparatus"})
    if snapshot["notation"]:
        entries.append({"id": "notation", "title": "Notation"})
    if snapshot["propositions"]:
        entries.append({"id": "propositions", "title": "Propositions"})
    entries.append(
        {"id": "worked", "title": "Worked problems", "parts": _problems(problems, "worked")}
    )
    if exercises := _problems(problems, "exercise"):
        entries.append({"id": "exercises", "title": "Exercises", "parts": exercises})
    if any(strand.get("items") for strand in snapshot["strands"].values()):
        entries.append({"id": "strand-notes", "title": "The strands, written out"})
    return entries


def _problems(problems: list[dict[str, Any]], kind: str) -> list[dict[str, str]]:
    label = "Worked problem" if kind == "worked" else "Exercise"
    return [
        {"id": f"problem-{p['key']}", "title": f"{label} {n}", "variant": p["variant"]}
        for n, p in enumerate((p for p in problems if p["kind"] == kind), start=1)
    ]
