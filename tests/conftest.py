"""A small named world: the seed content, Alice the author, Erin the editor.

Tests mirror the modules: `tests/<package>/test_<module>.py`, a suffix saying which side of the
module when there are several. Journeys that cross many modules at once (browser, `make run` and
`make serve`, acceptance, the stateful lifecycle) live in `tests/journeys/`.
"""

import gc
import struct
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import pytest
from _pytest.runner import runtestprotocol
from django.conf import settings
from django.contrib.auth.hashers import Argon2PasswordHasher
from django.contrib.auth.models import Group, User
from django.core.cache import cache
from django.db import OperationalError, connection, transaction
from django.test import override_settings

import attention
from curriculum.bodies import PROCESS_BODIES
from curriculum.domain import markup_checks, wayfinding
from curriculum.domain.chapter_files import file_import, import_order
from curriculum.domain.claims.requests import claims_decide_now
from curriculum.domain.media import stored
from curriculum.domain.verification import verdict_decide
from curriculum.models import Chapter, MediaFile, Solution

CONTENT = Path(__file__).resolve().parent.parent / "content"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that start make run or make serve first, together. They take turns on the
    checkout's lock (`one_script_at_a_time`); under pytest-xdist's work stealing they now run
    one after another in the first worker's share (a steal takes the end of a share), each
    module's server started once. Spread among the workers, each of them started its part's
    server again and waited on the others' (250 s of workers' time where 150 s is theirs).
    Within a module, the tests run in the order of the worlds they read (`module_worlds`)."""
    modules = {item.path: number for number, item in reversed(list(enumerate(items)))}
    worlds = module_worlds(items)
    items.sort(
        key=lambda item: (
            item.get_closest_marker("serve") is None,
            modules[item.path],
            len(worlds[item]),
        )
    )


def _worlds(item: pytest.Item) -> frozenset[str]:
    return frozenset(n for n in getattr(item, "fixturenames", ()) if n.endswith("_world"))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """pytest's own protocol, but where the next test is of this module and does not read
    every world this one read, the module is torn down after this test and set up again for
    the next, with only its worlds. Work stealing makes that order: a worker that took the
    tail of another's share (a module's later tests, its larger worlds) may take the tail
    again (the same module's earlier tests)."""
    if nextitem is None or nextitem.path != item.path or _worlds(nextitem) >= _worlds(item):
        return None
    module = item.getparent(pytest.Module)
    assert module is not None and module.parent is not None
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    runtestprotocol(item, nextitem=module.parent)  # tears down up to the module's parent
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True


def _commits(item: pytest.Item) -> bool:
    """Whether a test commits its rows, by pytest-django's rule (its order of tests): a
    transactional marker or fixture."""
    marker = item.get_closest_marker("django_db")
    asked = marker.kwargs if marker else {}
    fixtures = set(getattr(item, "fixturenames", ()))
    return bool(asked.get("transaction") or asked.get("reset_sequences")) or bool(
        {"transactional_db", "live_server"} & fixtures
    )


def module_worlds(items: list[pytest.Item]) -> dict[pytest.Item, frozenset[str]]:
    """The module worlds (`rows_for_the_module`, fixtures named `*_world`) each test reads.
    A world stays open from the first test that asks for it to the module's end, so a module's
    worlds must build on each other (each test's a part of the next's), and run in that
    order: then no test sees rows it did not ask for. A test that commits cannot run inside
    a world's transaction, so it lives in a module without one. Either rule broken is an
    error at collection, not a test that passes or fails by the order pytest-xdist chose."""
    read = {item: _worlds(item) for item in items}
    by_module: dict[Path, list[pytest.Item]] = {}
    for item in items:
        by_module.setdefault(item.path, []).append(item)
    for path, its in by_module.items():
        chain = sorted({read[item] for item in its}, key=len)
        if not chain[-1]:
            continue
        if committing := [item.name for item in its if _commits(item)]:
            raise pytest.UsageError(
                f"{path}: {committing[0]} commits, and the module's tests read a world "
                f"({', '.join(sorted(chain[-1]))}): it belongs in a module of its own"
            )
        for smaller, larger in zip(chain, chain[1:], strict=False):
            if not smaller <= larger:
                raise pytest.UsageError(
                    f"{path}: its tests read worlds that do not build on each other "
                    f"({', '.join(sorted(smaller))} and {', '.join(sorted(larger))}): "
                    "a test over another world belongs in another module"
                )
    return read


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection made (every module imported, its tests and fixtures: most of a worker's
    objects) lives until the worker ends: frozen out of the cyclic collector's way, each full
    collection walks only what tests made since (over tests/curriculum/api, the collector's
    CPU went from 5.7 s of 93 to 3.9)."""
    gc.freeze()


def import_files(*paths: Path) -> None:
    for path in import_order(list(paths)):
        file_import(text=path.read_text(encoding="utf-8"))


@pytest.fixture(autouse=True, scope="session")
def flush_outlasts_the_worker():
    """A transactional test's flush empties the tables with DELETE, not TRUNCATE: the same
    empty tables (constraints checked at its commit), in a fiftieth of the time (TRUNCATE makes
    every table's and index's files anew, half a second each test). It locks them first as
    TRUNCATE does, so a worker's write in flight ends before it and none lands during it.
    It may meet the session worker mid-decision on its rows (the worker locks a chapter, then
    its verdicts; the flush takes its tables in another order): PostgreSQL ends the flush as
    the deadlock, and the flush runs again once the worker is through (its writes then find no
    rows)."""
    operations = type(connection.ops)
    flush, statements = operations.execute_sql_flush, operations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or allow_cascade or self.connection.vendor != "postgresql":
            return statements(
                self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        quoted = [self.quote_name(table) for table in tables]
        lock = f"LOCK TABLE {', '.join(quoted)} IN ACCESS EXCLUSIVE MODE"  # as TRUNCATE waits
        return ["SET CONSTRAINTS ALL DEFERRED", lock, *(f"DELETE FROM {t}" for t in quoted)]

    def execute_sql_flush(self, sql_list):
        for attempt in range(5):
            try:
                return flush(self, sql_list)
            except OperationalError as error:
                if attempt == 4 or "deadlock detected" not in str(error):
                    raise

    operations.execute_sql_flush, operations.sql_flush = execute_sql_flush, sql_flush
    yield
    operations.execute_sql_flush, operations.sql_flush = flush, statements


class QuickArgon2(Argon2PasswordHasher):
    """Argon2 at its least cost: the settings' hasher and hashes of its form (any process
    checks them), without the 100 MiB and the tenths of a second each of the hundreds of
    users the tests make and sign in spends."""

    time_cost, memory_cost, parallelism = 1, 8, 1


@pytest.fixture(autouse=True, scope="session")
def quick_passwords():
    """The settings' Argon2 hasher, wherever it stands, made cheap (QuickArgon2)."""
    quick, named = f"{__name__}.QuickArgon2", settings.PASSWORD_HASHERS
    hashers = [quick if h.endswith(".Argon2PasswordHasher") else h for h in named]
    with override_settings(PASSWORD_HASHERS=hashers):
        yield


