"""A real Celery worker (and, for outages, a Redis of the test's own) over the test database.

Worker tests use `transactional_db`: the worker is another process and sees committed rows only.
"""

import pytest
from django.conf import settings
from django.db import connection

from curriculum.celery import app
from curriculum.domain.chapter_files import chapter_import
from curriculum.models import Solution, Verdict

from .processes import RedisServer, Worker, manage, wait_for

# Short enough that a lost task comes back within a test: visibility timeout and sweep.
WORKER_ENV = {
    "VISIBILITY_TIMEOUT": "3",
    "VERIFY_SWEEP_AFTER_SECONDS": "4",
    "VERIFY_SWEEP_EVERY_SECONDS": "1",
    "LOG_LEVEL": "WARNING",
}


def worker_database_url() -> str:
    db = connection.settings_dict
    if db["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("a worker process needs PostgreSQL (set DATABASE_URL)")
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return (
        f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
        f"/{db['NAME']}"
    )


@pytest.fixture(scope="session")
def verifier_worker(django_db_setup, django_db_blocker, tmp_path_factory):
    """One worker for the session, on this run's broker and the test database."""
    if not settings.CELERY_BROKER_URL:
        pytest.skip("worker tests need a broker (set CELERY_BROKER_URL)")
    with django_db_blocker.unblock():
        database_url = worker_database_url()
    app.control.purge()
    worker = Worker(
        name="verifier",
        broker_url=settings.CELERY_BROKER_URL,
        database_url=database_url,
        logdir=tmp_path_factory.mktemp("worker"),
        env=WORKER_ENV,
    )
    worker.start()
    yield worker
    worker.stop()


@pytest.fixture
def worker(verifier_worker, transactional_db):
    """The session worker, running, for a test whose rows it can see."""
    if verifier_worker.process.poll() is not None:
        verifier_worker.start()
    return verifier_worker


@pytest.fixture
def own_redis(tmp_path):
    server = RedisServer(tmp_path)
    server.start()
    yield server
    server.stop()


def decided(solution_ids: list[int], *, timeout: float = 30) -> dict[str, Verdict]:
    """Wait for the worker, then the verdicts by problem key."""
    wait_for(
        lambda: (
            not Verdict.objects.filter(
                solution_id__in=solution_ids, status=Verdict.Status.PENDING
            ).exists()
        ),
        timeout=timeout,
        what="the worker's verdicts",
    )
    return {
        v.solution.problem.key: v
        for v in Verdict.objects.filter(solution_id__in=solution_ids).select_related(
            "solution__problem"
        )
    }


def import_chapter(problems: list[dict], code: str = "II.9") -> list[int]:
    """A small chapter of Book II holding these problems; the ids of their solutions."""
    chapter_import(
        document={
            "code": code,
            "book": "II",
            "number": int(code.split(".")[1]),
            "title": "Verifier fixtures",
            "maturity": "M0",
            "state": "draft",
            "problems": problems,
        }
    )
    return list(Solution.objects.filter(problem__chapter__code=code).values_list("pk", flat=True))


def uniform_problem(key: str, answer, **changes) -> dict:
    """Zero queries attend uniformly, so the output is the mean of v's rows: [[2, 3], [2, 3]]."""
    return {
        "key": key,
        "kind": "exercise",
        "variant": "uniform",
        "statement": "Compute the output.",
        "operation": "scaled_dot_product_attention",
        "inputs": {"q": [[0, 0], [0, 0]], "k": [[1, 0], [0, 1]], "v": [[1, 2], [3, 4]]},
        "ask": {"output": "out"},
        "solution": {"steps": "Every weight is 1/2.", "answer": answer, "published": True},
    } | changes


@pytest.fixture
def idle_broker(verifier_worker, transactional_db):
    """This run's broker, emptied, with no worker on it: the test starts the one it needs.

    The session worker is stopped; the `worker` fixture starts it again for later tests.
    """
    verifier_worker.stop()
    app.control.purge()
    with app.connection_for_write() as connection:  # and what a killed worker left unacked
        connection.default_channel.client.delete("unacked", "unacked_index")
    return settings.CELERY_BROKER_URL


def run_manage(*args: str, broker_url: str | None = None):
    """`manage.py ARGS` in a subprocess on the test database and (by default) this run's broker."""
    return manage(
        *args,
        database_url=worker_database_url(),
        broker_url=broker_url or settings.CELERY_BROKER_URL,
    )
