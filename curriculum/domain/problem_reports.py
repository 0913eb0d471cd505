"""A reader's report that something is wrong with an exercise, kept for its authors with what
the reader was looking at: the release, the problem, the instance and their answer."""

from collections.abc import Callable
from typing import Any

from django.conf import settings

from curriculum.models import ProblemReport


class ReportInvalid(ValueError):
    """The report says nothing, or too much; the message says which."""


class ReportThrottled(Exception):
    """The client has sent as many reports as its rate allows (PRACTICE_REPORT_RATE)."""


def report_file(
    *,
    code: str,
    key: str,
    release: int | None,
    instance: int | None,
    answer: str,
    message: str,
    admit: Callable[[], bool],
    reporter: Any = None,
) -> ProblemReport:
    """Keep a report; a signed-in reader is named on it (and can see it in their export).
    `admit` (the client's report throttle) is asked only once the report is found sound, so a
    refused one never counts against the rate; ReportThrottled when it says no. A line break
    is one character, as the text box's maxlength counts it (a browser sends CRLF); a message
    or an answer past its limit is refused, never cut."""
    message = message.replace("\r\n", "\n").strip()
    if not message:
        raise ReportInvalid("say what is wrong with the exercise")
    if len(message) > settings.LIMIT_REPORT_CHARS:
        raise ReportInvalid(
            f"the report is longer than {settings.LIMIT_REPORT_CHARS} characters "
            "(LIMIT_REPORT_CHARS)"
        )
    answer = answer.replace("\r\n", "\n")
    if len(answer) > settings.LIMIT_ANSWER_CHARS:
        raise ReportInvalid(
            f"the answer sent with the report is longer than {settings.LIMIT_ANSWER_CHARS} "
            "characters (LIMIT_ANSWER_CHARS)"
        )
    if "\x00" in message or "\x00" in answer:
        raise ReportInvalid("the report contains a NUL character")
    if not admit():
        raise ReportThrottled
    return ProblemReport.objects.create(
        chapter_code=code,
        problem_key=key,
        release=release,
        instance=instance,
        answer=answer,
        message=message,
        reporter=reporter if reporter is not None and reporter.is_authenticated else None,
    )


def reports_open(*, code: str, key: str) -> list[ProblemReport]:
    """The reports authors have not resolved on one problem, newest first."""
    rows = ProblemReport.objects.filter(
        chapter_code=code, problem_key=key, status=ProblemReport.Status.OPEN
    )
    return list(rows[: settings.LIMIT_REPORTS_SHOWN])