@pytest.fixture(autouse=True, scope="session")
def static_files_found_per_request():
    """WhiteNoise as under DEBUG: each test client's middleware would list the collected static
    files when it is made, and the serve tests' collectstatic (make serve) rewrites them in the
    same checkout meanwhile (a listed file gone before its stat failed a test at random)."""
    with override_settings(WHITENOISE_AUTOREFRESH=True):
        yield


def books_import() -> None:
    """The books, and Book 0's entries, imported through the importer."""
    import_files(CONTENT / "books.yaml", *sorted((CONTENT / "0").glob("*.yaml")))


def chapters_import() -> None:
    """The seed's chapters (every book's but Book 0's), imported through the importer."""
    import_files(*(p for p in sorted(CONTENT.glob("*/*.yaml")) if p.parent.name != "0"))


def seed_import() -> None:
    """Everything under content/, imported through the importer (`import_order`'s order)."""
    books_import()
    chapters_import()


@contextmanager
def rows_for_the_module(django_db_blocker) -> Iterator[None]:
    """Django's setUpTestData for a pytest module: the rows written inside are written once, in
    a transaction held while the module's tests run, each test in a savepoint of it (the `db`
    fixture's atomic nests), and rolled back at the end. A fixture that uses it is a world,
    named `*_world` (`module_worlds` keeps each test to the worlds it asks for)."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield
        transaction.set_rollback(True)


@pytest.fixture
def module_rows(db):
    """A test over rows written for its module (`rows_for_the_module`), in a savepoint of them.
    The caches are emptied, the shared one and this process's bodies and neighbours: the test
    before was rolled back, and the world's rows, the same for every test, tag what it cached
    as they tag what this one reads."""
    cache.clear()
    PROCESS_BODIES.clear()
    wayfinding._neighbours_at.cache_clear()


@pytest.fixture(scope="module")
def books_world(django_db_setup, django_db_blocker):
    """`books_import`, written once for the module."""
    with rows_for_the_module(django_db_blocker):
        books_import()
        yield


@pytest.fixture(scope="module")
def seed_world(books_world, django_db_blocker):
    """`seed_import`, written once for the module: the books' world, the chapters on it."""
    with rows_for_the_module(django_db_blocker):
        chapters_import()
        yield


@pytest.fixture
def books(books_world, module_rows):
    """The books and Book 0, in a savepoint of the module's world: some 590 tests ask for
    them, and importing them for each test was the suite's largest cost."""


