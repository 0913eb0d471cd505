"""`make run`'s script on the embedded default (SQLite, checks run in-process), as a first
look is taken: the seed is imported, verified and published, every page answers, and a second
run keeps what the first made. PostgreSQL-only SQL in a writer would break it at the seed."""

import os
import sqlite3

import pytest

from tests.deploy.test_serve import fetch, serving
from tests.verifier.processes import free_port

pytestmark = pytest.mark.serve


def run_once(tmp_path, database: str) -> list[int]:
    """Start scripts/run.sh, read the pages a first look reads, stop it; their statuses."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DJANGO_", "DATABASE_URL", "CELERY_"))}
    env |= {"DATABASE_URL": f"sqlite:///{database}", "PORT": str(free_port())}
    log = tmp_path / "run.log"
    with serving("scripts/run.sh", env, log) as (base, _):
        paths = ["/", "/books/II/", "/chapters/II.3/", "/chapters/II.3/releases/1/",
                 "/api/v1/chapters/II.3", "/admin/login/"]
        statuses = [fetch(base + path)[0] for path in paths]
    assert "Traceback" not in log.read_text(), log.read_text()
    return statuses


def test_the_first_look_seeds_verifies_and_serves_on_sqlite_twice(tmp_path):
    database = tmp_path / "db.sqlite3"
    assert run_once(tmp_path, str(database)) == [200] * 6
    with sqlite3.connect(database) as db:
        statuses = dict(db.execute(
            "SELECT status, count(*) FROM curriculum_verdict GROUP BY status").fetchall())
        db.execute("UPDATE curriculum_chapter SET title = 'Kept title' WHERE code = 'II.4'")
    assert set(statuses) == {"verified"}, statuses

    assert run_once(tmp_path, str(database)) == [200] * 6
    with sqlite3.connect(database) as db:
        [(title,)] = db.execute("SELECT title FROM curriculum_chapter WHERE code = 'II.4'")
    assert title == "Kept title"
