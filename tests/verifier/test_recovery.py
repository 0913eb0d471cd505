"""Nothing is lost: a worker killed mid-task, or a save while Redis is down."""

import os
import socket
import subprocess
import sys
import time
from datetime import timedelta

import numpy as np
import pytest
import yaml
from django.utils import timezone

import attention
from curriculum.celery import app
from curriculum.domain.verification import verdict_request
from curriculum.models import Book, Chapter, Problem, Solution, Verdict
from curriculum.tasks import sweep_pending_verdicts

from .conftest import (
    WORKER_ENV,
    decided,
    import_chapter,
    run_manage,
    uniform_problem,
    worker_database_url,
)
from .processes import ROOT, Worker, free_port, wait_for

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


def test_a_prefork_child_killed_mid_task_is_replaced_and_the_task_redelivered(
        idle_broker, books, tmp_path):
    # No beat and a long visibility timeout: only reject-on-worker-lost can bring the task back.
    app.control.purge()  # the seed's Book 0 problems queued on import: count only this task
    worker = Worker(name="prefork", broker_url=idle_broker, database_url=worker_database_url(),
                    logdir=tmp_path, env=WORKER_ENV | {"VISIBILITY_TIMEOUT": "300"},
                    beat=False, pool="prefork")
    worker.start()
    try:
        sid = big_problem()
        idle = worker.child_cpu_seconds()
        wait_for(lambda: worker.received() == 1, timeout=30, what="the worker to take the task")
        # the child is computing (deciding the big problem takes seconds of CPU), not just queued
        wait_for(lambda: worker.child_cpu_seconds() > idle + 0.2, timeout=60,
                 what="the pool child to start deciding", poll=0.02)

        killed = worker.kill_child()

        assert decided([sid], timeout=60)["big"].status == "verified"
        assert worker.process.poll() is None, "the parent worker died with its child"
        assert killed not in worker.children()
        assert worker.received() == 2, "the task was not redelivered"
        assert "WorkerLostError" in worker.log_text()
    finally:
        worker.stop()


@pytest.fixture
def silent_broker():
    """A port that takes connections and never answers: a hung Redis."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        yield f"redis://127.0.0.1:{server.getsockname()[1]}/0"


SAVE = """
import time
from curriculum.domain import verification
from curriculum.domain.chapter_files import file_import
text = open({path!r}).read()
file_import(text=text, dry_run=True)  # KaTeX's Node process starts here, outside the measure
waited = []
send = verification._send
def timed(*args):
    started = time.monotonic()
    try:
        return send(*args)
    finally:
        waited.append(time.monotonic() - started)
verification._send = timed
file_import(text=text)
print(f"waited on the broker {{sum(waited):.3f}} s in {{len(waited)}} sends")
"""


@pytest.mark.parametrize("down", ["refused", "silent"])
def test_a_save_with_the_broker_unreachable_returns_quickly_and_stays_pending(
        down, transactional_db, books, silent_broker, tmp_path, monkeypatch):
    monkeypatch.setenv("VERIFY_BATCH_SIZE", "1")  # two tasks: the second must not wait again
    broker = silent_broker if down == "silent" else f"redis://127.0.0.1:{free_port()}/0"
    chapter = tmp_path / "II.9.yaml"
    chapter.write_text(yaml.safe_dump({
        "code": "II.9", "book": "II", "number": 9, "title": "Saved in an outage",
        "maturity": "M0", "state": "draft",
        "problems": [uniform_problem("p1", [[2, 3], [2, 3]]),
                     uniform_problem("p2", [[2, 3], [2, 3]])],
    }))

    saved = run_manage("shell", "-c", SAVE.format(path=str(chapter)), broker_url=broker)

    assert saved.returncode == 0, saved.stderr
    # Only the broker is timed (not Node, not the database): its timeouts bound it, once.
    waited, sends = saved.stdout.split("waited on the broker ")[1].split(" s in ")
    assert int(sends.split()[0]) == 2
    assert float(waited) < 3, f"saving two problems waited {waited} s on the broker {down}"
    assert saved.stderr.count("could not enqueue verification") == 1
    assert saved.stderr.count("left for the sweep") == 1
    assert [v.status for v in Verdict.objects.filter(
        solution__problem__chapter__code="II.9")] == ["pending", "pending"]


def test_the_sweep_resends_only_overdue_pendings(idle_broker, books, settings, tmp_path):
    ids = import_chapter([uniform_problem("overdue", [[2, 3], [2, 3]]),
                          uniform_problem("recent", [[2, 3], [2, 3]])])
    app.control.purge()  # both tasks lost, as if the broker had been down when they were saved
    Verdict.objects.filter(solution_id=ids[0]).update(
        requested_at=timezone.now() - timedelta(hours=1))
    settings.VERIFY_SWEEP_AFTER_SECONDS = 60

    assert sweep_pending_verdicts() == 1

    worker = Worker(name="sweep", broker_url=idle_broker, database_url=worker_database_url(),
                    logdir=tmp_path, env=WORKER_ENV, beat=False)
    worker.start()
    try:
        assert decided(ids[:1])["overdue"].status == "verified"
        assert worker.received("verify_batch") == 1  # the sweep sends its checks in batches
        assert Verdict.objects.get(solution_id=ids[1]).status == "pending"
    finally:
        worker.stop()
