"""Practice instances: the inputs of instance N of a problem (0 is the printed numbers), its
hints and solution when asked for, and checking an answer.

The inputs never include the answer; the hints and the solution are given only when asked
(`?hints=k`, `?solution=true`), as the practice page gives them. Checks, and solutions whose
value the engine must still make, are throttled per client address (the site's practice form
shares the count).
"""

from typing import Annotated, Any

from ninja import Field, Path, Query, Router, Schema
from ninja.errors import Throttled, ValidationError
from pydantic import WithJsonSchema

import attention
from curriculum.clients import PRACTICE_CHECKS
from curriculum.domain.instance_values import EngineThrottled
from curriculum.domain.judging import reader_asks
from curriculum.domain.practice import (
    AnswerInvalid,
    answer_given,
    answer_try_value,
    instance_parse,
    practice_for_reader,
    solution_for_instance,
)
from curriculum.domain.tolerances import FLOOR_WORDS
from curriculum.models.problems import KEY_CHARS

from .auth import READ_AUTH, READ_SECURITY, caller
from .params import CODE
from .schemas import READ_ERRORS, Error
from .throttling import AnonymousReadThrottle, PracticeCheckThrottle, admit

router = Router(tags=["practice"], auth=READ_AUTH)
ERRORS = {**READ_ERRORS, 404: Error}
KEY = Path(..., max_length=KEY_CHARS, description="The problem's key within its chapter.")
INSTANCE = Path(
    ...,
    description="Instance number: 0 (the numbers the chapter prints), or for a problem with "
    "generated inputs up to PRACTICE_INSTANCES; written plainly (no sign, no leading zero: one "
    "instance, one address), else 422.",
)
# An integer on the wire, read as text by `practice.instance_parse` (which refuses `01`, `+1`).
InstanceNumber = Annotated[str, WithJsonSchema({"type": "integer", "minimum": 0})]


HINTS = Query(
    0,
    ge=0,
    description="How many of the problem's hints to give, in order (past the last: every one).",
)
SOLUTION = Query(
    False,
    description="Give the solution: the engine's value for this instance and the author's "
    "steps. The chapter JSON holds an exercise's back until asked for here.",
)


class SolutionShown(Schema):
    answer: Any = Field(description="The engine's value of the asked output for this instance.")
    steps: str = Field(description="The author's steps (Markdown), for instance 0's numbers.")
    steps_html: str


class InstanceOut(Schema):
    code: str
    key: str
    instance: int
    instances: int
    statement: str = Field(description="The statement's source, placeholders and all.")
    statement_html: str = Field(
        description="The statement as the practice page shows it: this instance's inputs in "
        "place of their placeholders, an output's as `?`, formulas typeset."
    )
    operation: str
    ask: dict[str, Any]
    tolerance: dict[str, Any]
    asks: str = Field(
        description="What a reader gives and how it is judged: 'Give 6 significant figures (as "
        "many as the page prints): ...'. An entry is right within the tolerance "
        f"({FLOOR_WORDS}, whatever rtol and atol say) or when it agrees with the engine's "
        "value to the figures pages print; a count exactly."
    )
    inputs: dict[str, Any]
    hints_total: int = Field(description="How many hints the problem has.")
    hints_html: list[str] = Field(
        description="The hints asked for (`?hints=k`), with this instance's numbers."
    )
    solution: SolutionShown | None = Field(description="Only with `?solution=true`.")


class AnswerIn(Schema):
    answer: Any = Field(
        description="A number, a list, a list of rows, named values, or a string typed as on "
        "the site."
    )


class MistakeOut(Schema):
    name: str = Field(description="The misconception's name, or feedback-N for the author's.")
    says: str = Field(description="What it means: plain words, or the author's Markdown.")


class CheckOut(Schema):
    """Right or not, and nothing of the engine's value: no error size, no entry of it."""

    ok: bool
    judged: bool = Field(
        description="False: the answer's shape cannot be the answer, or the engine cannot "
        "settle this instance's value (the message says which); nothing was judged."
    )
    read: str = Field(
        description="What was read: 'a matrix of 2 × 2 numbers', 'a vector of 1 number'."
    )
    message: str
    mistake: MistakeOut | None = Field(
        description="The common mistake that gives this wrong answer, when one is known."
    )
    answer_shape: list[int] | None
    expected_shape: list[int] | None = Field(
        description="The shape the problem asks for, known without running the engine."
    )


