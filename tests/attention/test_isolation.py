"""The engine must load without Django, Celery or the project package."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_importing_attention_loads_no_django_celery_or_curriculum():
    code = (
        "import sys, attention\n"
        "roots = {'django', 'celery', 'curriculum'}\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in roots)\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""


def test_engine_source_imports_only_numpy_and_the_standard_library():
    allowed = set(sys.stdlib_module_names) | {"numpy", "attention", "__future__"}
    for path in (ROOT / "attention").glob("*.py"):
        for line in path.read_text().splitlines():
            words = line.split()
            if words[:1] in (["import"], ["from"]) and len(words) > 1:
                assert words[1].split(".")[0] in allowed, f"{path.name}: {line}"
