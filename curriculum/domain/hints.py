"""A problem's hints and its feedback on specific wrong answers: what may be written there.

Both are shown on the practice page beside whichever instance the reader has, rendered there
with that instance's numbers (`{{ inputs.x }}`), so neither may state a claim (which is checked
once, for the chapter's printed numbers). Feedback names a wrong answer to instance 0: one the
rule a reader's answer is judged by (`judging`: the tolerance, or the figures a page prints)
takes for the solution's answer would tell a reader who is right that they are wrong; one of
another shape than the asked output, or one naming an answer an earlier one names, could never
be told. Files (the schema reads their structure first) and admin's form are held to the same
rules, here: their counts and lengths too (LIMIT_PROBLEM_HINTS, LIMIT_HINT_CHARS,
LIMIT_PROBLEM_FEEDBACK, LIMIT_FEEDBACK_CHARS). Their references are checked with every other
text's (`references`).
"""

from typing import Any

import numpy as np
from django.conf import settings

import attention
from attention.answers import answer_problems

from .claims.pattern import CLAIM_OPENING
from .judging import reader_right, tolerance_of
from .markup_checks import markup_errors
from .placeholders import SHOWN_DIGITS, placeholder_errors


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
        limit = settings.LIMIT_PROBLEM_HINTS
        return [(path, f"has {len(hints)} hints; at most {limit} (LIMIT_PROBLEM_HINTS)")]
    found = []
    for i, hint in enumerate(hints):
        if not isinstance(hint, str) or not hint.strip():
            found.append((f"{path}[{i}]", "must be a non-empty Markdown text"))
        elif too_long := _too_long(hint, settings.LIMIT_HINT_CHARS, "LIMIT_HINT_CHARS"):
            found.append((f"{path}[{i}]", too_long))
        else:
            found += _text_errors(hint, f"{path}[{i}]", problem)
    return found


def _too_long(text: str, limit: int, name: str) -> str:
    """A text past its limit, said with the limit's name."""
    if len(text) <= limit:
        return ""
    return f"is {len(text):,} characters long; at most {limit:,} ({name})"


def feedback_errors(
    feedback: Any, problem: dict[str, Any], answer: Any, path: str = "feedback"
) -> list[tuple[str, str]]:
    """(path, message) for each entry that is not `{answer, says}` naming a wrong answer;
    `answer` is the solution's (None when there is none yet)."""
    if not isinstance(feedback, list):
        return [(path, 'must be a list of {"answer": ..., "says": "..."}')]
    limit = settings.LIMIT_PROBLEM_FEEDBACK
    if len(feedback) > limit:
        return [(path, f"has {len(feedback)} entries; at most {limit} (LIMIT_PROBLEM_FEEDBACK)")]
    found: list[tuple[str, str]] = []
    for i, given in enumerate(feedback):
        where = f"{path}[{i}]"
        if not isinstance(given, dict) or set(given) != {"answer", "says"}:
            found.append((where, 'must be {"answer": ..., "says": "..."}, nothing else'))
            continue
        says = given["says"]
        if not isinstance(says, str) or not says.strip():
            found.append((f"{where}.says", "must be a non-empty Markdown text"))
        elif too_long := _too_long(says, settings.LIMIT_FEEDBACK_CHARS, "LIMIT_FEEDBACK_CHARS"):
            found.append((f"{where}.says", too_long))
        else:
            found += _text_errors(says, f"{where}.says", problem)
        if unread := answer_problems(given["answer"]):
            found.append((f"{where}.answer", "; ".join(unread)))
        elif _is_answer(given["answer"], answer, problem):
            found.append(
                (
                    f"{where}.answer",
                    "is the solution's answer at the problem's tolerance, or to the "
                    f"{SHOWN_DIGITS} significant figures a page prints (a reader who gives it "
                    "is told they are right): feedback is for a wrong answer",
                )
            )
    return found + _answers_told(feedback, problem, path)


def _answers_told(feedback: list, problem: dict[str, Any], path: str) -> list[tuple[str, str]]:
    """A feedback's answer must be one a reader's can be: of the asked output's shape (an
    answer is read in that shape before it is judged), and not one the rule a reader's answer
    is judged by takes for an earlier entry's (only the earlier one would ever be shown)."""
    expected = attention.output_shape(problem["operation"], problem["inputs"], problem["ask"])
    tolerance = tolerance_of(problem)
    found: list[tuple[str, str]] = []
    told: list[tuple[int, Any]] = []
    for i, given in enumerate(feedback):
        answer = given.get("answer") if isinstance(given, dict) else None
        if answer is None or answer_problems(answer):
            continue  # said above
        where = f"{path}[{i}].answer"
        if wrong := _shape_said(answer, expected, problem["ask"]):
            found.append((where, wrong))
        elif earlier := [j for j, named in told if reader_right(named, answer, tolerance)]:
            found.append(
                (
                    where,
                    f"names the answer {path}[{earlier[0]}] names (as an answer is judged: at "
                    "the tolerance, or to the figures a page prints): say it there",
                )
            )
        else:
            told.append((i, answer))
    return found


def _shape_said(answer: Any, expected: tuple[int, ...] | str | None, ask: Any) -> str:
    """Why `answer` cannot have the asked output's shape; "" when it can (or the inputs do not
    say what the shape is: the engine's refusal of them says why)."""
    if expected is None:
        return ""
    named = isinstance(answer, dict)
    shape = None if named else tuple(np.shape(answer))
    if (expected == attention.NAMED_OUTPUT) == named and (named or shape == expected):
        return ""
    return (
        f"is {_shape_of(shape)}; the asked output ({ask.get('output')}) is {_shape_of(expected)}: "
        "a reader's answer is read in the asked shape, so this one would never be told"
    )


def _shape_of(shape: tuple[int, ...] | str | None) -> str:
    if not isinstance(shape, tuple):
        return "named values"
    return f"of shape {shape_words(shape)}" if shape else "a single number"


def shape_words(shape: Any) -> str:
    """A shape as readers and authors are told it: "2 × 3", or "a single number"."""
    return " × ".join(map(str, shape)) if shape else "a single number"


def _is_answer(given: Any, answer: Any, problem: dict[str, Any]) -> bool:
    if answer is None or answer_problems(answer):
        return False
    return reader_right(answer, given, tolerance_of(problem))
