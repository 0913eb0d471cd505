"""`make run`'s script on the embedded default (SQLite, checks run in-process), as a first
look is taken: the seed is imported, verified and published, every page answers, and a second
run keeps what the first made, the admin's password included. PostgreSQL-only SQL in a writer
would break it at the seed."""

import os
import sqlite3
from pathlib import Path

import pytest

from tests.journeys.test_serve import fetch, serve_env, serving
from tests.processes import free_port

pytestmark = pytest.mark.serve


def run_once(log: Path, database: Path) -> list[int]:
    """Start scripts/run.sh, read the pages a first look reads, stop it; their statuses."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_URL", "CELERY_"))
    }
    env |= {"DATABASE_URL": f"sqlite:///{database}", "PORT": str(free_port())}
    with serving("scripts/run.sh", env, log) as (base, _):
        paths = [
            "/",
            "/books/II/",
            "/chapters/II.3/",
            "/chapters/II.3/releases/1/",
            "/api/v1/chapters/II.3",
            "/admin/login/",
        ]
        statuses = [fetch(base + path)[0] for path in paths]
    assert "Traceback" not in log.read_text(), log.read_text()
    return statuses


def copied(database: Path, into: Path) -> Path:
    """A copy of an SQLite database, made through SQLite (whatever journal it keeps)."""
    copy = into / "db.sqlite3"
    with sqlite3.connect(database) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    return copy


@pytest.fixture(scope="module")
def first_look(tmp_path_factory) -> tuple[list[int], str, Path]:
    """make run's first run on a new SQLite file, once for the module: the statuses it served,
    its log, and the database as it left it (migrated, seeded, verified and published), which
    each test copies. make serve's test starts from it: migrate, createcachetable and seed, run
    there before, were three more processes' 12 s making the same database again."""
    made = tmp_path_factory.mktemp("first-look")
    log, database = made / "run.log", made / "db.sqlite3"
    statuses = run_once(log, database)
    return statuses, log.read_text(), database


def test_the_first_look_seeds_verifies_and_serves_on_sqlite_twice(first_look, tmp_path):
    statuses, first_log, made = first_look
    database = copied(made, tmp_path)
    assert statuses == [200] * 6
    with sqlite3.connect(database) as db:
        statuses = dict(
            db.execute("SELECT status, count(*) FROM curriculum_verdict GROUP BY status").fetchall()
        )
        db.execute("UPDATE curriculum_chapter SET title = 'Kept title' WHERE code = 'II.4'")
        # as if changed in admin: a second run used to set it back (and sign everyone out)
        db.execute("UPDATE auth_user SET password = 'changed-in-admin' WHERE username = 'admin'")
    assert set(statuses) == {"verified"}, statuses
    assert "Admin login: admin / " in first_log

    log = tmp_path / "run.log"
    assert run_once(log, database) == [200] * 6
    with sqlite3.connect(database) as db:
        [(title,)] = db.execute("SELECT title FROM curriculum_chapter WHERE code = 'II.4'")
        [(password,)] = db.execute("SELECT password FROM auth_user WHERE username = 'admin'")
    assert title == "Kept title"
    assert password == "changed-in-admin"
    assert "Admin login: admin (its password is kept as last set)" in log.read_text()


def test_make_serve_on_sqlite_caches_and_throttles(first_look, tmp_path):
    """Production mode on the embedded database: Django's database cache is the shared cache,
    so the anonymous rate holds across gunicorn's workers. The database is make run's (its
    cache table is made by make serve's own migrate, as on any new database)."""
    database = copied(first_look[2], tmp_path)
    env = serve_env("3/min", f"sqlite:///{database}")
    log = tmp_path / "serve.log"
    with serving("scripts/serve.sh", env, log) as (base, _):
        statuses = [fetch(base + "/api/v1/books")[0] for _ in range(6)]
        assert fetch(base + "/chapters/II.3/")[0] == 200
    assert statuses == [200] * 3 + [429] * 3, statuses
    with sqlite3.connect(database) as db:
        [(kept,)] = db.execute(
            "SELECT count(*) FROM curriculum_cache WHERE cache_key LIKE '%body:%'"
        )
    assert kept > 0  # the page's bytes are kept for every gunicorn worker
    assert "Traceback" not in log.read_text(), log.read_text()
