"""How checks reach the workers, so that no one's backlog starves anyone else's verdicts.

Every task is sent at a level, its broker priority (a worker takes the lowest level that holds
a task; within a level, in order of arrival):

- a single save's check goes at level 0, as does the first batch of every request (an import,
  "Verify again", the API's verify); the request's k-th batch goes at level k, so each request's
  first batch is decided before any request's second, its second before any third, and so on;
  a request for chapters that already have checks waiting starts behind them (one level per
  batch waiting), so asking again and again never moves a chapter ahead of anyone;
- a batch decides checks for one slice (VERIFY_SLICE_SECONDS) and hands the checks it has not
  reached on at the next level, so a chapter of many heavy problems yields, slice by slice, to
  whatever was asked for after it: a single save waits for at most the slice each worker is in;
- verify_all's requests go on down the levels as they are made, and the sweep, which resends
  what may have been lost, sends at the last level, behind everything still queued.

Levels stop at LAST_LEVEL, where tasks wait in order of arrival. A batch carries at most
VERIFY_BATCH_SIZE checks, so what a slice hands on is one bounded message.

Tasks are sent by name (the adapter, curriculum/tasks.py, defines them and imports the domain,
never the reverse): a registered task is run as its own `apply_async` would (in-process when
there is no broker, with its time limits); an unregistered one is sent by name alone.
"""

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction

from curriculum.celery import app

logger = logging.getLogger(__name__)

LAST_LEVEL = 9
"""Redis keeps one list per level (settings: the transport's priority_steps)."""


def _priority(level: int) -> int:
    level = min(max(level, 0), LAST_LEVEL)
    # RabbitMQ serves its highest priority first, and needs x-max-priority on the queue
    amqp = settings.CELERY_BROKER_URL.startswith(("amqp", "pyamqp"))
    return LAST_LEVEL - level if amqp else level


BROKER_PAUSE_SECONDS = 10.0
"""After a failed send, this process leaves further sends to the sweep for this long: a chapter
of many problems saved while Redis hangs waits on the broker once, not once per problem."""

_broker_paused_until = 0.0


def _send(send: Callable[[], Any], what: str) -> bool:
    """Send a task; if the broker is down the verdicts stay pending and the sweep resends them.

    Publishing fails fast (settings: connection and socket timeouts, one retry), so a save made
    while Redis is down neither hangs nor fails. Returns whether the task was sent.
    """
    global _broker_paused_until
    if time.monotonic() < _broker_paused_until:
        logger.warning("broker unreachable a moment ago: %s left for the sweep", what)
        return False
    try:
        send()
    except Exception:  # noqa: BLE001 - any broker failure; the sweep is the retry
        _broker_paused_until = time.monotonic() + BROKER_PAUSE_SECONDS
        logger.warning("could not enqueue verification of %s", what, exc_info=True)
        return False
    return True


VERIFY_SOLUTION = "curriculum.tasks.verify_solution"
VERIFY_BATCH = "curriculum.tasks.verify_batch"


def _task(
    name: str, args: tuple, kwargs: dict | None = None, *, level: int, countdown: float = 0
) -> Callable[[], Any]:
    """Sending the task called `name` at `level` (run no sooner than `countdown` seconds from
    now), as its own `apply_async` would send it."""
    options = {"priority": _priority(level)} | ({"countdown": countdown} if countdown else {})
    return app.signature(name, args, kwargs or {}, **options).apply_async


def task_send(
    name: str,
    args: tuple,
    kwargs: dict | None = None,
    *,
    level: int,
    what: str,
    countdown: float = 0,
) -> bool:
    """Send the task called `name` at `level`, to run after `countdown` seconds; whether it was
    sent (else the sweep resends)."""
    return _send(_task(name, args, kwargs, level=level, countdown=countdown), what)


def verdict_enqueue(*, solution_id: int, checked: str) -> None:
    """After commit, so the worker never reads content older than what asked for the check."""
    transaction.on_commit(lambda: verdict_enqueue_now(solution_id=solution_id, checked=checked))


def verdict_enqueue_now(*, solution_id: int, checked: str | None, level: int = 0) -> bool:
    """One check, alone in its task: a single save gets its verdict without waiting on others."""
    send = _task(VERIFY_SOLUTION, (solution_id, checked), level=level)
    return _send(send, f"solution {solution_id}")


def backlog_level(waiting: int) -> int:
    """The level a request starts at when its chapters already have `waiting` checks pending:
    behind their own backlog, so asking again and again never moves a chapter ahead of others."""
    return min(waiting // max(settings.VERIFY_BATCH_SIZE, 1), LAST_LEVEL)


def verdicts_enqueue_now(*, checks: list[tuple[int, str]], level: int = 0) -> int:
    """Many checks, VERIFY_BATCH_SIZE to a task, the k-th batch at `level` + k; returns how many
    checks were sent."""
    size = max(settings.VERIFY_BATCH_SIZE, 1)
    sent = 0
    for number, start in enumerate(range(0, len(checks), size)):
        batch = checks[start : start + size]
        at = min(level + number, LAST_LEVEL)
        send = _task(VERIFY_BATCH, (batch,), {"level": at}, level=at)
        sent += len(batch) * _send(send, f"{len(batch)} solutions from {batch[0][0]}")
    return sent


@dataclass
class Slice:
    """One task's turn on a worker: it starts checks until `seconds` have passed (always at
    least one), and what it did not reach, or what the task's soft time limit interrupted, is
    handed on at the next level. Nothing here decides a verdict: it is only scheduling.

    `interrupt` names what ends the turn from outside the check it is in (the task's soft time
    limit, given by the task): that check is handed on, not decided."""

    level: int = 0
    seconds: float = math.inf
    began: float = field(default_factory=time.monotonic)
    started: int = 0
    interrupted: bool = False
    left: list[tuple[int, str]] = field(default_factory=list)
    interrupt: tuple[type[BaseException], ...] = ()

    @classmethod
    def of_task(cls, level: int = 0, *, interrupt: tuple[type[BaseException], ...] = ()) -> "Slice":
        """A worker's turn; tasks run in-process (no broker) have no queue to share."""
        if settings.CELERY_TASK_ALWAYS_EAGER:
            return cls(level=level, interrupt=interrupt)
        return cls(level=level, seconds=settings.VERIFY_SLICE_SECONDS, interrupt=interrupt)

    def open(self) -> bool:
        """Whether another check may start in this turn."""
        if self.interrupted or self.left:
            return False
        return not self.started or time.monotonic() - self.began < self.seconds

    def leave(self, checks: list[tuple[int, str]]) -> None:
        self.left += checks

    def hand_on(self) -> int:
        """Send what was left, at the next level; returns how many checks were sent."""
        if not self.left:
            return 0
        return verdicts_enqueue_now(checks=self.left, level=self.level + 1)
