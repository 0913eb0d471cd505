"""/chapters/<code>/problems/<key>/?instance=N: a reader practises one instance of a problem.

No JavaScript. The answer is POSTed with one of two buttons: "Read my answer" says what was
read (shape and numbers) and judges nothing; "Check" reads it the same way and, only when it is
well formed, has the engine judge it, naming the mistake that gives a wrong answer when one is
known. The page answers the POST itself: nothing of the reader is kept between requests unless
they are signed in (`domain.attempts`). Hints (`?hints=k`) and the solution (`?solution=1`) are
in the page only once asked for; the engine's value for an instance is made once for every
reader, and a request that must make it counts against the practice throttle as a check does.
A report on the exercise is POSTed to its own address and kept for the authors.
"""

from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.html import escape
from django.views.decorators.http import require_http_methods, require_POST

import attention
from curriculum.clients import PRACTICE_CHECKS, PRACTICE_REPORTS, Limit, client_admit
from curriculum.domain.answer_tables import answer_table
from curriculum.domain.instance_values import EngineThrottled
from curriculum.domain.judging import reader_asks
from curriculum.domain.practice import (
    AnswerInvalid,
    NotPractisable,
    Practice,
    answer_judge,
    answer_reading,
    hints_parse,
    instance_parse,
    instance_random,
    practice_for_reader,
    solution_for_instance,
)
from curriculum.domain.problem_reports import ReportInvalid, ReportThrottled, report_file

THROTTLED = (
    "too many answers checked from your address (PRACTICE_CHECK_RATE); wait a minute and try again"
)


def _address(practice: Practice, instance: int | None, **extra: Any) -> str:
    url = reverse("site:practice", args=[practice.code, practice.problem["key"]])
    query = {"instance": instance} if instance is not None else {}
    return f"{url}?{urlencode({**query, **extra})}" if query or extra else url


def _practice(request: HttpRequest, code: str, key: str) -> Practice:
    try:
        return practice_for_reader(code=code, key=key, staff=request.user.is_staff)
    except NotPractisable as error:
        raise Http404("no such problem to practise") from error


@require_http_methods(["GET", "HEAD", "POST"])
def practice_page(request: HttpRequest, code: str, key: str) -> HttpResponse:
    practice = _practice(request, code, key)
    data = request.POST if request.method == "POST" else request.GET
    raw = data.get("instance")
    if raw is None and request.method != "POST":  # the reader's other choices are kept
        return HttpResponseRedirect(_address(practice, instance_random(practice), **data.dict()))
    try:
        instance = instance_parse(raw, practice=practice)
        hints = hints_parse(data.get("hints"), practice=practice)
    except AnswerInvalid as error:
        return _page(request, practice, None, error=str(error), status=400)
    if request.method == "POST":
        return _answered(request, practice, instance, hints)
    return _page(request, practice, instance, hints=hints)


def _answered(request: HttpRequest, practice: Practice, instance: int, hints: int) -> HttpResponse:
    text = request.POST.get("answer", "")  # LIMIT_READER_BODY_BYTES, then answer_parse
    outcome: dict[str, Any] = {"answer": text[: settings.LIMIT_ANSWER_CHARS]}
    try:
        reading = answer_reading(practice=practice, instance=instance, text=text)
    except AnswerInvalid as error:
        return _page(
            request, practice, instance, hints=hints, outcome=outcome | {"unread": str(error)}
        )
    outcome |= {
        "read": reading.said,
        "numbers": answer_table(reading.answer, bounded=True, typed=True),
    }
    if reading.refusal:
        return _page(
            request, practice, instance, hints=hints, outcome=outcome | {"unread": reading.refusal}
        )
    if request.POST.get("step") != "check":
        return _page(request, practice, instance, hints=hints, outcome=outcome)
    if not client_admit(request, PRACTICE_CHECKS):
        return _page(
            request, practice, instance, hints=hints, outcome=outcome, error=THROTTLED, status=429
        )
    judged = answer_judge(
        practice=practice, instance=instance, reading=reading, reader=request.user, text=text
    )
    if not judged.decided:
        return _page(
            request, practice, instance, hints=hints, outcome=outcome | {"unread": judged.message}
        )
    outcome |= {"judged": True, "ok": judged.ok, "message": judged.message}
    if judged.mistake is not None:
        said = judged.mistake.says
        engine = not judged.mistake.name.startswith("feedback-")
        outcome["mistake_html"] = (
            f"<p>{escape(said)}</p>" if engine else practice.text_html(said, instance)
        )
    return _page(request, practice, instance, hints=hints, outcome=outcome)


