"""The engine's value of a practice instance as an answer is held against it (`attention.settled`:
the extended run's where it is made, where it finds float noise, how far an entry may be off),
made once and kept in the shared cache: what a reader's check judges and a solution shows.

A reader who asks for a solution runs the engine only when no one has before, and then only
within the practice throttle (`allow`); everyone after reads the cached value. The key names
the engine's version and a fingerprint of exactly what it computes (operation, inputs, ask)
with the instance, so an edited problem, or another engine, never meets an old value. While one
request computes a value, others asking for it wait for that value instead of computing it too.
"""

import hashlib
import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from django.conf import settings
from django.core.cache import cache

import attention

VALUE_SECONDS = 7 * 24 * 3600
MAKING_SECONDS = 30
"""How long one request holds the right to compute a value (longer than any evaluation a
practisable problem may need: LIMIT_PROBLEM_WORK shares it among every instance)."""
WAIT_SECONDS = 10.0


class EngineThrottled(Exception):  # noqa: N818 - reads as the refusal it is
    """The value is not made yet and this client may not run the engine now (a 429)."""


def value_key(*, operation: str, inputs: Any, ask: Any, instance: int) -> str:
    computed = json.dumps({"operation": operation, "inputs": inputs, "ask": ask}, sort_keys=True)
    digest = hashlib.sha256(computed.encode()).hexdigest()
    return f"instance-value:{attention.ENGINE_VERSION}:{digest}:{instance}"


def instance_value(
    *, operation: str, inputs: Any, ask: Any, instance: int, allow: Callable[[], bool]
) -> Any:
    """The value at `instance` that an answer is held against (`instance_judged`'s), as JSON
    holds it (a dict of named values, or nested lists): what a reader is shown as the solution,
    so that the page never shows float64's own value where it overflowed or rounded and the
    extended run's was judged (NaN had been shown for a verified answer). `allow` is asked,
    once, only when the engine must run. Raises EngineThrottled when it says no, and
    EngineInputError where the engine cannot settle an entry (as a check of it would say)."""
    held = _made(operation, inputs, ask, instance, allow)[0]
    if isinstance(held, dict):
        return {name: np.asarray(part).tolist() for name, part in held.items()}
    return np.asarray(held).tolist()


def engine_salt() -> bytes:
    """The key of the engine's moves (`attention.settled`): the server's secret, so that no
    author can compute them and choose inputs whose moves cancel."""
    return hashlib.sha256(b"engine moves:" + settings.SECRET_KEY.encode()).digest()


def instance_judged(
    *, operation: str, inputs: Any, ask: Any, instance: int
) -> tuple[Any, Any, Any]:
    """For a reader's check (counted against the reader's rate already): the value at
    `instance` an answer is held against, as an array (or named values), where the engine
    finds float noise in it and how far each entry may be off (`attention.settled`: the
    extended run's value, where it is made), made once for every reader under one key."""
    return _made(operation, inputs, ask, instance, lambda: True)


def _made(
    operation: str, inputs: Any, ask: Any, instance: int, allow: Callable[[], bool]
) -> tuple[Any, Any, Any]:
    """`attention.settled`'s value, zero bounds and reach at `instance`, from the cache, or made
    (and kept) by this request alone while others asking wait for it."""
    key = value_key(operation=operation, inputs=inputs, ask=ask, instance=instance)
    found = cache.get(key)
    if found is not None:
        return found
    making = f"{key}:making"
    mine = cache.add(making, 1, timeout=MAKING_SECONDS)
    if not mine and (found := _awaited(key, making)) is not None:
        return found
    try:
        if not allow():
            raise EngineThrottled
        value = attention.evaluate(operation, inputs, ask, instance)
        settled = attention.settled(operation, inputs, ask, value, instance, engine_salt())
        cache.set(key, settled, timeout=VALUE_SECONDS)
        return settled
    finally:
        if mine:
            cache.delete(making)


def _awaited(key: str, making: str) -> Any:
    """The value another request is making, once it is there; None if it stopped making it."""
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        time.sleep(0.05)
        if (found := cache.get(key)) is not None:
            return found
        if cache.get(making) is None:  # made and read just now, or given up
            return cache.get(key)
    return None
