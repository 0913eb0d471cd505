"""Timing shared by bench/engine and bench/torch: best of a few runs, calls per second, and
numpy's own matmul rate (the ceiling every forward pass is measured against).

Imports numpy only, so bench/torch runs under any Python that has numpy and torch.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np

LARGE = (2048, 512, 8)
"""The large problem (T, d, h) of the issue's rows; ``--quick`` runs QUICK instead."""

QUICK = (1024, 256, 4)

TINY = (4, 8, 2)
"""The textbook call (T, d, h)."""


def best_time(fn: Callable[[], object], repeats: int) -> float:
    """Fastest of ``repeats`` runs, in seconds (the least disturbed by the rest of the machine)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def calls_per_second(fn: Callable[[], object], budget: float) -> float:
    """Median rate over a few batches of calls filling roughly ``budget`` seconds."""
    fn()
    n, elapsed = 1, 0.0
    while elapsed < budget / 5:
        n *= 2
        elapsed = best_time(lambda n=n: [fn() for _ in range(n)], 1)
    rates = [n / best_time(lambda n=n: [fn() for _ in range(n)], 1) for _ in range(5)]
    return statistics.median(rates)


SETTLE = 0.3
"""Seconds between two measurements: the threads a library shares a product between (OpenBLAS's,
torch's OpenMP's) spin for about a tenth of a second after it, on the cores the next
measurement wants."""


def interleaved_best(calls: dict[str, Callable[[], float]], rounds: int = 3) -> dict[str, float]:
    """Each measurement's best over ``rounds`` interleaved rounds: the machine's load drifts,
    and must not favour one side; each starts once the one before has settled (``SETTLE``).
    ``calls`` return a rate (higher is better)."""
    best = dict.fromkeys(calls, 0.0)
    for _ in range(rounds):
        for name, measure in calls.items():
            time.sleep(SETTLE)
            best[name] = max(best[name], measure())
    return best


def per_second(fn: Callable[[], object]) -> Callable[[], float]:
    """A measurement for ``interleaved_best``: runs of ``fn`` per second, the faster of two runs
    one after the other. On this machine's virtual machine, memory freed and unused for two
    seconds goes back to the host (free page reporting), and a large array written in it
    again pays about 3 ms a 2 MB page to fetch it back: a quarter to half a second for a pass
    that writes 268 MB of weights, whatever library writes them. The second run measures the
    pass, the first the machine."""
    return lambda: 1 / best_time(fn, 2)


def matmul_rate(seq: int, width: int, dtype: type, repeats: int) -> float:
    """numpy's own flop rate on the layer's two matmul shapes: (T,d)@(d,d) and (T,d)@(d,T)."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(seq, width)).astype(dtype)
    w = rng.normal(size=(width, width)).astype(dtype)
    kt = rng.normal(size=(width, seq)).astype(dtype)
    t1 = best_time(lambda: x @ w, repeats)
    t2 = best_time(lambda: x @ kt, repeats)
    return (2 * seq * width * width + 2 * seq * width * seq) / (t1 + t2)
