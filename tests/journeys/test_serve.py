"""`make serve`'s script in production mode (DJANGO_DEBUG=0) on the test database: gunicorn
answers every kind of page, a static file, the admin login and the API docs with 200."""

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest
from django.db import connection

from curriculum.domain.tokens import token_issue
from tests.conftest import sketch
from tests.curriculum.conftest import release_ii3, worker_database_url
from tests.curriculum.domain.chapter_files.test_validation_hostile import ARGUMENT_BOMB, DEF_BOMB
from tests.processes import ROOT, free_port, one_script_at_a_time, owned, wait_for

pytestmark = [pytest.mark.serve, pytest.mark.django_db(transaction=True)]


def fetch(url: str, data: bytes | None = None, **headers: str) -> tuple[int, str]:
    request = urllib.request.Request(
        url, data=data, headers=headers, method="PUT" if data is not None else "GET"
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")
    except OSError:
        return 0, ""


def serve_env(rate: str, database_url: str | None = None) -> dict[str, str]:
    """make serve's environment on a free port, at this anonymous rate, on `database_url` (the
    test database by default): the web server alone, with no broker or cache of the test run's
    (worker tests cover the worker)."""
    unset = ("DJANGO_", "DATABASE_URL", "CELERY_", "CACHE_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(unset)}
    return env | {
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "serve-test-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": database_url or worker_database_url(),
        "PORT": str(free_port()),
        "WEB_CONCURRENCY": "2",
        "API_ANON_RATE": rate,
    }


@pytest.fixture(scope="module")
def serve_log(tmp_path_factory) -> Path:
    """What the module's make serve writes: nginx's, gunicorn's and Django's logs."""
    return tmp_path_factory.mktemp("serve") / "serve.log"


@pytest.fixture(scope="module")
def serving_default(serve_log):
    """One make serve for this module's tests (each start is a migrate, a collectstatic and
    gunicorn's boot: 20 s here); it reads whatever each test's database holds. A test of another
    rate has a module of its own (test_serve_rate.py): the script lock is held while it serves."""
    with serving("scripts/serve.sh", serve_env("10000/min"), serve_log) as (base, pid):
        yield base, pid


@pytest.fixture
def served(serving_default, seeded_committed):
    """The module's make serve, with the seed and II.3 released, and its shared cache (the test
    database's table) emptied of earlier tests' counts."""
    release_ii3()
    cache_empty()
    return serving_default


def cache_empty() -> None:
    with connection.cursor() as cursor:
        if "curriculum_cache" in connection.introspection.table_names(cursor):
            cursor.execute("DELETE FROM curriculum_cache")


@contextmanager
def serving(script: str, env: dict[str, str], log: Path) -> Iterator[tuple[str, int]]:
    """Run one of the project's scripts (it serves on env's PORT) until it answers; yield its
    address and process group; stop it however it went. One test at a time starts a script,
    whichever pytest-xdist worker runs it (``one_script_at_a_time``)."""
    with one_script_at_a_time():
        with log.open("a") as out:
            process = owned([script], env, out)
        base = f"http://127.0.0.1:{env['PORT']}"
        try:
            wait_for(
                lambda: fetch(base + "/")[0] or process.poll() is not None,
                timeout=180,
                what=f"{script} to answer",
                poll=0.5,
            )
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
    paths = [
        "/",
        "/books/0/",
        "/books/II/",
        "/chapters/II.3/",
        "/chapters/II.4/",
        "/chapters/II.3/releases/1/",
        "/api/v1/books",
        "/api/v1/chapters/II.3",
        "/admin/login/",
        "/api/v1/docs",
    ]
    answers = {path: fetch(served + path)[0] for path in paths}
    assert answers == dict.fromkeys(paths, 200)
    page = fetch(served + "/chapters/II.3/")[1]
    assets = re.findall(r'/static/[^"]+\.(?:css|svg|js)', page)
    assert assets, "the page links its static files"
    assert {path: fetch(served + path)[0] for path in assets} == dict.fromkeys(assets, 200)
    # hashed names: the manifest storage is what production serves
    assert all(re.search(r"\.[0-9a-f]{12}\.", path) for path in assets)


def test_a_client_cannot_claim_https_through_nginx_and_gunicorn(served):
    """Only a TLS proxy Django is told of (DJANGO_BEHIND_TLS_PROXY) names the scheme: what a
    client writes in X-Forwarded-Proto passes nginx, and neither gunicorn nor Django believes
    it, so no absolute link names https."""
    served, _ = served
    status, body = fetch(
        served + "/api/v1/chapters?limit=1&offset=1", **{"X-Forwarded-Proto": "https"}
    )
    assert status == 200
    links = [link for link in (json.loads(body)[k] for k in ("next", "previous")) if link]
    assert links and all(link.startswith(served + "/api/v1/chapters?") for link in links), links


def test_a_forged_host_is_refused_and_logged_in_one_line_without_a_traceback(served, serve_log):
    """Django logs each request it refuses as suspicious with its own parsing's traceback: a
    client sending forged Hosts on purpose filled the log with tracebacks that read as faults."""
    base, _ = served
    before = serve_log.stat().st_size
    assert fetch(base + "/", Host="forged.example")[0] == 400
    wait_for(lambda: "forged.example" in serve_log.read_text(), timeout=10, what="the log line")
    time.sleep(0.5)  # a traceback follows its message line
    with serve_log.open() as read:
        read.seek(before)
        log = read.read()
    assert "Invalid HTTP_HOST header: 'forged.example'" in log
    assert "Traceback" not in log and "DisallowedHost" not in log, log


def test_hostile_writes_are_refused_and_the_server_stays_small(served, alice):
    base, group = served
    auth = {
        "Authorization": f"Bearer {token_issue(user=alice, name='hostile')[1]}",
        "Content-Type": "application/json",
    }
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
        "too large": 413,
        "too deep": 400,  # not read at all, as malformed JSON is not
        "bombs at the size limit": 422,
        "bombs": 422,
    }
    errors = {name: json.loads(text)["errors"] for name, (_, text) in answers.items()}
    assert "LIMIT_JSON_DEPTH" in errors["too deep"][0]["detail"]
    assert any("LIMIT_FORMULA_TOKENS" in e["detail"] for e in errors["bombs at the size limit"])
    assert fetch(base + "/chapters/II.3/")[0] == 200
    peaks = peak_rss_mib(group)
    print(f"peak RSS per server process (MiB): {sorted(peaks.values())}")
    assert peaks and max(peaks.values()) < 500


def test_gunicorn_reads_a_refused_body_before_it_closes(served):
    """A 413 is decided from the Content-Length, before anything reads the body. Gunicorn then
    closed the connection with the body unread, which resets it: nginx, still sending, lost the
    answer and gave its client a 502 about one time in ten. Sent straight to gunicorn's socket,
    as nginx sends it, the whole body now goes in and the 413 comes back
    (curriculum/unread_bodies.py)."""
    base, _ = served
    gunicorn = ROOT / "var" / f"serve-{base.rsplit(':', 1)[1]}" / "gunicorn.sock"
    body = b" " * (3 * 1024 * 1024) + b"{}"  # far more than the socket's buffers hold
    head = (
        "PUT /api/v1/chapters/II.7 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(30)
        sock.connect(str(gunicorn))
        sock.sendall(head.encode() + body)  # ConnectionResetError or BrokenPipeError before
        answer = b"".join(iter(lambda: sock.recv(65536), b""))
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert b"LIMIT_API_BODY_BYTES" in answer


def test_a_body_past_the_proxy_limit_is_refused_in_the_apis_shape(served):
    """nginx refuses a body past client_max_body_size (16 MiB) before gunicorn sees it: below
    /api/ in the API's problem shape, as every other refusal there, and on the site with a page
    of the site's words, not as nginx's bare page."""
    base, _ = served
    status, text = fetch(f"{base}/api/v1/chapters/II.7", b" " * (17 * 1024 * 1024))
    assert status == 413
    problem = json.loads(text)
    assert problem["status"] == 413 and problem["errors"][0]["code"] == "limit"
    assert "LIMIT_API_BODY_BYTES" in problem["errors"][0]["detail"]
    assert fetch(f"{base}/api/v1/ping")[0] == 200
    status, page = fetch(f"{base}/chapters/II.3/", b" " * (17 * 1024 * 1024))
    assert status == 413 and "Nothing was saved" in page  # the site's words, not nginx's page


def test_nginx_refusals_before_any_location_are_problems_below_the_api(served):
    """TRACE and headers past nginx's buffers are refused by nginx before any location; below
    /api/ they come in the API's problem shape too, elsewhere as nginx's own page."""
    base, _ = served
    parts = urllib.parse.urlsplit(base)
    big = "a" * 100_000
    for method, path, headers, status in (
        ("TRACE", "/api/v1/chapters", {}, 405),
        ("GET", "/api/v1/chapters", {"X-Big": big}, 400),
        ("TRACE", "/chapters/", {}, 405),
        ("GET", "/", {"X-Big": big}, 400),
    ):
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
        try:
            connection.request(method, path, headers=headers)
            response = connection.getresponse()
            kind, body = response.getheader("Content-Type"), response.read()
        finally:
            connection.close()
        assert response.status == status, (method, path)
        if path.startswith("/api/"):
            assert kind == "application/problem+json", (method, kind)
            assert json.loads(body)["status"] == status
        else:
            assert kind.startswith("text/html"), (method, path, kind)


def test_serve_refuses_to_start_without_its_secrets():
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    done = subprocess.run(
        ["scripts/serve.sh"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 2
    assert "DJANGO_SECRET_KEY DJANGO_ALLOWED_HOSTS" in done.stderr


def timed(
    url: str,
    *,
    source: str = "127.0.0.1",
    timeout: float = 5.0,
    body: bytes | None = None,
    **headers: str,
) -> tuple[int, float, dict, bytes]:
    """One request from a given loopback source address: status, seconds, headers, body."""
    parts = urllib.parse.urlsplit(url)
    started = time.perf_counter()
    connection = http.client.HTTPConnection(
        parts.hostname, parts.port, timeout=timeout, source_address=(source, 0)
    )
    try:
        connection.request(
            "POST" if body is not None else "GET", parts.path, body=body, headers=headers
        )
        response = connection.getresponse()
        content = response.read()
        return response.status, time.perf_counter() - started, dict(response.getheaders()), content
    except OSError:
        return 0, time.perf_counter() - started, {}, b""
    finally:
        connection.close()


class SlowClients:
    """Sockets that hold the server as slow or hostile clients do: request headers never
    finished (slowloris), a body promised and trickled, a large answer never read. Every
    second each sends one more byte, so no idle timeout closes them."""

    def __init__(self, port: int, each: int) -> None:
        self.sockets: list[socket.socket] = []
        self.stop = threading.Event()
        openings = {
            "headers": b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a",
            "body": b"POST /admin/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n"
            b"Content-Length: 1000000\r\n\r\nusername=",
            "reader": b"GET /api/v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 20,
        }
        for kind, opening in openings.items():
            for _ in range(each):
                sock = socket.socket()
                if kind == "reader":  # a tiny window, never read: the answer backs up
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
                sock.connect(("127.0.0.1", port))
                sock.sendall(opening)
                self.sockets.append(sock)
        self.trickle = threading.Thread(target=self._trickle, daemon=True)
        self.trickle.start()

    def _trickle(self) -> None:
        while not self.stop.wait(1.0):
            for sock in self.sockets[: 2 * len(self.sockets) // 3]:  # headers and bodies
                with suppress(OSError):  # one the server closed
                    sock.send(b"a")

    def close(self) -> None:
        self.stop.set()
        self.trickle.join()
        for sock in self.sockets:
            sock.close()


def test_slow_clients_do_not_keep_pages_from_anyone_else(served):
    base, _ = served
    paths = ["/", "/chapters/II.3/", "/api/v1/chapters/II.3", "/admin/login/"]
    assert [timed(base + path)[0] for path in paths] == [200] * 4  # rendered once, before
    slow = SlowClients(int(base.rsplit(":", 1)[1]), each=8)  # 24 sockets, 2 gunicorn workers
    try:
        time.sleep(1.5)  # the slow ones are all in, and trickling
        answers = [timed(base + path)[:2] for path in paths * 3]
    finally:
        slow.close()
    assert [status for status, _ in answers] == [200] * 12, answers
    assert max(seconds for _, seconds in answers) < 2.0, answers


def test_behind_make_serves_proxy_failed_logins_lock_out_only_that_client(served, erin):
    """Clients from two loopback addresses: each address is a client as nginx sees it."""
    base, _ = served

    def login(source: str, password: str, **headers: str) -> int:
        _, _, sent, page = timed(base + "/admin/login/", source=source)
        cookie = sent["Set-Cookie"].split(";")[0]
        token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        form = urllib.parse.urlencode(
            {"csrfmiddlewaretoken": token.decode(), "username": "erin", "password": password}
        ).encode()
        return timed(
            base + "/admin/login/",
            source=source,
            body=form,
            Cookie=cookie,
            **{"Content-Type": "application/x-www-form-urlencoded"},
            **headers,
        )[0]

    assert [login("127.0.0.2", "wrong") for _ in range(5)] == [200] * 4 + [429]  # the fifth locks
    assert login("127.0.0.2", "erin-pass-9") == 429
    assert login("127.0.0.2", "erin-pass-9", **{"X-Forwarded-For": "127.0.0.3"}) == 429
    assert login("127.0.0.3", "erin-pass-9") == 302
