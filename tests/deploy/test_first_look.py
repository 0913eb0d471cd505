"""`make run`'s script on the embedded default (SQLite, checks run in-process), as a first
look is taken: the seed is imported, verified and published, every page answers, and a second
run keeps what the first made. PostgreSQL-only SQL in a writer would break it at the seed."""

import os
import signal
import sqlite3
import subprocess

import pytest

from tests.deploy.test_serve import fetch
from tests.verifier.processes import ROOT, free_port, wait_for

pytestmark = pytest.mark.serve


def run_once(tmp_path, database: str) -> list[int]:
    """Start scripts/run.sh, read the pages a first look reads, stop it; their statuses."""
    port = free_port()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DJANGO_", "DATABASE_URL", "CELERY_"))}
    env |= {"DATABASE_URL": f"sqlite:///{database}", "PORT": str(port)}
    log = tmp_path / "run.log"
    with log.open("a") as out:
        process = subprocess.Popen(["scripts/run.sh"], cwd=ROOT, env=env, stdout=out,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: fetch(base + "/")[0] or process.poll() is not None, timeout=180,
                 what="scripts/run.sh to answer", poll=0.5)
        assert process.poll() is None, log.read_text()
        paths = ["/", "/books/II/", "/chapters/II.3/", "/chapters/II.3/releases/1/",
                 "/api/v1/chapters/II.3", "/admin/login/"]
        return [fetch(base + path)[0] for path in paths]
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
        assert "Traceback" not in log.read_text(), log.read_text()


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
