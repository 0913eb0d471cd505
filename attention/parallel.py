"""Independent blocks of work spread over the machine's cores, BLAS at one thread in each.

numpy runs an elementwise pass (the softmax of a block of scores) on one core, and OpenBLAS
splits a small product between its threads at more cost than gain (on a busy machine, at many
times the cost). Attention is made of many independent blocks (a head, a band of queries), each
small enough to stay in one core's cache; ``run_blocks`` hands them to one thread per BLAS
thread, with OpenBLAS held to one thread meanwhile, so the products and the passes between them
both use every core (numpy releases the GIL in each).

The engine imports nothing but numpy: OpenBLAS's own ``get/set_num_threads`` are found among the
libraries this process has loaded (Linux). Where they are not (another BLAS, another system),
blocks run one after another, as they would on one core.
"""

from __future__ import annotations

import ctypes
import functools
import math
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import numpy as np

Item = TypeVar("Item")  # not PEP 695: the engine also imports under Python 3.11 (bench/torch)

_SYMBOLS = [
    ("scipy_openblas_", "64_"),
    ("scipy_openblas_", ""),
    ("openblas_", "64_"),
    ("openblas_", ""),
]
"""Prefixes and suffixes of OpenBLAS's thread functions: numpy's wheels bundle scipy-openblas
(64-bit integers), a system numpy links libopenblas."""


class _Blas:
    """OpenBLAS's thread count, lowered to one while any caller needs it so."""

    def __init__(self, get: Callable[[], int], put: Callable[[int], None]) -> None:
        self.get, self.put = get, put
        self.lock = threading.Lock()
        self.users = 0
        self.saved = 1

    @contextmanager
    def one_thread(self) -> Iterator[None]:
        with self.lock:
            if not self.users:
                self.saved = self.get()
                self.put(1)
            self.users += 1
        try:
            yield
        finally:
            with self.lock:
                self.users -= 1
                if not self.users:
                    self.put(self.saved)


def _loaded_openblas() -> list[str]:
    """Paths of the OpenBLAS libraries mapped into this process (numpy's)."""
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return []
    paths = {line.split(maxsplit=5)[-1] for line in maps.splitlines() if "openblas" in line}
    return sorted(path for path in paths if path.startswith("/"))


_first_use = threading.RLock()
"""Held while BLAS is found and the pool made: threads arriving at once make one of each."""


def _blas() -> _Blas | None:
    with _first_use:
        return _found_blas()


@functools.cache
def _found_blas() -> _Blas | None:
    np.ones((2, 2)) @ np.ones((2, 2))  # numpy loads its BLAS lazily on some builds
    for path in _loaded_openblas():
        lib = ctypes.CDLL(path)
        for prefix, suffix in _SYMBOLS:
            get = getattr(lib, f"{prefix}get_num_threads{suffix}", None)
            put = getattr(lib, f"{prefix}set_num_threads{suffix}", None)
            if get is not None and put is not None:
                get.restype, get.argtypes = ctypes.c_int, []
                put.restype, put.argtypes = None, [ctypes.c_int]
                return _Blas(get, put)
    return None


def _pool() -> ThreadPoolExecutor | None:
    """One worker per BLAS thread; None on one core, under OPENBLAS_NUM_THREADS=1 (the Django
    and Celery processes, curriculum/celery.py) or where BLAS's threads cannot be held to one."""
    with _first_use:
        return _made_pool()


@functools.cache
def _made_pool() -> ThreadPoolExecutor | None:
    blas = _blas()
    workers = blas.get() if blas is not None else 1
    return ThreadPoolExecutor(workers, thread_name_prefix="attention") if workers > 1 else None


def _forget_pool() -> None:
    """A forked child (a Celery worker) has none of its parent's threads: it starts its own,
    with BLAS's thread count as it was before any call in flight at the fork lowered it."""
    global _first_use
    _first_use = threading.RLock()
    _made_pool.cache_clear()
    blas = _found_blas() if _found_blas.cache_info().currsize else None
    if blas is not None:
        blas.lock = threading.Lock()
        if blas.users:
            blas.users = 0
            blas.put(blas.saved)


os.register_at_fork(after_in_child=_forget_pool)


SHARED_PRODUCT = 2**21
"""Multiply-adds from which ``product`` splits a product between the cores."""


def product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` (each at least a matrix), bands of the result's rows on different cores as
    ``run_blocks`` spreads them.

    OpenBLAS's own threads, once woken by a product they share, spin for about a tenth of a
    second on the cores the blocks after it want: a forward pass that never wakes them ran a
    fifth faster. Each band has at least two rows: a one-row band would be a matrix-vector
    product, rounded another way. A band is summed as gemm's kernels sum a product of its
    height, which on some machines is not as they sum the whole (an AMD EPYC's OpenBLAS rounds
    the float32 halves of a 2048-row product otherwise than the whole, in the last bit), so the
    last bits may differ from ``np.matmul``'s on one thread, as they do on OpenBLAS's own
    threads; the bands are the same at every call, and so is the result."""
    lead = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    rows, inner, cols = a.shape[-2], a.shape[-1], b.shape[-1]
    pool = _pool()
    workers = pool._max_workers if pool is not None else 1
    if workers < 2 or rows < 2 * workers or rows * inner * cols * math.prod(lead) < SHARED_PRODUCT:
        return np.matmul(a, b)
    out = np.empty(lead + (rows, cols), np.result_type(a, b))
    edges = [rows * n // workers for n in range(workers + 1)]  # rows // workers a band, or one more

    def band(n: int) -> None:
        start, stop = edges[n], edges[n + 1]
        np.matmul(a[..., start:stop, :], b, out=out[..., start:stop, :])

    run_blocks(band, range(workers))
    return out


def run_blocks(task: Callable[[Item], object], items: Sequence[Item]) -> None:  # noqa: UP047
    """Call ``task`` on every item, items on different cores at once; the first error raised
    by a task is raised here once no item is running."""
    pool = _pool() if len(items) > 1 else None
    blas = _blas()
    if pool is None or blas is None:
        for item in items:
            task(item)
        return
    with blas.one_thread():
        futures = [pool.submit(task, item) for item in items]
        wait(futures)
    for future in futures:
        future.result()
