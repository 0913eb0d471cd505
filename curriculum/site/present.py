"""Shaping snapshot values for templates: progress fractions, dates, the contents.

Nothing here decides what a chapter owes or shows; that is the domain's. These only turn
numbers the snapshot already holds into what a template can print without logic.
"""

from datetime import datetime
from typing import Any

import attention
from curriculum.domain.practice import practisable
from curriculum.domain.problem_labels import problem_labels

APPARATUS_SENTENCE = (
    "The mathematics this chapter leans on, held in Book 0 so it can be assumed here without "
    "being taught here. Not a gate — follow a link when a step stops making sense."
)


NOTHING_REQUIRED = "nothing required at this level"


def strand_shown(strand: dict[str, Any]) -> dict[str, Any]:
    """A strand as a list or a page prints it: its count ("2/5"; "2" past no target; nothing
    for 0 of 0, which would say nothing) and a bar only when something is required (a full bar
    would say "done" of what was never asked)."""
    done, target = strand["done"], strand["target"]
    count = f"{done}/{target}" if target else (str(done) if done else "")
    bar = {"value": min(done, target), "max": target} if target > 0 else None
    return {**strand, "count": count, "bar": bar}


def when(iso: str | None) -> datetime | None:
    return datetime.fromisoformat(iso) if iso else None


QUOTAS = (("worked", "problem"), ("variants", "variant"), ("exercises", "exercise"))


def quota(derived: dict[str, Any]) -> list[str]:
    """What the chapter's level asks of its problems, as the page's chips ("0/5 problems"): a
    kind neither asked for nor written is left out."""
    chips = []
    for key, noun in QUOTAS:
        done, target = derived[key]["done"], derived[key]["target"]
        if target:
            chips.append(f"{done}/{target} {noun}s")
        elif done:
            chips.append(f"{done} {noun}{'s' if done > 1 else ''}")
    return chips


def chapter_page(snapshot: dict[str, Any]) -> dict[str, Any]:
    """What the chapter template needs beyond the snapshot itself: which sections it shows
    (none empty), in the order the contents list them."""
    derived = snapshot["derived"]
    labels = problem_labels(snapshot["problems"])
    problems = [
        {
            **problem,
            "label": labels[problem["key"]],
            "verified_at": when((problem.get("verification") or {}).get("decided_at")),
            "practisable": practisable(problem),
            "generated": attention.is_generated(problem["inputs"]),
        }
        for problem in snapshot["problems"]
    ]
    page = {
        "strands": [strand_shown(s) for s in derived["strands"]],
        "quota": quota(derived),
        "worked": [p for p in problems if p["kind"] == "worked"],
        "exercises": [p for p in problems if p["kind"] != "worked"],
        "strand_items": [
            (s, snapshot["strands"][s["kind"]].get("items", []))
            for s in derived["strands"]
            if snapshot["strands"][s["kind"]].get("items")
        ],
        "apparatus_sentence": APPARATUS_SENTENCE,
        "nothing_required": NOTHING_REQUIRED,
    }
    page["shows"] = {
        "before": bool(snapshot.get("before_you_start")),
        "problem": bool(snapshot.get("problem_statement") or snapshot["figures"]),
        "worked": bool(page["worked"] or page["quota"] or derived["debt_sentence"]),
    }
    page["contents"] = contents(snapshot, page)
    return page


def contents(snapshot: dict[str, Any], page: dict[str, Any]) -> list[dict[str, Any]]:
    """The chapter's own table of contents, in page order, linking the ids the template sets:
    what the chapter says, then its teaching, then its worked problems and its exercises."""
    shows = page["shows"]
    sections = [
        ("built", "How this chapter is built", True),
        ("before", "Before you start", shows["before"]),
        ("problem", "The problem", shows["problem"]),
        ("apparatus", "Apparatus", snapshot["apparatus"]),
        ("notation", "Notation", snapshot["notation"]),
        ("propositions", "Propositions", snapshot["propositions"]),
        ("strand-notes", "The strands, written out", page["strand_items"]),
    ]
    entries: list[dict[str, Any]] = [
        {"id": anchor, "title": title} for anchor, title, shown in sections if shown
    ]
    if shows["worked"]:
        entries.append(
            {"id": "worked", "title": "Worked problems", "parts": _parts(page["worked"])}
        )
    if page["exercises"]:
        entries.append(
            {"id": "exercises", "title": "Exercises", "parts": _parts(page["exercises"])}
        )
    if snapshot.get("references"):
        entries.append({"id": "references", "title": "References"})
    return entries


def _parts(problems: list[dict[str, Any]]) -> list[dict[str, str]]:
    return [{"id": f"problem-{p['key']}", "title": p["label"]} for p in problems]
