#!/usr/bin/env bash
# Migrate, load the seed content, print the admin login, then serve on 127.0.0.1:$PORT.
# With CELERY_BROKER_URL set, a verifier worker (with its sweep) runs beside the site.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
$BIN/python manage.py ensure_database
$BIN/python manage.py migrate --noinput
mkdir -p var
if [ -n "${CELERY_BROKER_URL:-}" ]; then
  $BIN/celery -A curriculum worker --beat --loglevel=warning --schedule var/celerybeat-schedule &
  worker=$!
  trap 'kill $worker 2>/dev/null || true' EXIT
  $BIN/python manage.py seed --wait 60
else
  $BIN/python manage.py seed
fi
echo "Site: http://127.0.0.1:${PORT:-8000}/   Admin: http://127.0.0.1:${PORT:-8000}/admin/"
$BIN/python manage.py runserver "127.0.0.1:${PORT:-8000}"