def _instance(request, code: str, key: str, n: str):
    practice = practice_for_reader(code=code, key=key, staff=caller(request).staff)
    try:
        return practice, instance_parse(n, practice=practice)
    except AnswerInvalid as error:
        raise ValidationError([{"loc": ["path", "n"], "msg": str(error)}]) from error


@router.get(
    "/chapters/{code}/problems/{key}/instances/{n}",
    response={200: InstanceOut, **ERRORS},
    openapi_extra=READ_SECURITY,
)
def instance_read(
    request,
    code: str = CODE,
    key: str = KEY,
    n: InstanceNumber = INSTANCE,
    hints: int = HINTS,
    solution: bool = SOLUTION,
):
    """Instance n's inputs (generators drawn), the statement and what is asked; the answer only
    when asked for (`?solution=true`: 429 when its value must still be computed and this client
    is past PRACTICE_CHECK_RATE), and the first `hints` hints. `instances` is how many are drawn
    beyond instance 0 (0: only the printed numbers)."""
    practice, instance = _instance(request, code, key, n)
    problem = practice.problem
    return {
        **_shown(request, practice, instance, hints=hints, solution=solution),
        "code": code,
        "key": key,
        "instance": instance,
        "instances": practice.instances,
        "statement": problem["statement"],
        "statement_html": practice.text_html(problem["statement"], instance),
        "operation": problem["operation"],
        "ask": problem["ask"],
        "tolerance": problem["tolerance"],
        "asks": reader_asks(problem),
        "inputs": practice.inputs(instance),
    }


def _shown(request, practice, instance: int, *, hints: int, solution: bool) -> dict[str, Any]:
    """The hints and the solution asked for."""
    shown = {
        "hints_total": len(practice.hints),
        "hints_html": [practice.text_html(hint, instance) for hint in practice.hints[:hints]],
        "solution": None,
    }
    if solution:
        try:
            value = solution_for_instance(
                practice=practice,
                instance=instance,
                allow=lambda: admit(request, PRACTICE_CHECKS),
            )
        except EngineThrottled as refused:
            raise Throttled(wait=PRACTICE_CHECKS.rate()[1]) from refused
        except attention.EngineInputError as unsettled:  # as a check at this instance says
            raise ValidationError([{"loc": ["path", "n"], "msg": str(unsettled)}]) from unsettled
        steps = practice.problem["solution"]
        shown["solution"] = {
            "answer": value,
            "steps": steps["steps"] or "",
            "steps_html": steps["steps_html"],
        }
    return shown


@router.post(
    "/chapters/{code}/problems/{key}/instances/{n}/check",
    response={200: CheckOut, **ERRORS, 400: Error, 403: Error, 413: Error, 415: Error},
    openapi_extra=READ_SECURITY,
    throttle=[AnonymousReadThrottle(), PracticeCheckThrottle()],
)
def instance_check(
    request, body: AnswerIn, code: str = CODE, key: str = KEY, n: InstanceNumber = INSTANCE
):
    """Check an answer to instance n at the problem's tolerance. `answer` is JSON (a number, a
    list, a list of rows, or named values) or a string typed as on the site ("1 2; 3 4"), at
    most LIMIT_ANSWER_CHARS characters either way (JSON written compactly). An answer that is
    not numbers, or too long, is refused (422) and one of another shape is not right, both
    before the engine runs; nothing of the engine's value is said. The body is JSON
    (Content-Type: application/json, else 415; 400 when it does not parse; 413 past
    LIMIT_API_BODY_BYTES); a signed-in
    reader's check, kept as an attempt, needs the session's CSRF token (403 without it)."""
    practice, instance = _instance(request, code, key, n)
    try:
        answer, layout = answer_given(body.answer)
        reading, judged = answer_try_value(
            practice=practice, instance=instance, answer=answer, layout=layout, reader=request.user
        )
    except AnswerInvalid as error:
        raise ValidationError([{"loc": ["body", "body", "answer"], "msg": str(error)}]) from error
    mistake = judged.mistake if judged else None
    return {
        "ok": bool(judged and judged.ok),
        "judged": judged is not None and judged.decided,
        "read": reading.said,
        "message": judged.message if judged else reading.refusal,
        "mistake": {"name": mistake.name, "says": mistake.says} if mistake else None,
        "answer_shape": reading.shape,
        "expected_shape": reading.expected,
    }
