"""An interrupted run leaves nothing running: a worker the tests start ends with them, however
the test process ends, so the next run finds its test database free."""

import os
import subprocess
import sys
import textwrap

import pytest
from django.conf import settings

from tests.processes import ROOT, wait_for

pytestmark = pytest.mark.worker


def test_a_worker_started_by_a_killed_test_process_ends_with_it(tmp_path):
    if not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip("a worker needs the run's Redis broker")
    script = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from tests.processes import Worker
        worker = Worker(name="orphan", broker_url={settings.CELERY_BROKER_URL!r},
                        database_url="postgres://nobody@127.0.0.1:1/none",
                        logdir=Path({str(tmp_path)!r}), beat=False)
        worker.start()
        print(worker.process.pid, flush=True)
        time.sleep(600)
    """)
    tests = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
    )
    worker = int(tests.stdout.readline())
    os.kill(tests.pid, 9)  # as an interrupted run's pytest is killed: no teardown runs
    tests.wait(timeout=10)

    def gone() -> bool:
        try:
            os.kill(worker, 0)
        except ProcessLookupError:
            return True
        with open(f"/proc/{worker}/stat") as stat:  # ended, not yet reaped by init
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"

    wait_for(gone, timeout=30, what="the orphaned worker to end")
