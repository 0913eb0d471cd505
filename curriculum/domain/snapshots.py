"""The chapter as readers and API clients see it: the document, what is derived, rendered HTML.

A release stores exactly this; the working copy of an in-progress chapter is built the same
way. Unpublished items, proofs and solutions are left out unless a staff preview asks for them.
"""

import copy
import math
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.utils.html import format_html

from curriculum.models import Chapter, Problem

from .answer_tables import answer_html
from .citations import references_list
from .claims.found import claims_stated
from .claims.properties import property_words
from .claims.reasons import Checked, checked_in, checks_counted
from .counting import ChapterCounts, chapter_counts
from .documents import chapter_document
from .judging import checked_words
from .ladder import SPINE_SENTENCES, STRANDS_SENTENCE
from .markup import render_many
from .placeholders import Room, placeholders_expand
from .references import chapters_for, references_linked
from .svg import svg_inline
from .texts import chapter_slots

SNAPSHOT_FORMAT = 3  # 2: answers rendered (answer_html), figures given without source;
# 3: proposition titles rendered (title_html)
ENFORCEMENT_SENTENCE = "The build enforces that from the day the chapter is marked published."


def chapter_snapshot(chapter: Chapter, *, include_unpublished: bool = False) -> dict[str, Any]:
    """`chapter` must come from `selectors.chapters_with_parts` (no queries are made here)."""
    document = chapter_document(chapter)
    counts = chapter_counts(chapter)
    problems = {p.key: p for p in chapter.problems.all()}
    checked = checked_in(document)  # one query: the verdicts of its claims and properties
    _properties_said(document, checked)
    _drop_drafts(document)
    if not include_unpublished:
        _drop_unpublished(document)
    for problem in document["problems"]:
        # what the engine said of a solution is shown only where the solution itself is
        shown = problems[problem["key"]] if "solution" in problem else None
        problem["verification"] = _provenance(shown, problem)
    snapshot = {
        "format": SNAPSHOT_FORMAT,
        **document,
        "book_title": chapter.book.title,
        "apparatus": [
            {"code": link.entry.code, "title": _entry_title(link)}
            for link in chapter.apparatus_links.all()
            if include_unpublished or link.entry.state != Chapter.State.DRAFT
        ],
        "derived": _derived(chapter, counts) | {"checks": checks_counted(checked)},
    }
    _render(snapshot, {c.found.fingerprint: c.status for c in checked})
    return snapshot


def snapshot_for_readers(snapshot: dict[str, Any]) -> dict[str, Any]:
    """What readers and API clients are given of a snapshot: each figure as drawn (`svg_html`,
    rebuilt from the allowlist), never the author's source, whose scripts and handlers would
    run in a client that embeds it. A release keeps the source (staff diff releases with it),
    so every release, made before this or after, is given out through here; one made before
    answers were rendered with it (format 1) gets its answer tables, and one made before
    proposition titles were (format 2) its titles, under the cap, here."""
    if snapshot["format"] < SNAPSHOT_FORMAT:
        snapshot = copy.deepcopy(snapshot)
        if snapshot["format"] < 2:
            _render_answers(snapshot)
        _render_titles(snapshot)
        _within_cap(snapshot)
    figures = [{k: v for k, v in figure.items() if k != "svg"} for figure in snapshot["figures"]]
    problems = [_with_words(problem) for problem in snapshot["problems"]]
    return {**snapshot, "format": SNAPSHOT_FORMAT, "figures": figures, "problems": problems}


HELD = ("solution", "hints", "feedback")
"""What an exercise keeps for the reader who asks (its practice page, or the API's practice
route): its solution (steps and answer), its hints and its feedback on wrong answers."""


def exercises_held(snapshot: dict[str, Any]) -> dict[str, Any]:
    """A snapshot as it is given out whole, to anyone who has not asked for an exercise's
    solution: each exercise without what `HELD` names, listed in its `held` (so a client knows
    to ask); worked problems, solved in the text for everyone, keep theirs."""
    problems = [
        _held(problem) if problem["kind"] == "exercise" else problem
        for problem in snapshot["problems"]
    ]
    return {**snapshot, "problems": problems}


def _held(problem: dict[str, Any]) -> dict[str, Any]:
    held = [key for key in HELD if key in problem]
    kept = {key: value for key, value in problem.items() if key not in HELD}
    return {**kept, "held": held} if held else kept


