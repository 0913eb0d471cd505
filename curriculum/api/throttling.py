"""ninja's throttle hooks over the project's one rule for counting clients (curriculum/clients.py):
anonymous reads per client at `API_ANON_RATE`, answer checks at `PRACTICE_CHECK_RATE` (shared
with the site's practice form), both read on each request; each response announces the count
that admitted or refused it."""

from functools import wraps

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe
from ninja.throttling import BaseThrottle

from curriculum.clients import (
    ANONYMOUS_READS,
    PRACTICE_CHECKS,
    Limit,
    Window,
    client_uncount,
    client_window,
)

from .auth import BearerToken, TokenRefused, staff_session
from .problems import problem_response


def admit(request: HttpRequest, limit: Limit) -> bool:
    """Count the request (`client_window`); the window kept on the request is announced in its
    response's RateLimit-* headers (middleware.py): the refusing one, else the one with the
    fewest requests left. A refused request names its rate in the 429 (`refused_by`).

    A request under two rates (an anonymous check: API_ANON_RATE, PRACTICE_CHECK_RATE) is
    refused by the first it is past and counted by that one alone: a later rate does not count
    it (ninja asks every throttle), and an earlier one's count is given back."""
    if getattr(request, "refused_by", None) is not None:
        return False  # refused already, and announced by the rate that refused it
    window = client_window(request, limit)
    counted: list[Window] = request.__dict__.setdefault("rate_counted", [])
    if window.admitted:
        counted.append(window)
    else:
        for earlier in counted:
            client_uncount(earlier)
        request.refused_by = limit  # type: ignore[attr-defined]
    kept = getattr(request, "rate_window", None)
    if kept is None or kept.admitted and (not window.admitted or window.remaining < kept.remaining):
        request.rate_window = window  # type: ignore[attr-defined]
    return window.admitted


class ClientThrottle(BaseThrottle):
    """Holds no state of its own: ninja shares one instance between a worker's threads."""

    limit: Limit

    def allow_request(self, request: HttpRequest) -> bool:
        return admit(request, self.limit)

    def wait(self) -> None:
        """Retry-After comes from the client's own window (middleware.py), not from here."""
        return None


class AnonymousReadThrottle(ClientThrottle):
    limit = ANONYMOUS_READS

    def allow_request(self, request: HttpRequest) -> bool:
        caller = getattr(request, "auth", None)
        if caller is not None and not caller.anonymous:
            return True
        return super().allow_request(request)


class PracticeCheckThrottle(ClientThrottle):
    """Checks by everyone, token or not: each runs the engine."""

    limit = PRACTICE_CHECKS


def throttled_as_anonymous_reads(view):
    """For the schema and the docs page, which are views of ninja's rather than operations: an
    anonymous client counts them with its other reads (429 in the API's shape, made by its
    middleware); a valid token or a staff session is not counted, as for every read."""

    @wraps(view)
    def throttled(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not _identified(request) and not admit(request, ANONYMOUS_READS):
            refusal = {"code": "rate_limited", "detail": ANONYMOUS_READS.refusal()}
            return problem_response(429, "Too many requests.", [refusal])
        return view(request, *args, **kwargs)

    # read only: another method is 405 (it was the CSRF check's 403), never counted
    return csrf_exempt(require_safe(throttled))


def _identified(request: HttpRequest) -> bool:
    try:
        return staff_session(request) is not None or BearerToken()(request) is not None
    except TokenRefused:  # an unknown token reads the schema as anyone does
        return False
