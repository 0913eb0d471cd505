"""The code holds to its types: mypy over the engine and the Django side, as `make lint` runs
it. A test rather than a step before the suite: on a new checkout mypy has no cache and takes
a third of a minute on one core, which the suite's other tests now share instead of waiting."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_engine_and_the_django_side_type_check():
    mypy = Path(sys.executable).with_name("mypy")
    result = subprocess.run(
        [str(mypy), "attention", "curriculum"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
