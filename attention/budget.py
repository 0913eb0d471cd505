"""A time budget an engine run checks itself: the CPU time this process spends inside it.

CPU time, not the clock: a run that waits for a core (other processes, a loaded machine) or
for a queue spends none, so the same content on the same engine spends the same budget
whatever else the machine is doing. The budget is armed with ``ITIMER_PROF``, which the kernel
counts only while the process runs; when it expires, ``EngineOverTime`` is raised inside the
run at the next Python instruction (each numpy call is bounded by the size limits).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class EngineOverTime(Exception):  # noqa: N818 - reads as the condition it reports
    """The run spent its whole CPU budget; ``seconds`` is that budget."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(f"the engine's run used more than {seconds:g} s of CPU time")


def _can_arm() -> bool:
    """Signals reach only the main thread (a development server's request threads run unarmed,
    bounded by the work limits alone)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextmanager
def cpu_budget(seconds: float) -> Iterator[None]:
    """Raise ``EngineOverTime`` inside the block once it has used ``seconds`` of CPU time."""
    if seconds <= 0 or not _can_arm():
        yield
        return

    def over(signum: int, frame: object) -> None:
        raise EngineOverTime(seconds)

    previous = signal.signal(signal.SIGPROF, over)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
