"""Settings for `bench/api --conn-max-age N`: the site's settings with persistent database
connections, to show what opening a PostgreSQL connection per request costs."""

import os

from curriculum.settings import *  # noqa: F403

DATABASES["default"]["CONN_MAX_AGE"] = int(os.environ["BENCH_CONN_MAX_AGE"])  # noqa: F405
