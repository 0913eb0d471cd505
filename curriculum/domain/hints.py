"""A problem's hints and its feedback on specific wrong answers: what may be written there.

Both are shown on the practice page beside whichever instance the reader has, rendered there
with that instance's numbers (`{{ inputs.x }}`), so neither may state a claim (which is checked
once, for the chapter's printed numbers). Feedback names a wrong answer to instance 0: one the
problem's tolerance takes for its answer would tell a reader who is right that they are wrong.
Files (the schema reads their structure first) and admin's form are held to the same rules.
"""

from typing import Any

from django.conf import settings

import attention
from attention.answers import answer_problems

from .claims.pattern import CLAIM_OPENING
from .markup_checks import markup_errors
from .placeholders import placeholder_errors


def tolerance_keywords(*, digits: int | None, rtol: float, atol: float) -> dict[str, Any]:
    """A tolerance as `attention.compare` takes it."""
    return {"digits": digits} if digits is not None else {"rtol": rtol, "atol": atol}


def _text_errors(text: str, path: str, problem: dict[str, Any]) -> list[tuple[str, str]]:
    found = [(path, message) for message in markup_errors(text)]
    if CLAIM_OPENING.search(text):
        found.append((path, "holds a claim: hints and feedback are read beside every instance"))
    found += [
        (path, message)
        for message in placeholder_errors(
            text, operation=problem["operation"], inputs=problem["inputs"]
        )
    ]
    return found


def hints_errors(hints: Any, problem: dict[str, Any], path: str = "hints") -> list[tuple[str, str]]:
    """(path, message) for every hint that is not a non-empty Markdown text without a claim."""
    if not isinstance(hints, list):
        return [(path, "must be a list of Markdown texts")]
    if len(hints) > settings.LIMIT_PROBLEM_HINTS:
        return [(path, f"at most {settings.LIMIT_PROBLEM_HINTS} hints (LIMIT_PROBLEM_HINTS)")]
    found = []
    for i, hint in enumerate(hints):
        if not isinstance(hint, str) or not hint.strip():
            found.append((f"{path}[{i}]", "must be a non-empty Markdown text"))
        else:
            found += _text_errors(hint, f"{path}[{i}]", problem)
    return found


def feedback_errors(
    feedback: Any, problem: dict[str, Any], answer: Any, path: str = "feedback"
) -> list[tuple[str, str]]:
    """(path, message) for each entry that is not `{answer, says}` naming a wrong answer;
    `answer` is the solution's (None when there is none yet)."""
    if not isinstance(feedback, list):
        return [(path, 'must be a list of {"answer": ..., "says": "..."}')]
    limit = settings.LIMIT_PROBLEM_FEEDBACK
    if len(feedback) > limit:
        return [(path, f"at most {limit} entries (LIMIT_PROBLEM_FEEDBACK)")]
    found: list[tuple[str, str]] = []
    for i, given in enumerate(feedback):
        where = f"{path}[{i}]"
        if not isinstance(given, dict) or set(given) != {"answer", "says"}:
            found.append((where, 'must be {"answer": ..., "says": "..."}, nothing else'))
            continue
        says = given["says"]
        if not isinstance(says, str) or not says.strip():
            found.append((f"{where}.says", "must be a non-empty Markdown text"))
        elif len(says) > settings.LIMIT_FEEDBACK_CHARS:
            found.append((f"{where}.says", f"at most {settings.LIMIT_FEEDBACK_CHARS} characters"))
        else:
            found += _text_errors(says, f"{where}.says", problem)
        if unread := answer_problems(given["answer"]):
            found.append((f"{where}.answer", "; ".join(unread)))
        elif _is_answer(given["answer"], answer, problem["tolerance"]):
            found.append(
                (
                    f"{where}.answer",
                    "is the solution's answer at the problem's tolerance: feedback is for a "
                    "wrong answer",
                )
            )
    return found


def _is_answer(given: Any, answer: Any, tolerance: dict[str, Any]) -> bool:
    if answer is None or answer_problems(answer):
        return False
    try:
        return attention.compare(answer, given, **tolerance).ok
    except (TypeError, ValueError):
        return False
