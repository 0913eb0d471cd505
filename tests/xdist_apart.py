"""Each pytest-xdist worker on a Redis database of its own: its Celery broker, and the caches
the settings keep there (the test database is already each worker's own: pytest-django names
it per worker). Loaded with ``-p`` (pyproject.toml), so it runs before Django reads its
settings from the environment."""

import os
from urllib.parse import urlsplit

_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")  # "gw0", "gw1", ...: set by xdist first
_BROKER = urlsplit(os.environ.get("CELERY_BROKER_URL", ""))

if _WORKER.startswith("gw") and _BROKER.scheme.startswith("redis"):
    _number = int(_BROKER.path.strip("/") or 0) - int(_WORKER[2:])  # 15, 14, ...
    os.environ["CELERY_BROKER_URL"] = _BROKER._replace(path=f"/{_number % 16}").geturl()
