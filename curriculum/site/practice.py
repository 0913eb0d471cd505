"""/chapters/<code>/problems/<key>/?instance=N: a reader practises one instance of a problem.

No JavaScript: the answer is POSTed, read (what is not numbers of the asked shape is refused
before the engine runs), checked by the engine, kept in the session and the reader is
redirected back to the instance (so reloading never re-submits). Nothing of the engine's value
for the instance is in the page until the reader asks for the solution; it is made once for
every reader, and a request that must make it counts against the practice throttle as a check
does.
"""

from urllib.parse import urlencode

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from curriculum.clients import PRACTICE_CHECKS, client_admit
from curriculum.domain.answer_tables import answer_table
from curriculum.domain.answers import checked_as
from curriculum.domain.instance_values import EngineThrottled
from curriculum.domain.practice import (
    AnswerInvalid,
    NotPractisable,
    Practice,
    answer_try,
    instance_parse,
    instance_random,
    practice_for_reader,
    solution_for_instance,
)


def _address(practice: Practice, instance: int | None, **extra: str) -> str:
    url = reverse("site:practice", args=[practice.code, practice.problem["key"]])
    query = {"instance": instance} if instance else {}
    return f"{url}?{urlencode({**query, **extra})}" if query or extra else url


def _session_key(practice: Practice) -> str:
    return f"practice:{practice.code}:{practice.problem['key']}"


@require_http_methods(["GET", "HEAD", "POST"])
def practice_page(request: HttpRequest, code: str, key: str) -> HttpResponse:
    try:
        practice = practice_for_reader(code=code, key=key, staff=request.user.is_staff)
    except NotPractisable as error:
        raise Http404("no such problem to practise") from error
    raw = request.POST.get("instance") if request.method == "POST" else request.GET.get("instance")
    if raw is None and request.method != "POST":
        return HttpResponseRedirect(_address(practice, instance_random(practice)))
    try:
        instance = instance_parse(raw, practice=practice)
    except AnswerInvalid as error:
        return _page(request, practice, None, error=str(error), status=400)
    if request.method == "POST":
        return _check(request, practice, instance)
    return _page(request, practice, instance)


def _check(request: HttpRequest, practice: Practice, instance: int) -> HttpResponse:
    if not client_admit(request, PRACTICE_CHECKS):
        return _page(
            request,
            practice,
            instance,
            status=429,
            error="too many answers checked from your address (PRACTICE_CHECK_RATE); wait a minute "
            "and try again",
        )
    text = request.POST.get("answer", "")
    try:
        result = answer_try(practice=practice, instance=instance, text=text)
        outcome = {"ok": result.ok, "message": result.message}
    except AnswerInvalid as error:
        outcome = {"ok": False, "invalid": True, "message": str(error)}
    request.session[_session_key(practice)] = {
        **outcome,
        "instance": instance,
        "answer": text[: settings.LIMIT_ANSWER_CHARS],  # what a check reads at most
    }
    return HttpResponseRedirect(_address(practice, instance) + "#result", status=303)


def _page(
    request: HttpRequest,
    practice: Practice,
    instance: int | None,
    *,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    outcome = request.session.pop(_session_key(practice), None)
    if outcome and outcome.get("instance") != instance:
        outcome = None
    engine_answer = None
    if request.GET.get("solution") == "1" and instance is not None:
        try:
            value = solution_for_instance(
                practice=practice,
                instance=instance,
                allow=lambda: client_admit(request, PRACTICE_CHECKS),
            )
            engine_answer = answer_table(value, bounded=True)
        except EngineThrottled:
            status = 429
            error = (
                "too many solutions computed from your address (PRACTICE_CHECK_RATE); wait a "
                "minute and try again"
            )
    context = {
        "practice": practice,
        "problem": practice.problem,
        "statement_html": practice.statement_html(instance)
        if instance
        else practice.problem["statement_html"],
        "instance": instance,
        "error": error,
        "outcome": outcome,
        "inputs": [
            (name, answer_table(value, bounded=True))
            for name, value in practice.inputs(instance).items()
        ]
        if instance
        else [],
        "inputs_url": reverse(
            "api:instance_read",
            kwargs={"code": practice.code, "key": practice.problem["key"], "n": str(instance)},
        )
        if instance
        else "",
        "asked": practice.problem["ask"].get("output", ""),
        "checked": checked_as(practice.model()),
        "solution_url": _address(practice, instance, solution="1") + "#solution"
        if instance
        else "",
        "another_url": _address(practice, None),
        "engine_answer": engine_answer,
    }
    response = render(request, "site/practice.html", context, status=status)
    response["Cache-Control"] = "private, no-store"  # it can carry the reader's own answer
    if status == 429:  # the rate's period: its window ends within it
        response["Retry-After"] = str(PRACTICE_CHECKS.rate()[1])
    return response
