"""Practice: a reader tries a numbered instance of a problem and the engine checks the answer.

Every problem whose verdict counts is offered (a published solution the engine verified, as
the reader's view of the chapter shows it). Instance 0 is the numbers the chapter prints; a
problem whose inputs are generated also offers instances 1..N, every one of which the verifier
computed (`answers.instances_checked`). The problem is taken from what the reader is shown, so a
released chapter is practised as released, whatever its working copy says.
"""

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from django.conf import settings
from django.urls import reverse

import attention
from attention.tiny import NotHeld, float_read
from curriculum.models import Problem

from .answers import Layout, Reading, answer_check, answer_read
from .attempts import attempt_record
from .chapter_files.json_form import json_too_deep
from .instance_values import instance_value
from .markup import render
from .mistakes import Mistake, mistake_named
from .placeholders import PLACEHOLDER, placeholders_expand
from .problem_labels import problem_labels
from .reading import NotVisible, chapter_for_reader
from .references import Chapters, chapters_for, links_to_page, references_linked

NUMBER = re.compile(
    r"[-+]?(([0-9]+\.?[0-9]*|\.[0-9]+)(e[-+]?[0-9]+)?|nan|inf|infinity)", re.ASCII | re.IGNORECASE
)
WHOLE = re.compile(r"[-+]?[0-9]{1,300}", re.ASCII)  # longer ones are read as floats
INSTANCE = re.compile(r"0|[1-9][0-9]{0,5}", re.ASCII)


class NotPractisable(NotVisible):
    """No such problem for this reader, or it cannot be practised (a 404)."""


class AnswerInvalid(ValueError):
    """What the reader typed is not a number, a vector, a matrix or JSON; the message says why."""


@dataclass(frozen=True)
class Practice:
    code: str
    chapter_title: str
    problem: dict[str, Any]  # as the reader's view shows it (statement_html, tolerance, ...)
    instances: int  # drawn instances beyond the printed one: 0 when nothing is generated
    release: int | None  # the release practised; None for a staff preview of the working copy
    chapter: dict[str, Any]  # the reader's view of the whole chapter: what references name
    label: str  # as the chapter page names it: "Worked problem 1", "Exercise 3"

    @property
    def hints(self) -> list[str]:
        return self.problem.get("hints") or []

    @property
    def page(self) -> str:
        """Where the chapter practised is read: the release's own address, or the chapter's
        while it has none. The problem's references link its parts there."""
        if self.release is not None:
            return reverse("site:release", args=[self.code, self.release])
        return reverse("site:chapter", args=[self.code])

    @cached_property
    def chapters(self) -> Chapters:
        """What the problem's texts may refer to (a query only when they name another
        chapter)."""
        return chapters_for(self.chapter)

    def chapter_html(self, html: str) -> str:
        """HTML rendered for the chapter's page (the solution's steps), its links to the
        chapter's own parts pointed at that page."""
        return links_to_page(html, self.page)

    def inputs(self, instance: int) -> dict[str, Any]:
        """The numbers of `instance`: what the reader computes from (never the answer)."""
        return attention.expand_inputs(self.problem["inputs"], instance=instance)

    def statement_html(self, instance: int) -> str:
        return self.text_html(self.problem["statement"] or "", instance)

    def text_html(self, text: str, instance: int) -> str:
        """A text of the problem (statement, hint, feedback) with this instance's inputs in
        place of its placeholders, so the numbers on the page are the ones the reader computes
        from. An output placeholder would show this instance's answer: it is shown as a question
        mark. References link the target where it is read (on the chapter's page)."""
        text = PLACEHOLDER.sub(lambda m: m.group() if m["kind"] == "inputs" else "?", text)
        expanded = placeholders_expand(
            text,
            operation=self.problem["operation"],
            inputs=self.problem["inputs"],
            instance=instance,
        )
        return self.chapter_html(render(references_linked(expanded, self.chapters)))

    def model(self) -> Problem:
        """An unsaved Problem carrying the shown operation, inputs, ask and tolerance."""
        tolerance = self.problem["tolerance"]
        return Problem(
            operation=self.problem["operation"],
            inputs=self.problem["inputs"],
            ask=self.problem["ask"],
            rtol=tolerance.get("rtol", 0.0),
            atol=tolerance.get("atol", 0.0),
            digits=tolerance.get("digits"),
        )


