"""Anonymous reads are rate limited per client address, in Django's cache (Redis when
CACHE_URL is set, so every server process shares the count). The rate is `API_ANON_RATE`,
read on each request so a deployment (or a test) can change it without a restart of the code.
"""

import threading
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from ninja.throttling import SimpleRateThrottle


class _PerThread:
    """An attribute each thread sees its own value of. ninja keeps a request's key, history and
    time on the throttle, one instance shared by a worker's threads: two clients asking at once
    would be counted under one client's key."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        return getattr(instance.__dict__.setdefault("_thread", threading.local()), self.name)

    def __set__(self, instance: Any, value: Any) -> None:
        setattr(instance.__dict__.setdefault("_thread", threading.local()), self.name, value)


class PerThreadRateThrottle(SimpleRateThrottle):
    key = _PerThread()
    history = _PerThread()
    now = _PerThread()


class AnonymousReadThrottle(PerThreadRateThrottle):
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


class PracticeCheckThrottle(PerThreadRateThrottle):
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
