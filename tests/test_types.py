"""The code holds to its types: mypy over the engine and the Django side, as `make lint` runs
it. A test rather than a step before the suite: with no cache mypy takes a third of a minute on
one core, which the suite's other tests share instead of waiting. Its cache lives outside the
checkout (MYPY_CACHE_DIR, by default under ~/.cache), so a new clone of the same code checks in
two seconds: mypy reads a cached module again only when its text and mypy's version match."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "curriculum-mypy"


def test_the_engine_and_the_django_side_type_check():
    mypy = Path(sys.executable).with_name("mypy")
    result = subprocess.run(
        [str(mypy), "attention", "curriculum"],
        cwd=ROOT,
        env={"MYPY_CACHE_DIR": str(CACHE)} | os.environ,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
