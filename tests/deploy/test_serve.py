"""`make serve`'s script in production mode (DJANGO_DEBUG=0) on the test database: gunicorn
answers every kind of page, a static file, the admin login and the API docs with 200."""

import json
import os
import re
import signal
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from curriculum.domain.tokens import token_issue
from tests.conftest import sketch
from tests.security.test_documents import ARGUMENT_BOMB, DEF_BOMB
from tests.site.conftest import release_ii3
from tests.verifier.conftest import worker_database_url
from tests.verifier.processes import ROOT, free_port, wait_for

pytestmark = [pytest.mark.serve, pytest.mark.django_db(transaction=True)]


def fetch(url: str, data: bytes | None = None, **headers: str) -> tuple[int, str]:
    request = urllib.request.Request(url, data=data, headers=headers,
                                     method="PUT" if data is not None else "GET")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")
    except OSError:
        return 0, ""


@pytest.fixture
def served(seeded, tmp_path):
    release_ii3()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")} | {
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "serve-test-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": worker_database_url(),
        "PORT": str(port),
        "WEB_CONCURRENCY": "2",
        "API_ANON_RATE": "8/min",
    }
    env.pop("CELERY_BROKER_URL", None)  # the web server alone; worker tests cover the worker
    with serving("scripts/serve.sh", env, tmp_path / "serve.log") as (base, pid):
        yield base, pid


@contextmanager
def serving(script: str, env: dict[str, str], log: Path) -> Iterator[tuple[str, int]]:
    """Run one of the project's scripts (it serves on env's PORT) until it answers; yield its
    address and process group; stop it however it went."""
    with log.open("a") as out:
        process = subprocess.Popen([script], cwd=ROOT, env=env, stdout=out,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{env['PORT']}"
    try:
        wait_for(lambda: fetch(base + "/")[0] or process.poll() is not None, timeout=180,
                 what=f"{script} to answer", poll=0.5)
        assert process.poll() is None, log.read_text()
        yield base, process.pid
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


def peak_rss_mib(group: int) -> dict[int, float]:
    """Peak resident memory (VmHWM) of each process in the server's process group."""
    peaks = {}
    for proc in Path("/proc").iterdir():
        try:
            if not proc.name.isdigit() or os.getpgid(int(proc.name)) != group:
                continue
            status = (proc / "status").read_text()
        except (OSError, ProcessLookupError):
            continue
        if found := re.search(r"VmHWM:\s+(\d+) kB", status):
            peaks[int(proc.name)] = int(found.group(1)) / 1024
    return peaks


def test_production_mode_serves_pages_static_admin_and_docs(served):
    served, _ = served
    paths = ["/", "/books/0/", "/books/II/", "/chapters/II.3/", "/chapters/II.4/",
             "/chapters/II.3/releases/1/", "/api/v1/books", "/api/v1/chapters/II.3",
             "/admin/login/", "/api/v1/docs"]
    answers = {path: fetch(served + path)[0] for path in paths}
    assert answers == dict.fromkeys(paths, 200)
    page = fetch(served + "/chapters/II.3/")[1]
    assets = re.findall(r'/static/[^"]+\.(?:css|svg|js)', page)
    assert assets, "the page links its static files"
    assert {path: fetch(served + path)[0] for path in assets} == dict.fromkeys(assets, 200)
    # hashed names: the manifest storage is what production serves
    assert all(re.search(r"\.[0-9a-f]{12}\.", path) for path in assets)


def test_hostile_writes_are_refused_and_the_server_stays_small(served, alice):
    base, group = served
    auth = {"Authorization": f"Bearer {token_issue(user=alice, name='hostile')[1]}",
            "Content-Type": "application/json"}
    url = f"{base}/api/v1/chapters/II.7"
    bombs = sketch("II.7", thesis=DEF_BOMB, summary=ARGUMENT_BOMB)
    # nearly LIMIT_API_BODY_BYTES, and within LIMIT_CHAPTER_FILE_BYTES written out as a file
    # (YAML folds the long line), so the formulas reach KaTeX
    room = 2 * 1024 * 1024 * 9 // 10 - len(json.dumps(bombs))
    largest = json.dumps(bombs | {"before_you_start": "prose " * (room // 6)}).encode()
    bodies = {
        "too large": b" " * (3 * 1024 * 1024) + b"{}",
        "too deep": b"[" * 1_000_000 + b"]" * 1_000_000,
        "bombs at the size limit": largest,
        "bombs": json.dumps(bombs).encode(),
    }
    answers = {name: fetch(url, body, **auth) for name, body in bodies.items()}
    assert {name: status for name, (status, _) in answers.items()} == {
        "too large": 413, "too deep": 422, "bombs at the size limit": 422, "bombs": 422}
    errors = {name: json.loads(text)["errors"] for name, (_, text) in answers.items()}
    assert "LIMIT_JSON_DEPTH" in errors["too deep"][0]
    assert any("LIMIT_FORMULA_TOKENS" in e for e in errors["bombs at the size limit"])
    assert fetch(base + "/chapters/II.3/")[0] == 200
    peaks = peak_rss_mib(group)
    print(f"peak RSS per server process (MiB): {sorted(peaks.values())}")
    assert peaks and max(peaks.values()) < 500


def test_serve_refuses_to_start_without_its_secrets():
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    done = subprocess.run(["scripts/serve.sh"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 2
    assert "DJANGO_SECRET_KEY DJANGO_ALLOWED_HOSTS" in done.stderr


def test_the_anonymous_rate_holds_across_every_gunicorn_worker(served):
    served, _ = served
    answers = [fetch(served + "/api/v1/books")[0] for _ in range(16)]
    assert answers.count(200) <= 8 and 429 in answers, answers
