"""`make run`'s script on the embedded default (SQLite, checks run in-process), as a first
look is taken: the seed is imported, verified and published, every page answers, and a second
run keeps what the first made, the admin's password included. PostgreSQL-only SQL in a writer
would break it at the seed."""

import os
import sqlite3
import subprocess

import pytest

from tests.journeys.test_serve import fetch, serve_env, serving
from tests.processes import ROOT, free_port

pytestmark = pytest.mark.serve


def run_once(tmp_path, database: str) -> list[int]:
    """Start scripts/run.sh, read the pages a first look reads, stop it; their statuses."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_URL", "CELERY_"))
    }
    env |= {"DATABASE_URL": f"sqlite:///{database}", "PORT": str(free_port())}
    log = tmp_path / "run.log"
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


def test_the_first_look_seeds_verifies_and_serves_on_sqlite_twice(tmp_path):
    database = tmp_path / "db.sqlite3"
    assert run_once(tmp_path, str(database)) == [200] * 6
    with sqlite3.connect(database) as db:
        statuses = dict(
            db.execute("SELECT status, count(*) FROM curriculum_verdict GROUP BY status").fetchall()
        )
        db.execute("UPDATE curriculum_chapter SET title = 'Kept title' WHERE code = 'II.4'")
        # as if changed in admin: a second run used to set it back (and sign everyone out)
        db.execute("UPDATE auth_user SET password = 'changed-in-admin' WHERE username = 'admin'")
    assert set(statuses) == {"verified"}, statuses
    assert "Admin login: admin / " in (tmp_path / "run.log").read_text()

    assert run_once(tmp_path, str(database)) == [200] * 6
    with sqlite3.connect(database) as db:
        [(title,)] = db.execute("SELECT title FROM curriculum_chapter WHERE code = 'II.4'")
        [(password,)] = db.execute("SELECT password FROM auth_user WHERE username = 'admin'")
    assert title == "Kept title"
    assert password == "changed-in-admin"
    assert (
        "Admin login: admin (its password is kept as last set)"
        in (tmp_path / "run.log").read_text()
    )


def test_make_serve_on_sqlite_caches_and_throttles(tmp_path):
    """Production mode on the embedded database: Django's database cache is the shared cache,
    so the anonymous rate holds across gunicorn's workers."""
    env = serve_env("3/min", f"sqlite:///{tmp_path / 'db.sqlite3'}")
    for command in (["migrate", "--noinput"], ["createcachetable"], ["seed"]):
        subprocess.run(
            [".venv/bin/python", "manage.py", *command],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            timeout=300,
        )
    log = tmp_path / "serve.log"
    with serving("scripts/serve.sh", env, log) as (base, _):
        statuses = [fetch(base + "/api/v1/books")[0] for _ in range(6)]
        assert fetch(base + "/chapters/II.3/")[0] == 200
    assert statuses == [200] * 3 + [429] * 3, statuses
    with sqlite3.connect(tmp_path / "db.sqlite3") as db:
        [(kept,)] = db.execute(
            "SELECT count(*) FROM curriculum_cache WHERE cache_key LIKE '%body:%'"
        )
    assert kept > 0  # the page's bytes are kept for every gunicorn worker
    assert "Traceback" not in log.read_text(), log.read_text()
