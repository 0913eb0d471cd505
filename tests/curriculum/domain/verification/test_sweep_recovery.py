"""Nothing is lost: a worker killed mid-task, or a save while Redis is down."""

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager, suppress
from datetime import timedelta

import numpy as np
import pytest
import yaml
from django.conf import settings as django_settings
from django.utils import timezone

import attention
from curriculum.celery import app
from curriculum.domain.verification import verdict_request
from curriculum.models import Book, Chapter, Problem, Solution, Verdict
from curriculum.tasks import sweep_pending_verdicts, verify_batch, verify_solution
from tests.curriculum.conftest import (
    WORKER_ENV,
    decided,
    import_chapter,
    run_manage,
    uniform_problem,
    worker_database_url,
)
from tests.processes import ROOT, Worker, free_port, wait_for

pytestmark = pytest.mark.worker


def big_problem() -> int:
    """A large but allowed problem (T = 4096): the worker needs seconds to decide it."""
    rng = np.random.default_rng(3)
    q = rng.integers(-2, 3, size=(4096, 128)).tolist()
    inputs = {"q": q, "k": q, "v": q}
    ask = {"output": "out", "row": 0, "col": 0}
    chapter = Chapter.objects.create(
        code="II.7", book=Book.objects.get(numeral="II"), number=7, title="Big"
    )
    problem = Problem.objects.create(
        chapter=chapter,
        key="big",
        kind="exercise",
        variant="long",
        statement="Compute it.",
        operation="scaled_dot_product_attention",
        inputs=inputs,
        ask=ask,
    )
    answer = float(attention.evaluate(problem.operation, inputs, ask))
    solution = Solution.objects.create(problem=problem, answer=answer, published=True)
    verdict_request(solution=solution)
    return solution.pk


def test_a_worker_killed_mid_task_loses_nothing(worker, books_committed):
    before = worker.received()
    sid = big_problem()
    wait_for(lambda: worker.received() > before, timeout=30, what="the worker to take the task")

    worker.kill()

    assert Verdict.objects.get(solution_id=sid).status == "pending"
    worker.start()
    assert decided([sid], timeout=90)["big"].status == "verified"


def test_a_save_while_redis_is_down_is_verified_once_redis_is_back(
    transactional_db, books_committed, own_redis, tmp_path, verifier_worker
):
    # the session's worker sweeps this database too: it would decide the verdict while the
    # outage lasts (the `worker` fixture starts it again for the tests after)
    verifier_worker.stop()
    outage_worker = Worker(
        name="outage",
        broker_url=own_redis.url,
        database_url=worker_database_url(),
        logdir=tmp_path,
        env=WORKER_ENV,
    )
    outage_worker.start()
    chapter = tmp_path / "II.9.yaml"
    chapter.write_text(
        yaml.safe_dump(
            {
                "code": "II.9",
                "book": "II",
                "number": 9,
                "title": "Saved in an outage",
                "maturity": "M0",
                "state": "draft",
                "problems": [uniform_problem("p1", [[2, 3], [2, 3]])],
            }
        )
    )
    try:
        own_redis.stop()
        started = time.monotonic()
        saved = subprocess.run(
            [sys.executable, "manage.py", "import_chapter", str(chapter)],
            cwd=ROOT,
            env=os.environ
            | {"DATABASE_URL": worker_database_url(), "CELERY_BROKER_URL": own_redis.url},
            capture_output=True,
            text=True,
            timeout=60,
        )
        took = time.monotonic() - started

        assert saved.returncode == 0, saved.stderr
        assert "could not enqueue" in saved.stderr
        # the whole command, started, importing and rendering beside a full suite (16 s once
        # at 15); the broker's own share is timed alone, to its 1 s timeout, in
        # test_a_save_with_the_broker_unreachable_returns_quickly_and_stays_pending
        assert took < 40, f"saving took {took:.1f} s with the broker down"
        [verdict] = Verdict.objects.filter(solution__problem__chapter__code="II.9")
        assert verdict.status == "pending"

        own_redis.start()
        assert decided([verdict.solution_id], timeout=90)["p1"].status == "verified"
    finally:
        outage_worker.stop()


