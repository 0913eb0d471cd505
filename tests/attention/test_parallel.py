"""Blocks spread over threads. The Django processes hold BLAS to one thread (curriculum/celery.py),
so there the engine runs its blocks one by one; these tests give it two workers, as a
standalone run on two cores has."""

import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from attention import (
    grouped_query_attention,
    multi_head_attention,
    multi_head_attention_backward,
    parallel,
)
from tests.attention.reference import reference_mha

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def two_workers(monkeypatch):
    pool = ThreadPoolExecutor(2)
    monkeypatch.setattr(parallel, "_pool", lambda: pool)
    yield
    pool.shutdown()


def test_a_blocks_error_is_raised_once_no_block_is_running(two_workers):
    running = []
    lock = threading.Lock()

    def task(item: int) -> None:
        with lock:
            running.append(item)
        if item == 0:
            raise ValueError("block 0 failed")
        time.sleep(0.01)
        with lock:
            running.remove(item)

    with pytest.raises(ValueError, match="block 0 failed"):
        parallel.run_blocks(task, list(range(6)))
    assert running == [0]  # every other block started and finished


def test_blocks_on_two_threads_give_the_loop_references_attention(two_workers):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(2, 300, 16))
    ws = [rng.normal(size=(16, 16)) / 4 for _ in range(4)]
    mask = rng.random((2, 300, 300)) < 0.6
    mask[..., 0] = True
    out, weights = multi_head_attention(x, *ws, 4, mask=mask, causal=True)
    ref_out, ref_weights = reference_mha(x, *ws, 4, mask=mask, causal=True)
    np.testing.assert_allclose(out, ref_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(weights, ref_weights, rtol=1e-10, atol=1e-12)
    # grouped-query attention with every head its own key head is the same layer
    grouped = grouped_query_attention(x, *ws, 4, 4, mask=mask, causal=True)
    np.testing.assert_allclose(grouped[0], ref_out, rtol=1e-10, atol=1e-12)


def test_the_backward_pass_on_two_threads_is_the_one_on_one(two_workers, monkeypatch):
    rng = np.random.default_rng(6)
    x = rng.normal(size=(300, 16)).astype(np.float32)
    ws = [(rng.normal(size=(16, 16)) / 4).astype(np.float32) for _ in range(4)]
    grad_out = rng.normal(size=(300, 16)).astype(np.float32)
    spread = multi_head_attention_backward(x, *ws, 4, grad_out, causal=True)
    monkeypatch.setattr(parallel, "_pool", lambda: None)
    one_by_one = multi_head_attention_backward(x, *ws, 4, grad_out, causal=True)
    for a, b in zip(spread, one_by_one, strict=True):
        assert a.dtype == np.float32
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    ("a_shape", "b_shape", "transposed"),
    [
        ((301, 200), (200, 90), False),
        ((2, 257, 64), (64, 128), False),
        ((96, 96), (3, 96, 150), True),
        ((5, 7, 300), (300, 600), False),  # bands of two rows and three
    ],
)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_product_shared_between_cores_is_blas_on_one_thread_to_rounding_and_never_moves(
    two_workers, monkeypatch, a_shape, b_shape, transposed, dtype
):
    """Each band is gemm's own product, so it is within gemm's rounding of the whole, and the
    same bands at every call give the same bits; a band written to other rows, or summed as a
    matrix-vector product past that rounding, would not be."""
    blas = parallel._blas()
    if blas is None:
        pytest.skip("numpy's BLAS here is not OpenBLAS: products are numpy's own")
    monkeypatch.setattr(parallel, "SHARED_PRODUCT", 1)
    rng = np.random.default_rng(7)
    a = rng.normal(size=a_shape[::-1] if transposed else a_shape).astype(dtype)
    a = a.T if transposed else a
    b = rng.normal(size=b_shape).astype(dtype)
    shared = parallel.product(a, b)
    assert shared.dtype == dtype
    np.testing.assert_array_equal(parallel.product(a, b), shared)
    with blas.one_thread():
        alone = np.matmul(a, b)
    # a dot product of n terms is within n units of its terms' sizes, in any order (Higham)
    bound = a.shape[-1] * np.finfo(dtype).eps * np.matmul(np.abs(a), np.abs(b))
    assert np.all(np.abs(shared - alone) <= bound)


def test_a_product_of_fewer_rows_than_two_a_core_is_numpys_own(two_workers, monkeypatch):
    """A band of one row would be a matrix-vector product, which sums otherwise."""
    monkeypatch.setattr(parallel, "SHARED_PRODUCT", 1)
    rng = np.random.default_rng(8)
    a, b = rng.normal(size=(3, 1000)), rng.normal(size=(1000, 1000))
    np.testing.assert_array_equal(parallel.product(a, b), np.matmul(a, b))


FORKED_MID_CALL = """
import os, warnings
from attention import parallel
warnings.simplefilter("ignore", DeprecationWarning)  # OpenBLAS's threads: the child makes none
blas = parallel._blas()
if blas is None:
    raise SystemExit(3)
blas.put(2)
with blas.one_thread():  # as a call in flight in another thread holds it at the fork
    child = os.fork()
    if child == 0:
        os._exit(0 if parallel._blas().get() == 2 and parallel._pool() is not None else 1)
_, status = os.waitpid(child, 0)
raise SystemExit(os.waitstatus_to_exitcode(status))
"""


def test_a_child_forked_mid_call_gets_blas_threads_and_a_pool_of_its_own():
    """A Celery worker forks its children; one forked while a call held BLAS to one thread
    had kept it so, and no pool, for good."""
    done = subprocess.run([sys.executable, "-c", FORKED_MID_CALL], cwd=ROOT, timeout=60)
    if done.returncode == 3:
        pytest.skip("numpy's BLAS here is not OpenBLAS: blocks run one by one")
    assert done.returncode == 0


def test_blas_gets_its_threads_back_after_a_large_call(two_workers):
    blas = parallel._blas()
    if blas is None:
        pytest.skip("numpy's BLAS here is not OpenBLAS: blocks run one by one")
    before = blas.get()
    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 32))
    ws = [rng.normal(size=(32, 32)) for _ in range(4)]
    multi_head_attention(x, *ws, 4, causal=True)
    assert blas.get() == before