@pytest.fixture
def seeded(seed_world, module_rows):
    """The seed content, in a savepoint of the module's world."""


@pytest.fixture
def books_committed(transactional_db):
    """The books and Book 0, imported for a test whose rows another process (a worker, a
    server) must see: committed, and emptied after it."""
    books_import()


@pytest.fixture
def seeded_committed(transactional_db):
    """The seed content, committed, for a test whose rows another process must see."""
    seed_import()


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Run what each commit triggers, as a live transaction would."""

    def write(action):
        with django_capture_on_commit_callbacks(execute=True):
            return action()

    return write


def verify_now(chapter: Chapter) -> None:
    """Decide every pending verdict of a chapter in-process, as the worker would: its answers,
    and its claims and properties."""
    for solution in Solution.objects.filter(problem__chapter=chapter):
        verdict_decide(solution_id=solution.pk)
    claims_decide_now([chapter.pk])


@pytest.fixture
def alice(db):
    """An author: edits everything, publishes nothing."""
    user = User.objects.create_user("alice", password="alice-pass-9", is_staff=True)
    user.groups.add(Group.objects.get(name="Authors"))
    return user


@pytest.fixture
def erin(db):
    """An editor: may publish."""
    user = User.objects.create_user("erin", password="erin-pass-9", is_staff=True)
    user.groups.add(Group.objects.get(name="Editors"))
    return user


def problem(
    key: str,
    kind: str = "exercise",
    variant: str = "softmax-row",
    *,
    scores=None,
    answer=None,
    published: bool = True,
) -> dict:
    """A small softmax problem; the default answer is right."""
    scores = scores if scores is not None else [[0.0, 0.0]]
    return {
        "key": key,
        "kind": kind,
        "variant": variant,
        "statement": "Compute the softmax of the row $s$.",
        "operation": "softmax",
        "inputs": {"scores": scores},
        "ask": {"output": "out"},
        "tolerance": {"rtol": 1e-6, "atol": 1e-9},
        "solution": {
            "steps": "Equal scores share the weight.",
            "answer": answer if answer is not None else [[0.5, 0.5]],
            "published": published,
        },
    }


def sketch(code: str = "II.7", **overrides) -> dict:
    """An M1 chapter document that passes the gate once its answers are verified."""
    document = {
        "code": code,
        "book": "II",
        "number": int(code.split(".")[1]),
        "title": "A Sketch",
        "author": "Test Author",
        "thesis": "A claim.",
        "summary": "A problem.",
        "maturity": "M1",
        "spine": "mathematics",
        "state": "in_progress",
        "before_you_start": "",
        "problem_statement": "What to compute.",
        "strands": {
            "basics": {
                "target": 1,
                "items": [{"title": "Word", "body": "Means.", "published": True}],
            },
            "concept": {"target": 0, "items": []},
            "theory": {"target": 0, "items": []},
            "mathematics": {"target": 3},
            "practice": {"target": 0, "items": []},
        },
        "figures": [],
        "apparatus": [],
        "notation": [],
        "propositions": [],
        "problems": [problem("p1", "worked", "softmax-row"), problem("p2"), problem("p3")],
    }
    document.update(overrides)
    return document


def png(width: int = 3, height: int = 2) -> bytes:
    """A real PNG of that size (red pixels), made without an imaging library."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body)
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


@pytest.fixture
def heads(db) -> MediaFile:
    """heads.png in the media library: a 3×2 PNG that texts show as ![...](media:heads.png)."""
    media = stored(MediaFile(name="heads.png", alt="two attention heads"), png())
    media.save()
    return media


@contextmanager
def stored_as_before() -> Iterator[None]:
    """Texts written as they could be before raw HTML, images from elsewhere (`markup.constructs`)
    and untrusted TeX commands (katex/render.js) were refused: what such stored text shows must
    still be inert."""
    math_errors = markup_checks.math_errors

    def trusted_refusals_left_out(text):
        return [e for e in math_errors(text) if "(nothing in one is trusted)" not in e]

    with (
        mock.patch("curriculum.domain.markup_checks.construct_errors", return_value=[]),
        mock.patch("curriculum.domain.markup_checks.math_errors", trusted_refusals_left_out),
    ):
        yield


@pytest.fixture
def engine_runs(monkeypatch):
    """Every engine run, counted through a wrapper of the real function."""
    runs = []
    real = attention.evaluate

    def counted(*args, **kwargs):
        runs.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(attention, "evaluate", counted)
    return runs


def without_terms(document: dict) -> dict:
    """A seed chapter's document to import under another code: a book defines each glossary
    term once, and the seed's strand items already define theirs."""
    for strand in document.get("strands", {}).values():
        for item in strand.get("items", []):
            item.pop("defines", None)
    return document