def test_a_prefork_child_killed_mid_task_is_replaced_and_the_task_redelivered(
    idle_broker, books_committed, tmp_path
):
    # No beat and a long visibility timeout: only reject-on-worker-lost can bring the task back.
    app.control.purge()  # the seed's Book 0 problems queued on import: count only this task
    worker = Worker(
        name="prefork",
        broker_url=idle_broker,
        database_url=worker_database_url(),
        logdir=tmp_path,
        env=WORKER_ENV | {"VISIBILITY_TIMEOUT": "300"},
        beat=False,
        pool="prefork",
    )
    worker.start()
    try:
        sid = big_problem()
        idle = worker.child_cpu_seconds()
        wait_for(lambda: worker.received() == 1, timeout=30, what="the worker to take the task")
        # the child is computing (deciding the big problem takes seconds of CPU), not just queued
        wait_for(
            lambda: worker.child_cpu_seconds() > idle + 0.2,
            timeout=60,
            what="the pool child to start deciding",
            poll=0.02,
        )

        killed = worker.kill_child()

        assert decided([sid], timeout=60)["big"].status == "verified"
        assert worker.process.poll() is None, "the parent worker died with its child"
        assert killed not in worker.children()
        assert worker.received() == 2, "the task was not redelivered"
        assert "WorkerLostError" in worker.log_text()
    finally:
        worker.stop()


def heavy_problems(count: int, code: str = "II.7") -> list[int]:
    """Identical right answers to a generated problem that takes its worker about three quarters
    of a second of CPU (instance 0 and 20 reader instances of 1024 narrow rows, each settled as
    answers are held: the scores' softmax is most of it), well within LIMIT_PROBLEM_WORK, and
    few enough numbers that 50 fit in one chapter's LIMIT_CHAPTER_GENERATED; imported
    together, they are one batch."""
    inputs = {
        name: {"generate": "normal", "shape": [1024, 4], "seed": seed}
        for seed, name in enumerate(("q", "k", "v"), start=1)
    }
    ask = {"output": "out", "row": 0, "col": 0}
    answer = float(attention.evaluate("scaled_dot_product_attention", inputs, ask))
    heavy = {
        "operation": "scaled_dot_product_attention",
        "inputs": inputs,
        "ask": ask,
        "tolerance": {"digits": 6},
    }
    return import_chapter(
        [uniform_problem(f"h{i}", answer, **heavy) for i in range(count)], code=code
    )


# A hard time limit of 8 s makes the soft limit 5 s: less than the batch needs, as a big
# chapter's batch is for the 60 s default. No slice, so that only the soft limit interrupts.
SHORT_LIMITS = WORKER_ENV | {
    "VERIFY_TIME_LIMIT": "8",
    "VERIFY_SLICE_SECONDS": "600",
    "VISIBILITY_TIMEOUT": "300",
}


@pytest.fixture
def short_limits(monkeypatch):
    """The short limits in the tasks this test sends (a task carries the time limits of the
    process that sent it) and in the worker's settings."""
    for task in (verify_batch, verify_solution):
        monkeypatch.setattr(task, "time_limit", 8)
        monkeypatch.setattr(task, "soft_time_limit", 5)
        monkeypatch.setattr(task, "_exec_options", None)  # Celery's cache of the two
    return SHORT_LIMITS


def prefork_worker(broker: str, tmp_path) -> Worker:
    worker = Worker(
        name="prefork",
        broker_url=broker,
        database_url=worker_database_url(),
        logdir=tmp_path,
        env=SHORT_LIMITS,
        beat=False,
        pool="prefork",
    )
    worker.start()
    return worker


