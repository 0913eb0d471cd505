#!/usr/bin/env bash
# The whole suite against the real PostgreSQL and Redis on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
export DATABASE_URL="${DATABASE_URL:-$DATABASE_URL_TEST}"
export CELERY_BROKER_URL="${CELERY_BROKER_URL:-redis://127.0.0.1:6379/15}"
# Debian's packages install while the code is linted (on a new machine, half a minute)
(scripts/install-browser.sh && scripts/install-nginx.sh) &  # the deploy tests serve behind nginx
packages=$!
# a lint failure ends the script: it still waits for apt, which must never stop half-way
trap 'wait "$packages" 2>/dev/null || true' EXIT
PARALLEL=()
if [ $# -eq 0 ]; then  # the whole suite also holds the code to the house lint (and to its
  # types: mypy is one of the tests, tests/test_types.py, run beside the others)
  .venv/bin/ruff check .
  .venv/bin/ruff format --check .
  # and runs a pytest-xdist worker per core and one more, each with its own database and
  # broker: a third of a worker's time is spent waiting (on browsers, subprocesses and the
  # Celery worker), and the extra one fills it (on 2 cores, 7.9 min where -n auto took 8.8).
  # At most 16: Redis has 16 databases, one a worker (tests/xdist_apart.py).
  workers=$(( $(nproc) + 1 ))
  PARALLEL=(-n "$(( workers < 16 ? workers : 16 ))" --dist worksteal)
fi
wait "$packages"
exec .venv/bin/python -m pytest "${PARALLEL[@]}" --durations=15 "$@"  # the slowest tests, where suite time goes