def practice_for_reader(*, code: str, key: str, staff: bool = False) -> Practice:
    try:
        view = chapter_for_reader(code=code, staff=staff)
    except NotVisible as hidden:  # no such chapter, or a draft: nothing to practise either
        raise NotPractisable from hidden
    for problem in view.snapshot["problems"]:
        if problem["key"] == key and practisable(problem):
            drawn = settings.PRACTICE_INSTANCES if attention.is_generated(problem["inputs"]) else 0
            number = view.release.number if view.release else None
            label = problem_labels(view.snapshot["problems"])[key]
            return Practice(
                code, view.snapshot["title"], problem, drawn, number, view.snapshot, label
            )
    raise NotPractisable("key")


def practisable(problem: dict[str, Any]) -> bool:
    """A published solution whose verdict counts."""
    verified = (problem.get("verification") or {}).get("status") == "verified"
    return verified and "solution" in problem


def _instances_said(practice: Practice) -> str:
    if not practice.instances:
        return "this problem has one instance, 0: the numbers the chapter prints"
    return f"the instance is a whole number from 0 to {practice.instances}"


def instance_parse(text: str | None, *, practice: Practice) -> int:
    """A reader's instance number, 0..N, written as plain ASCII decimal with no sign, space or
    leading zero (one instance has one address); a clear message for anything else."""
    if text is None or not INSTANCE.fullmatch(text):
        raise AnswerInvalid(_instances_said(practice))
    number = int(text)
    if not 0 <= number <= practice.instances:
        raise AnswerInvalid(_instances_said(practice))
    return number


def hints_parse(text: str | None, *, practice: Practice) -> int:
    """How many hints a reader asks for (none when not asked), written as an instance is
    (one page, one address); past the last, every one."""
    if text is None:
        return 0
    if not INSTANCE.fullmatch(text):
        raise AnswerInvalid("the hints shown are a whole number, written plainly (0, 1, 2, ...)")
    return min(int(text), len(practice.hints))


def instance_random(practice: Practice) -> int:
    """Fresh numbers where there are any, else the printed ones."""
    if not practice.instances:
        return 0
    return random.randint(1, practice.instances)  # noqa: S311 - a practice draw, not a secret


