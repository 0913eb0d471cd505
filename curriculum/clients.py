"""Who a client is, and how often it may ask: one answer for the admin's login lockout (axes),
the API's throttles and the site's practice form.

A client is its address: REMOTE_ADDR, or behind NUM_PROXIES proxies that each append the
address they saw to X-Forwarded-For, the NUM_PROXIES-th entry from the right (what a client
wrote before those entries is never believed). A rate is a counter in the shared cache per
client and window: `cache.add` opens the window's count, `cache.incr` counts in it. On Redis
(production's cache, settings.CACHES) both are atomic and the count keeps its window's expiry,
so concurrent requests never read the same count (a history read, then written, let a burst
through at twice the rate). Django's database cache, used only where there is no Redis at
all, counts with a read and a write: requests at the same instant may be counted once.
"""

import contextlib
import ipaddress
import math
import re
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest

RATE = re.compile(r"(\d+)/(\d*)(s|sec|m|min|h|hour|d|day)")
SECONDS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hour": 3600, "d": 86400, "day": 86400}


@dataclass(frozen=True)
class Limit:
    scope: str  # what is counted: one count per client for every caller of this scope
    setting: str  # the rate's setting, read on each request ("120/min")

    def rate(self) -> tuple[int, int]:
        """(requests, seconds) of the setting's current value."""
        text = getattr(settings, self.setting)
        found = RATE.fullmatch(text.replace(" ", ""))
        if found is None:
            raise ImproperlyConfigured(f"{self.setting}: {text!r} is not a rate such as 120/min")
        count, multiple, unit = found.groups()
        return int(count), int(multiple or 1) * SECONDS[unit]

    def refusal(self) -> str:
        """What a client past the rate is told: the rate and the setting that names it."""
        count, seconds = self.rate()
        return f"at most {count} per {seconds} s from one client address ({self.setting})"


ANONYMOUS_READS = Limit("anon", "API_ANON_RATE")
PRACTICE_CHECKS = Limit("practice", "PRACTICE_CHECK_RATE")  # the site's form and the API's
PRACTICE_REPORTS = Limit("report", "PRACTICE_REPORT_RATE")


def client_address(request: HttpRequest) -> str | None:
    """The client's address, or None when the request carries none that parses."""
    header = request.META.get("HTTP_X_FORWARDED_FOR", "")
    forwarded = [entry.strip() for entry in header.split(",")] if header else []
    proxies = settings.NUM_PROXIES
    # Fewer entries than proxies: the request came past them (say, straight to gunicorn), so its
    # own peer is the client as far as anything can be believed.
    candidate = (
        forwarded[-proxies]
        if 0 < proxies <= len(forwarded)
        else request.META.get("REMOTE_ADDR", "")
    )
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return None


@dataclass(frozen=True)
class Window:
    """A client's place in its current window, as the count that admits or refuses it says
    (the API announces it in RateLimit-* headers)."""

    admitted: bool
    limit: int  # requests allowed in a window
    remaining: int  # still allowed in this window
    reset: int  # seconds until the window ends (at least 1)
    key: str = ""  # the count this request added to, for `client_uncount`


def client_admit(request: HttpRequest, limit: Limit) -> bool:
    """Count this request against the client's window; False past the rate."""
    return client_window(request, limit).admitted


def client_window(request: HttpRequest, limit: Limit) -> Window:
    """Count this request against the client's window: admitted unless past the rate.

    A window opens with the client's first request and lasts the rate's period; its count is
    kept under the window's start, so a count never outlives its window, whatever a cache does
    to an entry's expiry (Django's database cache sets it anew on every incr)."""
    count, seconds = limit.rate()
    client = f"rate:{limit.scope}:{client_address(request) or 'unknown'}"
    opened = _window_opened(f"{client}:opened", seconds)
    key = f"{client}:{opened!r}"
    reset = max(1, math.ceil(opened + seconds - time.time()))
    for _ in range(2):  # counted in the window, else the window's first; a race: count again
        try:
            used = cache.incr(key)
        except ValueError:  # no count yet (or its window just ended)
            if cache.add(key, 1, seconds + 1):
                return Window(count >= 1, count, max(0, count - 1), seconds, key)
        else:
            return Window(used <= count, count, max(0, count - used), reset, key)
    return Window(False, count, 0, reset)


def _window_opened(key: str, seconds: int) -> float:
    """When the client's window opened: at its first request, or, once it has ended, where the
    period after it starts (every request that finds it ended computes the same start, so racing
    requests agree). The entry outlives its window by a second, and the window ends by the
    clock, not by the entry: a cache may keep an expiry only to the whole second (Django's
    database cache drops its fraction), which ended a one-second window up to a second early."""
    now = time.time()
    opened = cache.get(key)
    if opened is None:  # of two requests opening it at once, one start is kept: both read it
        cache.add(key, now, seconds + 1)
        return cache.get(key, now)
    if now >= opened + seconds:
        opened += seconds * ((now - opened) // seconds)
        cache.set(key, opened, seconds + 1)
    return opened


def client_uncount(window: Window) -> None:
    """Take back the count a request was admitted with, when another rate refuses it: a
    request refused by one rate spends no other (`decr` is as atomic as `incr`)."""
    if window.key:
        with contextlib.suppress(ValueError):  # its window ended meanwhile, and the count too
            cache.decr(window.key)
