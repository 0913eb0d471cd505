"""Fixtures the curriculum tests share.

A real Celery worker (and, for outages, a Redis of the test's own) over the test database.
Worker tests use `transactional_db`: the worker is another process and sees committed rows only.

The site's world: the seed content with II.3 verified and released.

A hostile author's chapter, and the pages every test checks still answer afterwards.
"""

from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from curriculum.celery import app
from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.gate import chapter_publish
from curriculum.models import Chapter, Solution, Verdict
from tests.conftest import rows_for_the_module, sketch, verify_now
from tests.curriculum.site.test_practice import generated_chapter
from tests.processes import RedisServer, Worker, manage, wait_for
from tests.receiver import Receiver

# Short enough that a lost task comes back within a test: visibility timeout and sweep. And
# no Chromium: each release a test commits asks for its PDF and its book's, and the workers had
# printed some 45 a run that no test reads (70 s of the suite's CPU); `printing_worker` prints.
WORKER_ENV = {
    "PDF_CHROMIUM": "/nonexistent/chromium",
    "WEBHOOK_BACKOFF_SECONDS": "1",
    "WEBHOOK_CONNECT_TIMEOUT_SECONDS": "1",
    "WEBHOOK_READ_TIMEOUT_SECONDS": "1",
    "WEBHOOK_ALLOWED_PRIVATE_HOSTS": "127.0.0.1",  # tests/receiver.py's
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
def printing_worker(verifier_worker, transactional_db, tmp_path):
    """A worker with Chromium, alone on this run's broker: the session's is stopped (the next
    test that asks for it starts it again), so every PDF asked for is printed for real."""
    verifier_worker.stop()
    printer = Worker(
        name="printer",
        broker_url=settings.CELERY_BROKER_URL,
        database_url=worker_database_url(),
        logdir=tmp_path,
        env=WORKER_ENV | {"PDF_CHROMIUM": settings.PDF_CHROMIUM},
    )
    printer.start()
    yield printer
    printer.stop()


@pytest.fixture
def receivers(settings):
    """Make local webhook receivers (tests/receiver.py) on 127.0.0.1, a host allowed here as
    WEBHOOK_ALLOWED_PRIVATE_HOSTS allows it in the worker (WORKER_ENV); closed afterwards."""
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1"]
    made: list[Receiver] = []

    def receiver(**answering) -> Receiver:
        made.append(Receiver(**answering))
        return made[-1]

    yield receiver
    for each in made:
        each.close()


@pytest.fixture
def receiver(receivers) -> Receiver:
    return receivers()


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
    """A small chapter of Book II holding these problems; the ids of their solutions, in the
    problems' order."""
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
    solutions = Solution.objects.filter(problem__chapter__code=code).order_by("problem__position")
    return list(solutions.values_list("pk", flat=True))


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


SEED_PAGE = Path(__file__).resolve().parents[2] / "docs" / "seed" / "chapter-page.txt"
"""The real chapter page the design comes from, kept in the repository."""


def release_ii3() -> None:
    chapter = Chapter.objects.get(code="II.3")
    verify_now(chapter)
    chapter_publish(chapter=chapter)


@pytest.fixture(scope="module")
def released_world(seed_world, django_db_blocker):
    """The seed world with II.3 released on it (release 1; II.4 stays in progress), written
    once for the module."""
    with rows_for_the_module(django_db_blocker):
        release_ii3()
        yield


@pytest.fixture
def released(released_world, module_rows):
    """The released world, in a savepoint of the module's."""


@pytest.fixture
def released_committed(seeded_committed):
    """The released world, committed, for a test whose rows another process must see."""
    release_ii3()


SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">{}</svg>'


def deep_svg(depth: int) -> str:
    return SVG.format("<g>" * depth + '<rect width="1" height="1"/>' + "</g>" * depth)


@pytest.fixture(autouse=True)
def generous_rate(settings):
    settings.API_ANON_RATE = "100000/min"


@pytest.fixture
def root(db, django_user_model):
    return django_user_model.objects.create_superuser("root", password="root-pass-9")


@pytest.fixture
def chapter(books) -> Chapter:
    """II.7: an in-progress chapter with one plain figure, as an honest author made it."""
    document = sketch("II.7")
    document["figures"] = [
        {
            "label": "1",
            "caption": "A square.",
            "alt": "a square",
            "svg": SVG.format('<rect width="4" height="4"/>'),
        }
    ]
    chapter_import(document=document)
    return Chapter.objects.get(code="II.7")


def every_page_answers(chapter: Chapter, root) -> dict[str, int]:
    """Status of each page that shows the chapter: public, JSON, staff preview, admin change."""
    anonymous, staff = Client(), Client()
    staff.force_login(root)
    code = chapter.code
    return {
        "page": anonymous.get(f"/chapters/{code}/").status_code,
        "json": anonymous.get(f"/api/v1/chapters/{code}").status_code,
        "book": anonymous.get(f"/books/{chapter.book.numeral}/").status_code,
        "home": anonymous.get("/").status_code,
        "preview": staff.get(f"/chapters/{code}/?preview=1").status_code,
        "admin": staff.get(f"/admin/curriculum/chapter/{chapter.pk}/change/").status_code,
    }


ALL_200 = dict.fromkeys(["page", "json", "book", "home", "preview", "admin"], 200)


@pytest.fixture
def alice_token(alice) -> dict:
    from curriculum.domain.tokens import token_issue

    return {"HTTP_AUTHORIZATION": f"Bearer {token_issue(user=alice, name='laptop')[1]}"}


@pytest.fixture(scope="module")
def practice_world(seed_world, django_db_blocker):
    """The seed world, and II.7 whose exercise p3 draws its scores: written once for the
    module."""
    with rows_for_the_module(django_db_blocker):
        generated_chapter()
        yield


@pytest.fixture
def practice(practice_world, module_rows, settings):
    """The practice world, practised at any rate."""
    settings.PRACTICE_CHECK_RATE = "1000/min"
    settings.API_ANON_RATE = "1000/min"