def _with_words(problem: dict[str, Any]) -> dict[str, Any]:
    """A problem whose verification says how it is checked, as the engine checks it today: a
    release made before the words were stored, or before a count was said to be checked
    exactly, gets them here."""
    shown = problem.get("verification")
    if not shown:
        return problem
    return {**problem, "verification": {**shown, "checked_as": checked_words(problem)}}


def _entry_title(link: Any) -> str:
    """A released entry is known by its release's title; its working copy stays private."""
    return link.entry_released_title or link.entry.title


def _drop_drafts(document: dict[str, Any]) -> None:
    """A solution with no answer yet is a draft's, shown to no one: the preview says so."""
    for problem in document["problems"]:
        solution = problem.get("solution")
        if solution is not None and "answer" not in solution:
            del problem["solution"]


def _drop_unpublished(document: dict[str, Any]) -> None:
    for strand in document["strands"].values():
        if "items" in strand:
            strand["items"] = [i for i in strand["items"] if i["published"]]
    for proposition in document["propositions"]:
        if not proposition["proof_published"]:
            proposition["proof"] = None
    for problem in document["problems"]:
        if not problem.get("solution", {}).get("published"):
            problem.pop("solution", None)


def _provenance(shown: Problem | None, problem: dict[str, Any]) -> dict[str, Any] | None:
    """What the engine said of a shown problem's solution (its state annotated on the problem)."""
    solution = getattr(shown, "solution", None)
    if shown is None or solution is None:
        return None
    verdict = getattr(solution, "verdict", None)
    return {
        "status": shown.verdict_state,  # type: ignore[attr-defined]
        "max_abs_error": _finite(verdict.max_abs_error) if verdict else None,
        "max_rel_error": _finite(verdict.max_rel_error) if verdict else None,
        "tolerance": problem["tolerance"],
        "checked_as": checked_words(problem),
        "engine_version": verdict.engine_version if verdict else "",
        "decided_at": verdict.decided_at.isoformat() if verdict and verdict.decided_at else None,
    }


def _finite(value: float | None) -> float | None:
    """JSON has no infinity: an error too large to measure (shapes differ) is reported as null."""
    return value if value is not None and math.isfinite(value) else None


def _properties_said(document: dict[str, Any], checked: list[Checked]) -> None:
    """Each proposition's property as readers are told of it, with its verdict."""
    status = {c.found.path: c.status for c in checked if c.found.kind == "property"}
    for i, proposition in enumerate(document["propositions"]):
        if (check := proposition.get("check")) is not None:
            proposition["checked"] = {
                "words": property_words(check),
                "note": check.get("note", ""),
                "status": status.get(f"propositions[{i}].check", "error"),
            }


def _derived(chapter: Chapter, counts: ChapterCounts) -> dict[str, Any]:
    level = counts.level
    spine = chapter.spine
    return {
        "maturity_name": level.name,
        "spine_sentence": SPINE_SENTENCES[spine],
        "strands_sentence": STRANDS_SENTENCE.format(spine=spine.capitalize()),
        "strands": [
            {"kind": s.kind, "description": s.description, "done": s.done, "target": s.target}
            for s in counts.strands
        ],
        "worked": {"done": counts.worked, "target": level.worked},
        "variants": {"done": counts.variants, "target": level.variants},
        "exercises": {"done": counts.exercises, "target": level.exercises},
        "owes": counts.owes,
        "debt_sentence": counts.debt_sentence,
        "enforcement_sentence": ENFORCEMENT_SENTENCE if counts.owes else "",
    }


def _markdown_slots(snapshot: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str]]:
    """Every (holder, key) whose value is author Markdown (`texts`, the one list of a chapter's
    texts); HTML goes beside it as key_html."""
    for _, holder, key, _, _ in chapter_slots(snapshot):
        yield holder, key


def _shown(snapshot: dict[str, Any]) -> dict[int, str]:
    """A problem's texts with their placeholders ({{ inputs.x }}) typeset from its data."""
    shown, room = {}, Room()
    for problem in snapshot["problems"]:
        data = {"operation": problem["operation"], "inputs": problem["inputs"], "room": room}
        shown[id(problem)] = placeholders_expand(problem["statement"] or "", **data)
        if "solution" in problem:
            steps = problem["solution"]["steps"] or ""
            shown[id(problem["solution"])] = placeholders_expand(steps, **data)
    return shown