@require_POST
def report(request: HttpRequest, code: str, key: str) -> HttpResponse:
    """A reader's report on the exercise, with the instance and answer they had."""
    practice = _practice(request, code, key)
    try:
        instance = instance_parse(request.POST.get("instance"), practice=practice)
    except AnswerInvalid as error:
        return _page(request, practice, None, error=str(error), status=400)
    try:
        report_file(
            code=practice.code,
            key=practice.problem["key"],
            release=practice.release,
            instance=instance,
            answer=request.POST.get("answer", ""),
            message=request.POST.get("message", ""),
            admit=lambda: client_admit(request, PRACTICE_REPORTS),
            reporter=request.user,
        )
    except ReportThrottled:
        refusal = f"too many reports from your address ({PRACTICE_REPORTS.refusal()})"
        return _page(
            request, practice, instance, report_error=refusal, status=429, limit=PRACTICE_REPORTS
        )
    except ReportInvalid as error:
        return _page(
            request,
            practice,
            instance,
            report_error=str(error),
            status=400,
            report_message=request.POST.get("message", "")[: settings.LIMIT_REPORT_CHARS],
        )
    return HttpResponseRedirect(_address(practice, instance, reported=1) + "#report", status=303)


def _solution(request: HttpRequest, practice: Practice, instance: int) -> tuple[Any, str]:
    try:
        value = solution_for_instance(
            practice=practice,
            instance=instance,
            allow=lambda: client_admit(request, PRACTICE_CHECKS),
        )
        return answer_table(value, bounded=True), ""
    except EngineThrottled:
        return None, (
            "too many solutions computed from your address (PRACTICE_CHECK_RATE); wait a "
            "minute and try again"
        )
    except attention.EngineInputError as unsettled:  # as a check at this instance says
        return None, str(unsettled)


def _page(
    request: HttpRequest,
    practice: Practice,
    instance: int | None,
    *,
    hints: int = 0,
    outcome: dict[str, Any] | None = None,
    error: str = "",
    status: int = 200,
    report_error: str = "",
    report_message: str = "",
    limit: Limit = PRACTICE_CHECKS,
) -> HttpResponse:
    engine_answer = None
    if request.GET.get("solution") == "1" and instance is not None and request.method != "POST":
        engine_answer, refused = _solution(request, practice, instance)
        if refused:
            error, status = refused, 429
    context = {
        "practice": practice,
        "problem": practice.problem,
        "statement_html": practice.chapter_html(practice.problem["statement_html"]),
        "steps_html": practice.chapter_html(practice.problem["solution"]["steps_html"]),
        "instance": instance,
        "drawn": practice.instances,
        "error": error,
        "outcome": outcome,
        "asked": practice.problem["ask"].get("output", ""),
        "asks": reader_asks(practice.problem),
        "another_url": _address(practice, None),
        "engine_answer": engine_answer,
        "reported": request.GET.get("reported") == "1",
        "report_error": report_error,
        "report_message": report_message,
        "report_limit": settings.LIMIT_REPORT_CHARS,
        "report_url": reverse(
            "site:practice_report", args=[practice.code, practice.problem["key"]]
        ),
    }
    if instance is not None:
        context |= _instance_context(practice, instance, hints)
    response = render(request, "site/practice.html", context, status=status)
    response["Cache-Control"] = "private, no-store"  # it can carry the reader's own answer
    if status == 429:  # the rate's period: its window ends within it
        response["Retry-After"] = str(limit.rate()[1])
    return response


def _instance_context(practice: Practice, instance: int, hints: int) -> dict[str, Any]:
    """What the page shows of one instance: its statement, numbers and the hints asked for."""
    shown_hints = {"hints": hints} if hints else {}
    return {
        "statement_html": practice.statement_html(instance),
        "hints": [practice.text_html(hint, instance) for hint in practice.hints[:hints]],
        "hints_left": len(practice.hints) - hints,
        "hints_shown": hints,
        "next_hint_url": _address(practice, instance, hints=hints + 1) + f"#hint-{hints + 1}",
        "inputs": [
            (name, answer_table(value, bounded=True))
            for name, value in practice.inputs(instance).items()
        ],
        "inputs_url": reverse(
            "api:instance_read",
            kwargs={"code": practice.code, "key": practice.problem["key"], "n": str(instance)},
        ),
        "solution_url": _address(practice, instance, solution="1", **shown_hints) + "#solution",
    }
