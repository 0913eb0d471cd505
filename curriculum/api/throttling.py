"""ninja's throttle hooks over the project's one rule for counting clients (curriculum/clients.py):
anonymous reads per client at `API_ANON_RATE`, answer checks at `PRACTICE_CHECK_RATE` (shared
with the site's practice form), both read on each request."""

from functools import wraps

from django.http import HttpRequest, HttpResponse, JsonResponse
from ninja.errors import AuthenticationError
from ninja.throttling import BaseThrottle

from curriculum.clients import ANONYMOUS_READS, PRACTICE_CHECKS, Limit, client_admit

from .auth import BearerToken, staff_session


class ClientThrottle(BaseThrottle):
    """Holds no state of its own: ninja shares one instance between a worker's threads."""

    limit: Limit

    def allow_request(self, request: HttpRequest) -> bool:
        if client_admit(request, self.limit):
            return True
        request.refused_by = self.limit  # type: ignore[attr-defined]  # the 429 names it
        return False

    def wait(self) -> float:
        return float(self.limit.rate()[1])  # at most one period: the window ends within it


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
        if not _identified(request) and not client_admit(request, ANONYMOUS_READS):
            retry = str(ANONYMOUS_READS.rate()[1])
            body = {"detail": "Too many requests.", "errors": [ANONYMOUS_READS.refusal()]}
            return JsonResponse(body, status=429, headers={"Retry-After": retry})
        return view(request, *args, **kwargs)

    return throttled


def _identified(request: HttpRequest) -> bool:
    try:
        return staff_session(request) is not None or BearerToken()(request) is not None
    except AuthenticationError:  # an unknown token reads the schema as anyone does
        return False