def answer_parse(text: str) -> tuple[Any, Layout]:
    """Numbers as a reader types them: separated by spaces, commas or semicolons, one matrix row
    per line, or JSON. Returns the value and its layout (`answers.Layout`: one line may take
    the asked shape; one number per line is a vector, or a matrix's rows), which `answer_read`
    applies. A line break is one character, as the reader's text box counts it, though a
    browser sends it as two (CRLF)."""
    text = text.replace("\r\n", "\n").strip()
    if not text:
        raise AnswerInvalid("type the answer: a number, a vector or a matrix")
    if len(text) > settings.LIMIT_ANSWER_CHARS:
        raise AnswerInvalid(_too_long(""))
    if text[0] in "[{":
        if json_too_deep(text.encode()):
            raise AnswerInvalid(f"the answer nests more than {settings.LIMIT_JSON_DEPTH} deep")
        try:  # numbers read as a file's are (`float_read`)
            return json.loads(text, parse_float=float_read), Layout.WRITTEN
        except NotHeld as error:
            raise AnswerInvalid(str(error)) from error
        except json.JSONDecodeError as error:
            raise AnswerInvalid(
                f"the JSON does not parse: {error.msg} (line {error.lineno}, column {error.colno})"
            ) from error
        except ValueError as error:  # an integer of more digits than Python converts
            raise AnswerInvalid(f"the JSON does not parse: {str(error).split(':')[0]}") from error
    rows = [_numbers(line, n) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if len(rows) == 1:
        return (rows[0][0] if len(rows[0]) == 1 else rows[0]), Layout.LINE
    if all(len(row) == 1 for row in rows):
        return [row[0] for row in rows], Layout.COLUMN
    widths = {len(row) for row in rows}
    if len(widths) > 1:
        raise AnswerInvalid(
            "the rows have different lengths ("
            + ", ".join(f"row {n}: {len(row)}" for n, row in enumerate(rows, start=1))
            + "); a matrix needs the same number in every row"
        )
    return rows, Layout.WRITTEN


def _too_long(written: str) -> str:
    return (
        f"the answer is longer than {settings.LIMIT_ANSWER_CHARS} characters{written} "
        "(LIMIT_ANSWER_CHARS)"
    )


def answer_given(value: Any) -> tuple[Any, Layout]:
    """An API client's answer and its layout: text typed as on the site
    (`answer_parse`), or JSON, held to the same LIMIT_ANSWER_CHARS written out compactly, so
    nothing reads an answer longer than a reader may type."""
    if isinstance(value, str):
        return answer_parse(value)
    if value is None:
        raise AnswerInvalid('send the answer: {"answer": [[0.5, 0.5]]}')
    if len(json.dumps(value, separators=(",", ":"))) > settings.LIMIT_ANSWER_CHARS:
        raise AnswerInvalid(_too_long(" written as JSON"))
    return value, Layout.WRITTEN


def _numbers(line: str, number: int) -> list[float | int]:
    values: list[float | int] = []
    # a comma or semicolon ends one entry (spaces around it or not): two with nothing between,
    # or one at the end, leave an entry out, which is said, never closed up
    for word in re.split(r"\s*[,;]\s*|\s+", line.strip()):
        if not word:
            raise AnswerInvalid(
                f"line {number}: an entry is empty (a comma or semicolon with no number after it)"
            )
        if not NUMBER.fullmatch(word):  # float() also reads 1_0 and Arabic-Indic digits
            raise AnswerInvalid(f"line {number}: {word[:40]!r} is not a number")
        # a whole number stays one, as JSON keeps it: a count past 2**53 is compared exactly
        try:  # 1e-400 is not 0, and 36943215058793618.5 is not ...620
            value = int(word) if WHOLE.fullmatch(word) else float_read(word)
        except NotHeld as error:
            raise AnswerInvalid(f"line {number}: {error}") from error
        if value != value or value in (float("inf"), float("-inf")):
            raise AnswerInvalid(f"line {number}: {word[:40]!r} is not a finite number")
        values.append(value)
    return values


def answer_reading(*, practice: Practice, instance: int, text: str) -> Reading:
    """The first step: what the reader typed, read as numbers in the asked shape (no engine
    run). AnswerInvalid when it is not numbers at all; a Reading whose `refusal` says why when
    its shape cannot be the answer."""
    answer, layout = answer_parse(text)
    return answer_read(problem=practice.model(), instance=instance, answer=answer, layout=layout)


@dataclass(frozen=True)
class Judgement:
    ok: bool
    message: str
    mistake: Mistake | None  # the mistake that gives this wrong answer, when one is known
    decided: bool = True  # False: the engine cannot settle the instance; no attempt is kept


def answer_judge(
    *, practice: Practice, instance: int, reading: Reading, reader: Any = None, text: str = ""
) -> Judgement:
    """The second step, for a well-formed reading only: the engine's verdict at the problem's
    tolerance, the mistake named when one gives the answer, and the attempt recorded
    (`attempts.attempt_record`: a signed-in `reader`'s kept, everyone's counted)."""
    if reading.refusal:
        raise AnswerInvalid(reading.refusal)
    result = answer_check(problem=practice.model(), instance=instance, answer=reading.answer)
    if not result.decided:
        return Judgement(False, result.message, None, decided=False)
    mistake = None
    if not result.ok and result.value is not None:
        right = result.value if isinstance(result.value, dict) else result.value.tolist()
        mistake = mistake_named(
            problem=practice.problem, instance=instance, answer=reading.answer, right=right
        )
    attempt_record(
        reader=reader,
        code=practice.code,
        key=practice.problem["key"],
        release=practice.release,
        instance=instance,
        answer=text,
        right=result.ok,
        mistake=mistake.name if mistake else "",
    )
    return Judgement(result.ok, result.message, mistake)


def answer_try_value(
    *, practice: Practice, instance: int, answer: Any, layout: Layout, reader: Any = None
) -> tuple[Reading, Judgement | None]:
    """Both steps for an API client: typed numbers are read as the page reads them
    (`answer_read`, by their layout); what is not numbers is refused (AnswerInvalid) before the
    engine runs, and a reading of another shape is returned unjudged."""
    reading = answer_read(problem=practice.model(), instance=instance, answer=answer, layout=layout)
    if not reading.numbers:
        raise AnswerInvalid(reading.refusal)
    if reading.refusal:
        return reading, None
    text = answer if isinstance(answer, str) else json.dumps(answer)
    return reading, answer_judge(
        practice=practice, instance=instance, reading=reading, reader=reader, text=text
    )


def solution_for_instance(*, practice: Practice, instance: int, allow: Callable[[], bool]) -> Any:
    """The engine's value at `instance`: shown only when the reader asks for the solution. Made
    once for everyone; `allow` (the client's practice throttle) is asked only when the engine
    must run, and EngineThrottled raised when it says no."""
    return instance_value(
        operation=practice.problem["operation"],
        inputs=practice.problem["inputs"],
        ask=practice.problem["ask"],
        instance=instance,
        allow=allow,
    )
