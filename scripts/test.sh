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
if [ $# -eq 0 ]; then  # the whole suite also holds the code to the house lint and types
  .venv/bin/ruff check .
  .venv/bin/ruff format --check .
  .venv/bin/mypy attention curriculum
  # and runs on every core: a pytest-xdist worker each, with its own database and broker
  PARALLEL=(-n auto --dist worksteal)
fi
wait "$packages"
exec .venv/bin/python -m pytest "${PARALLEL[@]}" --durations=15 "$@"  # the slowest tests, where suite time goes
