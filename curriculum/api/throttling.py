"""Anonymous reads are rate limited per client address, in Django's cache (Redis when
CACHE_URL is set, so every server process shares the count). The rate is `API_ANON_RATE`,
read on each request so a deployment (or a test) can change it without a restart of the code.
"""

from django.conf import settings
from django.http import HttpRequest
from ninja.throttling import SimpleRateThrottle


class AnonymousReadThrottle(SimpleRateThrottle):
    scope = "anon"

    def __init__(self) -> None:
        super().__init__(rate=settings.API_ANON_RATE)

    def allow_request(self, request: HttpRequest) -> bool:
        self.num_requests, self.duration = self.parse_rate(settings.API_ANON_RATE)
        return super().allow_request(request)

    def get_cache_key(self, request: HttpRequest) -> str | None:
        caller = getattr(request, "auth", None)
        if caller is not None and not caller.anonymous:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class PracticeCheckThrottle(SimpleRateThrottle):
    """Answer checks per client address, for everyone (each runs the engine); the site's form
    and the API share one count. The rate is `PRACTICE_CHECK_RATE`, read on each request."""

    scope = "practice"

    def __init__(self) -> None:
        super().__init__(rate=settings.PRACTICE_CHECK_RATE)

    def allow_request(self, request: HttpRequest) -> bool:
        self.num_requests, self.duration = self.parse_rate(settings.PRACTICE_CHECK_RATE)
        return super().allow_request(request)

    def get_cache_key(self, request: HttpRequest) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
