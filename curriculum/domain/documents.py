"""A chapter as a document: the chapter-file form (content-format.md), built from its rows.

Export, releases and the API all start from this one shape.
"""

from typing import Any

from curriculum.models import Chapter

from .counting import strand_target
from .ladder import MATHEMATICS, STRAND_CODES
from .terms import terms_listed


def chapter_document(chapter: Chapter) -> dict[str, Any]:
    """The chapter in file form; `chapter` must come from `selectors.chapters_with_parts`."""
    return {
        "code": chapter.code,
        "book": chapter.book.numeral,
        "number": chapter.number,
        "title": chapter.title,
        "author": chapter.author,
        "thesis": chapter.thesis,
        "summary": chapter.summary,
        "maturity": chapter.maturity,
        "spine": chapter.spine,
        "state": str(chapter.state),  # a plain string even when set from State in memory
        "before_you_start": chapter.before_you_start,
        "problem_statement": chapter.problem_statement,
        "strands": _strands(chapter),
        "figures": [
            {"label": f.label, "caption": f.caption, "alt": f.alt, "svg": f.svg}
            for f in chapter.figures.all()
        ],
        "apparatus": [link.entry.code for link in chapter.apparatus_links.all()],
        "notation": [{"symbol": n.symbol, "meaning": n.meaning} for n in chapter.notation.all()],
        "propositions": [_proposition(p) for p in chapter.propositions.all()],
        "problems": [_problem(p) for p in chapter.problems.all()],
    }


def _proposition(proposition) -> dict[str, Any]:
    document = {
        "number": proposition.number,
        **({"label": proposition.label} if proposition.label else {}),
        "title": proposition.title,
        "statement": proposition.statement,
        "proof": proposition.proof,
        "proof_published": proposition.proof_published,
    }
    if proposition.property_check is not None:  # a file without one says nothing of it
        document["check"] = proposition.property_check
    return document


def _strands(chapter: Chapter) -> dict[str, Any]:
    items: dict[str, list] = {code: [] for code in STRAND_CODES}
    for item in chapter.strand_items.all():
        shown = {"title": item.title, "body": item.body, "published": item.published}
        if terms := terms_listed(item.defines):  # a file without them says nothing of them
            shown["defines"] = terms
        items[item.strand].append(shown)
    return {
        code: {"target": strand_target(chapter, code)}
        if code == MATHEMATICS
        else {"target": strand_target(chapter, code), "items": items[code]}
        for code in STRAND_CODES
    }


def _problem(problem) -> dict[str, Any]:
    document = {
        "key": problem.key,
        "kind": problem.kind,
        "variant": problem.variant,
        "statement": problem.statement,
        "operation": problem.operation,
        "inputs": problem.inputs,
        "ask": problem.ask,
        "tolerance": tolerance_document(
            rtol=problem.rtol, atol=problem.atol, digits=problem.digits
        ),
    }
    for key in ("hints", "feedback"):  # a file without them says nothing of them
        if getattr(problem, key):
            document[key] = getattr(problem, key)
    solution = getattr(problem, "solution", None)
    if solution is not None:
        document["solution"] = solution_document(
            {"steps": solution.steps, "answer": solution.answer, "published": solution.published}
        )
    return document


def solution_document(solution: dict[str, Any]) -> dict[str, Any]:
    """A solution as a file writes it: a draft's (no answer yet) has no `answer` key."""
    return {k: v for k, v in solution.items() if k != "answer" or v is not None}


def tolerance_document(*, rtol: float, atol: float, digits: int | None) -> dict[str, Any]:
    """A tolerance as a file writes it: significant figures, or rtol and atol."""
    return {"rtol": rtol, "atol": atol} if digits is None else {"digits": digits}


def exported_form(clean: dict[str, Any]) -> dict[str, Any]:
    """A validated chapter document (`chapter_checked`) as its export will write it once
    stored: what must fit a chapter file to be imported again."""
    problems = []
    for problem in clean["problems"]:
        exported = {
            key: value
            for key, value in problem.items()
            if key != "lint" and (value or key not in ("hints", "feedback"))
        }
        exported["tolerance"] = tolerance_document(**problem["tolerance"])
        if exported["solution"] is None:
            del exported["solution"]
        else:
            exported["solution"] = solution_document(exported["solution"])
        problems.append(exported)
    propositions = [
        {key: value for key, value in p.items() if key not in ("check", "label") or value}
        for p in clean["propositions"]
    ]
    return clean | {"problems": problems, "propositions": propositions}