def drop_connections() -> None:
    """As a restarted PostgreSQL or a proxy would: end every connection but this test's."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
            "current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
        )


@contextmanager
def busier(worker: Worker, times: int):
    """Load, made exact: the pool children are stopped for all but one part in `times` of each
    half second, as on a machine `times` times busier, whatever else the machine is doing."""
    loaded = threading.Event()
    loaded.set()

    def signal_children(sig: int) -> None:
        for child in worker.children():
            with suppress(ProcessLookupError):  # a child killed or replaced just now
                os.kill(child, sig)

    def load():
        while loaded.is_set():
            signal_children(signal.SIGSTOP)
            time.sleep(0.5 * (times - 1) / times)
            signal_children(signal.SIGCONT)
            time.sleep(0.5 / times)

    loader = threading.Thread(target=load)
    loader.start()
    try:
        yield
    finally:
        loaded.clear()
        loader.join()
        signal_children(signal.SIGCONT)


SOFT_LIMIT = "Soft time limit (5"


@pytest.mark.parametrize("ended", ["killed", "disconnected"])
def test_a_batch_ended_mid_run_leaves_every_right_answer_verified(
    idle_broker, books_committed, tmp_path, short_limits, ended
):
    """Redelivered (its child killed) or retried (its connection dropped), the batch decides its
    checks one at a time; on a machine four times busier, the soft time limit falls on one of
    them for the time the others took: that check goes again, it is not out of time. The load
    is made, not hoped for, and lifted once the limit has fallen, so that the test asks the
    same of a quiet machine and of one running the rest of the suite. Ten checks: six, once
    the engine had got faster, took 4.8 s under that load, and the limit sometimes never fell."""
    ids = heavy_problems(10)
    worker = prefork_worker(idle_broker, tmp_path)
    try:
        # from the batch's receipt: a child still starting spends CPU too, and a connection
        # dropped before the task opens its own ends nothing
        wait_for(
            lambda: worker.received("verify_batch"),
            timeout=60,
            what="the worker to take the batch",
            poll=0.02,
        )
        idle = worker.child_cpu_seconds()
        wait_for(
            lambda: worker.child_cpu_seconds() > idle + 0.3,
            timeout=60,
            what="the pool child to start deciding",
            poll=0.02,
        )

        worker.kill_child() if ended == "killed" else drop_connections()

        # On a loaded machine the soft limit may fall on the batch before its connection is
        # dropped (or while it reconnects): it then goes again check by check, as it would
        # after the limit below, and the load is not needed to make the limit fall.
        ended_marks = ("WorkerLostError",) if ended == "killed" else ("] retry: ", SOFT_LIMIT)
        wait_for(
            lambda: any(mark in worker.log_text() for mark in ended_marks),
            timeout=60,
            what="the batch to be redelivered or retried",
            poll=0.02,
        )
        if SOFT_LIMIT not in worker.log_text():
            with busier(worker, times=4):
                wait_for(
                    lambda: SOFT_LIMIT in worker.log_text(),
                    timeout=60,
                    what="the soft time limit to fall on the batch sent again",
                )
        verdicts = decided(ids, timeout=120)
        assert {v.status for v in verdicts.values()} == {"verified"}, [
            v.message for v in verdicts.values()
        ]
    finally:
        worker.stop()


def test_identical_problems_get_the_same_verdict_under_load(
    idle_broker, books_committed, tmp_path, short_limits
):
    """On a machine 25 times busier the batch outlasts the task's soft time limit on the
    clock, again and again. Each check's own run, counted in CPU time, is what a time limit
    judges: none is out of time, and once the load is gone all four are verified alike."""
    ids = heavy_problems(4)
    worker = prefork_worker(idle_broker, tmp_path)
    try:
        with busier(worker, times=25):
            wait_for(
                lambda: SOFT_LIMIT in worker.log_text(),
                timeout=60,
                what="the load to outlast the soft time limit",
            )
        verdicts = decided(ids, timeout=120)
        assert [v.status for v in verdicts.values()] == ["verified"] * 4, [
            v.message for v in verdicts.values()
        ]
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
from curriculum.domain.verification import dispatch
from curriculum.domain.chapter_files import file_import
text = open({path!r}).read()
file_import(text=text, dry_run=True)  # KaTeX's Node process starts here, outside the measure
waited = []
send = dispatch._send
def timed(*args):
    started = time.monotonic()
    try:
        return send(*args)
    finally:
        waited.append(time.monotonic() - started)
dispatch._send = timed
file_import(text=text)
print("waited on the broker", " ".join(f"{{w:.3f}}" for w in waited))
"""


