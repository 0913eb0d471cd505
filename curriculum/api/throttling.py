"""ninja's throttle hooks over the project's one rule for counting clients (curriculum/clients.py):
anonymous reads per client at `API_ANON_RATE`, answer checks at `PRACTICE_CHECK_RATE` (shared
with the site's practice form), both read on each request."""

from django.http import HttpRequest
from ninja.throttling import BaseThrottle

from curriculum.clients import ANONYMOUS_READS, PRACTICE_CHECKS, Limit, client_admit


class ClientThrottle(BaseThrottle):
    """Holds no state of its own: ninja shares one instance between a worker's threads."""

    limit: Limit

    def allow_request(self, request: HttpRequest) -> bool:
        return client_admit(request, self.limit)

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