def _render(snapshot: dict[str, Any], states: dict[str, str]) -> None:
    """Every text rendered: claims carrying their verdicts (`states`, by fingerprint),
    placeholders typeset, references linked."""
    slots = [(holder, key, context) for _, holder, key, _, context in chapter_slots(snapshot)]
    shown, chapters = _shown(snapshot), chapters_for(snapshot)
    sources = [
        references_linked(
            claims_stated(shown.get(id(holder), holder[key] or ""), context, states), chapters
        )
        for holder, key, context in slots
    ]
    # a notation symbol is TeX without its dollars (d_k): typeset, it reads as the text does
    symbols = [f"${row['symbol'].strip('$')}$" for row in snapshot["notation"]]
    rendered = render_many(sources + symbols)
    for (holder, key, _), html in zip(slots, rendered, strict=False):
        holder[f"{key}_html"] = html
    for row, html in zip(snapshot["notation"], rendered[len(slots) :], strict=True):
        row["symbol_html"] = html
    for figure in snapshot["figures"]:
        figure["svg_html"] = svg_inline(figure["svg"], alt=figure["alt"])
    snapshot["references"] = references_list(chapters.cited)  # formatted now, kept as made
    _render_answers(snapshot)
    _within_cap(snapshot)


def _render_answers(snapshot: dict[str, Any]) -> None:
    for problem in snapshot["problems"]:
        if "solution" in problem:
            problem["solution"]["answer_html"] = answer_html(problem["solution"]["answer"])


def _render_titles(snapshot: dict[str, Any]) -> None:
    """A release made before titles were rendered showed them as typed, their claims never
    checked nor their references validated: typeset now, each claim marked pending (none was
    checked) and each reference as written (linking one unchecked could land anywhere)."""
    propositions = [p for p in snapshot["propositions"] if "title_html" not in p]
    titles = [claims_stated(p["title"] or "", None, {}) for p in propositions]
    for proposition, html in zip(propositions, render_many(titles), strict=True):
        proposition["title_html"] = html


def _rendered(snapshot: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str]]:
    """Every (holder, key) whose value is HTML the page shows."""
    for holder, key in _markdown_slots(snapshot):
        yield holder, f"{key}_html"
    for row in snapshot["notation"]:
        yield row, "symbol_html"
    for figure in snapshot["figures"]:
        yield figure, "svg_html"
    for problem in snapshot["problems"]:
        if "solution" in problem:
            yield problem["solution"], "answer_html"
    for work in snapshot.get("references") or []:
        yield work, "html"


PAGE_MARKUP = {
    "items": 160,
    "figures": 400,
    "apparatus": 600,
    "notation": 120,
    "propositions": 450,
    "problems": 1200,
}
"""Bytes, at most, the chapter page wraps around each part it lists beside that part's own HTML
and texts (a problem's heading, verification, practice link and contents entry; an entry's
title): counted against the cap, so many small parts cannot grow a page past it
(tests/curriculum/domain/test_snapshots_page_cap.py holds the templates to these)."""


def page_markup(document: dict[str, Any]) -> int:
    """What PAGE_MARKUP adds up to for a document's (or a snapshot's) parts."""
    items = sum(len(strand.get("items", [])) for strand in document["strands"].values())
    listed = sum(PAGE_MARKUP[key] * len(document[key]) for key in PAGE_MARKUP if key != "items")
    return PAGE_MARKUP["items"] * items + listed


def _within_cap(snapshot: dict[str, Any]) -> None:
    """Saving refuses a chapter whose page would be over the cap; one saved before the cap is
    shown with its largest parts left out (each with a note) until the rest fits."""
    limit = settings.LIMIT_CHAPTER_HTML_BYTES
    shown = list(_rendered(snapshot))
    total = sum(len(holder[key].encode()) for holder, key in shown)
    total += page_markup(snapshot)
    note = format_html(
        '<p class="too-large">Left out: this chapter renders to more than {} bytes '
        "(LIMIT_CHAPTER_HTML_BYTES).</p>",
        limit,
    )
    for holder, key in sorted(shown, key=lambda slot: -len(slot[0][slot[1]])):
        if total <= limit:
            break
        total -= len(holder[key].encode()) - len(note)
        holder[key] = note


def rendered_size(
    *, texts: list[str], figures: list[tuple[str, str]], answers: list[Any], markup: int
) -> int:
    """Bytes of HTML these texts, (svg, alt) figures and answers render to, with the page's
    `markup` around them: what the cap measures of a page."""
    html = render_many(texts) + [svg_inline(svg, alt=alt) for svg, alt in figures]
    html += [answer_html(answer) for answer in answers]
    return sum(len(part.encode()) for part in html) + markup