def broker_bound():
    """The longest one send may wait on a down broker as settings allow: each try connects and
    waits for a reply, one retry after a pause; beyond that the save would hang."""
    transport = django_settings.CELERY_BROKER_TRANSPORT_OPTIONS
    retry = django_settings.CELERY_TASK_PUBLISH_RETRY_POLICY
    each = transport["socket_connect_timeout"] + transport["socket_timeout"]
    return (1 + retry["max_retries"]) * each + retry["interval_max"]


@pytest.mark.parametrize("down", ["refused", "silent"])
def test_a_save_with_the_broker_unreachable_returns_quickly_and_stays_pending(
    down, transactional_db, books_committed, silent_broker, tmp_path, monkeypatch
):
    monkeypatch.setenv("VERIFY_BATCH_SIZE", "1")  # two tasks: the second must not wait again
    broker = silent_broker if down == "silent" else f"redis://127.0.0.1:{free_port()}/0"
    chapter = tmp_path / "II.9.yaml"
    chapter.write_text(
        yaml.safe_dump(
            {
                "code": "II.9",
                "book": "II",
                "number": 9,
                "title": "Saved in an outage",
                "maturity": "M0",
                "state": "draft",
                "problems": [
                    uniform_problem("p1", [[2, 3], [2, 3]]),
                    uniform_problem("p2", [[2, 3], [2, 3]]),
                ],
            }
        )
    )

    saved = run_manage("shell", "-c", SAVE.format(path=str(chapter)), broker_url=broker)

    assert saved.returncode == 0, saved.stderr
    # Only the broker is timed (not Node, not the database): its timeouts bound the first send,
    # and the second is left for the sweep at once rather than waiting again.
    waited = [float(w) for w in saved.stdout.split("waited on the broker ")[1].split()]
    assert len(waited) == 2
    # the log says what each send did: one tried the broker, the other left it to the sweep
    assert saved.stderr.count("could not enqueue verification") == 1
    assert saved.stderr.count("left for the sweep") == 1
    assert waited[0] < broker_bound(), f"the first send waited {waited[0]} s on the broker {down}"
    # and the second did not wait (a silent broker's connect alone is 1 s; the suite's load has
    # stalled a process for 0.21 s, so a tenth of a second was too tight a bound)
    assert waited[1] < 0.5, f"the second send waited {waited[1]} s on the broker {down}"
    assert [v.status for v in Verdict.objects.filter(solution__problem__chapter__code="II.9")] == [
        "pending",
        "pending",
    ]


def test_the_sweep_resends_only_overdue_pendings(idle_broker, books_committed, settings, tmp_path):
    ids = import_chapter(
        [uniform_problem("overdue", [[2, 3], [2, 3]]), uniform_problem("recent", [[2, 3], [2, 3]])]
    )
    app.control.purge()  # both tasks lost, as if the broker had been down when they were saved
    Verdict.objects.filter(solution_id=ids[0]).update(
        requested_at=timezone.now() - timedelta(hours=1)
    )
    settings.VERIFY_SWEEP_AFTER_SECONDS = 60

    assert sweep_pending_verdicts() == 1

    worker = Worker(
        name="sweep",
        broker_url=idle_broker,
        database_url=worker_database_url(),
        logdir=tmp_path,
        env=WORKER_ENV,
        beat=False,
    )
    worker.start()
    try:
        assert decided(ids[:1])["overdue"].status == "verified"
        assert worker.received("verify_batch") == 1  # the sweep sends its checks in batches
        assert Verdict.objects.get(solution_id=ids[1]).status == "pending"
    finally:
        worker.stop()
