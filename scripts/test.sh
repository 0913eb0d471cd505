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
  # and runs two pytest-xdist workers per core, each with its own database and broker: much
  # of a worker's time is spent waiting (on browsers, subprocesses, the Celery worker and the
  # sweep's timeouts), and the second fills it (on 2 cores, 9.6 min where 3 workers took 10.5).
  # At most 16: Redis has 16 databases, one a worker (tests/xdist_apart.py).
  workers=$(( 2 * $(nproc) ))
  PARALLEL=(-n "$(( workers < 16 ? workers : 16 ))" --dist worksteal)
fi
wait "$packages"
exec .venv/bin/python -m pytest "${PARALLEL[@]}" --durations=15 "$@"  # the slowest tests, where suite time goes
