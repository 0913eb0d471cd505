"""Processes the verifier tests and bench/verify start and own: a Celery worker, a Redis.

No pytest here, so bench/verify runs the same worker the tests do.
"""

import ctypes
import fcntl
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[1]
CELERY = Path(sys.executable).with_name("celery")


def die_with_parent() -> None:
    """In a child, before it runs: SIGTERM it when the test process ends, however that ends
    (an interrupted run, a killed pytest), so no worker or server outlives the run and holds
    its test database. Linux's PR_SET_PDEATHSIG; elsewhere nothing."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


PR_SET_PDEATHSIG = 1


def owned(command: list[str], env: dict[str, str], log: IO[str]) -> subprocess.Popen:
    """A child of the test process in a session of its own (stopped as a group), its output in
    ``log``, ended with the test process however that ends (``die_with_parent``)."""
    return subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=die_with_parent,
    )


@contextmanager
def one_script_at_a_time() -> Iterator[None]:
    """Hold the checkout's lock while make run or make serve starts and serves: they share its
    var/ (the beat schedule, the admin password) and its collected static files, and a start's
    collectstatic rewrites what a running server reads. The suite's pytest-xdist workers take
    turns."""
    (ROOT / "var").mkdir(exist_ok=True)
    with open(ROOT / "var" / "scripts.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(condition, *, timeout: float, what: str, poll: float = 0.1):
    deadline = time.monotonic() + timeout
    while not (result := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(poll)
    return result


def manage(
    *args: str, database_url: str, broker_url: str, timeout: float = 120
) -> subprocess.CompletedProcess:
    """`python manage.py ARGS` as a user runs it, against this database and broker."""
    env = os.environ | {
        "DJANGO_SETTINGS_MODULE": "curriculum.settings",
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": broker_url,
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


class Worker:
    """`celery -A curriculum worker --beat` as a subprocess; start, stop, or SIGKILL it.

    `pool="prefork"` runs one forked child that executes the tasks, so a test can kill the
    child alone and watch the parent survive.
    """

    def __init__(
        self,
        *,
        name: str,
        broker_url: str,
        database_url: str,
        logdir: Path,
        env: dict[str, str] | None = None,
        beat: bool = True,
        pool: str = "solo",
    ):
        self.name, self.broker_url, self.database_url = name, broker_url, database_url
        self.logdir, self.env, self.beat, self.pool = logdir, env or {}, beat, pool
        self.process: subprocess.Popen | None = None
        self.starts = 0

    @property
    def log(self) -> Path:
        return self.logdir / f"{self.name}-{self.starts}.log"

    def start(self) -> None:
        self.starts += 1
        env = (
            {"DJANGO_SETTINGS_MODULE": "curriculum.settings"}
            | os.environ
            | self.env
            | {
                "DATABASE_URL": self.database_url,
                "CELERY_BROKER_URL": self.broker_url,
            }
        )
        command = [
            str(CELERY),
            "-A",
            "curriculum",
            "worker",
            f"--pool={self.pool}",
            "--concurrency=1",
            "-Q",
            "celery",
            *(
                ["--beat", "--schedule", str(self.logdir / f"{self.name}-{self.starts}.beat")]
                if self.beat
                else []
            ),
            "--hostname",
            f"{self.name}-{self.starts}@%h",
            "--loglevel=INFO",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
        with self.log.open("w") as log:
            self.process = owned(command, env, log)
        wait_for(
            lambda: " ready." in self.log_text() or self.process.poll() is not None,
            timeout=60,
            what=f"worker {self.name} to start",
        )
        assert self.process.poll() is None, f"worker {self.name} died:\n{self.log_text()}"

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def received(self, task: str = "verify_solution") -> int:
        """How many of these tasks this run of the worker has taken from the queue."""
        return sum(
            f"curriculum.tasks.{task}[" in line and line.endswith(" received")
            for line in self.log_text().splitlines()
        )

    def children(self) -> list[int]:
        """Process ids of the worker's pool children (none for the solo pool)."""
        pid = self.process.pid
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
        return [int(child) for child in text.split()]

    def child_cpu_seconds(self) -> float:
        """CPU time the one pool child has used: it grows only while the child runs a task."""
        [child] = self.children()
        fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime

    def kill_child(self) -> int:
        """SIGKILL the one pool child, as the kernel's OOM killer would; returns its pid."""
        [child] = self.children()
        os.kill(child, signal.SIGKILL)
        return child

    def kill(self) -> None:
        """SIGKILL the worker and its children: no cleanup, no acknowledgement."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.kill()


class RedisServer:
    """A Redis the test owns, on its own port, so stopping it never touches the machine's."""

    def __init__(self, workdir: Path):
        self.port, self.workdir = free_port(), workdir
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=die_with_parent,
        )
        wait_for(self._answers, timeout=10, what=f"redis on port {self.port}")

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
