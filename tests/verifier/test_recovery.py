"""Nothing is lost: a worker killed mid-task, or a save while Redis is down."""

import os
import subprocess
import sys
import time

import numpy as np
import pytest
import yaml

import attention
from curriculum.domain.verification import verdict_request
from curriculum.models import Book, Chapter, Problem, Solution, Verdict

from .conftest import WORKER_ENV, decided, uniform_problem, worker_database_url
from .processes import ROOT, Worker, wait_for

pytestmark = pytest.mark.worker


def big_problem() -> int:
    """A large but allowed problem (T = 4096): the worker needs seconds to decide it."""
    rng = np.random.default_rng(3)
    q = rng.integers(-2, 3, size=(4096, 128)).tolist()
    inputs = {"q": q, "k": q, "v": q}
    ask = {"output": "out", "row": 0, "col": 0}
    chapter = Chapter.objects.create(code="II.7", book=Book.objects.get(numeral="II"), number=7,
                                     title="Big")
    problem = Problem.objects.create(
        chapter=chapter, key="big", kind="exercise", variant="long", statement="Compute it.",
        operation="scaled_dot_product_attention", inputs=inputs, ask=ask)
    answer = float(attention.evaluate(problem.operation, inputs, ask))
    solution = Solution.objects.create(problem=problem, answer=answer, published=True)
    verdict_request(solution=solution)
    return solution.pk


def test_a_worker_killed_mid_task_loses_nothing(worker, books):
    before = worker.received()
    sid = big_problem()
    wait_for(lambda: worker.received() > before, timeout=30, what="the worker to take the task")

    worker.kill()

    assert Verdict.objects.get(solution_id=sid).status == "pending"
    worker.start()
    assert decided([sid], timeout=90)["big"].status == "verified"


def test_a_save_while_redis_is_down_is_verified_once_redis_is_back(
        transactional_db, books, own_redis, tmp_path):
    outage_worker = Worker(name="outage", broker_url=own_redis.url,
                           database_url=worker_database_url(), logdir=tmp_path, env=WORKER_ENV)
    outage_worker.start()
    chapter = tmp_path / "II.9.yaml"
    chapter.write_text(yaml.safe_dump({
        "code": "II.9", "book": "II", "number": 9, "title": "Saved in an outage",
        "maturity": "M0", "state": "draft",
        "problems": [uniform_problem("p1", [[2, 3], [2, 3]])],
    }))
    try:
        own_redis.stop()
        started = time.monotonic()
        saved = subprocess.run(
            [sys.executable, "manage.py", "import_chapter", str(chapter)], cwd=ROOT,
            env=os.environ | {"DATABASE_URL": worker_database_url(),
                              "CELERY_BROKER_URL": own_redis.url},
            capture_output=True, text=True, timeout=60)
        took = time.monotonic() - started

        assert saved.returncode == 0, saved.stderr
        assert "could not enqueue" in saved.stderr
        assert took < 15, f"saving took {took:.1f} s with the broker down"
        [verdict] = Verdict.objects.filter(solution__problem__chapter__code="II.9")
        assert verdict.status == "pending"

        own_redis.start()
        assert decided([verdict.solution_id], timeout=90)["p1"].status == "verified"
    finally:
        outage_worker.stop()
